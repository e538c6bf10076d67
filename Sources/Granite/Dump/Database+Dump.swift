extension Database {
    /// Prints the rows of each statement of `sql`, one statement after the other.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// // 2|Barbara|1000
    /// try db.dumpSQL("SELECT * FROM player ORDER BY id")
    /// ```
    ///
    /// Statements that return no rows (`CREATE TABLE`, `INSERT`) run and print nothing. When a statement
    /// fails, what the previous statements printed stays printed, and the error is thrown.
    ///
    /// - Parameters:
    ///   - sql: One or more SQL statements, separated by semicolons.
    ///   - format: How rows are printed (``DumpFormat/debug(header:separator:nullValue:)`` by default).
    ///   - stream: Where the text goes; standard output when nil.
    public func dumpSQL(
        _ sql: SQL, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil
    ) throws {
        var dumpStream = DumpStream(stream)
        try dumpStatements(allStatements(literal: sql), format: format, to: &dumpStream)
    }

    /// Prints the rows of a request. The rows of associations included with `including(all:)` follow, after an
    /// empty line and the association's key.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// // 2|Barbara|1000
    /// try db.dumpRequest(Player.orderByPrimaryKey())
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request to run.
    ///   - format: How rows are printed (``DumpFormat/debug(header:separator:nullValue:)`` by default).
    ///   - stream: Where the text goes; standard output when nil.
    public func dumpRequest(
        _ request: some FetchRequest, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil
    ) throws {
        var dumpStream = DumpStream(stream)
        try dumpRequest(request, format: format, to: &dumpStream)
    }

    /// Prints the rows of tables and views. Tables list their rows in primary key order; views in their own
    /// order, or, with `stableOrder`, ordered by all their columns so that the output does not change between
    /// runs (for tests).
    ///
    /// ```swift
    /// // player
    /// // 1|Arthur|500
    /// // 2|Barbara|1000
    /// //
    /// // team
    /// // 1|Red
    /// try db.dumpTables(["player", "team"])
    /// ```
    ///
    /// - Parameters:
    ///   - tables: The names of the tables and views, printed in this order.
    ///   - format: How rows are printed (``DumpFormat/debug(header:separator:nullValue:)`` by default).
    ///   - tableHeader: Whether each table's name is printed before its rows: by default, only when there are
    ///     several tables.
    ///   - stableOrder: Whether the rows of views are ordered by all their columns.
    ///   - stream: Where the text goes; standard output when nil.
    public func dumpTables(
        _ tables: [String],
        format: some DumpFormat = .debug(),
        tableHeader: DumpTableHeaderOptions = .automatic,
        stableOrder: Bool = false,
        to stream: (any TextOutputStream)? = nil
    ) throws {
        var dumpStream = DumpStream(stream)
        try dumpTables(tables, format: format, tableHeader: tableHeader, stableOrder: stableOrder, to: &dumpStream)
    }

    /// Prints the schema (as ``dumpSchema(to:)`` does), then the rows of every table, tables sorted by name
    /// case-insensitively, each under its name, in primary key order.
    ///
    /// ```
    /// sqlite_master
    /// CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
    ///
    /// player
    /// 1|Arthur|500
    /// 2|Barbara|1000
    /// ```
    ///
    /// Internal tables (names that start with `sqlite_`, `grdb_` or `granite_`) are left out.
    ///
    /// - Parameters:
    ///   - format: How rows are printed (``DumpFormat/debug(header:separator:nullValue:)`` by default).
    ///   - stream: Where the text goes; standard output when nil.
    public func dumpContent(format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        var dumpStream = DumpStream(stream)
        try dumpSchema(to: &dumpStream)
        dumpStream.margin()
        let tables = try String
            .fetchAll(self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name COLLATE NOCASE")
            .filter { !Self.isDumpHidden($0) }
        try dumpTables(tables, format: format, tableHeader: .always, stableOrder: true, to: &dumpStream)
    }

    /// Prints `sqlite_master`, then the SQL of each table, index, view and trigger followed by a semicolon,
    /// grouped by table (the table first, then its indexes, then the other objects) with tables sorted by name
    /// case-insensitively.
    ///
    /// ```
    /// sqlite_master
    /// CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
    /// CREATE INDEX player_on_name ON player(name);
    /// ```
    ///
    /// Internal objects (names that start with `sqlite_`, `grdb_` or `granite_`) are left out.
    ///
    /// - Parameter stream: Where the text goes; standard output when nil.
    public func dumpSchema(to stream: (any TextOutputStream)? = nil) throws {
        var dumpStream = DumpStream(stream)
        try dumpSchema(to: &dumpStream)
    }
}

extension Database {
    /// Runs each statement and gives its rows to a fresh copy of `format`.
    func dumpStatements(
        _ statements: SQLStatementCursor, format: some DumpFormat, to stream: inout DumpStream
    ) throws {
        while let statement = try statements.next() {
            try dumpStatement(statement, format: format, to: &stream)
        }
    }

    private func dumpStatement(_ statement: Statement, format: some DumpFormat, to stream: inout DumpStream) throws {
        var statementFormat = format
        let execution = try StatementExecution(statement: statement, arguments: nil)
        while try execution.advance() {
            try statementFormat.writeRow(self, statement: statement, to: &stream)
        }
        statementFormat.finalize(self, statement: statement, to: &stream)
    }

    func dumpRequest(_ request: some FetchRequest, format: some DumpFormat, to stream: inout DumpStream) throws {
        let prepared = try request.makePreparedRequest(self, forSingleResult: false)
        try dumpStatement(prepared.statement, format: format, to: &stream)
        guard let supplementaryFetch = prepared.supplementaryFetch else { return }

        // The prefetch queries run again, each announced to the hook, which prints its rows (and, through
        // this method, those of its own prefetches).
        let rows = try Row.fetchAll(self, request)
        let output = DumpStreamBox(stream)
        let previousHook = prefetchWillExecute
        defer {
            prefetchWillExecute = previousHook
            stream = output.stream
        }
        prefetchWillExecute = { [unowned self] request, keyPath in
            output.stream.write("\n")
            output.stream.writeLine(keyPath.joined(separator: "."))
            try dumpRequest(request, format: format, to: &output.stream)
        }
        try supplementaryFetch(self, rows)
    }

    func dumpTables(
        _ tables: [String],
        format: some DumpFormat,
        tableHeader: DumpTableHeaderOptions,
        stableOrder: Bool,
        to stream: inout DumpStream
    ) throws {
        let printsNames = tableHeader == .always || tables.count > 1
        for (position, table) in tables.enumerated() {
            if position > 0 { stream.write("\n") }
            if printsNames { stream.writeLine(table) }
            let rows = Table<Row>(table).all()
            if try tableExists(table) {
                try dumpRequest(rows.orderByPrimaryKey(), format: format, to: &stream)
            } else if stableOrder {
                try dumpRequest(rows.withStableOrder(), format: format, to: &stream)
            } else {
                try dumpRequest(rows, format: format, to: &stream)
            }
        }
    }

    func dumpSchema(to stream: inout DumpStream) throws {
        stream.writeLine("sqlite_master")
        let objects = try Row.fetchAll(self, sql: """
            SELECT sql || ';', name FROM sqlite_master WHERE sql IS NOT NULL
            ORDER BY tbl_name COLLATE NOCASE,
                     CASE type WHEN 'table' THEN 'a' WHEN 'index' THEN 'aa' ELSE type END,
                     name COLLATE NOCASE,
                     sql
            """)
        for object in objects {
            let name: String = object[1]
            if Self.isDumpHidden(name) { continue }
            stream.writeLine(object[0])
        }
    }

    /// Whether the dumps leave out the schema object: SQLite's and GRDB's internal tables, and Granite's own
    /// (`granite_sequence`, Granite's `sqlite_sequence`, which GRDB's dumps leave out under SQLite's name).
    private static func isDumpHidden(_ name: String) -> Bool {
        isSQLiteInternalTable(name) || isGRDBInternalTable(name) || name.hasPrefix("granite_")
    }
}

/// A dump stream that a closure can write to while the dump method that owns it waits.
private final class DumpStreamBox {
    var stream: DumpStream
    init(_ stream: DumpStream) { self.stream = stream }
}
