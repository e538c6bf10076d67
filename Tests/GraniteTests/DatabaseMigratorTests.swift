import Granite
import GraniteTestSupport
import XCTest

final class DatabaseMigratorTests: XCTestCase {
    private func playerMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createTeam") { db in
            try db.create(table: "team") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
        }
        migrator.registerMigration("createPlayer") { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("teamId", .integer).references("team")
                t.column("name", .text)
            }
        }
        migrator.registerMigration("addScore") { db in
            try db.alter(table: "player") { t in t.add(column: "score", .integer) }
        }
        return migrator
    }

    func testMigrate() throws {
        let dbQueue = try DatabaseQueue()
        let migrator = playerMigrator()
        XCTAssertEqual(migrator.migrations, ["createTeam", "createPlayer", "addScore"])
        try dbQueue.read { db in
            XCTAssertEqual(try migrator.appliedMigrations(db), [])
            XCTAssertEqual(try migrator.appliedIdentifiers(db), [])
            XCTAssertFalse(try migrator.hasCompletedMigrations(db))
        }
        try migrator.migrate(dbQueue)
        try dbQueue.read { db in
            XCTAssertTrue(try db.tableExists("grdb_migrations"))
            XCTAssertEqual(try db.columns(in: "player").map(\.name), ["id", "teamId", "name", "score"])
            XCTAssertEqual(try migrator.appliedMigrations(db), ["createTeam", "createPlayer", "addScore"])
            XCTAssertEqual(try migrator.completedMigrations(db), ["createTeam", "createPlayer", "addScore"])
            XCTAssertTrue(try migrator.hasCompletedMigrations(db))
            XCTAssertFalse(try migrator.hasBeenSuperseded(db))
            XCTAssertEqual(
                try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations"),
                ["createTeam", "createPlayer", "addScore"])
        }
        // Migrating again does nothing.
        try migrator.migrate(dbQueue)
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM grdb_migrations") }, 3)
    }

    func testMigrationsTableSchema() throws {
        let dbQueue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("a") { _ in }
        try migrator.migrate(dbQueue)
        try dbQueue.read { db in
            let columns = try db.columns(in: "grdb_migrations")
            XCTAssertEqual(columns.map(\.name), ["identifier"])
            XCTAssertEqual(columns.map(\.type), ["TEXT"])
            XCTAssertEqual(columns.map(\.isNotNull), [true])
            XCTAssertEqual(try db.primaryKey("grdb_migrations").columns, ["identifier"])
        }
    }

    func testMigrateUpTo() throws {
        let dbQueue = try DatabaseQueue()
        let migrator = playerMigrator()
        try migrator.migrate(dbQueue, upTo: "createPlayer")
        try dbQueue.read { db in
            XCTAssertEqual(try migrator.appliedMigrations(db), ["createTeam", "createPlayer"])
            XCTAssertFalse(try migrator.hasCompletedMigrations(db))
            XCTAssertEqual(try db.columns(in: "player").map(\.name), ["id", "teamId", "name"])
        }
        try migrator.migrate(dbQueue, upTo: "createPlayer")  // already there
        try migrator.migrate(dbQueue)
        try dbQueue.read { db in
            XCTAssertTrue(try migrator.hasCompletedMigrations(db))
            XCTAssertEqual(try db.columns(in: "player").map(\.name), ["id", "teamId", "name", "score"])
        }
    }

    func testFailedMigrationRollsBack() throws {
        let dbQueue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("first") { db in
            try db.create(table: "a") { t in t.column("x") }
        }
        migrator.registerMigration("failing") { db in
            try db.create(table: "b") { t in t.column("y") }
            try db.execute(sql: "INSERT INTO a (x) VALUES (1)")
            try db.execute(sql: "INSERT INTO nope (x) VALUES (1)")
        }
        migrator.registerMigration("never") { db in
            try db.create(table: "c") { t in t.column("z") }
        }
        XCTAssertThrowsError(try migrator.migrate(dbQueue)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
        }
        try dbQueue.read { db in
            XCTAssertEqual(try migrator.appliedMigrations(db), ["first"])
            XCTAssertTrue(try db.tableExists("a"))
            XCTAssertFalse(try db.tableExists("b"))
            XCTAssertFalse(try db.tableExists("c"))
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM a"), 0)
        }
        try dbQueue.writeWithoutTransaction { db in XCTAssertFalse(db.isInsideTransaction) }
        XCTAssertTrue(try dbQueue.read { try Bool.fetchOne($0, sql: "PRAGMA foreign_keys") } ?? false)
    }

    func testEachMigrationRunsInTransaction() throws {
        let dbQueue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("check") { db in
            XCTAssertTrue(db.isInsideTransaction)
            try db.create(table: "t") { t in t.column("a") }
        }
        try migrator.migrate(dbQueue)
        XCTAssertTrue(try dbQueue.read { try $0.tableExists("t") })
    }

    func testDeferredForeignKeyChecks() throws {
        let dbQueue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("schema") { db in
            try db.create(table: "team") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("teamId", .integer).references("team")
            }
        }
        // Deferred (default): a temporary violation is fine when it is fixed before the end.
        migrator.registerMigration("fixed") { db in
            try db.execute(sql: "INSERT INTO player (id, teamId) VALUES (1, 1)")
            try db.execute(sql: "INSERT INTO team (id) VALUES (1)")
        }
        try migrator.migrate(dbQueue)
        // Deferred: a violation left at the end fails the migration.
        var broken = migrator
        broken.registerMigration("broken") { db in
            try db.execute(sql: "INSERT INTO player (id, teamId) VALUES (2, 2)")
        }
        XCTAssertThrowsError(try broken.migrate(dbQueue)) { error in
            XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_FOREIGNKEY)
        }
        try dbQueue.read { db in
            XCTAssertEqual(try broken.appliedMigrations(db), ["schema", "fixed"])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player"), 1)
            XCTAssertTrue(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false)
        }
        // Immediate: the statement fails at once.
        var immediate = migrator
        immediate.registerMigration("immediate", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "INSERT INTO player (id, teamId) VALUES (3, 3)")
            XCTFail("should have failed")
        }
        XCTAssertThrowsError(try immediate.migrate(dbQueue)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
        }
        // Disabled: the violation stays.
        var disabled = migrator.disablingDeferredForeignKeyChecks()
        disabled.registerMigration("disabled") { db in
            try db.execute(sql: "INSERT INTO player (id, teamId) VALUES (4, 4)")
        }
        try disabled.migrate(dbQueue)
        try dbQueue.read { db in
            XCTAssertEqual(try Array(db.foreignKeyViolations()).map(\.originRowID), [4])
        }
    }

    func testSupersededAndIncomplete() throws {
        let dbQueue = try DatabaseQueue()
        var newer = DatabaseMigrator()
        newer.registerMigration("a") { _ in }
        newer.registerMigration("b") { _ in }
        try newer.migrate(dbQueue)
        var older = DatabaseMigrator()
        older.registerMigration("a") { _ in }
        var other = DatabaseMigrator()
        other.registerMigration("b") { _ in }
        other.registerMigration("a") { _ in }
        try dbQueue.read { db in
            XCTAssertTrue(try older.hasBeenSuperseded(db))
            XCTAssertTrue(try older.hasCompletedMigrations(db))
            XCTAssertEqual(try older.appliedMigrations(db), ["a"])
            XCTAssertEqual(try older.appliedIdentifiers(db), ["a", "b"])
            XCTAssertFalse(try newer.hasBeenSuperseded(db))
            XCTAssertEqual(try other.appliedMigrations(db), ["b", "a"])
        }
        var gap = DatabaseMigrator()
        gap.registerMigration("a") { _ in }
        gap.registerMigration("inserted") { _ in }
        gap.registerMigration("b") { _ in }
        try dbQueue.read { db in
            XCTAssertEqual(try gap.completedMigrations(db), ["a"])
            XCTAssertFalse(try gap.hasCompletedMigrations(db))
        }
        try gap.migrate(dbQueue)
        try dbQueue.read { db in XCTAssertTrue(try gap.hasCompletedMigrations(db)) }
    }

    func testMergedMigrations() throws {
        let dbQueue = try DatabaseQueue()
        var old = DatabaseMigrator()
        old.registerMigration("v1") { db in try db.create(table: "t") { t in t.column("a") } }
        try old.migrate(dbQueue)
        var merged = DatabaseMigrator()
        merged.registerMigration("v1-v2", merging: ["v1", "v2"]) { db, applied in
            if applied.isEmpty {
                try db.create(table: "t") { t in t.column("a") }
            }
            if !applied.contains("v2") {
                try db.alter(table: "t") { t in t.add(column: "b") }
            }
        }
        try merged.migrate(dbQueue)
        try dbQueue.read { db in
            XCTAssertEqual(try merged.appliedIdentifiers(db), ["v1-v2"])
            XCTAssertEqual(try db.columns(in: "t").map(\.name), ["a", "b"])
        }
        let fresh = try DatabaseQueue()
        try merged.migrate(fresh)
        try fresh.read { db in XCTAssertEqual(try db.columns(in: "t").map(\.name), ["a", "b"]) }
    }

    func testEraseDatabaseOnSchemaChange() throws {
        let dbQueue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrator.eraseDatabaseOnSchemaChange = true
        migrator.registerMigration("v1") { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
            }
        }
        try migrator.migrate(dbQueue)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')") }

        // Same migrations: no erase.
        try migrator.migrate(dbQueue)
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM player") }, 1)
        try dbQueue.read { db in XCTAssertFalse(try migrator.hasSchemaChanges(db)) }

        // A new migration alone is not a schema change.
        var extended = migrator
        extended.registerMigration("v2") { db in
            try db.alter(table: "player") { t in t.add(column: "score", .integer) }
        }
        try extended.migrate(dbQueue)
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM player") }, 1)

        // An edited migration is: the database is erased and migrated again.
        var edited = DatabaseMigrator()
        edited.eraseDatabaseOnSchemaChange = true
        edited.registerMigration("v1") { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
        }
        edited.registerMigration("v2") { db in
            try db.alter(table: "player") { t in t.add(column: "score", .integer) }
        }
        try dbQueue.read { db in XCTAssertTrue(try edited.hasSchemaChanges(db)) }
        try edited.migrate(dbQueue)
        try dbQueue.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player"), 0)
            XCTAssertEqual(try db.columns(in: "player").map(\.isNotNull), [false, true, false])
            XCTAssertEqual(try edited.appliedMigrations(db), ["v1", "v2"])
            XCTAssertFalse(try edited.hasSchemaChanges(db))
        }

        // An unknown applied migration is a schema change too.
        var shorter = DatabaseMigrator()
        shorter.eraseDatabaseOnSchemaChange = true
        shorter.registerMigration("v1") { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
        }
        try shorter.migrate(dbQueue)
        try dbQueue.read { db in
            XCTAssertEqual(try shorter.appliedIdentifiers(db), ["v1"])
            XCTAssertEqual(try db.columns(in: "player").map(\.name), ["id", "name"])
        }
    }

    func testMigratorWithPool() throws {
        let directory = try makeTemporaryDirectory().url
        let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
        let migrator = playerMigrator()
        try migrator.migrate(dbPool)
        try dbPool.read { db in XCTAssertTrue(try migrator.hasCompletedMigrations(db)) }
    }

    func testAsyncMigrate() throws {
        let dbQueue = try DatabaseQueue()
        let migrator = playerMigrator()
        let done = expectation(description: "migrated")
        migrator.asyncMigrate(dbQueue) { result in
            if case .failure(let error) = result { XCTFail("\(error)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        try dbQueue.read { db in XCTAssertTrue(try migrator.hasCompletedMigrations(db)) }
    }

    func testMigratorIsSendable() {
        func requireSendable(_: some Sendable) {}
        requireSendable(playerMigrator())
    }
}
