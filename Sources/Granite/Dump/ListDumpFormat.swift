import GraniteStorage

/// The `sqlite3` shell's list mode: one line per row, values separated by `|`, blobs printed as text.
///
/// ```swift
/// // Arthur|500
/// // Barbara|1000
/// try db.dumpRequest(Player.all(), format: .list())
/// ```
///
/// Values are not escaped: a value that holds the separator or a line feed makes the output ambiguous. Text
/// and blobs print up to their first NUL byte, with ill-formed UTF-8 replaced by U+FFFD.
public struct ListDumpFormat: Sendable {
    /// Whether the column names are printed, separated by ``separator``, before the first row of a statement.
    public var header: Bool

    /// What is printed between two values of a row.
    public var separator: String

    /// What is printed for NULL.
    public var nullValue: String

    private var lines = SeparatedRowLines()

    /// Creates a list format.
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

extension ListDumpFormat: DumpFormat {
    /// Prints the header before the first row if asked, then the row's values on one line.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        let nullValue = nullValue
        lines.write(statement, header: header, separator: separator, to: &stream) {
            $0.dumpedPlainText(nullValue: nullValue)
        }
    }

    /// Makes the format ready for the next statement.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        lines.reset()
    }
}

extension GraniteStorage.Value {
    /// The value as the list and line formats print it: numbers in Swift's notation, text and blobs as text.
    func dumpedPlainText(nullValue: String) -> String {
        switch self {
        case .null: return nullValue
        case .integer(let integer): return String(integer)
        case .real(let real): return real.description
        case .text, .invalidUTF8Text, .blob: return dumpedText ?? ""
        }
    }
}

extension DumpFormat where Self == ListDumpFormat {
    /// The `sqlite3` shell's list mode: one line per row, values separated by `|`; see ``ListDumpFormat``.
    ///
    /// ```swift
    /// // Arthur|500
    /// try db.dumpRequest(Player.all(), format: .list())
    /// ```
    ///
    /// - Parameters:
    ///   - header: Whether the column names are printed before the first row of a statement.
    ///   - separator: What is printed between two values of a row.
    ///   - nullValue: What is printed for NULL.
    public static func list(header: Bool = false, separator: String = "|", nullValue: String = "") -> Self {
        ListDumpFormat(header: header, separator: separator, nullValue: nullValue)
    }
}
