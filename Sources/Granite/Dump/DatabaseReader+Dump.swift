// The dump methods of a reader run in a reentrant read, so that they also work from inside another access of
// the same reader (debugging a test from a breakpoint in a `write` block).

extension DatabaseReader {
    /// Prints the rows of each statement of `sql`: see ``Database/dumpSQL(_:format:to:)``.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// try dbQueue.dumpSQL("SELECT * FROM player ORDER BY id")
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One or more SQL statements, separated by semicolons.
    ///   - format: How rows are printed (``DumpFormat/debug(header:separator:nullValue:)`` by default).
    ///   - stream: Where the text goes; standard output when nil.
    public func dumpSQL(
        _ sql: SQL, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil
    ) throws {
        try unsafeReentrantRead { db in try db.dumpSQL(sql, format: format, to: stream) }
    }

    /// Prints the rows of a request and of its prefetched associations: see
    /// ``Database/dumpRequest(_:format:to:)``.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// try dbQueue.dumpRequest(Player.orderByPrimaryKey())
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request to run.
    ///   - format: How rows are printed (``DumpFormat/debug(header:separator:nullValue:)`` by default).
    ///   - stream: Where the text goes; standard output when nil.
    public func dumpRequest(
        _ request: some FetchRequest, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil
    ) throws {
        try unsafeReentrantRead { db in try db.dumpRequest(request, format: format, to: stream) }
    }

    /// Prints the rows of tables and views: see ``Database/dumpTables(_:format:tableHeader:stableOrder:to:)``.
    ///
    /// ```swift
    /// try dbQueue.dumpTables(["player", "team"])
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
        try unsafeReentrantRead { db in
            try db.dumpTables(tables, format: format, tableHeader: tableHeader, stableOrder: stableOrder, to: stream)
        }
    }

    /// Prints the schema and the rows of every table: see ``Database/dumpContent(format:to:)``.
    ///
    /// ```swift
    /// try dbQueue.dumpContent()
    /// ```
    ///
    /// - Parameters:
    ///   - format: How rows are printed (``DumpFormat/debug(header:separator:nullValue:)`` by default).
    ///   - stream: Where the text goes; standard output when nil.
    public func dumpContent(format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpContent(format: format, to: stream) }
    }

    /// Prints the SQL of the schema objects: see ``Database/dumpSchema(to:)``.
    ///
    /// ```swift
    /// try dbQueue.dumpSchema()
    /// ```
    ///
    /// - Parameter stream: Where the text goes; standard output when nil.
    public func dumpSchema(to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpSchema(to: stream) }
    }
}
