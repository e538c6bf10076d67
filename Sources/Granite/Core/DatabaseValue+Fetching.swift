// A NULL is a value for DatabaseValue: fetchOne tells "no row" (nil) from "a NULL" (.null), where the generic
// DatabaseValueConvertible.fetchOne returns nil for both.

extension DatabaseValue {
    /// The leftmost column of the first row of `sql`: `.null` for a NULL, nil when there is no row.
    ///
    /// ```swift
    /// let value = try DatabaseValue.fetchOne(db, sql: "SELECT NULL")   // .null
    /// ```
    ///
    /// - Throws: A ``DatabaseError`` when the SQL is invalid or fails.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> DatabaseValue? {
        try fetchOne(db.internalStatement(sql: sql), arguments: arguments)
    }

    /// The leftmost column of the first row of a prepared statement: `.null` for a NULL, nil when there is no
    /// row.
    ///
    /// - Throws: A ``DatabaseError`` when the statement fails, or when it returns no column.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> DatabaseValue? {
        try DatabaseValueCursor<DatabaseValue>(statement: statement, arguments: arguments).next()
    }

    /// The leftmost column of the first row of a request: `.null` for a NULL, nil when there is no row.
    ///
    /// - Throws: A ``DatabaseError`` when the request fails.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> DatabaseValue? {
        try fetchOne(request.makePreparedRequest(db, forSingleResult: true).statement)
    }
}
