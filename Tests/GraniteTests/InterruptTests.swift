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

    /// Queries whose rows never come from a table's tree: a join of in-memory levels (common tables, FROM
    /// subqueries, compounds, VALUES) and a recursive common table without an end. Each would run for hours or
    /// forever, and none reads a page where a tree cursor would see the request.
    func testQueriesOverRowsHeldInMemoryAreInterrupted() throws {
        let ten = "VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)"
        let endlessQueries = [
            "WITH a(x) AS (\(ten)) SELECT count(*) FROM a, a b, a c, a d, a e, a f, a g, a h, a i, a j",
            "WITH a(x) AS MATERIALIZED (\(ten)) SELECT count(*) FROM a, a b, a c, a d, a e, a f, a g, a h, a i, a j",
            "SELECT count(*) FROM (\(ten)) a, (\(ten)) b, (\(ten)) c, (\(ten)) d, (\(ten)) e, (\(ten)) f, "
                + "(\(ten)) g, (\(ten)) h, (\(ten)) i, (\(ten)) j",
            "SELECT count(*) FROM (SELECT 1 UNION ALL SELECT 2) a, (SELECT 1 UNION ALL SELECT 2) b, "
                + "(SELECT 1 UNION ALL SELECT 2) c, (SELECT 1 UNION ALL SELECT 2) d, (SELECT 1 UNION ALL SELECT 2) e, "
                + "(SELECT 1 UNION ALL SELECT 2) f, (SELECT 1 UNION ALL SELECT 2) g, (SELECT 1 UNION ALL SELECT 2) h, "
                + "(SELECT 1 UNION ALL SELECT 2) i, (SELECT 1 UNION ALL SELECT 2) j, (SELECT 1 UNION ALL SELECT 2) k, "
                + "(SELECT 1 UNION ALL SELECT 2) l, (SELECT 1 UNION ALL SELECT 2) m, (SELECT 1 UNION ALL SELECT 2) n, "
                + "(SELECT 1 UNION ALL SELECT 2) o, (SELECT 1 UNION ALL SELECT 2) p, (SELECT 1 UNION ALL SELECT 2) q, "
                + "(SELECT 1 UNION ALL SELECT 2) r, (SELECT 1 UNION ALL SELECT 2) s, (SELECT 1 UNION ALL SELECT 2) t, "
                + "(SELECT 1 UNION ALL SELECT 2) u, (SELECT 1 UNION ALL SELECT 2) v, (SELECT 1 UNION ALL SELECT 2) w, "
                + "(SELECT 1 UNION ALL SELECT 2) x, (SELECT 1 UNION ALL SELECT 2) y, (SELECT 1 UNION ALL SELECT 2) z, "
                + "(SELECT 1 UNION ALL SELECT 2) a1, (SELECT 1 UNION ALL SELECT 2) a2, (SELECT 1 UNION ALL SELECT 2) a3, "
                + "(SELECT 1 UNION ALL SELECT 2) a4, (SELECT 1 UNION ALL SELECT 2) a5, (SELECT 1 UNION ALL SELECT 2) a6, "
                + "(SELECT 1 UNION ALL SELECT 2) a7, (SELECT 1 UNION ALL SELECT 2) a8",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        ]
        let dbQueue = try DatabaseQueue()
        for query in endlessQueries {
            let interrupter = RepeatedInterrupter { dbQueue.interrupt() }
            defer { interrupter.stop() }
            XCTAssertThrowsError(try dbQueue.read { db in try Int.fetchOne(db, sql: query) }, query) {
                assertInterrupted($0)
            }
        }
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
