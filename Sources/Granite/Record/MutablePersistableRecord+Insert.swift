// Insertion: `insert`, `inserted`, `insertAndFetch`, and the insertion callbacks.

extension MutablePersistableRecord {
    /// Does nothing.
    public mutating func willInsert(_ db: Database) throws {}

    /// Performs the insertion.
    public func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        _ = try insert()
    }

    /// Does nothing: the record keeps its values, including a nil id.
    public mutating func didInsert(_ inserted: InsertionSuccess) {}
}

extension MutablePersistableRecord {
    /// Inserts the record. Callbacks run in this order: `willSave`, `aroundSave`, `willInsert`,
    /// `aroundInsert`, `didInsert`, `didSave`.
    ///
    /// ```swift
    /// var player = Player(id: nil, name: "Arthur")
    /// try player.insert(db) // INSERT INTO "player" ("id", "name") VALUES (?,?)
    /// ```
    ///
    /// - parameter db: A connection in a write access.
    /// - parameter conflictResolution: defaults to the insert resolution of ``persistenceConflictPolicy``.
    public mutating func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil)
        throws
    {
        try performInsert(db, onConflict: conflictResolution)
    }

    /// Inserts a copy of the record and returns it, as modified by `didInsert`.
    ///
    /// ```swift
    /// let player = try Player(id: nil, name: "Arthur").inserted(db)
    /// ```
    public func inserted(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws
        -> Self
    {
        var result = self
        try result.performInsert(db, onConflict: conflictResolution)
        return result
    }

    /// Inserts the record and returns the inserted row, as stored by the database (`RETURNING *`).
    ///
    /// ```swift
    /// let player = try Player(id: nil, name: "Arthur").insertAndFetch(db)
    /// ```
    public func insertAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil)
        throws -> Self
    where Self: FetchableRecord {
        var result = self
        return try result.insertAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Inserts the record and returns the inserted row decoded as `T` (selecting `T.databaseSelection`).
    public mutating func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try performInsertAndFetch(db, onConflict: conflictResolution, as: returnedType)
    }

    /// Inserts the record, and returns what `fetch` extracts from the statement that returns `selection`.
    ///
    /// ```swift
    /// // INSERT INTO "player" ("id", "name") VALUES (?,?) RETURNING "score"
    /// let score = try player.insertAndFetch(db, selection: [Column("score")]) { statement in
    ///     try Int.fetchOne(statement)
    /// }
    /// ```
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try performInsertAndFetch(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Inserts the record, and returns what `fetch` extracts from the statement that returns the
    /// selection built from the record's columns.
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        fetch: (Statement) throws -> T, select: (DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> T {
        try performInsertAndFetch(
            db, onConflict: conflictResolution, selection: select(Self.databaseComponents), fetch: fetch)
    }
}

// MARK: - Implementation

extension MutablePersistableRecord {
    mutating func performInsert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws {
        _ = try performInsertAndFetch(db, onConflict: conflictResolution, selection: []) { try $0.execute() }
    }

    mutating func performInsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, as returnedType: T.Type
    ) throws -> T {
        let record = self
        return try performInsertAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection) {
            guard let result = try T.fetchOne($0) else { throw record.recordNotFound(db) }
            return result
        }
    }

    /// `willSave`, `aroundSave` { insertion with callbacks }, `didSave`.
    mutating func performInsertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try willSave(db)
        var record = self
        let (inserted, returned) = try runAround("aroundSave", { try aroundSave(db, save: $0) }) {
            let result = try record.insertAndFetchWithCallbacks(
                db, onConflict: conflictResolution, selection: selection, fetch: fetch)
            return (PersistenceSuccess(result.0), result)
        }
        self = record
        didSave(PersistenceSuccess(inserted))
        return returned
    }

    /// `willInsert`, `aroundInsert` { INSERT }, `didInsert`.
    mutating func insertAndFetchWithCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (InsertionSuccess, T) {
        try willInsert(db)
        let result = try runAround("aroundInsert", { try aroundInsert(db, insert: $0) }) {
            let result = try insertAndFetchWithoutCallbacks(
                db, onConflict: conflictResolution, selection: selection, fetch: fetch)
            return (result.0, result)
        }
        didInsert(result.0)
        return result
    }

    func insertAndFetchWithoutCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> (InsertionSuccess, T) {
        let conflictResolution =
            conflictResolution ?? type(of: self).persistenceConflictPolicy.conflictResolutionForInsert
        let statements = try PersistenceStatements(db, self)
        let statement = try statements.insertStatement(onConflict: conflictResolution, returning: selection)
        let returned = try fetch(statement)
        let rowID = db.lastInsertedRowID
        let rowIDColumn = statements.primaryKey.rowIDColumn
        var container = statements.container
        if let rowIDColumn { container[rowIDColumn] = rowID }
        return (InsertionSuccess(rowID: rowID, rowIDColumn: rowIDColumn, persistenceContainer: container), returned)
    }
}
