/// A record type that can be inserted, updated, saved, upserted and deleted, and that may change on
/// insertion (to store its auto-incremented id, for example).
///
/// ```swift
/// struct Player: MutablePersistableRecord {
///     var id: Int64?
///     var name: String
///     func encode(to container: inout PersistenceContainer) {
///         container["id"] = id
///         container["name"] = name
///     }
///     mutating func didInsert(_ inserted: InsertionSuccess) {
///         id = inserted.rowID
///     }
/// }
/// var player = Player(id: nil, name: "Arthur")
/// try player.insert(db) // INSERT INTO "player" ("id", "name") VALUES (?,?)
/// player.id             // 1
/// ```
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// The conflict resolutions of `INSERT` and `UPDATE` statements (`ABORT` by default).
    static var persistenceConflictPolicy: PersistenceConflictPolicy { get }

    /// Called before the record is inserted.
    mutating func willInsert(_ db: Database) throws

    /// Wraps the insertion, which `insert` performs and which must be called once.
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws

    /// Called after a successful insertion: the place to store the inserted rowid.
    mutating func didInsert(_ inserted: InsertionSuccess)

    /// Called before the record is updated, with the updated columns.
    func willUpdate(_ db: Database, columns: Set<String>) throws

    /// Wraps the update, which `update` performs and which must be called once.
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws

    /// Called after a successful update.
    func didUpdate(_ updated: PersistenceSuccess)

    /// Called before the record is inserted, updated, saved or upserted.
    func willSave(_ db: Database) throws

    /// Wraps the insertion, update, save or upsert, which `save` performs and which must be called once.
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws

    /// Called after a successful insertion, update, save or upsert.
    func didSave(_ saved: PersistenceSuccess)

    /// Called before the record is deleted.
    func willDelete(_ db: Database) throws

    /// Wraps the deletion, which `delete` performs and which must be called once.
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws

    /// Called after the deletion, with whether a row was deleted.
    func didDelete(deleted: Bool)
}

extension MutablePersistableRecord {
    /// `ABORT` for both inserts and updates.
    public static var persistenceConflictPolicy: PersistenceConflictPolicy {
        PersistenceConflictPolicy(insert: .abort, update: .abort)
    }

    /// The error thrown when an around callback did not call its action, or swallowed its error.
    /// Runs `action` inside the `around…` callback `around` and returns the second part of its result; the first
    /// part is what the callback's action function returns. Throws when the callback never calls the action.
    func runAround<Success, Result>(
        _ callbackName: String, _ around: (() throws -> Success) throws -> Void,
        _ action: () throws -> (Success, Result)
    ) throws -> Result {
        var result: Result?
        // The callback and the action are both non-escaping; the action does not really escape the callback.
        try withoutActuallyEscaping(action) { action in
            try around {
                let (success, value) = try action()
                result = value
                return success
            }
        }
        guard let result else { throw persistenceCallbackMisuse(callbackName) }
        return result
    }

    func persistenceCallbackMisuse(_ callbackName: String) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "Incorrect implementation of the `\(Self.self).\(callbackName)` persistence callback: "
                + "the action function was not called, or its error was not rethrown.")
    }
}

// MARK: - Existence

extension MutablePersistableRecord {
    /// Whether the table has a row with the record's primary key; false when the key is NULL.
    ///
    /// ```swift
    /// // SELECT EXISTS (SELECT 1 FROM "player" WHERE "id"=?)
    /// try player.exists(db)
    /// ```
    public func exists(_ db: Database) throws -> Bool {
        guard let statement = try PersistenceStatements(db, self).existsStatement() else { return false }
        return try Bool.fetchOne(statement) ?? false
    }
}

extension TableRecord where Self: EncodableRecord {
    /// The ``RecordError/recordNotFound(databaseTableName:key:)`` error for the record's primary key.
    public func recordNotFound(_ db: Database) -> any Error {
        do {
            let statements = try PersistenceStatements(db, self)
            return statements.recordNotFound()
        } catch {
            return error
        }
    }
}

// MARK: - Support types

/// The conflict resolutions of a record type's `INSERT` and `UPDATE` statements.
///
/// ```swift
/// struct Player: MutablePersistableRecord {
///     // INSERT OR REPLACE INTO "player" …
///     static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .replace, update: .abort)
/// }
/// ```
public struct PersistenceConflictPolicy: Sendable {
    /// The conflict resolution of inserts.
    public let conflictResolutionForInsert: Database.ConflictResolution

    /// The conflict resolution of updates.
    public let conflictResolutionForUpdate: Database.ConflictResolution

    /// A policy; both resolutions default to `ABORT`.
    public init(insert: Database.ConflictResolution = .abort, update: Database.ConflictResolution = .abort) {
        self.conflictResolutionForInsert = insert
        self.conflictResolutionForUpdate = update
    }
}

/// What ``MutablePersistableRecord/didInsert(_:)`` learns about a successful insertion.
public struct InsertionSuccess {
    /// The rowid of the inserted row.
    public var rowID: Int64

    /// The name of the column that aliases the rowid (`INTEGER PRIMARY KEY`), if any.
    public var rowIDColumn: String?

    /// The inserted values, with the rowid column set to the inserted rowid.
    public var persistenceContainer: PersistenceContainer
}

/// What update and save callbacks learn about a successful write.
public struct PersistenceSuccess {
    /// The written values.
    public var persistenceContainer: PersistenceContainer

    init(persistenceContainer: PersistenceContainer) {
        self.persistenceContainer = persistenceContainer
    }

    init(_ inserted: InsertionSuccess) {
        self.init(persistenceContainer: inserted.persistenceContainer)
    }
}
