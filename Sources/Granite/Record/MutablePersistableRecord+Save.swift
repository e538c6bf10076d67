// Saving: `save`, `saved`, `saveAndFetch`, and the save callbacks.

extension MutablePersistableRecord {
    /// Does nothing.
    public func willSave(_ db: Database) throws {}

    /// Performs the save.
    public func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        _ = try save()
    }

    /// Does nothing.
    public func didSave(_ saved: PersistenceSuccess) {}
}

extension MutablePersistableRecord {
    /// Updates the row identified by the record's primary key, or inserts the record when the key is NULL
    /// or matches no row.
    ///
    /// ```swift
    /// var player = Player(id: nil, name: "Arthur")
    /// try player.save(db) // INSERT
    /// player.name = "Barbara"
    /// try player.save(db) // UPDATE
    /// ```
    public mutating func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil)
        throws
    {
        _ = try performSaveAndFetch(db, onConflict: conflictResolution, selection: []) { try $0.execute() }
    }

    /// Saves a copy of the record and returns it, as modified by `didInsert` if it was inserted.
    public func saved(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws
        -> Self
    {
        var result = self
        try result.save(db, onConflict: conflictResolution)
        return result
    }

    /// Saves the record and returns the saved row (`RETURNING *`).
    public func saveAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil)
        throws -> Self
    where Self: FetchableRecord {
        var result = self
        return try result.saveAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Saves the record and returns the saved row decoded as `T`.
    public mutating func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try performSaveAndFetch(db, onConflict: conflictResolution, as: returnedType)
    }

    /// Saves the record, and returns what `fetch` extracts from the statement that returns `selection`.
    public mutating func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try performSaveAndFetch(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }
}

// MARK: - Implementation

extension MutablePersistableRecord {
    mutating func performSaveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, as returnedType: T.Type
    ) throws -> T {
        let record = self
        return try performSaveAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection) {
            guard let result = try T.fetchOne($0) else { throw record.recordNotFound(db) }
            return result
        }
    }

    /// `willSave`, `aroundSave` { update, or insert }, `didSave`.
    mutating func performSaveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try willSave(db)
        var record = self
        let (saved, returned) = try runAround("aroundSave", { try aroundSave(db, save: $0) }) {
            let result = try record.updateOrInsertAndFetchWithCallbacks(
                db, onConflict: conflictResolution, selection: selection, fetch: fetch)
            return (result.0, result)
        }
        self = record
        didSave(saved)
        return returned
    }

    /// Updates when the primary key is not NULL, and inserts when it is NULL or when the update finds no row.
    mutating func updateOrInsertAndFetchWithCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (PersistenceSuccess, T) {
        let statements = try PersistenceStatements(db, self)
        if let key = statements.primaryKeyDictionary {
            let tableName = type(of: self).databaseTableName
            do {
                let columns = try Set(db.cachedColumnNames(tableName))
                return try updateAndFetchWithCallbacks(
                    db, onConflict: conflictResolution, columns: columns, selection: selection, fetch: fetch)
            } catch RecordError.recordNotFound(databaseTableName: tableName, key: key) {
                // No row has this key: insert.
            }
        }
        let (inserted, returned) = try insertAndFetchWithCallbacks(
            db, onConflict: conflictResolution, selection: selection, fetch: fetch)
        return (PersistenceSuccess(inserted), returned)
    }
}
