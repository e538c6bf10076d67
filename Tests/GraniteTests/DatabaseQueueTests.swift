import Foundation
import Granite
import GraniteTestSupport
import XCTest

final class DatabaseQueueTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite").url
    }

    func testFileDatabasePersists() throws {
        let path = directory.appendingPathComponent("db.granite").path
        do {
            let dbQueue = try DatabaseQueue(path: path)
            XCTAssertEqual(dbQueue.path, path)
            try dbQueue.write { db in
                try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES ('kept')")
            }
            try dbQueue.close()
        }
        let reopened = try DatabaseQueue(path: path)
        XCTAssertEqual(try reopened.read { db in try String.fetchOne(db, sql: "SELECT a FROM t") }, "kept")
    }

    func testPrepareDatabaseAndConfiguration() throws {
        var configuration = Configuration()
        configuration.label = "Test"
        configuration.prepareDatabase { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS prepared (a)")
        }
        let dbQueue = try DatabaseQueue(configuration: configuration)
        try dbQueue.read { db in
            XCTAssertEqual(db.description, "Test")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM prepared"), 0)
            XCTAssertTrue(db.configuration.foreignKeysEnabled)
        }
    }

    func testReadonlyConfiguration() throws {
        let path = directory.appendingPathComponent("ro.granite").path
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        var configuration = Configuration()
        configuration.readonly = true
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        XCTAssertThrowsError(
            try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (1)") })
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 0)
    }

    func testForeignKeysFollowConfiguration() throws {
        for enabled in [true, false] {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = enabled
            let dbQueue = try DatabaseQueue(configuration: configuration)
            let result = Result {
                try dbQueue.write { db in
                    try db.execute(sql: "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p REFERENCES p(id))")
                    try db.execute(sql: "INSERT INTO c VALUES (42)")
                }
            }
            if enabled {
                XCTAssertThrowsError(try result.get()) { error in
                    XCTAssertEqual((error as! DatabaseError).extendedResultCode, .SQLITE_CONSTRAINT_FOREIGNKEY)
                }
            } else {
                XCTAssertNoThrow(try result.get())
            }
        }
    }

    func testNamedInMemoryDatabasesAreShared() throws {
        let name = "shared-\(UUID().uuidString)"
        let a = try DatabaseQueue(named: name)
        let b = try DatabaseQueue(named: name)
        let other = try DatabaseQueue()
        try a.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try b.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
        XCTAssertThrowsError(try other.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") })
    }

    func testReentrancyThrows() throws {
        let dbQueue = try DatabaseQueue()
        XCTAssertThrowsError(try dbQueue.write { _ in try dbQueue.read { _ in 1 } }) { error in
            XCTAssertEqual((error as! DatabaseError).resultCode, .SQLITE_MISUSE)
            XCTAssertEqual((error as! DatabaseError).message, "Database methods are not reentrant.")
        }
        let value = try dbQueue.write { _ in try dbQueue.unsafeReentrantRead { _ in 42 } }
        XCTAssertEqual(value, 42)
    }

    func testAsyncAccess() async throws {
        let dbQueue = try DatabaseQueue()
        try await dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (7)") }
        let value = try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }
        XCTAssertEqual(value, 7)
        let erased: Int? = try await dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM t")
            return try Int.fetchOne(db, sql: "SELECT a FROM t")
        }
        XCTAssertNil(erased)
    }

    func testErase() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a); CREATE INDEX t_a ON t(a); PRAGMA user_version = 3")
        }
        try dbQueue.erase()
        try dbQueue.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM granite_schema"), 0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA user_version"), 0)
        }
    }
}
