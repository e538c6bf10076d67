import Foundation

/// Registers migrations and applies the ones a database has not applied yet, each in its own transaction, in
/// the order of registration. Applied migrations are recorded in the `grdb_migrations` table.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("createPlayer") { db in
///     try db.create(table: "player") { t in
///         t.autoIncrementedPrimaryKey("id")
///         t.column("name", .text).notNull()
///     }
/// }
/// try migrator.migrate(dbQueue)
/// ```
public struct DatabaseMigrator: Sendable {
    /// How a migration checks foreign keys (when they are enabled).
    public enum ForeignKeyChecks: Sendable {
        /// Foreign keys are off during the migration, and all tables are checked before it commits.
        case deferred
        /// Foreign keys are checked by each statement of the migration.
        case immediate
    }

    /// When true, ``migrate(_:)`` erases the database first if its schema differs from the one the registered
    /// migrations create, or if it contains migrations that are not registered. Meant for development.
    public var eraseDatabaseOnSchemaChange = false

    private var defersForeignKeyChecks = true
    private var registered: [Migration] = []

    /// An empty migrator.
    public init() {}

    /// A migrator whose `.deferred` migrations registered afterwards run with foreign keys off and are not
    /// checked before they commit.
    public func disablingDeferredForeignKeyChecks() -> DatabaseMigrator {
        var migrator = self
        migrator.defersForeignKeyChecks = false
        return migrator
    }

    // MARK: Registering

    /// Registers a migration. Identifiers must be unique (a duplicate is a programmer error).
    ///
    /// ```swift
    /// migrator.registerMigration("v2") { db in
    ///     try db.alter(table: "player") { t in t.add(column: "score", .integer) }
    /// }
    /// ```
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) {
        registerMigration(identifier, foreignKeyChecks: foreignKeyChecks, merging: []) { db, _ in try migrate(db) }
    }

    /// Registers a migration that replaces the `mergedIdentifiers` migrations: on a database that applied some
    /// of them, it runs with their set, and their identifiers are removed from `grdb_migrations`.
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        merging mergedIdentifiers: Set<String> = [],
        migrate: @escaping @Sendable (_ db: Database, _ appliedIdentifiers: Set<String>) throws -> Void
    ) {
        precondition(
            !registered.contains { $0.identifier == identifier },
            "already registered migration: \(String(reflecting: identifier))")
        let checks: Migration.ForeignKeyChecks
        switch foreignKeyChecks {
        case .deferred: checks = defersForeignKeyChecks ? .deferred : .disabled
        case .immediate: checks = .immediate
        }
        var merged = mergedIdentifiers
        merged.remove(identifier)
        registered.append(
            Migration(identifier: identifier, mergedIdentifiers: merged, foreignKeyChecks: checks, migrate: migrate))
    }

    // MARK: Migrating

    /// Applies all the registered migrations that are not applied yet, in the order they were registered.
    ///
    /// Each migration runs in a transaction of its own, recorded in the `grdb_migrations` table when it
    /// commits: a migration that throws is rolled back, and the ones before it stay applied. With
    /// `eraseDatabaseOnSchemaChange`, a database whose schema differs from what the migrations make is erased
    /// first. The writer's other accesses wait until the migrations end.
    ///
    /// ```swift
    /// var migrator = DatabaseMigrator()
    /// migrator.registerMigration("createPlayer") { db in
    ///     try db.create(table: "player") { t in
    ///         t.autoIncrementedPrimaryKey("id")
    ///         t.column("name", .text).notNull()
    ///     }
    /// }
    /// try migrator.migrate(dbQueue)
    /// ```
    ///
    /// - Parameter writer: The queue or pool to migrate.
    /// - Throws: What a migration throws, or a ``DatabaseError`` from the database; with foreign keys on, a
    ///   migration that leaves a row violating a foreign key fails with a `SQLITE_CONSTRAINT_FOREIGNKEY` error
    ///   whose message names the row ("FOREIGN KEY constraint violation - from … to …").
    public func migrate(_ writer: any DatabaseWriter) throws {
        guard let last = registered.last else { return }
        try migrate(writer, upTo: last.identifier)
    }

    /// Applies the registered migrations up to `targetIdentifier` included. The identifier must be registered,
    /// and the database must not have applied a later migration (both are programmer errors).
    public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) throws {
        try writer.barrierWriteWithoutTransaction { db in
            try migrate(db, upTo: targetIdentifier)
        }
    }

    /// Applies all the registered migrations asynchronously, then calls `completion` with the connection.
    public func asyncMigrate(
        _ writer: any DatabaseWriter, completion: @escaping @Sendable (Result<Database, any Error>) -> Void
    ) {
        writer.asyncBarrierWriteWithoutTransaction { result in
            do {
                let db = try result.get()
                if let last = registered.last { try migrate(db, upTo: last.identifier) }
                completion(.success(db))
            } catch {
                completion(.failure(error))
            }
        }
    }

    // MARK: Querying

    /// The identifiers of the registered migrations, in order.
    public var migrations: [String] { registered.map(\.identifier) }

    /// The registered migrations the database has applied, in order of registration.
    public func appliedMigrations(_ db: Database) throws -> [String] {
        let applied = try appliedIdentifiers(db)
        return registered.map(\.identifier).filter { applied.contains($0) }
    }

    /// All the identifiers in `grdb_migrations`, registered or not (empty when the table does not exist).
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        guard try db.tableExists("grdb_migrations") else { return [] }
        return try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
    }

    /// The applied migrations that form an uninterrupted prefix of the registered ones.
    public func completedMigrations(_ db: Database) throws -> [String] {
        let applied = try appliedMigrations(db)
        return zip(applied, registered.map(\.identifier)).prefix { $0 == $1 }.map(\.0)
    }

    /// Whether the database has applied all the registered migrations, in order.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        try completedMigrations(db).last == registered.last?.identifier
    }

    /// Whether the database has applied migrations this migrator does not know (a newer version of the app
    /// migrated it).
    public func hasBeenSuperseded(_ db: Database) throws -> Bool {
        let known = Set(registered.map(\.identifier))
        return try appliedIdentifiers(db).contains { !known.contains($0) }
    }

    /// Whether the schema of the database differs from the one the applied migrations create in an empty
    /// database, or the database applied unknown migrations.
    public func hasSchemaChanges(_ db: Database) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        let known = Set(registered.map(\.identifier))
        if !applied.isSubset(of: known) { return true }
        guard let lastApplied = registered.map(\.identifier).last(where: { applied.contains($0) }) else {
            return false
        }
        var configuration = db.configuration
        configuration.readonly = false
        configuration.label = "GRDB.DatabaseMigrator.temporary"
        let reference = try DatabaseQueue(configuration: configuration)
        let referenceSchema = try reference.writeWithoutTransaction { referenceDB in
            try runMigrations(referenceDB, upTo: lastApplied)
            return try Self.userSchema(referenceDB)
        }
        return try Self.userSchema(db) != referenceSchema
    }

    // MARK: Running

    private func migrate(_ db: Database, upTo targetIdentifier: String) throws {
        if eraseDatabaseOnSchemaChange {
            var needsErase = false
            try db.inTransaction(.deferred) {
                needsErase = try hasSchemaChanges(db)
                return .commit
            }
            if needsErase { try db.erase() }
        }
        try runMigrations(db, upTo: targetIdentifier)
    }

    private func runMigrations(_ db: Database, upTo targetIdentifier: String) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        guard let targetIndex = registered.firstIndex(where: { $0.identifier == targetIdentifier }) else {
            preconditionFailure("undefined migration: \(String(reflecting: targetIdentifier))")
        }
        if let lastApplied = try appliedMigrations(db).last,
            let lastAppliedIndex = registered.firstIndex(where: { $0.identifier == lastApplied }),
            targetIndex < lastAppliedIndex
        {
            fatalError("database is already migrated beyond migration \(String(reflecting: targetIdentifier))")
        }
        let applied = try appliedIdentifiers(db)
        for migration in registered[...targetIndex] {
            if applied.contains(migration.identifier) {
                if !migration.mergedIdentifiers.isDisjoint(with: applied) {
                    try migration.deleteMergedIdentifiers(db)
                }
            } else {
                try migration.run(db, mergedIdentifiers: migration.mergedIdentifiers.intersection(applied))
            }
        }
    }

    /// The tables and indexes of the database, without the internal ones.
    private static func userSchema(_ db: Database) throws -> Set<SchemaObject> {
        let rows = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM granite_schema")
        return Set(
            rows.map { SchemaObject(type: $0["type"], name: $0["name"], table: $0["tbl_name"], sql: $0["sql"]) }
                .filter { !Database.isSQLiteInternalTable($0.name) && !Database.isGRDBInternalTable($0.name) })
    }

    private struct SchemaObject: Hashable {
        var type: String
        var name: String
        var table: String?
        var sql: String?
    }
}
