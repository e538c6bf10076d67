/// The `sqlite3` shell's line mode: one line per value, `name = value`, names right-aligned, an empty line
/// between rows.
///
/// ```swift
/// //  name = Arthur
/// // score = 500
/// //
/// //  name = Barbara
/// // score = 1000
/// try db.dumpRequest(Player.all(), format: .line())
/// ```
///
/// Text and blobs print as text, up to their first NUL byte, with ill-formed UTF-8 replaced by U+FFFD.
public struct LineDumpFormat: Sendable {
    /// What is printed for NULL.
    public var nullValue: String

    private var hasPrintedRow = false

    /// Creates a line format.
    ///
    /// - Parameter nullValue: What is printed for NULL.
    public init(nullValue: String = "") {
        self.nullValue = nullValue
    }
}

extension LineDumpFormat: DumpFormat {
    /// Prints the row's values, one per line, after an empty line when a row of the statement came before.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        let columns = statement.dumpedColumnIndexes
        if columns.isEmpty { return }
        if hasPrintedRow { stream.write("\n") }
        hasPrintedRow = true
        let names = columns.map { statement.columnNames[$0] }
        // Names are aligned by their number of characters, and cut to the longest one.
        let width = names.map(\.count).max() ?? 0
        for (name, index) in zip(names, columns) {
            stream.write(String(repeating: " ", count: width - name.count))
            stream.write(name)
            stream.write(" = ")
            stream.writeLine(statement.dumpedValue(at: index).dumpedPlainText(nullValue: nullValue))
        }
    }

    /// Asks for an empty line before whatever the next statement prints, if this one printed rows.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if hasPrintedRow { stream.margin() }
        hasPrintedRow = false
    }
}

extension DumpFormat where Self == LineDumpFormat {
    /// The `sqlite3` shell's line mode: one line per value, `name = value`; see ``LineDumpFormat``.
    ///
    /// ```swift
    /// //  name = Arthur
    /// // score = 500
    /// try db.dumpRequest(Player.all(), format: .line())
    /// ```
    ///
    /// - Parameter nullValue: What is printed for NULL.
    public static func line(nullValue: String = "") -> Self {
        LineDumpFormat(nullValue: nullValue)
    }
}
