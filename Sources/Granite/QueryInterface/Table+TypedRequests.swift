// Requests of a `Table` that change the decoded type, or assign columns of its record type.

extension Table {
    /// Selects raw SQL and decodes rows as `type`:
    /// `Table("player").select(sql: "MAX(score)", as: Int.self)` is `SELECT MAX(score) FROM "player"`.
    public func select<T>(
        sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self
    ) -> QueryInterfaceRequest<T> {
        all().select(sql: sql, arguments: arguments, as: type)
    }

    /// Selects an SQL literal and decodes rows as `type`:
    /// `Table("player").select(literal: "IFNULL(name, \(default))", as: String.self)`.
    public func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(literal: sqlLiteral, as: type)
    }
}

extension Table where RowDecoder: TableRecord {
    /// Updates all rows with an assignment built from the record's columns, and returns the number of
    /// updated rows: `try Table<Player>("player").updateAll(db) { $0.score += 1 }`.
    ///
    /// - parameter db: A connection in a write access.
    /// - parameter conflictResolution: The `UPDATE OR …` policy; nil uses the record type's default.
    /// - parameter assignment: Builds the assignment from the record type's columns.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignment: (DatabaseComponents) throws -> ColumnAssignment
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, [assignment(RowDecoder.databaseComponents)])
    }

    /// Updates all rows with assignments built from the record's columns, and returns the number of
    /// updated rows: `try Table<Player>("player").updateAll(db) { [$0.score.set(to: 0), $0.bonus.set(to: nil)] }`.
    ///
    /// - parameter db: A connection in a write access.
    /// - parameter conflictResolution: The `UPDATE OR …` policy; nil uses the record type's default.
    /// - parameter assignments: Builds the assignments from the record type's columns.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// Updates the rows of the request with an assignment built from the record's columns, and returns the
    /// number of updated rows: `try Player.filter { $0.team == "red" }.updateAll(db) { $0.score += 1 }`.
    ///
    /// - parameter db: A connection in a write access.
    /// - parameter conflictResolution: The `UPDATE OR …` policy; nil uses the record type's default.
    /// - parameter assignment: Builds the assignment from the record type's columns.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignment: (RowDecoder.DatabaseComponents) throws -> ColumnAssignment
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, [assignment(RowDecoder.databaseComponents)])
    }
}
