import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// An outermost `SAVEPOINT` begins a deferred transaction, as SQLite's does: no lock until the first statement,
/// a snapshot at the first read, the writer lock at the first write. Savepoints begun before that write must
/// still undo everything written after them.
final class DeferredSavepointTests: XCTestCase {
    private func values(_ db: SQLConnection) throws -> [[Value]] {
        try db.query("SELECT x FROM t ORDER BY x").rows
    }

    func testOutermostSavepointTakesNoLockUntilItWrites() throws {
        let (first, second) = try twoConnectionsSharingTable()
        try first.execute("SAVEPOINT a")
        XCTAssertTrue(first.isInTransaction)
        XCTAssertFalse(first.engine.isInTransaction, "no snapshot and no writer lock yet")
        // The other connection writes meanwhile; not having read yet, the savepoint's transaction sees it.
        try second.execute("INSERT INTO t VALUES (4)")
        XCTAssertEqual(try values(first).count, 4)
        XCTAssertFalse(first.engine.isWriting, "reading takes no writer lock")
        try first.execute("INSERT INTO t VALUES (5)")
        XCTAssertTrue(first.engine.isWriting)
        try first.execute("RELEASE a")
        XCTAssertFalse(first.isInTransaction)
        XCTAssertEqual(try values(second), (1...5).map { [.integer(Int64($0))] })
    }

    func testSavepointsBegunBeforeTheFirstWriteUndoWhatFollowsThem() throws {
        let (first, second) = try twoConnectionsSharingTable()
        try first.execute("SAVEPOINT a; SAVEPOINT b")
        try first.execute("INSERT INTO t VALUES (10)")
        try first.execute("SAVEPOINT c; INSERT INTO t VALUES (11)")
        try first.execute("ROLLBACK TO b")
        XCTAssertEqual(try values(first).count, 3, "b began before the first write: both inserts are undone")
        try first.execute("INSERT INTO t VALUES (12)")
        XCTAssertThrowsError(try first.execute("RELEASE c"), "c was closed by ROLLBACK TO b")
        try first.execute("RELEASE b; INSERT INTO t VALUES (13)")
        try first.execute("ROLLBACK TO a")
        XCTAssertEqual(try values(first).count, 3)
        try first.execute("INSERT INTO t VALUES (14); RELEASE a")
        XCTAssertEqual(try values(second).last, [.integer(14)])
        XCTAssertEqual(try values(second).count, 4)
    }

    func testRollbackToASavepointThatSawNoWriteKeepsTheSnapshot() throws {
        let (first, second) = try twoConnectionsSharingTable()
        try first.execute("SAVEPOINT a")
        XCTAssertEqual(try values(first).count, 3)
        try first.execute("ROLLBACK TO a")
        try second.execute("INSERT INTO t VALUES (4)")
        XCTAssertEqual(try values(first).count, 3, "still on the snapshot of the first read")
        XCTAssertThrowsError(try first.execute("INSERT INTO t VALUES (5)")) { error in
            guard case .busySnapshot? = error as? StorageError else { return XCTFail("\(error)") }
        }
        XCTAssertTrue(first.isInTransaction, "the transaction goes on reading its snapshot")
        try first.execute("ROLLBACK TO a; RELEASE a")
        XCTAssertFalse(first.isInTransaction)
        try first.execute("SAVEPOINT a; INSERT INTO t VALUES (5); RELEASE a")
        XCTAssertEqual(try values(second).count, 5)
    }

    func testTemporaryTableWrittenUnderADeferredSavepointRollsBack() throws {
        let (first, _) = try twoConnectionsSharingTable()
        try first.execute("CREATE TEMP TABLE tt(y); INSERT INTO tt VALUES ('kept')")
        try first.execute("SAVEPOINT a; SAVEPOINT b")
        try first.execute("INSERT INTO tt VALUES ('undone'); INSERT INTO t VALUES (9)")
        try first.execute("ROLLBACK TO a")
        XCTAssertEqual(try first.query("SELECT y FROM tt").rows, [[.text("kept")]])
        XCTAssertEqual(try values(first).count, 3)
        try first.execute("RELEASE a")
    }

    func testReadOnlyDatabaseAcceptsASavepointThatOnlyReads() throws {
        let db = try readOnlyConnectionToTable()
        try db.execute("SAVEPOINT a")
        XCTAssertEqual(try values(db), [[.integer(1)]])
        try db.execute("SAVEPOINT b; ROLLBACK TO b; RELEASE b")
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (2)")) { error in
            guard case .readOnly? = error as? StorageError else { return XCTFail("\(error)") }
        }
        try db.execute("RELEASE a")
        XCTAssertFalse(db.isInTransaction)
    }
}
