// Fetching rows and values from SQL and from prepared statements.

extension Row {
    /// A cursor over the rows of `sql`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> RowCursor {
        try RowCursor(statement: db.internalStatement(sql: sql), arguments: arguments)
    }

    /// Every row of `sql`.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Row] {
        try fetchAll(db.internalStatement(sql: sql), arguments: arguments)
    }

    /// The distinct rows of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Row> {
        try fetchSet(db.internalStatement(sql: sql), arguments: arguments)
    }

    /// The first row of `sql`, if any.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Row? {
        try fetchOne(db.internalStatement(sql: sql), arguments: arguments)
    }

    /// A cursor over the rows of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil) throws -> RowCursor {
        try RowCursor(statement: statement, arguments: arguments)
    }

    /// Every row of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Row] {
        let execution = try StatementExecution(statement: statement, arguments: arguments)
        var rows: [Row] = []
        var layout: RowLayout?
        while try execution.advance() {
            if layout == nil { layout = statement.layout() }
            rows.append(Row(values: statement.currentValues(), layout: layout!))
        }
        return rows
    }

    /// The distinct rows of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Set<Row> {
        Set(try fetchAll(statement, arguments: arguments))
    }

    /// The first row of a prepared statement, if any.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Row? {
        let execution = try StatementExecution(statement: statement, arguments: arguments)
        guard try execution.advance() else { return nil }
        return Row(values: statement.currentValues(), layout: statement.layout())
    }
}

extension DatabaseValueConvertible {
    /// A cursor over the values of the leftmost column of `sql`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: db.internalStatement(sql: sql), arguments: arguments)
    }

    /// The values of the leftmost column of `sql`.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try Array(fetchCursor(db, sql: sql, arguments: arguments))
    }

    /// The value of the leftmost column of the first row of `sql`; nil when there is no row or the value is
    /// NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try fetchOne(db.internalStatement(sql: sql), arguments: arguments)
    }

    /// A cursor over the values of the leftmost column of a prepared statement.
    public static func fetchCursor(
        _ statement: Statement, arguments: StatementArguments? = nil
    ) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: statement, arguments: arguments)
    }

    /// The values of the leftmost column of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments))
    }

    /// The value of the leftmost column of the first row of a prepared statement; nil when there is no row or
    /// the value is NULL.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Self? {
        let cursor = try DatabaseValueCursor<Self?>(statement: statement, arguments: arguments)
        return try cursor.next() ?? nil
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values of the leftmost column of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments))
    }

    /// The distinct values of the leftmost column of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Set<Self> {
        try Set(fetchCursor(statement, arguments: arguments))
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// A cursor over the values of the leftmost column of `sql`, decoded through the fast path.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: db.internalStatement(sql: sql), arguments: arguments)
    }

    /// The values of the leftmost column of `sql`, decoded through the fast path.
    @inlinable
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try fetchAll(db.internalStatement(sql: sql), arguments: arguments)
    }

    /// The value of the leftmost column of the first row of `sql`; nil when there is no row or it is NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try fetchOne(db.internalStatement(sql: sql), arguments: arguments)
    }

    /// A cursor over the values of the leftmost column of a prepared statement, decoded through the fast path.
    public static func fetchCursor(
        _ statement: Statement, arguments: StatementArguments? = nil
    ) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: statement, arguments: arguments)
    }

    /// The values of the leftmost column of a prepared statement, decoded through the fast path.
    @inlinable
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Self] {
        let cursor = try FastDatabaseValueCursor<Self>(statement: statement, arguments: arguments)
        var result: [Self] = []
        while let value = try cursor.next() { result.append(value) }
        return result
    }

    /// The value of the leftmost column of the first row of a prepared statement; nil when there is no row or
    /// it is NULL.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Self? {
        let execution = try StatementExecution(statement: statement, arguments: arguments)
        guard try execution.advance() else { return nil }
        guard statement.prepared.columnCount > 0 else { throw statement.database.noColumnError(statement) }
        let view = SQLiteStatement(prepared: statement.prepared)
        if view.isNull(atIndex: 0) { return nil }
        if let value = Self(sqliteStatement: view, index: 0) { return value }
        throw statement.leftmostColumnMismatch(Self.self)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible & Hashable {
    /// The distinct values of the leftmost column of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments))
    }

    /// The distinct values of the leftmost column of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Set<Self> {
        try Set(fetchCursor(statement, arguments: arguments))
    }
}
