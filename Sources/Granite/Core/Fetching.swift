// Fetching rows and values from SQL and from prepared statements.

extension Row {
    /// A cursor over the rows of `sql`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> RowCursor {
        try RowCursor(statement: db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Every row of `sql`.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> [Row] {
        try fetchAll(db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The distinct rows of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Set<Row> {
        try fetchSet(db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The first row of `sql`, if any.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Row? {
        try fetchOne(db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// A cursor over the rows of a prepared statement.
    ///
    /// - parameter statement: A prepared statement.
    /// - parameter arguments: Replaces the statement's arguments when not nil.
    /// - parameter adapter: Adapts the rows (see ``RowAdapter``); the cursor's reused row is the adapted row.
    /// - throws: A ``DatabaseError`` when the arguments or the adapter do not fit the statement.
    public static func fetchCursor(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> RowCursor {
        try RowCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// Every row of a prepared statement.
    ///
    /// - parameter statement: A prepared statement.
    /// - parameter arguments: Replaces the statement's arguments when not nil.
    /// - parameter adapter: Adapts the rows (see ``RowAdapter``).
    public static func fetchAll(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> [Row] {
        if let adapter { return try fetchAllAdapted(statement, arguments: arguments, adapter: adapter) }
        let execution = try StatementExecution(statement: statement, arguments: arguments)
        var rows: [Row] = []
        var layout: RowLayout?
        while try execution.advance() {
            if layout == nil { layout = statement.layout() }
            rows.append(Row(values: statement.currentValues(), layout: layout!))
        }
        return rows
    }

    /// Every row of a prepared statement, adapted: each keeps its copied unadapted row for its scopes.
    private static func fetchAllAdapted(
        _ statement: Statement, arguments: StatementArguments?, adapter: any RowAdapter
    ) throws -> [Row] {
        let layout = statement.layout()
        let resolved = try adapter.resolved(forStatementLayout: layout)
        let execution = try StatementExecution(statement: statement, arguments: arguments)
        var rows: [Row] = []
        while try execution.advance() {
            let base = Row(values: statement.currentValues(), layout: layout)
            rows.append(Row(adapting: base, with: resolved, statement: nil))
        }
        return rows
    }

    /// The distinct rows of a prepared statement.
    ///
    /// - parameter statement: A prepared statement.
    /// - parameter arguments: Replaces the statement's arguments when not nil.
    /// - parameter adapter: Adapts the rows (see ``RowAdapter``).
    public static func fetchSet(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> Set<Row> {
        Set(try fetchAll(statement, arguments: arguments, adapter: adapter))
    }

    /// The first row of a prepared statement, if any.
    ///
    /// - parameter statement: A prepared statement.
    /// - parameter arguments: Replaces the statement's arguments when not nil.
    /// - parameter adapter: Adapts the row (see ``RowAdapter``).
    public static func fetchOne(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> Row? {
        let resolved = try adapter?.resolved(forStatementLayout: statement.layout())
        let execution = try StatementExecution(statement: statement, arguments: arguments)
        guard try execution.advance() else { return nil }
        let row = Row(values: statement.currentValues(), layout: statement.layout())
        guard let resolved else { return row }
        return Row(adapting: row, with: resolved, statement: nil)
    }
}

extension DatabaseValueConvertible {
    /// A cursor over the values of the leftmost column of `sql`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The values of the leftmost column of `sql`.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try Array(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// The value of the leftmost column of the first row of `sql`; nil when there is no row or the value is
    /// NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try fetchOne(db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// A cursor over the values of the leftmost column of a prepared statement.
    public static func fetchCursor(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// The values of the leftmost column of a prepared statement.
    public static func fetchAll(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// The value of the leftmost column of the first row of a prepared statement; nil when there is no row or
    /// the value is NULL.
    public static func fetchOne(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        let cursor = try DatabaseValueCursor<Self?>(statement: statement, arguments: arguments, adapter: adapter)
        return try cursor.next() ?? nil
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values of the leftmost column of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// The distinct values of the leftmost column of a prepared statement.
    public static func fetchSet(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// A cursor over the values of the leftmost column of `sql`, decoded through the fast path.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(
            statement: db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The values of the leftmost column of `sql`, decoded through the fast path.
    @inlinable
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try fetchAll(db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The value of the leftmost column of the first row of `sql`; nil when there is no row or it is NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try fetchOne(db.internalStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// A cursor over the values of the leftmost column of a prepared statement, decoded through the fast path.
    public static func fetchCursor(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// The values of the leftmost column of a prepared statement, decoded through the fast path.
    @inlinable
    public static func fetchAll(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        let cursor = try FastDatabaseValueCursor<Self>(statement: statement, arguments: arguments, adapter: adapter)
        var result: [Self] = []
        while let value = try cursor.next() { result.append(value) }
        return result
    }

    /// The value of the leftmost column of the first row of a prepared statement; nil when there is no row or
    /// it is NULL.
    public static func fetchOne(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        let columnIndex = try statement.leftmostColumnIndex(adapter: adapter)
        let execution = try StatementExecution(statement: statement, arguments: arguments)
        guard try execution.advance() else { return nil }
        try execution.checkColumn(columnIndex)
        let view = SQLiteStatement(prepared: statement.prepared)
        let index = CInt(truncatingIfNeeded: columnIndex)
        if view.isNull(atIndex: index) { return nil }
        if let value = Self(sqliteStatement: view, index: index) { return value }
        throw statement.columnMismatch(Self.self, at: columnIndex)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible & Hashable {
    /// The distinct values of the leftmost column of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// The distinct values of the leftmost column of a prepared statement.
    public static func fetchSet(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }
}
