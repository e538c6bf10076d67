// Upserts: `upsert` and `upsertAndFetch` (`INSERT … ON CONFLICT DO UPDATE … RETURNING`).

extension MutablePersistableRecord {
    /// Inserts the record, or updates the conflicting row with the record's values. Callbacks run as for
    /// an insertion: `willSave`, `aroundSave`, `willInsert`, `aroundInsert`, `didInsert`, `didSave`; the rowid
    /// given to `didInsert` is the one of the inserted or updated row.
    ///
    /// ```swift
    /// // INSERT INTO "player" ("id", "name") VALUES (?,?)
    /// // ON CONFLICT DO UPDATE SET "name" = "excluded"."name" RETURNING "rowid"
    /// try player.upsert(db)
    /// ```
    public mutating func upsert(_ db: Database) throws {
        try performUpsertAndFetch(
            db, onConflict: [], updating: .allColumns, doUpdate: nil, selection: [], decode: { _ in })
    }

    /// Inserts or updates the record, and returns the stored row.
    ///
    /// ```swift
    /// // Add the new score to the existing one on conflict.
    /// let player = try player.upsertAndFetch(db, doUpdate: { excluded in
    ///     [Column("score") += excluded["score"]]
    /// })
    /// ```
    ///
    /// - parameters:
    ///   - db: A connection in a write access.
    ///   - conflictTarget: the columns of the unique index that detects conflicts (any by default).
    ///   - strategy: which columns are overwritten on conflict (all but the key columns by default).
    ///   - assignments: explicit assignments on conflict, given the `excluded` alias of the proposed row.
    public mutating func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        try upsertAndFetch(db, as: Self.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// Inserts or updates the record, and returns the stored row decoded as `T`.
    public mutating func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> T {
        try performUpsertAndFetch(
            db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments,
            selection: T.databaseSelection, decode: { try T(row: $0) })
    }
}

// MARK: - Implementation

extension MutablePersistableRecord {
    /// `willSave`, `aroundSave` { upsert with insertion callbacks }, `didSave`.
    @discardableResult
    mutating func performUpsertAndFetch<T>(
        _ db: Database, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?,
        selection: [any SQLSelectable], decode: (Row) throws -> T
    ) throws -> T {
        try willSave(db)
        var record = self
        let (inserted, returned) = try runAround("aroundSave", { try aroundSave(db, save: $0) }) {
            let result = try record.upsertAndFetchWithCallbacks(
                db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments, selection: selection,
                decode: decode)
            return (PersistenceSuccess(result.0), result)
        }
        self = record
        didSave(PersistenceSuccess(inserted))
        return returned
    }

    /// `willInsert`, `aroundInsert` { upsert }, `didInsert`.
    mutating func upsertAndFetchWithCallbacks<T>(
        _ db: Database, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?,
        selection: [any SQLSelectable], decode: (Row) throws -> T
    ) throws -> (InsertionSuccess, T) {
        try willInsert(db)
        let result = try runAround("aroundInsert", { try aroundInsert(db, insert: $0) }) {
            let result = try upsertAndFetchWithoutCallbacks(
                db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments, selection: selection,
                decode: decode)
            return (result.0, result)
        }
        didInsert(result.0)
        return result
    }

    func upsertAndFetchWithoutCallbacks<T>(
        _ db: Database, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?,
        selection: [any SQLSelectable], decode: (Row) throws -> T
    ) throws -> (InsertionSuccess, T) {
        let statements = try PersistenceStatements(db, self)
        // The rowid is returned last, after the requested selection.
        let statement = try statements.upsertStatement(
            onConflict: conflictTarget, updating: strategy, doUpdate: assignments,
            returning: selection + [Column.rowID])
        let rows = try Row.fetchAll(statement)
        guard let row = rows.first else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "Insertion failed")
        }
        let rowID: Int64 = try row.decode(Int64.self, atIndex: row.count - 1)
        let returned = try decode(row)
        let rowIDColumn = statements.primaryKey.rowIDColumn
        var container = statements.container
        if let rowIDColumn { container[rowIDColumn] = rowID }
        return (InsertionSuccess(rowID: rowID, rowIDColumn: rowIDColumn, persistenceContainer: container), returned)
    }
}
