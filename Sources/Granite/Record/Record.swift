/// A base class for records that remember the values they had in the database, so that they can tell
/// which of their columns were modified and update only those.
///
/// A subclass declares its table, decodes itself from a row, and encodes itself into a container:
///
/// ```swift
/// class Player: Record {
///     var id: Int64?
///     var name: String
///
///     override class var databaseTableName: String { "player" }
///
///     init(id: Int64? = nil, name: String) {
///         self.id = id
///         self.name = name
///         super.init()
///     }
///
///     required init(row: Row) throws {
///         id = row["id"]
///         name = row["name"]
///         try super.init(row: row)
///     }
///
///     override func encode(to container: inout PersistenceContainer) {
///         container["id"] = id
///         container["name"] = name
///     }
///
///     override func didInsert(_ inserted: InsertionSuccess) {
///         super.didInsert(inserted)
///         id = inserted.rowID
///     }
/// }
///
/// let player = try Player.fetchOne(db, key: 1)!
/// player.name = "Barbara"
/// player.hasDatabaseChanges  // true
/// try player.updateChanges(db) // UPDATE "player" SET "name"=? WHERE "id"=?
/// ```
///
/// `Record` is kept for apps written for earlier GRDB versions: new code is better served by structs that
/// adopt the record protocols, which can be `Sendable`. A record instance is mutated by its persistence
/// methods (they refresh its memory of the database values), so it is not `Sendable`.
open class Record {
    /// The values the record had in the database when it was last fetched, inserted, updated or saved, or
    /// nil when it was not (a new or deleted record): what ``hasDatabaseChanges`` and ``databaseChanges``
    /// compare the record's current values with.
    var referenceRow: Row?

    // MARK: - Initializers

    /// Creates a record that does not come from the database: all its columns count as changed until it is
    /// inserted or saved.
    public init() {}

    /// Creates a record from a database row.
    ///
    /// Subclasses decode their properties from `row`, then call `super.init(row:)`. When `row` was fetched
    /// from the database, the record remembers its values (and ``hasDatabaseChanges`` is false); a row built
    /// in memory (from a dictionary, for example) leaves the record with changes.
    ///
    /// - throws: Subclasses throw when the row can't be decoded; this base initializer does not throw.
    public required init(row: Row) throws {
        if row.isFetched {
            // A row from a cursor shows the statement's current row and changes as the statement steps:
            // keep a copy that owns its values.
            referenceRow = row.copy()
        }
    }

    // MARK: - Table

    /// The name of the table the record is stored in.
    ///
    /// Subclasses must override it (`override class var databaseTableName: String { "player" }`): the base
    /// class has no table, and using a subclass that does not override it is a programming error that
    /// stops the program.
    open class var databaseTableName: String {
        fatalError("subclass must override")
    }

    /// The conflict resolutions of the record's `INSERT` and `UPDATE` statements: `ABORT` for both unless a
    /// subclass overrides it.
    open class var persistenceConflictPolicy: PersistenceConflictPolicy {
        PersistenceConflictPolicy(insert: .abort, update: .abort)
    }

    /// The columns fetched by requests of the record type: all columns (`SELECT *`) unless a subclass
    /// overrides it, for example with `[Column("id"), Column("name")]` to fetch
    /// `SELECT "id", "name" FROM "player"`.
    open class var databaseSelection: [any SQLSelectable] {
        [.allColumns]
    }

    // MARK: - Encoding

    /// Stores the values of the record's columns, primary key included, in `container`.
    ///
    /// The base class stores nothing: subclasses override it (`container["name"] = name`). Column names are
    /// case-insensitive, so a subclass must set each column once, under one spelling.
    ///
    /// - throws: Subclasses throw when a value can't be encoded.
    open func encode(to container: inout PersistenceContainer) throws {}

    // MARK: - Changes tracking

    /// Whether the record's values differ from those it had in the database when it was last fetched,
    /// inserted, updated or saved.
    ///
    /// The comparison is made between database values (what ``encode(to:)`` stores and what the row
    /// decoded by ``init(row:)`` held), not between properties. A record that was never fetched or saved,
    /// or that was deleted, has changes; so does a record that can't be encoded. The flag only informs:
    /// inserts and updates run whatever its value.
    public var hasDatabaseChanges: Bool {
        do {
            return try firstChange(in: PersistenceContainer(self)) != nil
        } catch {
            // A record that can't be encoded certainly does not match what the database holds.
            return true
        }
    }

    /// The columns whose values differ from those the record had in the database, with those former
    /// values: nil for every column when the record was never fetched or saved (or was deleted), and for a
    /// column the remembered row did not have.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, key: 1)! // name "Arthur"
    /// player.name = "Barbara"
    /// try player.databaseChanges // ["name": "Arthur"]
    /// ```
    ///
    /// - throws: An error thrown by ``encode(to:)``.
    public var databaseChanges: [String: DatabaseValue?] {
        get throws {
            let changes = try self.changes(in: PersistenceContainer(self))
            return Dictionary(changes, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Updates the columns whose values changed since the record was last fetched or saved, and only
    /// those; does nothing when no column changed.
    ///
    /// ```swift
    /// player.name = "Barbara"
    /// try player.updateChanges(db) // UPDATE "player" SET "name"=? WHERE "id"=?
    /// ```
    ///
    /// The update runs the update callbacks, and leaves the record without changes.
    ///
    /// - returns: Whether an `UPDATE` statement was executed.
    /// - throws: A ``DatabaseError``, or ``RecordError/recordNotFound(databaseTableName:key:)`` when no row
    ///   has the record's primary key.
    @discardableResult
    public final func updateChanges(_ db: Database) throws -> Bool {
        let changedColumns = try Set(databaseChanges.keys)
        if changedColumns.isEmpty { return false }
        try update(db, columns: changedColumns)
        return true
    }

    /// The columns of `container` whose values differ from the reference row, with the values of the
    /// reference row (nil when there is none, or when it lacks the column).
    private func changes(in container: PersistenceContainer) -> [(String, DatabaseValue?)] {
        container.compactMap { column, value in
            let change = self.change(column: column, value: value)
            return change.changed ? (column, change.oldValue) : nil
        }
    }

    /// The first column of `container` that differs from the reference row (`hasDatabaseChanges` needs
    /// no more than one).
    private func firstChange(in container: PersistenceContainer) -> String? {
        container.first { column, value in change(column: column, value: value).changed }?.0
    }

    /// Whether `value` differs from the value of `column` in the reference row, and that former value.
    private func change(column: String, value: DatabaseValue) -> (changed: Bool, oldValue: DatabaseValue?) {
        guard let referenceRow, let index = referenceRow.index(forColumn: column) else { return (true, nil) }
        let oldValue = DatabaseValue(referenceRow.value(at: index))
        return (oldValue != value, oldValue)
    }

    /// Remembers the values just written to the database: the record has no changes any longer.
    private func rememberDatabaseValues(_ container: PersistenceContainer) {
        referenceRow = Row(container)
    }

    // MARK: - Persistence callbacks

    /// Called before the record is inserted. Overrides must call `super`.
    ///
    /// - throws: Any error, which cancels the insertion.
    open func willInsert(_ db: Database) throws {}

    /// Wraps the insertion, which `insert` performs and which must run once. Overrides must call `super`
    /// (which runs `insert`), for the record to remember its inserted values:
    ///
    /// ```swift
    /// override func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
    ///     print("before insertion")
    ///     try super.aroundInsert(db, insert: insert)
    ///     print("after insertion")
    /// }
    /// ```
    ///
    /// - parameter db: The connection that writes the record.
    /// - parameter insert: Inserts the record and returns what the insertion stored, including its rowid.
    /// - throws: The error thrown by `insert`, or any error that cancels the insertion.
    open func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        let inserted = try insert()
        rememberDatabaseValues(inserted.persistenceContainer)
    }

    /// Called after a successful insertion: the place to store the rowid of the inserted row in an
    /// auto-incremented primary key property (`id = inserted.rowID`). Overrides must call `super`.
    ///
    /// - parameter inserted: The rowid and the values of the inserted row.
    open func didInsert(_ inserted: InsertionSuccess) {}

    /// Called before the record is updated. Overrides must call `super`.
    ///
    /// - parameter db: The connection that writes the record.
    /// - parameter columns: The updated columns.
    /// - throws: Any error, which cancels the update.
    open func willUpdate(_ db: Database, columns: Set<String>) throws {}

    /// Wraps the update, which `update` performs and which must run once. Overrides must call `super`
    /// (which runs `update`), for the record to remember its updated values.
    ///
    /// - parameter db: The connection that writes the record.
    /// - parameter columns: The updated columns.
    /// - parameter update: Updates the record; its result is for Granite's use.
    /// - throws: The error thrown by `update`, or any error that cancels the update.
    open func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        let updated = try update()
        rememberDatabaseValues(updated.persistenceContainer)
    }

    /// Called after a successful update. Overrides must call `super`.
    ///
    /// - parameter updated: For Granite's use.
    open func didUpdate(_ updated: PersistenceSuccess) {}

    /// Called before the record is inserted, updated, saved or upserted. Overrides must call `super`.
    ///
    /// - throws: Any error, which cancels the write.
    open func willSave(_ db: Database) throws {}

    /// Wraps the insertion, update, save or upsert, which `save` performs and which must run once.
    /// Overrides must call `super` (which runs `save`).
    ///
    /// - parameter db: The connection that writes the record.
    /// - parameter save: Writes the record; its result is for Granite's use.
    /// - throws: The error thrown by `save`, or any error that cancels the write.
    open func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        _ = try save()
    }

    /// Called after a successful insertion, update, save or upsert. Overrides must call `super`.
    ///
    /// - parameter saved: For Granite's use.
    open func didSave(_ saved: PersistenceSuccess) {}

    /// Called before the record is deleted. Overrides must call `super`.
    ///
    /// - throws: Any error, which cancels the deletion.
    open func willDelete(_ db: Database) throws {}

    /// Wraps the deletion, which `delete` performs and which must run once. Overrides must call `super`
    /// (which runs `delete`): afterwards the record no longer matches a database row, and all its columns
    /// count as changed.
    ///
    /// - parameter db: The connection that writes the record.
    /// - parameter delete: Deletes the record and returns whether a row was deleted.
    /// - throws: The error thrown by `delete`, or any error that cancels the deletion.
    open func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        _ = try delete()
        referenceRow = nil
    }

    /// Called after the deletion. Overrides must call `super`.
    ///
    /// - parameter deleted: Whether a row was deleted.
    open func didDelete(deleted: Bool) {}
}

// The class members above are the protocols' witnesses, so calls made by the persistence methods are
// dispatched dynamically to the overrides of subclasses.
extension Record: TableRecord {}
extension Record: PersistableRecord {}
extension Record: FetchableRecord {}

// Persistence methods mutate the instance (its reference row), and nothing prevents one instance from
// being written by two connections at once.
@available(*, unavailable)
extension Record: Sendable {}
