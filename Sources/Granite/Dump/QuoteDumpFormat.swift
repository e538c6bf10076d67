import GraniteStorage

/// The `sqlite3` shell's quote mode: one line per row, values as SQL literals (`NULL`, `1`, `'it''s'`,
/// `X'80'`) separated by commas.
///
/// ```swift
/// // 'Arthur',500
/// // 'Barbara',1000
/// try db.dumpRequest(Player.all(), format: .quote())
/// ```
///
/// Values are rendered as SQL's `quote()` function renders them: reals with enough digits to read back the
/// same, text up to its first NUL character.
public struct QuoteDumpFormat: Sendable {
    /// Whether the column names are printed, as quoted strings separated by ``separator``, before the first
    /// row of a statement.
    public var header: Bool

    /// What is printed between two values of a row.
    public var separator: String

    private var lines = SeparatedRowLines()

    /// Creates a quote format.
    ///
    /// - Parameters:
    ///   - header: Whether the column names are printed before the first row of a statement.
    ///   - separator: What is printed between two values of a row.
    public init(header: Bool = false, separator: String = ",") {
        self.header = header
        self.separator = separator
    }
}

extension QuoteDumpFormat: DumpFormat {
    /// Prints the header before the first row if asked, then the row's values on one line.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        lines.write(
            statement, header: header, separator: separator, to: &stream,
            name: { GraniteStorage.Value.text($0).quotedSQL }, value: { $0.quotedSQL })
    }

    /// Makes the format ready for the next statement.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        lines.reset()
    }
}

extension DumpFormat where Self == QuoteDumpFormat {
    /// The `sqlite3` shell's quote mode: one line per row, values as SQL literals; see ``QuoteDumpFormat``.
    ///
    /// ```swift
    /// // 'Arthur',500
    /// try db.dumpRequest(Player.all(), format: .quote())
    /// ```
    ///
    /// - Parameters:
    ///   - header: Whether the column names are printed before the first row of a statement.
    ///   - separator: What is printed between two values of a row.
    public static func quote(header: Bool = false, separator: String = ",") -> Self {
        QuoteDumpFormat(header: header, separator: separator)
    }
}
