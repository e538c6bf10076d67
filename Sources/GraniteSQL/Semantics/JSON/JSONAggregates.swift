// The json_group_array and json_group_object aggregates.

import GraniteStorage

/// The running text of `json_group_array(x)` or `json_group_object(name, value)` over one group.
///
/// The value arguments arrive through ``SQLJSONFunction/aggregateArgument``: JSON text from a JSON function
/// as a BLOB of its bytes (embedded as it is), any other value as itself (embedded as `json_quote` would).
struct SQLJSONGroupAggregate: Sendable {
    /// Which aggregate this is.
    enum Kind: Sendable { case array, object }

    let kind: Kind
    private var bytes: [UInt8] = []
    private var started = false

    init(_ kind: Kind) { self.kind = kind }

    /// Adds one row: `label` is `json_group_object`'s name argument (any value as its text), `value` the value
    /// argument as described above.
    mutating func step(label: Value?, value: Value) throws {
        bytes.append(started ? UInt8(ascii: ",") : (kind == .array ? UInt8(ascii: "[") : UInt8(ascii: "{")))
        started = true
        if let label {
            // A NULL name writes nothing at all, not even quotes (SQLite's jsonAppendString of a null text).
            if let text = label.sqlTextBytes { JSONRendering.appendString(text, to: &bytes) }
            bytes.append(UInt8(ascii: ":"))
        }
        if case .blob(let json) = value {
            bytes.append(contentsOf: json)
        } else {
            do {
                try JSONRendering.appendValue(JSONArgument(value), to: &bytes)
            } catch {
                throw error.evaluationError
            }
        }
    }

    /// The JSON text: `[]` or `{}` for an empty group.
    func finish() -> Value {
        let close = kind == .array ? UInt8(ascii: "]") : UInt8(ascii: "}")
        if !started { return .text(kind == .array ? "[]" : "{}") }
        return .text(utf8: bytes + [close])
    }
}
