import Foundation
import GraniteStorage

/// A JSON array of objects, one object per row and one line per object, column names as keys.
///
/// ```swift
/// // [{"name":"Arthur","score":500},
/// // {"name":"Barbara","score":1000}]
/// try db.dumpRequest(Player.all(), format: .json())
/// ```
///
/// Each key and value is encoded by ``encoder``: blobs in base64 by default. An encoder whose output formatting
/// contains `.prettyPrinted` gives one key per line. A statement with columns and no row prints `[]`.
public struct JSONDumpFormat: Sendable {
    /// The encoder that the default format uses: blobs in base64, slashes not escaped, and infinite reals as
    /// the strings `"inf"` and `"-inf"`.
    ///
    /// Each access returns a new encoder, which can be changed without affecting other formats.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        encoder.dataEncodingStrategy = .base64
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    /// The encoder of the keys and values.
    public var encoder: JSONEncoder

    private var hasPrintedRow = false

    /// Creates a JSON format.
    ///
    /// - Parameter encoder: The encoder of the keys and values; `.prettyPrinted` in its output formatting
    ///   prints one key per line.
    public init(encoder: JSONEncoder = JSONDumpFormat.defaultEncoder) {
        self.encoder = encoder
    }
}

extension JSONDumpFormat: DumpFormat {
    /// Opens the array before the first row, or ends the previous object's line, then prints the row's object.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        let isPretty = encoder.outputFormatting.contains(.prettyPrinted)
        if hasPrintedRow {
            stream.write(",\n")
        } else {
            hasPrintedRow = true
            stream.write(isPretty ? "[\n" : "[")
        }
        stream.write(isPretty ? "  {" : "{")
        for (position, index) in statement.dumpedColumnIndexes.enumerated() {
            if position > 0 { stream.write(",") }
            if isPretty { stream.write("\n    ") }
            try stream.write(encoded(statement.columnNames[index]))
            stream.write(":")
            try stream.write(encodedValue(statement.dumpedValue(at: index)))
        }
        stream.write(isPretty ? "\n  }" : "}")
    }

    /// Closes the array (or prints `[]` when the statement has columns but no row).
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if hasPrintedRow {
            if encoder.outputFormatting.contains(.prettyPrinted) { stream.write("\n") }
            stream.writeLine("]")
        } else if statement.columnCount > 0 {
            stream.writeLine("[]")
        }
        hasPrintedRow = false
    }

    private func encodedValue(_ value: GraniteStorage.Value) throws -> String {
        switch value {
        case .null: return "null"
        case .integer(let integer): return try encoded(integer)
        case .real(let real): return try encoded(real)
        case .text, .invalidUTF8Text: return try encoded(value.dumpedText ?? "")
        case .blob(let bytes): return try encoded(Data(bytes))
        }
    }

    private func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension DumpFormat where Self == JSONDumpFormat {
    /// A JSON array of objects, one object per row; see ``JSONDumpFormat``.
    ///
    /// ```swift
    /// // [{"name":"Arthur","score":500},
    /// // {"name":"Barbara","score":1000}]
    /// try db.dumpRequest(Player.all(), format: .json())
    /// ```
    ///
    /// - Parameter encoder: The encoder of the keys and values.
    public static func json(encoder: JSONEncoder = JSONDumpFormat.defaultEncoder) -> Self {
        JSONDumpFormat(encoder: encoder)
    }
}
