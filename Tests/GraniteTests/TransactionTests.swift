import Granite
import XCTest

final class TransactionTests: XCTestCase {
    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        return dbQueue
    }

    private func count(_ dbQueue: DatabaseQueue) throws -> Int {
        try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")! }
    }

    func testWriteCommitsAndRollsBackOnError() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try count(dbQueue), 1)
        struct Failure: Error {}
        XCTAssertThrowsError(
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                throw Failure()
            })
        XCTAssertEqual(try count(dbQueue), 1)
    }

    func testInTransactionCompletion() throws {
        let dbQueue = try makeQueue()
        try dbQueue.inTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return .rollback
        }
        XCTAssertEqual(try count(dbQueue), 0)
        try dbQueue.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return .commit
        }
        XCTAssertEqual(try count(dbQueue), 1)
    }

    func testSavepoints() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    return .rollback
                }
                return .commit
            }
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (4)")
                return .rollback
            }
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a"), [1, 2])
        }
        // Outside a transaction, a savepoint is a transaction.
        try dbQueue.writeWithoutTransaction { db in
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (5)")
                return .commit
            }
            XCTAssertFalse(db.isInsideTransaction)
        }
        XCTAssertEqual(try count(dbQueue), 3)
    }

    func testFailedStatementKeepsTransactionUsable() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE u (a UNIQUE)")
            try db.execute(sql: "INSERT INTO u VALUES (1)")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO u VALUES (2), (1)"))
            try db.execute(sql: "INSERT INTO u VALUES (3)")
        }
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchAll(db, sql: "SELECT a FROM u ORDER BY a") }, [1, 3])
    }

    func testTransactionLeftOpenIsAnError() throws {
        let dbQueue = try makeQueue()
        XCTAssertThrowsError(
            try dbQueue.writeWithoutTransaction { db in
                try db.beginTransaction()
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            })
        XCTAssertEqual(try count(dbQueue), 0)
    }

    func testExplicitTransactionMethods() throws {
        let dbQueue = try makeQueue()
        try dbQueue.writeWithoutTransaction { db in
            try db.beginTransaction(.exclusive)
            XCTAssertTrue(db.isInsideTransaction)
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.commit()
            try db.beginTransaction()
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            try db.rollback()
            XCTAssertFalse(db.isInsideTransaction)
        }
        XCTAssertEqual(try count(dbQueue), 1)
    }
}
