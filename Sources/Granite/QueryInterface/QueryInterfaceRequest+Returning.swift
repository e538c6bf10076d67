// Batch deletes and updates that return values (`RETURNING`): `deleteAndFetchAll`, `updateAndFetchAll`, …

extension QueryInterfaceRequest {
    /// The conflict resolution of batch updates: the record type's ``PersistenceConflictPolicy`` when it has
    /// one, `ABORT` otherwise.
    static var defaultConflictResolutionForUpdate: Database.ConflictResolution {
        if let recordType = RowDecoder.self as? any MutablePersistableRecord.Type {
            return recordType.persistenceConflictPolicy.conflictResolutionForUpdate
        }
        return .abort
    }

    private func returningStatement(
        _ db: Database, sql: String, context: SQLGenerationContext, selection: [any SQLSelectable]
    ) throws -> Statement {
        guard !selection.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Invalid empty selection")
        }
        let tableName = databaseTableName
        let returning = try selection.map { try $0.sqlSelection.sql(context, tableName: tableName) }
            .joined(separator: ", ")
        let statement = try db.makeStatement(sql: sql + " RETURNING " + returning)
        try statement.setArguments(context.statementArguments)
        return statement
    }

    // MARK: Delete

    /// The statement that deletes the rows of the request and returns `selection`.
    ///
    /// ```swift
    /// // DELETE FROM "player" RETURNING "name"
    /// let statement = try Player.all().deleteAndFetchStatement(db, selection: [Column("name")])
    /// let deletedNames = try String.fetchSet(statement)
    /// ```
    public func deleteAndFetchStatement(_ db: Database, selection: [any SQLSelectable]) throws -> Statement {
        let context = SQLGenerationContext(db)
        let sql = try relation.deleteSQL(context)
        return try returningStatement(db, sql: sql, context: context, selection: selection)
    }

    /// The statement that deletes the rows of the request and returns the selection built from the
    /// record's columns.
    public func deleteAndFetchStatement(
        _ db: Database, select: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> Statement where RowDecoder: TableRecord {
        try deleteAndFetchStatement(db, selection: select(RowDecoder.databaseComponents))
    }

    /// Deletes the rows of the request, and returns a cursor over the deleted records.
    public func deleteAndFetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder>
    where RowDecoder: FetchableRecord & TableRecord {
        try RowDecoder.fetchCursor(deleteAndFetchStatement(db, selection: RowDecoder.databaseSelection))
    }

    /// Deletes the rows of the request, and returns the deleted records.
    ///
    /// ```swift
    /// // DELETE FROM "player" WHERE "score" < 10 RETURNING *
    /// let deleted = try Player.filter(Column("score") < 10).deleteAndFetchAll(db)
    /// ```
    public func deleteAndFetchAll(_ db: Database) throws -> [RowDecoder]
    where RowDecoder: FetchableRecord & TableRecord {
        try Array(deleteAndFetchCursor(db))
    }

    /// Deletes the rows of the request, and returns the set of deleted records.
    public func deleteAndFetchSet(_ db: Database) throws -> Set<RowDecoder>
    where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try Set(deleteAndFetchCursor(db))
    }

    /// Deletes the rows of the request, and returns the ids of the deleted records.
    public func deleteAndFetchIds(_ db: Database) throws -> Set<RowDecoder.ID>
    where RowDecoder: TableRecord & Identifiable, RowDecoder.ID: Hashable & DatabaseValueConvertible {
        let column = try db.filteringPrimaryKeyColumn(RowDecoder.databaseTableName)
        return try RowDecoder.ID.fetchSet(deleteAndFetchStatement(db, selection: [Column(column)]))
    }

    // MARK: Update

    /// The statement that updates the rows of the request and returns `selection`.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + 10 RETURNING "score"
    /// let statement = try Player.all().updateAndFetchStatement(
    ///     db, [Column("score") += 10], selection: [Column("score")])
    /// let scores = try Int.fetchAll(statement)
    /// ```
    public func updateAndFetchStatement(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment], selection: [any SQLSelectable]
    ) throws -> Statement {
        let context = SQLGenerationContext(db)
        guard
            let sql = try relation.updateSQL(
                context, conflictResolution: conflictResolution ?? Self.defaultConflictResolutionForUpdate,
                assignments: assignments)
        else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Invalid empty assignments")
        }
        return try returningStatement(db, sql: sql, context: context, selection: selection)
    }

    /// The statement that updates the rows of the request and returns a selection, both built from the
    /// record's columns.
    public func updateAndFetchStatement(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (RowDecoder.DatabaseComponents) throws -> [ColumnAssignment],
        select: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> Statement where RowDecoder: TableRecord {
        try updateAndFetchStatement(
            db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents),
            selection: select(RowDecoder.databaseComponents))
    }

    /// Updates the rows of the request, and returns a cursor over the updated records.
    public func updateAndFetchCursor(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]
    ) throws -> RecordCursor<RowDecoder> where RowDecoder: FetchableRecord & TableRecord {
        try RowDecoder.fetchCursor(
            updateAndFetchStatement(
                db, onConflict: conflictResolution, assignments, selection: RowDecoder.databaseSelection))
    }

    /// Updates the rows of the request, and returns a cursor over the updated records.
    public func updateAndFetchCursor(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (RowDecoder.DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> RecordCursor<RowDecoder> where RowDecoder: FetchableRecord & TableRecord {
        try updateAndFetchCursor(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }

    /// Updates the rows of the request, and returns the updated records.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + 10 RETURNING *
    /// let players = try Player.all().updateAndFetchAll(db) { [$0.score += 10] }
    /// ```
    public func updateAndFetchAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]
    ) throws -> [RowDecoder] where RowDecoder: FetchableRecord & TableRecord {
        try Array(updateAndFetchCursor(db, onConflict: conflictResolution, assignments))
    }

    /// Updates the rows of the request, and returns the updated records.
    public func updateAndFetchAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (RowDecoder.DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> [RowDecoder] where RowDecoder: FetchableRecord & TableRecord {
        try updateAndFetchAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }

    /// Updates the rows of the request, and returns the set of updated records.
    public func updateAndFetchSet(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]
    ) throws -> Set<RowDecoder> where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try Set(updateAndFetchCursor(db, onConflict: conflictResolution, assignments))
    }

    /// Updates the rows of the request, and returns the set of updated records.
    public func updateAndFetchSet(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (RowDecoder.DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> Set<RowDecoder> where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try updateAndFetchSet(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}
