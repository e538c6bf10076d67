import GraniteSQL
import GraniteStorage
import XCTest

/// `PRAGMA wal_checkpoint`: SQLite's row of `busy`, `log` and `checkpointed` frame counts for each mode, the
/// unknown mode word read as PASSIVE, a reader's snapshot that keeps frames in the log, and the `SQLITE_LOCKED`
/// failure inside a transaction.
final class WALCheckpointPragmaTests: XCTestCase {
    private static let columns = ["busy", "log", "checkpointed"]

    private func checkpointRow(_ db: SQLConnection, _ sql: String, file: StaticString = #filePath, line: UInt = #line)
        throws -> (busy: Int64, log: Int64, checkpointed: Int64)
    {
        let result = try db.query(sql)
        XCTAssertEqual(result.columns, Self.columns, sql, file: file, line: line)
        XCTAssertEqual(result.rows.count, 1, sql, file: file, line: line)
        guard case .integer(let busy) = result.rows[0][0], case .integer(let log) = result.rows[0][1],
            case .integer(let checkpointed) = result.rows[0][2]
        else {
            XCTFail("\(sql): not three integers: \(result.rows[0])", file: file, line: line)
            return (-1, -1, -1)
        }
        return (busy, log, checkpointed)
    }

    private func databaseWithCommits() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(x)")
        for value in 0..<5 { try db.execute("INSERT INTO t VALUES (\(value))") }
        return db
    }

    func testPassiveCopiesEveryCommittedFrame() throws {
        let db = try databaseWithCommits()
        let before = db.engine.walStatus.frames
        XCTAssertGreaterThan(before, 0)
        let row = try checkpointRow(db, "PRAGMA wal_checkpoint")
        XCTAssertEqual(row.busy, 0)
        XCTAssertEqual(row.log, Int64(before))
        XCTAssertEqual(row.checkpointed, Int64(before))
        // A second checkpoint finds the same log, all copied.
        let again = try checkpointRow(db, "PRAGMA wal_checkpoint(PASSIVE)")
        XCTAssertEqual(again.busy, 0)
        XCTAssertEqual(again.checkpointed, again.log)
        XCTAssertEqual(try db.query("SELECT count(*) FROM t").rows, [[.integer(5)]])
    }

    func testTruncateEmptiesTheLogAndAnswersZeros() throws {
        let db = try databaseWithCommits()
        let row = try checkpointRow(db, "pragma main.wal_checkpoint = truncate")
        XCTAssertEqual(row.busy, 0)
        XCTAssertEqual(row.log, 0)
        XCTAssertEqual(row.checkpointed, 0)
        XCTAssertEqual(db.engine.walStatus.frames, 0)
        try db.execute("INSERT INTO t VALUES (5)")
        XCTAssertEqual(try db.query("SELECT sum(x) FROM t").rows, [[.integer(15)]])
    }

    func testFullAndRestartCopyEverything() throws {
        for mode in ["FULL", "RESTART", "Restart"] {
            let db = try databaseWithCommits()
            let row = try checkpointRow(db, "PRAGMA wal_checkpoint(\(mode))")
            XCTAssertEqual(row.busy, 0, mode)
            XCTAssertEqual(row.checkpointed, row.log, mode)
        }
    }

    func testUnknownModeWordIsPassive() throws {
        let db = try databaseWithCommits()
        let row = try checkpointRow(db, "PRAGMA wal_checkpoint(bogus)")
        XCTAssertEqual(row.busy, 0)
        XCTAssertEqual(row.checkpointed, row.log)
        XCTAssertGreaterThan(row.log, 0, "an unknown word must not truncate the log")
    }

    func testReaderSnapshotKeepsNewerFramesUncopied() throws {
        let db = try databaseWithCommits()
        let reader = try SQLConnection(engine: try StorageEngine(sharing: db.engine))
        try reader.beginSnapshotRead()
        XCTAssertEqual(try reader.query("SELECT count(*) FROM t").rows, [[.integer(5)]])
        for value in 5..<8 { try db.execute("INSERT INTO t VALUES (\(value))") }

        let passive = try checkpointRow(db, "PRAGMA wal_checkpoint")
        XCTAssertLessThan(passive.checkpointed, passive.log, "frames the reader's snapshot predates stay in the log")

        try reader.endSnapshotRead()
        let after = try checkpointRow(db, "PRAGMA wal_checkpoint")
        XCTAssertEqual(after.busy, 0)
        XCTAssertEqual(after.checkpointed, after.log)
        XCTAssertEqual(try reader.query("SELECT count(*) FROM t").rows, [[.integer(8)]])
    }

    func testInsideATransactionFailsWithLocked() throws {
        let db = try databaseWithCommits()
        try db.execute("BEGIN")
        XCTAssertThrowsError(try db.query("PRAGMA wal_checkpoint(TRUNCATE)")) { error in
            guard let error = error as? SQLExecutionError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.kind, .locked)
            XCTAssertEqual(error.resultCode, 6)
            XCTAssertEqual(error.message, "database table is locked")
        }
        // The transaction goes on unharmed.
        try db.execute("INSERT INTO t VALUES (9)")
        try db.execute("COMMIT")
        XCTAssertEqual(try db.query("SELECT count(*) FROM t").rows, [[.integer(6)]])
    }
}
