import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `BEGIN` and `BEGIN DEFERRED` as SQLite runs them: no lock until the first statement, a snapshot at the first
/// read, the writer lock at the first write, and `SQLITE_BUSY_SNAPSHOT` when another connection committed between
/// the two.
final class DeferredTransactionTests: XCTestCase {
    private func count(_ db: SQLConnection) throws -> [[Value]] {
        try db.query("SELECT count(*) FROM t").rows
    }

    func testDeferredTransactionTakesNoLockUntilItWrites() throws {
        let (first, second) = try twoConnectionsSharingTable()
        for begin in ["BEGIN", "BEGIN DEFERRED", "begin deferred transaction"] {
            try first.execute(begin)
            XCTAssertTrue(first.isInTransaction, begin)
            // The other connection writes at once: the open transaction holds no writer lock.
            try second.execute("INSERT INTO t VALUES (10)")
            // Not having read yet, the transaction reads the latest commit, and writes on it.
            let before = try count(first)
            try first.execute("INSERT INTO t VALUES (20)")
            XCTAssertEqual(try count(first), [[.integer(integer(before) + 1)]], begin)
            try first.execute("COMMIT")
            XCTAssertEqual(try count(second), [[.integer(integer(before) + 1)]], begin)
        }
    }

    func testReadingTransactionKeepsItsSnapshotWhileOthersCommit() throws {
        let (first, second) = try twoConnectionsSharingTable()
        try first.execute("BEGIN")
        XCTAssertEqual(try count(first), [[.integer(3)]])
        try second.execute("INSERT INTO t VALUES (4)")
        try second.execute("BEGIN; INSERT INTO t VALUES (5); COMMIT")
        XCTAssertEqual(try count(first), [[.integer(3)]], "the snapshot of the first read stays")
        try first.execute("COMMIT")
        XCTAssertEqual(try count(first), [[.integer(5)]])
    }

    func testWriteAfterAnotherCommitFailsWithBusySnapshot() throws {
        let (first, second) = try twoConnectionsSharingTable()
        try first.execute("BEGIN")
        XCTAssertEqual(try count(first), [[.integer(3)]])
        try second.execute("INSERT INTO t VALUES (4)")
        XCTAssertThrowsError(try first.execute("INSERT INTO t VALUES (100)")) { error in
            guard case .busySnapshot? = error as? StorageError else { return XCTFail("\(error)") }
        }
        // The transaction is still open, on its snapshot, and wrote nothing.
        XCTAssertTrue(first.isInTransaction)
        XCTAssertEqual(try count(first), [[.integer(3)]])
        XCTAssertThrowsError(try first.execute("UPDATE t SET x = x + 1"))
        try first.execute("ROLLBACK")
        // Begun again, it sees the other commit and writes.
        try first.execute("BEGIN; SELECT count(*) FROM t; INSERT INTO t VALUES (100); COMMIT")
        XCTAssertEqual(try second.query("SELECT max(x), count(*) FROM t").rows, [[.integer(100), .integer(5)]])
    }

    func testWriteOnTheLatestSnapshotUpgradesAndHoldsTheWriterLock() throws {
        let (first, second) = try twoConnectionsSharingTable()
        try first.execute("BEGIN")
        XCTAssertEqual(try count(first), [[.integer(3)]])
        try first.execute("INSERT INTO t VALUES (4)")
        XCTAssertTrue(first.engine.isWriting)
        // Readers go on meanwhile, on the last commit.
        try second.execute("BEGIN")
        XCTAssertEqual(try count(second), [[.integer(3)]])
        try second.execute("COMMIT")
        try first.execute("COMMIT")
        XCTAssertEqual(try count(second), [[.integer(4)]])
    }

    func testImmediateTransactionTakesTheWriterLockAtOnce() throws {
        let (first, _) = try twoConnectionsSharingTable()
        for begin in ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"] {
            try first.execute(begin)
            XCTAssertTrue(first.engine.isWriting, begin)
            try first.execute("ROLLBACK")
            XCTAssertFalse(first.engine.isInTransaction, begin)
        }
    }

    func testSchemaChangedByAnotherConnectionIsSeenAtTheFirstStatement() throws {
        let (first, second) = try twoConnectionsSharingTable()
        XCTAssertEqual(try count(first), [[.integer(3)]])
        try first.execute("BEGIN")
        try second.execute("CREATE TABLE u(y); INSERT INTO u VALUES ('new')")
        XCTAssertEqual(try first.query("SELECT y FROM u").rows, [[.text("new")]])
        try first.execute("INSERT INTO u VALUES ('mine'); COMMIT")
        XCTAssertEqual(try second.query("SELECT count(*) FROM u").rows, [[.integer(2)]])
    }

    func testTransactionThatOnlyReadsEndsWithoutWriting() throws {
        let (first, _) = try twoConnectionsSharingTable()
        let frames = first.engine.walStatus.frames
        try first.execute("BEGIN; SELECT * FROM t; COMMIT")
        try first.execute("BEGIN; PRAGMA user_version; ROLLBACK")
        XCTAssertFalse(first.engine.isInTransaction)
        XCTAssertEqual(first.engine.walStatus.frames, frames, "a reading transaction appends nothing to the log")
    }

    func testReadOnlyDatabaseAcceptsADeferredTransaction() throws {
        let db = try readOnlyConnectionToTable()
        try db.execute("BEGIN")
        XCTAssertEqual(try db.query("SELECT x FROM t").rows, [[.integer(1)]])
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (2)")) { error in
            guard case .readOnly? = error as? StorageError else { return XCTFail("\(error)") }
        }
        try db.execute("COMMIT")
        XCTAssertThrowsError(try db.execute("BEGIN IMMEDIATE"))
    }

    private func integer(_ rows: [[Value]]) -> Int64 {
        guard case .integer(let value) = rows.first?.first else { return -1 }
        return value
    }
}
