import Granite
import GraniteTestSupport
import XCTest

/// `PRAGMA synchronous`, `page_size` and the other pragmas that choose how the database is written: the levels
/// GRDB gives queues and pools, values read back, and errors for requests Granite cannot honour.
final class DurabilitySettingsTests: XCTestCase {
    private func synchronous(_ db: Database) throws -> Int? {
        try Int.fetchOne(db, sql: "PRAGMA synchronous")
    }

    /// The error `body` throws, failing the test when it throws none.
    private func databaseError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line)
        -> DatabaseError?
    {
        do {
            try body()
            XCTFail("expected a DatabaseError", file: file, line: line)
        } catch let error as DatabaseError {
            return error
        } catch {
            XCTFail("expected a DatabaseError, got \(error)", file: file, line: line)
        }
        return nil
    }

    // MARK: Defaults

    func testQueueDefaultsToFull() throws {
        XCTAssertEqual(try DatabaseQueue().read(synchronous), 2)
        XCTAssertEqual(try DatabaseQueue(path: makeTemporaryDatabasePath()).read(synchronous), 2)
    }

    func testWALQueueDefaultsToNormal() throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        let dbQueue = try DatabaseQueue(path: makeTemporaryDatabasePath(), configuration: configuration)
        XCTAssertEqual(try dbQueue.read(synchronous), 1)
    }

    func testPoolWriterDefaultsToNormal() throws {
        let dbPool = try DatabasePool(path: makeTemporaryDatabasePath())
        XCTAssertEqual(try dbPool.writeWithoutTransaction(synchronous), 1)
        // Readers never commit: they keep SQLite's default level.
        XCTAssertEqual(try dbPool.read(synchronous), 2)
    }

    func testConfigurationChoosesTheStartingLevel() throws {
        var configuration = Configuration()
        configuration.durability = .off
        XCTAssertEqual(try DatabaseQueue(configuration: configuration).read(synchronous), 0)
        let dbPool = try DatabasePool(path: makeTemporaryDatabasePath(), configuration: configuration)
        XCTAssertEqual(try dbPool.writeWithoutTransaction(synchronous), 0)
        XCTAssertEqual(try dbPool.read(synchronous), 0)
        configuration.durability = .full
        configuration.journalMode = .wal
        XCTAssertEqual(
            try DatabaseQueue(path: makeTemporaryDatabasePath(), configuration: configuration).read(synchronous), 2)
    }

    // MARK: PRAGMA synchronous

    func testSynchronousReadsBackTheLevelSet() throws {
        let dbQueue = try DatabaseQueue(path: makeTemporaryDatabasePath())
        try dbQueue.writeWithoutTransaction { db in
            let cases: [(String, Int)] = [
                ("OFF", 0), ("normal", 1), ("FULL", 2), ("extra", 3), ("0", 0), ("3", 3), ("2", 2), ("1", 1),
                ("no", 0), ("false", 0), ("yes", 1), ("on", 1), ("'full'", 2), ("whatever", 1),
            ]
            for (argument, level) in cases {
                try db.execute(sql: "PRAGMA synchronous = \(argument)")
                XCTAssertEqual(try synchronous(db), level, argument)
            }
            // The level holds for the connection's later commits, which still work.
            try db.execute(sql: "PRAGMA synchronous = OFF")
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            XCTAssertEqual(try synchronous(db), 0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT a FROM t"), 1)
        }
    }

    func testSynchronousCannotChangeInsideATransaction() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "BEGIN")
            let error = databaseError { try db.execute(sql: "PRAGMA synchronous = OFF") }
            XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
            XCTAssertEqual(error?.message, "Safety level may not be changed inside a transaction")
            try db.execute(sql: "ROLLBACK")
            XCTAssertEqual(try synchronous(db), 2)
        }
    }

    func testSynchronousRejectsLevelsItDoesNotHave() throws {
        try DatabaseQueue().inDatabase { db in
            let error = databaseError { try db.execute(sql: "PRAGMA synchronous = 7") }
            XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
            XCTAssertEqual(error?.message, "unsupported synchronous level 7: Granite knows 0 (OFF) to 3 (EXTRA)")
            XCTAssertEqual(try synchronous(db), 2)
        }
    }

    // MARK: page_size

    func testPageSizeOfNewFilesComesFromTheConfiguration() throws {
        let path = try makeTemporaryDatabasePath()
        var configuration = Configuration()
        configuration.pageSize = 8192
        try DatabaseQueue(path: path, configuration: configuration).write { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA page_size"), 8192)
            try db.execute(sql: "CREATE TABLE t(a)")
        }
        // An existing file keeps the page size it was created with.
        XCTAssertEqual(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA page_size") }, 8192)
    }

    func testPageSizePragma() throws {
        try DatabaseQueue().inDatabase { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA page_size"), 4096)
            // The current size, and sizes SQLite ignores (not a power of two in 512...65536), change nothing.
            try db.execute(sql: "PRAGMA page_size = 4096")
            try db.execute(sql: "PRAGMA page_size = 1000")
            try db.execute(sql: "PRAGMA page_size = 131072")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA page_size"), 4096)
            // On a database that holds nothing yet, the size changes, as in SQLite.
            try db.execute(sql: "PRAGMA page_size = 8192")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA page_size"), 8192)
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            // Once the database holds something, SQLite ignores the request, and so does Granite.
            try db.execute(sql: "PRAGMA page_size = 16384")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA page_size"), 8192)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT a FROM t"), 1)
        }
    }

    /// GRDB runs `db.execute` in `write` inside a transaction: a new file takes the size there too, and keeps it.
    func testPageSizePragmaInAWriteTransactionOfANewFile() throws {
        let path = try makeTemporaryDatabasePath()
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "PRAGMA page_size = 16384")
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.execute(sql: "INSERT INTO t VALUES ('kept')")
        }
        let reopened = try DatabaseQueue(path: path)
        try reopened.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA page_size"), 16384)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT a FROM t"), "kept")
        }
    }

    /// The usual place for the pragma: `prepareDatabase`, which runs on every connection of a pool. The writer
    /// changes the size of the new file; readers, which open later, find it already at that size.
    func testPageSizePragmaInPrepareDatabaseOfAPool() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA page_size = 2048") }
        let pool = try DatabasePool(path: try makeTemporaryDatabasePath(), configuration: configuration)
        try pool.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        XCTAssertEqual(try pool.read { try Int.fetchOne($0, sql: "PRAGMA page_size") }, 2048)
        XCTAssertEqual(try pool.write { try Int.fetchOne($0, sql: "PRAGMA page_size") }, 2048)
    }

    /// Requests Granite cannot carry out are errors, not silently dropped: with other connections open (their
    /// pages would change under them), or inside a savepoint (whose undo would be lost).
    func testPageSizePragmaThatCannotBeHonouredIsAnError() throws {
        let pool = try DatabasePool(path: try makeTemporaryDatabasePath())
        XCTAssertEqual(try pool.read { try Int.fetchOne($0, sql: "PRAGMA page_size") }, 4096)
        try pool.writeWithoutTransaction { db in
            let error = databaseError { try db.execute(sql: "PRAGMA page_size = 8192") }
            XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
            XCTAssertEqual(
                error?.message,
                "page_size 8192 cannot be honoured while other connections to the database are open"
                    + " (set the page size in the options the database is opened with)")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA page_size"), 4096)
        }
        try DatabaseQueue().inDatabase { db in
            try db.execute(sql: "SAVEPOINT s")
            let error = databaseError { try db.execute(sql: "PRAGMA page_size = 8192") }
            XCTAssertEqual(error?.message, "page_size cannot change while statements run or inside a savepoint")
            try db.execute(sql: "RELEASE s")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA page_size"), 4096)
        }
    }

    // MARK: Other pragmas

    func testEncodingPragma() throws {
        try DatabaseQueue().inDatabase { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA encoding"), "UTF-8")
            try db.execute(sql: "PRAGMA encoding = 'UTF-8'")
            let utf16 = databaseError { try db.execute(sql: "PRAGMA encoding = 'UTF-16le'") }
            XCTAssertEqual(utf16?.resultCode, .SQLITE_ERROR)
            XCTAssertEqual(utf16?.message, "encoding UTF-16le cannot be honoured: Granite stores text in UTF-8 only")
            let unknown = databaseError { try db.execute(sql: "PRAGMA encoding = 'latin1'") }
            XCTAssertEqual(unknown?.message, "unsupported encoding: latin1")
            try db.execute(sql: "PRAGMA user_version = 1")
            try db.execute(sql: "PRAGMA encoding = 'UTF-16le'")
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA encoding"), "UTF-8")
        }
    }

    func testSchemaVersionCannotBeSet() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version")
            let error = databaseError { try db.execute(sql: "PRAGMA schema_version = 99") }
            XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
            XCTAssertEqual(error?.message, "schema_version cannot be set: Granite maintains the schema cookie itself")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA schema_version"), version)
        }
    }

    func testUnknownPragmasAreStillIgnored() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = 100")
            XCTAssertNil(try Row.fetchOne(db, sql: "PRAGMA no_such_pragma"))
            // journal_mode cannot change: as SQLite does then, it answers the mode in force.
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE"), "wal")
        }
    }
}
