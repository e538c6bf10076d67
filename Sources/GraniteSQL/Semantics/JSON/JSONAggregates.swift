// The json_group_array and json_group_object aggregates.

import GraniteStorage

/// The running text of `json_group_array(x)` or `json_group_object(name, value)` over one group.
///
/// The value arguments arrive already rendered as JSON (the compiler wraps them in `json_quote`, which keeps
/// the JSON subtype of nested JSON functions in view), so a step only appends text.
struct SQLJSONGroupAggregate: Sendable {
    /// Which aggregate this is.
    enum Kind: Sendable { case array, object }

    let kind: Kind
    private var bytes: [UInt8] = []
    private var started = false

    init(_ kind: Kind) { self.kind = kind }

    /// Adds one row: `label` is `json_group_object`'s name argument (any value as its text),
    /// `renderedValue` the JSON text of the value.
    mutating func step(label: Value?, renderedValue: Value) {
        bytes.append(started ? UInt8(ascii: ",") : (kind == .array ? UInt8(ascii: "[") : UInt8(ascii: "{")))
        started = true
        if let label {
            // A NULL name writes nothing at all, not even quotes (SQLite's jsonAppendString of a null text).
            if let text = label.sqlTextBytes { JSONRendering.appendString(text, to: &bytes) }
            bytes.append(UInt8(ascii: ":"))
        }
        if let text = renderedValue.sqlTextBytes { bytes.append(contentsOf: text) }
    }

    /// The JSON text: `[]` or `{}` for an empty group.
    func finish() -> Value {
        let close = kind == .array ? UInt8(ascii: "]") : UInt8(ascii: "}")
        if !started { return .text(kind == .array ? "[]" : "{}") }
        return .text(String(decoding: bytes + [close], as: UTF8.self))
    }
}
