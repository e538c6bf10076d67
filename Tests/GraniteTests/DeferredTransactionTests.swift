import Foundation
import Granite
import GraniteTestSupport
import XCTest

/// Deferred transactions through the GRDB API, on two queues of one file: a transaction that only read holds
/// no lock, and one whose snapshot another connection's commit made stale fails with `SQLITE_BUSY_SNAPSHOT` at its
/// first write, as SQLite in WAL mode does.
final class DeferredTransactionTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-deferred")
    }

    private func twoQueues() throws -> (DatabaseQueue, DatabaseQueue) {
        let path = directory.path("db.granite")
        let first = try DatabaseQueue(path: path)
        try first.write { db in
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        }
        return (first, try DatabaseQueue(path: path))
    }

    func testOpenDeferredTransactionLetsAnotherQueueWrite() throws {
        let (first, second) = try twoQueues()
        try first.inDatabase { db in
            try db.beginTransaction(.deferred)
            XCTAssertTrue(db.isInsideTransaction)
        }
        try second.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try first.inDatabase { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t"), 2)
            try db.execute(sql: "INSERT INTO t VALUES (3)")
            try db.commit()
        }
        XCTAssertEqual(try second.read { db in try Int.fetchOne(db, sql: "SELECT sum(x) FROM t") }, 6)
    }

    func testStaleSnapshotWriteFailsWithBusySnapshot() throws {
        let (first, second) = try twoQueues()
        try first.inDatabase { db in
            try db.beginTransaction()
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t"), 1)
        }
        try second.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try first.inDatabase { db in
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (3)")) { error in
                guard let error = error as? DatabaseError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.resultCode, .SQLITE_BUSY)
                XCTAssertEqual(error.extendedResultCode, .SQLITE_BUSY_SNAPSHOT)
            }
            XCTAssertTrue(db.isInsideTransaction)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t"), 1)
            try db.rollback()
        }
        // Retried as a new transaction, the write goes through.
        try first.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        XCTAssertEqual(try second.read { db in try Int.fetchOne(db, sql: "SELECT sum(x) FROM t") }, 6)
    }
}
