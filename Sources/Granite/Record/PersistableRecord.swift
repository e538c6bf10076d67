/// A record type that can be inserted, updated, saved, upserted and deleted without being modified:
/// its persistence methods are not mutating, so they work on constants.
///
/// ```swift
/// struct Country: PersistableRecord {
///     var isoCode: String
///     var name: String
///     func encode(to container: inout PersistenceContainer) {
///         container["isoCode"] = isoCode
///         container["name"] = name
///     }
/// }
/// let country = Country(isoCode: "FR", name: "France")
/// try country.insert(db)
/// ```
public protocol PersistableRecord: MutablePersistableRecord {
    /// Called before the record is inserted.
    func willInsert(_ db: Database) throws

    /// Called after a successful insertion.
    func didInsert(_ inserted: InsertionSuccess)
}

extension PersistableRecord {
    /// Does nothing.
    public func willInsert(_ db: Database) throws {}

    /// Does nothing.
    public func didInsert(_ inserted: InsertionSuccess) {}

    /// Inserts the record (see ``MutablePersistableRecord/insert(_:onConflict:)``).
    public func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        var record = self
        try record.performInsert(db, onConflict: conflictResolution)
    }

    /// Inserts the record and returns the inserted row decoded as `T`.
    public func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        var record = self
        return try record.performInsertAndFetch(db, onConflict: conflictResolution, as: returnedType)
    }

    /// Inserts the record, and returns what `fetch` extracts from the statement that returns `selection`.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        var record = self
        return try record.performInsertAndFetch(
            db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Inserts the record, and returns what `fetch` extracts from the statement that returns the
    /// selection built from the record's columns.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        fetch: (Statement) throws -> T, select: (DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> T {
        var record = self
        return try record.performInsertAndFetch(
            db, onConflict: conflictResolution, selection: select(Self.databaseComponents), fetch: fetch)
    }

    /// Updates or inserts the record (see ``MutablePersistableRecord/save(_:onConflict:)``).
    public func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        var record = self
        _ = try record.performSaveAndFetch(db, onConflict: conflictResolution, selection: []) { try $0.execute() }
    }

    /// Saves the record and returns the saved row decoded as `T`.
    public func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        var record = self
        return try record.performSaveAndFetch(db, onConflict: conflictResolution, as: returnedType)
    }

    /// Saves the record, and returns what `fetch` extracts from the statement that returns `selection`.
    public func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        var record = self
        return try record.performSaveAndFetch(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Inserts the record, or updates the conflicting row (see ``MutablePersistableRecord/upsert(_:)``).
    public func upsert(_ db: Database) throws {
        var record = self
        try record.performUpsertAndFetch(
            db, onConflict: [], updating: .allColumns, doUpdate: nil, selection: [], decode: { _ in })
    }

    /// Inserts or updates the record, and returns the stored row.
    public func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        try upsertAndFetch(db, as: Self.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// Inserts or updates the record, and returns the stored row decoded as `T`.
    public func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> T {
        var record = self
        return try record.performUpsertAndFetch(
            db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments,
            selection: T.databaseSelection, decode: { try T(row: $0) })
    }
}
