import GraniteStorage
import XCTest

@testable import GraniteSQL

/// The transitions of ``TransactionState`` as statements drive them, and the errors of impossible ones.
final class TransactionStateTests: XCTestCase {
    private var db: SQLConnection!

    override func setUpWithError() throws {
        db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
    }

    private func explicit(
        _ start: ExplicitTransaction.Start, _ savepoints: [String], reads: Int = 0, snapshot: Bool = false,
        inStorage: Bool = true
    )
        -> TransactionState
    {
        .explicit(
            ExplicitTransaction(
                start: start,
                savepoints: savepoints.enumerated().map {
                    UserSavepoint(
                        name: $0.element, storageName: "user:\($0.offset):\($0.element)", isInStorage: inStorage)
                },
                statementReads: reads, insideSnapshot: snapshot))
    }

    private func assertError(_ sql: String, _ message: String, line: UInt = #line) {
        XCTAssertThrowsError(try db.execute(sql), line: line) {
            XCTAssertEqual(($0 as? SQLExecutionError)?.message, message, line: line)
        }
    }

    func testBeginCommitRollback() throws {
        XCTAssertEqual(db.transactionState, .idle)
        try db.execute("BEGIN IMMEDIATE")
        XCTAssertEqual(db.transactionState, explicit(.begin(.immediate), []))
        XCTAssertTrue(db.isInTransaction)
        XCTAssertTrue(db.engine.isWriting)
        try db.execute("COMMIT")
        XCTAssertEqual(db.transactionState, .idle)
        XCTAssertFalse(db.engine.isInTransaction)
        try db.execute("BEGIN")
        XCTAssertEqual(db.transactionState, explicit(.begin(nil), []))
        try db.execute("ROLLBACK")
        XCTAssertEqual(db.transactionState, .idle)
        XCTAssertFalse(db.engine.isInTransaction)
    }

    func testImpossibleTransitionsKeepSQLiteMessages() throws {
        assertError("COMMIT", "cannot commit - no transaction is active")
        assertError("ROLLBACK", "cannot rollback - no transaction is active")
        assertError("RELEASE a", "no such savepoint: a")
        assertError("ROLLBACK TO a", "no such savepoint: a")
        XCTAssertEqual(db.transactionState, .idle)
        try db.execute("BEGIN")
        assertError("BEGIN", "cannot start a transaction within a transaction")
        assertError("RELEASE a", "no such savepoint: a")
        XCTAssertThrowsError(try db.beginSnapshotRead())
        XCTAssertEqual(db.transactionState, explicit(.begin(nil), []))
        try db.execute("SAVEPOINT a; RELEASE a")
        assertError("ROLLBACK TO a", "no such savepoint: a")
        try db.execute("ROLLBACK")
        XCTAssertEqual(db.transactionState, .idle)
    }

    func testSavepointStack() throws {
        // The storage savepoints wait for the transaction's first write.
        try db.execute("SAVEPOINT a")
        XCTAssertEqual(db.transactionState, explicit(.savepoint, ["a"], inStorage: false))
        try db.execute("SAVEPOINT b; SAVEPOINT c; SAVEPOINT b")
        XCTAssertEqual(db.transactionState, explicit(.savepoint, ["a", "b", "c", "b"], inStorage: false))
        try db.execute("INSERT INTO t VALUES (1)")
        XCTAssertEqual(db.transactionState, explicit(.savepoint, ["a", "b", "c", "b"]))
        // The innermost savepoint of a name is the one meant; ROLLBACK TO keeps it open.
        try db.execute("ROLLBACK TO B")
        XCTAssertEqual(db.transactionState, explicit(.savepoint, ["a", "b", "c", "b"]))
        try db.execute("ROLLBACK TO c")
        XCTAssertEqual(db.transactionState, explicit(.savepoint, ["a", "b", "c"]))
        try db.execute("RELEASE b")
        XCTAssertEqual(db.transactionState, explicit(.savepoint, ["a"]))
        try db.execute("RELEASE a")
        XCTAssertEqual(db.transactionState, .idle)
        XCTAssertFalse(db.engine.isInTransaction)
        // Under BEGIN, releasing every savepoint leaves the transaction open; COMMIT inside savepoints ends all.
        try db.execute("BEGIN; SAVEPOINT a; RELEASE a")
        XCTAssertEqual(db.transactionState, explicit(.begin(nil), []))
        try db.execute("SAVEPOINT x; SAVEPOINT y; COMMIT")
        XCTAssertEqual(db.transactionState, .idle)
    }

    func testStatementReadsAndAutocommit() throws {
        try db.execute("INSERT INTO t VALUES (1), (2)")
        let select = try db.prepare("SELECT id FROM t")
        XCTAssertNotNil(try select.step())
        XCTAssertEqual(db.transactionState, .statementReads(count: 1))
        XCTAssertTrue(db.engine.isInTransaction)
        // A write while the SELECT runs: autocommit, then the SELECT reads again.
        try db.execute("INSERT INTO t VALUES (3)")
        XCTAssertEqual(db.transactionState, .statementReads(count: 1))
        XCTAssertTrue(db.engine.isInTransaction)
        XCTAssertFalse(db.engine.isWriting)
        // BEGIN keeps counting the running SELECT, which reads again after COMMIT.
        try db.execute("BEGIN")
        XCTAssertEqual(db.transactionState, explicit(.begin(nil), [], reads: 1))
        try db.execute("COMMIT")
        XCTAssertEqual(db.transactionState, .statementReads(count: 1))
        XCTAssertTrue(db.engine.isInTransaction)
        select.reset()
        XCTAssertEqual(db.transactionState, .idle)
        XCTAssertFalse(db.engine.isInTransaction)
    }

    func testSnapshot() throws {
        try db.beginSnapshotRead()
        XCTAssertEqual(db.transactionState, .snapshot(statementReads: 0))
        XCTAssertTrue(db.isInSnapshotRead)
        XCTAssertThrowsError(try db.beginSnapshotRead())
        let select = try db.prepare("SELECT id FROM t")
        XCTAssertNil(try select.step())
        XCTAssertEqual(db.transactionState, .snapshot(statementReads: 0))
        try db.endSnapshotRead()
        XCTAssertEqual(db.transactionState, .idle)
        XCTAssertFalse(db.engine.isInTransaction)
        try db.endSnapshotRead()
        XCTAssertEqual(db.transactionState, .idle)
        // BEGIN inside a snapshot: the snapshot is still open as far as the flags go, and ending it leaves the
        // transaction.
        try db.beginSnapshotRead()
        try db.execute("BEGIN")
        XCTAssertEqual(db.transactionState, explicit(.begin(nil), [], snapshot: true))
        XCTAssertTrue(db.isInTransaction && db.isInSnapshotRead)
        try db.endSnapshotRead()
        XCTAssertEqual(db.transactionState, explicit(.begin(nil), []))
        try db.execute("COMMIT")
        XCTAssertEqual(db.transactionState, .idle)
    }

    func testStatementSavepointIsClosedAfterEachStatement() throws {
        try db.execute("BEGIN")
        try db.execute("INSERT INTO t VALUES (1), (2)")
        XCTAssertEqual(db.statementSavepoint, .none)
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (3), (1)"))
        XCTAssertEqual(db.statementSavepoint, .none)
        try db.execute("COMMIT")
        XCTAssertEqual(try db.query("SELECT id FROM t").rows, [[.integer(1)], [.integer(2)]])
    }
}
