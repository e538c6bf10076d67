/// A registered migration: its identifier, the identifiers it merges, its foreign key checks and its code.
struct Migration: Sendable {
    enum ForeignKeyChecks: Sendable {
        case deferred
        case immediate
        case disabled
    }

    typealias Migrate = @Sendable (_ db: Database, _ mergedIdentifiers: Set<String>) throws -> Void

    let identifier: String
    let mergedIdentifiers: Set<String>
    var foreignKeyChecks: ForeignKeyChecks
    private let migrate: Migrate

    init(
        identifier: String, mergedIdentifiers: Set<String>, foreignKeyChecks: ForeignKeyChecks,
        migrate: @escaping Migrate
    ) {
        self.identifier = identifier
        self.mergedIdentifiers = mergedIdentifiers
        self.foreignKeyChecks = foreignKeyChecks
        self.migrate = migrate
    }

    /// Runs the migration in its own immediate transaction and records it in `grdb_migrations`.
    ///
    /// With foreign keys enabled, `.deferred` turns them off during the transaction and checks every table
    /// before committing; `.disabled` turns them off without checking; `.immediate` leaves them on.
    func run(_ db: Database, mergedIdentifiers: Set<String>) throws {
        let foreignKeysEnabled = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        guard foreignKeysEnabled, foreignKeyChecks != .immediate else {
            try db.inTransaction(.immediate) {
                try migrate(db, mergedIdentifiers)
                try record(db)
                return .commit
            }
            return
        }
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        do {
            try db.inTransaction(.immediate) {
                try migrate(db, mergedIdentifiers)
                try record(db)
                if foreignKeyChecks == .deferred { try db.checkForeignKeys() }
                return .commit
            }
        } catch {
            try? db.execute(sql: "PRAGMA foreign_keys = ON")
            throw error
        }
        try db.execute(sql: "PRAGMA foreign_keys = ON")
    }

    /// Removes the merged identifiers from `grdb_migrations`.
    func deleteMergedIdentifiers(_ db: Database) throws {
        for merged in mergedIdentifiers.sorted() {
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [merged])
        }
    }

    private func record(_ db: Database) throws {
        try deleteMergedIdentifiers(db)
        try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
    }
}
