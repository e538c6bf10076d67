// Updates: `update`, `update(columns:)`, `updateChanges`, `updateAndFetch`, and the update callbacks.

extension MutablePersistableRecord {
    /// Does nothing.
    public func willUpdate(_ db: Database, columns: Set<String>) throws {}

    /// Performs the update.
    public func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        _ = try update()
    }

    /// Does nothing.
    public func didUpdate(_ updated: PersistenceSuccess) {}
}

extension MutablePersistableRecord {
    /// Updates the given columns of the row identified by the record's primary key. Callbacks run in this
    /// order: `willSave`, `aroundSave`, `willUpdate`, `aroundUpdate`, `didUpdate`, `didSave`.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score"=? WHERE "id"=?
    /// try player.update(db, columns: ["score"])
    /// ```
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when no row has the primary key.
    public func update(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<String>
    ) throws {
        _ = try performUpdateAndFetch(db, onConflict: conflictResolution, columns: Set(columns), selection: []) {
            try $0.execute()
        }
    }

    /// Updates the given columns of the row identified by the record's primary key.
    ///
    /// ```swift
    /// try player.update(db, columns: [Column("score")])
    /// ```
    public func update(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<some ColumnExpression>
    ) throws {
        try update(db, onConflict: conflictResolution, columns: columns.map(\.name))
    }

    /// Updates all columns of the row identified by the record's primary key.
    ///
    /// ```swift
    /// // UPDATE "player" SET "name"=?, "score"=? WHERE "id"=?
    /// try player.update(db)
    /// ```
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when no row has the primary key.
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        let columns = try db.cachedColumnNames(type(of: self).databaseTableName)
        try update(db, onConflict: conflictResolution, columns: columns)
    }

    /// Updates the columns that differ from `record`; returns whether an UPDATE was executed.
    ///
    /// ```swift
    /// try newPlayer.updateChanges(db, from: oldPlayer)
    /// ```
    @discardableResult
    public func updateChanges<Record: MutablePersistableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, from record: Record
    ) throws -> Bool {
        try updateChanges(db, onConflict: conflictResolution, from: PersistenceContainer(db, record))
    }

    /// Modifies the record, and updates the columns that changed; returns whether an UPDATE was executed.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score"=? WHERE "id"=?
    /// try player.updateChanges(db) { $0.score = 1000 }
    /// ```
    @discardableResult
    public mutating func updateChanges(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        modify: (inout Self) throws -> Void
    ) throws -> Bool {
        let container = try PersistenceContainer(db, self)
        try modify(&self)
        return try updateChanges(db, onConflict: conflictResolution, from: container)
    }

    /// Updates all columns and returns the updated row (`RETURNING *`).
    public func updateAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil)
        throws -> Self
    where Self: FetchableRecord {
        try updateAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Updates all columns and returns the updated row decoded as `T`.
    public func updateAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try updateAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection) {
            guard let result = try T.fetchOne($0) else { throw recordNotFound(db) }
            return result
        }
    }

    /// Updates the given columns, and returns what `fetch` extracts from the statement that returns
    /// `selection`.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<String>, selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try performUpdateAndFetch(
            db, onConflict: conflictResolution, columns: Set(columns), selection: selection, fetch: fetch)
    }

    /// Updates the given columns, and returns what `fetch` extracts from the statement that returns
    /// `selection`.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<some ColumnExpression>, selection: [any SQLSelectable],
        fetch: (Statement) throws -> T
    ) throws -> T {
        try updateAndFetch(
            db, onConflict: conflictResolution, columns: columns.map(\.name), selection: selection, fetch: fetch)
    }

    /// Updates all columns, and returns what `fetch` extracts from the statement that returns `selection`.
    ///
    /// ```swift
    /// // UPDATE "player" SET "name"=?, "score"=? WHERE "id"=? RETURNING "score"
    /// let score = try player.updateAndFetch(db, selection: [Column("score")]) { try Int.fetchOne($0) }
    /// ```
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        let columns = try db.cachedColumnNames(type(of: self).databaseTableName)
        return try updateAndFetch(
            db, onConflict: conflictResolution, columns: columns, selection: selection, fetch: fetch)
    }

    /// Modifies the record, updates the columns that changed, and returns the updated row, or nil when
    /// nothing changed (and no UPDATE was executed).
    public mutating func updateChangesAndFetch(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        modify: (inout Self) throws -> Void
    ) throws -> Self? where Self: FetchableRecord {
        try updateChangesAndFetch(db, onConflict: conflictResolution, as: Self.self, modify: modify)
    }

    /// Modifies the record, updates the columns that changed, and returns the updated row decoded as `T`,
    /// or nil when nothing changed.
    public mutating func updateChangesAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type,
        modify: (inout Self) throws -> Void
    ) throws -> T? {
        let record = self
        return try updateChangesAndFetch(
            db, onConflict: conflictResolution, selection: T.databaseSelection,
            fetch: {
                guard let result = try T.fetchOne($0) else { throw record.recordNotFound(db) }
                return result
            }, modify: modify)
    }

    /// Modifies the record, updates the columns that changed, and returns what `fetch` extracts from the
    /// statement that returns `selection`, or nil when nothing changed.
    public mutating func updateChangesAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T, modify: (inout Self) throws -> Void
    ) throws -> T? {
        let container = try PersistenceContainer(db, self)
        try modify(&self)
        let changed = changedColumns(from: try PersistenceContainer(db, self), to: container)
        if changed.isEmpty { return nil }
        return try performUpdateAndFetch(
            db, onConflict: conflictResolution, columns: changed, selection: selection, fetch: fetch)
    }
}

// MARK: - Implementation

extension MutablePersistableRecord {
    private func changedColumns(from current: PersistenceContainer, to old: PersistenceContainer) -> Set<String> {
        Set(current.changes(from: old).map(\.0))
    }

    func updateChanges(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        from container: PersistenceContainer
    ) throws -> Bool {
        let changed = changedColumns(from: try PersistenceContainer(db, self), to: container)
        if changed.isEmpty { return false }
        try update(db, onConflict: conflictResolution, columns: changed)
        return true
    }

    /// `willSave`, `aroundSave` { update with callbacks }, `didSave`.
    func performUpdateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, columns: Set<String>,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try willSave(db)
        let (updated, returned) = try runAround("aroundSave", { try aroundSave(db, save: $0) }) {
            let result = try updateAndFetchWithCallbacks(
                db, onConflict: conflictResolution, columns: columns, selection: selection, fetch: fetch)
            return (result.0, result)
        }
        didSave(updated)
        return returned
    }

    /// `willUpdate`, `aroundUpdate` { UPDATE }, `didUpdate`.
    func updateAndFetchWithCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, columns: Set<String>,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (PersistenceSuccess, T) {
        try willUpdate(db, columns: columns)
        let result = try runAround("aroundUpdate", { try aroundUpdate(db, columns: columns, update: $0) }) {
            let result = try updateAndFetchWithoutCallbacks(
                db, onConflict: conflictResolution, columns: columns, selection: selection, fetch: fetch)
            return (result.0, result)
        }
        didUpdate(result.0)
        return result
    }

    func updateAndFetchWithoutCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, columns: Set<String>,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (PersistenceSuccess, T) {
        let conflictResolution =
            conflictResolution ?? type(of: self).persistenceConflictPolicy.conflictResolutionForUpdate
        let statements = try PersistenceStatements(db, self)
        guard
            let statement = try statements.updateStatement(
                columns: columns, onConflict: conflictResolution, returning: selection)
        else {
            throw statements.recordNotFound()
        }
        let changesBefore = db.totalChangesCount
        let returned = try fetch(statement)
        if db.totalChangesCount == changesBefore {
            throw statements.recordNotFound()
        }
        return (PersistenceSuccess(persistenceContainer: statements.container), returned)
    }
}
