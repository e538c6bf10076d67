import Foundation
import Granite
import GraniteTestSupport
import XCTest

/// Calls `interrupt` every few milliseconds on another thread until stopped: the statement to interrupt may
/// start after the first call, which then does nothing (as in SQLite).
private final class RepeatedInterrupter: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false

    init(_ interrupt: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopped }) {
                Thread.sleep(forTimeInterval: 0.02)
                interrupt()
            }
        }
    }

    func stop() { lock.withLock { stopped = true } }
}

final class InterruptTests: XCTestCase {
    /// A query that would run for hours: a triple cross join of 2,000 rows.
    private let endlessQuery = "SELECT COUNT(*) FROM t a, t b, t c WHERE a.x + b.x + c.x < 0"

    private func fill(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE t(x INTEGER)")
        let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?)")
        for x in 1...2000 { try insert.execute(arguments: [x]) }
    }

    private func assertInterrupted(_ error: any Error, file: StaticString = #filePath, line: UInt = #line) {
        guard let error = error as? DatabaseError else { return XCTFail("\(error)", file: file, line: line) }
        XCTAssertEqual(error.resultCode, .SQLITE_INTERRUPT, file: file, line: line)
        XCTAssertEqual(error.message, "interrupted", file: file, line: line)
        XCTAssertTrue(error.isInterruptionError, file: file, line: line)
    }

    func testLongQueryIsInterruptedFromAnotherThread() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try fill(db) }
        let interrupter = RepeatedInterrupter { dbQueue.interrupt() }
        defer { interrupter.stop() }
        XCTAssertThrowsError(try dbQueue.read { db in try Int.fetchOne(db, sql: endlessQuery) }) {
            assertInterrupted($0)
        }
        interrupter.stop()
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 2000)
    }

    func testInterruptWhileIdleDoesNothing() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try fill(db) }
        dbQueue.interrupt()
        // The scan crosses several leaves, each a place where a pending request would stop it.
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT SUM(x) FROM t") }, 2000 * 2001 / 2)
    }

    func testInterruptedWriteIsRolledBackAndTheTransactionStaysOpen() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try fill(db)
            try db.execute(sql: "CREATE TABLE u(x)")
        }
        try dbQueue.inDatabase { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "INSERT INTO u VALUES (0)")
            let interrupter = RepeatedInterrupter { dbQueue.interrupt() }
            XCTAssertThrowsError(
                try db.execute(sql: "INSERT INTO u SELECT a.x FROM t a, t b, t c WHERE a.x + b.x + c.x > 0")
            ) { assertInterrupted($0) }
            interrupter.stop()
            XCTAssertEqual(db.lastErrorCode, .SQLITE_INTERRUPT)
            XCTAssertTrue(db.isInsideTransaction)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT x FROM u"), [0])
            try db.execute(sql: "COMMIT")
        }
    }

    func testPoolReaderIsInterrupted() throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-interrupt")
        let dbPool = try DatabasePool(path: directory.path("db.granite"))
        try dbPool.write { db in try fill(db) }
        let interrupter = RepeatedInterrupter { AnyDatabaseWriter(dbPool).interrupt() }
        defer { interrupter.stop() }
        XCTAssertThrowsError(try dbPool.read { db in try Int.fetchOne(db, sql: endlessQuery) }) {
            assertInterrupted($0)
        }
        interrupter.stop()
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 2000)
    }

    func testSnapshotIsInterrupted() throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-interrupt")
        let dbPool = try DatabasePool(path: directory.path("db.granite"))
        try dbPool.write { db in try fill(db) }
        let snapshot = try dbPool.makeSnapshot()
        let interrupter = RepeatedInterrupter { snapshot.interrupt() }
        defer { interrupter.stop() }
        XCTAssertThrowsError(try snapshot.read { db in try Int.fetchOne(db, sql: endlessQuery) }) {
            assertInterrupted($0)
        }
    }
}
