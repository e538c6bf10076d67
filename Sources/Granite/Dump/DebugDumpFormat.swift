import Foundation
import GraniteStorage

/// A format for reading rows while debugging: one line per row, values separated by `|`.
///
/// Blobs print as text when they are valid UTF-8, as a UUID when they are 16 other bytes, and as a blob
/// literal (`X'80FF'`) otherwise. The format is meant for people: it may change, so do not parse it or test
/// against it.
///
/// ```swift
/// // Arthur|500
/// // Barbara|1000
/// try db.dumpRequest(Player.all(), format: .debug())
/// ```
public struct DebugDumpFormat: Sendable {
    /// Whether the column names are printed, separated by ``separator``, before the first row of a statement.
    public var header: Bool

    /// What is printed between two values of a row.
    public var separator: String

    /// What is printed for NULL.
    public var nullValue: String

    private var lines = SeparatedRowLines()

    /// Creates a debug format.
    ///
    /// - Parameters:
    ///   - header: Whether the column names are printed before the first row of a statement.
    ///   - separator: What is printed between two values of a row.
    ///   - nullValue: What is printed for NULL.
    public init(header: Bool = false, separator: String = "|", nullValue: String = "") {
        self.header = header
        self.separator = separator
        self.nullValue = nullValue
    }
}

extension DebugDumpFormat: DumpFormat {
    /// Prints the header before the first row if asked, then the row's values on one line.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        let nullValue = nullValue
        lines.write(statement, header: header, separator: separator, to: &stream) {
            Self.render($0, nullValue: nullValue)
        }
    }

    /// Makes the format ready for the next statement.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        lines.reset()
    }

    private static func render(_ value: GraniteStorage.Value, nullValue: String) -> String {
        switch value {
        case .null: return nullValue
        case .integer(let integer): return String(integer)
        case .real(let real): return real.description
        case .text, .invalidUTF8Text: return value.dumpedText ?? ""
        case .blob(let bytes):
            if let text = String(validating: bytes, as: UTF8.self) { return text }
            if bytes.count == 16 { return UUID(uuid: uuidBytes(bytes)).uuidString }
            return value.quotedSQL
        }
    }

    private static func uuidBytes(_ b: [UInt8]) -> uuid_t {
        (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }
}

extension DumpFormat where Self == DebugDumpFormat {
    /// A format for reading rows while debugging: one line per row, values separated by `|`; see
    /// ``DebugDumpFormat``.
    ///
    /// ```swift
    /// // Arthur|500
    /// try db.dumpRequest(Player.all(), format: .debug())
    /// ```
    ///
    /// - Parameters:
    ///   - header: Whether the column names are printed before the first row of a statement.
    ///   - separator: What is printed between two values of a row.
    ///   - nullValue: What is printed for NULL.
    public static func debug(header: Bool = false, separator: String = "|", nullValue: String = "") -> Self {
        DebugDumpFormat(header: header, separator: separator, nullValue: nullValue)
    }
}
