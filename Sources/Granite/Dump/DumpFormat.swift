import GraniteStorage

/// A type that prints the rows of statements, for the dump methods such as
/// ``Database/dumpSQL(_:format:to:)`` and ``DatabaseReader/dumpContent(format:to:)``.
///
/// A format receives each row of a statement in ``writeRow(_:statement:to:)``, while the statement is positioned
/// on that row, then ``finalize(_:statement:to:)`` once the statement has no more rows. The same value serves
/// the statements of a dump one after the other: `finalize` resets what a format remembers about a statement
/// (whether it printed its header, for example).
///
/// The built-in formats follow the output modes of the `sqlite3` shell: ``debug(header:separator:nullValue:)``,
/// ``json(encoder:)``, ``line(nullValue:)``, ``list(header:separator:nullValue:)`` and
/// ``quote(header:separator:)``. They leave out the columns whose name starts with `grdb_` (the columns that
/// prefetched associations add to their queries).
public protocol DumpFormat {
    /// Prints the row the statement is positioned on.
    ///
    /// - Parameters:
    ///   - db: The connection that runs the statement.
    ///   - statement: The running statement.
    ///   - stream: Where the text goes.
    mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws

    /// Called after the last row of the statement (or with no row at all, for an empty result or a statement
    /// that returns no rows).
    ///
    /// - Parameters:
    ///   - db: The connection that ran the statement.
    ///   - statement: The statement that ran.
    ///   - stream: Where the text goes.
    mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream)
}

/// Where the dump methods print: a text stream that can put one empty line between two blocks of output
/// (see ``margin()``).
///
/// Without a stream, the dump methods print to standard output.
public struct DumpStream {
    private var base: any TextOutputStream
    private var isMarginPending = false

    init(_ base: (any TextOutputStream)?) {
        self.base = base ?? StandardOutput()
    }

    /// Asks for an empty line before the next text, if any text comes and it does not start with a line
    /// feed already.
    public mutating func margin() {
        isMarginPending = true
    }
}

extension DumpStream: TextOutputStream {
    /// Prints `string`, after the line feed a ``margin()`` asked for.
    public mutating func write(_ string: String) {
        if isMarginPending, let first = string.utf8.first {
            isMarginPending = false
            if first != UInt8(ascii: "\n") { base.write("\n") }
        }
        base.write(string)
    }

    /// Prints `string` and a line feed.
    mutating func writeLine(_ string: String) {
        write(string)
        write("\n")
    }
}

/// Standard output, for dumps called without a stream.
private struct StandardOutput: TextOutputStream {
    func write(_ string: String) {
        print(string, terminator: "")
    }
}

/// When ``Database/dumpTables(_:format:tableHeader:stableOrder:to:)`` prints the name of each table before
/// its rows.
public enum DumpTableHeaderOptions: Sendable {
    /// Names are printed when there is more than one table.
    case automatic

    /// Names are always printed.
    case always
}

/// The lines of the debug, list and quote formats: before a statement's first row, the column names when the
/// format prints a header; then one line per row, its values rendered and joined by the separator.
struct SeparatedRowLines: Sendable {
    private var hasPrintedRow = false

    /// Writes `statement`'s current row (and, before its first, the header if `header`).
    mutating func write(
        _ statement: Statement, header: Bool, separator: String, to stream: inout DumpStream,
        name: (String) -> String = { $0 }, value: (GraniteStorage.Value) -> String
    ) {
        if !hasPrintedRow {
            hasPrintedRow = true
            if header { stream.writeLine(statement.columnNames.map(name).joined(separator: separator)) }
        }
        stream.writeLine(
            statement.dumpedColumnIndexes.map { value(statement.dumpedValue(at: $0)) }.joined(separator: separator))
    }

    /// Makes the lines ready for the next statement.
    mutating func reset() { hasPrintedRow = false }
}
