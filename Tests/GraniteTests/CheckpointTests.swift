import Foundation
import Granite
import GraniteTestSupport
import XCTest

final class CheckpointTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-checkpoint")
    }

    private func walSize() throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path("db.granite") + "-wal")
        return (attributes[.size] as? NSNumber)?.intValue ?? -1
    }

    private func makePool() throws -> DatabasePool {
        let dbPool = try DatabasePool(path: directory.path("db.granite"))
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            for i in 0..<20 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i]) }
        }
        return dbPool
    }

    func testPassiveCheckpointCopiesEveryFrameWithoutReaders() throws {
        let dbPool = try makePool()
        let (logFrames, copied) = try dbPool.writeWithoutTransaction { db in try db.checkpoint() }
        XCTAssertGreaterThan(logFrames, 0)
        XCTAssertEqual(copied, logFrames)
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 20)
    }

    func testCheckpointModesMapToSQLiteValues() {
        XCTAssertEqual(Database.CheckpointMode.passive.rawValue, 0)
        XCTAssertEqual(Database.CheckpointMode.full.rawValue, 1)
        XCTAssertEqual(Database.CheckpointMode.restart.rawValue, 2)
        XCTAssertEqual(Database.CheckpointMode.truncate.rawValue, 3)
        XCTAssertEqual(Database.CheckpointMode(rawValue: 3), .truncate)
    }

    func testTruncateCheckpointEmptiesTheLog() throws {
        let dbPool = try makePool()
        XCTAssertGreaterThan(try walSize(), 0)
        let result = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        XCTAssertEqual(result.walFrameCount, 0)
        XCTAssertEqual(result.checkpointedFrameCount, 0)
        XCTAssertEqual(try walSize(), 0)
        XCTAssertEqual(try dbPool.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") }, Array(0..<20))
    }

    func testFullAndRestartCheckpointsCopyEverything() throws {
        let dbPool = try makePool()
        for mode in [Database.CheckpointMode.full, .restart] {
            try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (100)") }
            let result = try dbPool.writeWithoutTransaction { db in try db.checkpoint(mode, on: nil) }
            XCTAssertEqual(result.checkpointedFrameCount, result.walFrameCount)
        }
    }

    func testPassiveCheckpointLeavesFramesASnapshotNeeds() throws {
        let dbPool = try makePool()
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { db in try db.execute(sql: "DELETE FROM t") }
        let result = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        XCTAssertLessThan(result.checkpointedFrameCount, result.walFrameCount)
        XCTAssertEqual(try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 20)
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 0)
    }

    func testUnknownSchemaIsAnError() throws {
        let dbPool = try makePool()
        XCTAssertThrowsError(try dbPool.writeWithoutTransaction { db in try db.checkpoint(on: "aux") }) { error in
            let error = error as! DatabaseError
            XCTAssertEqual(error.resultCode, .SQLITE_ERROR)
            XCTAssertEqual(error.message, "unknown database aux")
        }
    }

    func testCheckpointPragmaAnswersLikeSQLite() throws {
        let dbPool = try makePool()
        let row = try dbPool.writeWithoutTransaction { db in
            try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        XCTAssertEqual(row, ["busy": 0, "log": 0, "checkpointed": 0])
        XCTAssertEqual(try walSize(), 0)
    }

    func testCheckpointPragmaInsideATransactionIsLocked() throws {
        let dbPool = try makePool()
        try dbPool.write { db in
            XCTAssertThrowsError(try db.execute(sql: "PRAGMA wal_checkpoint")) { error in
                guard let error = error as? DatabaseError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.resultCode, .SQLITE_LOCKED)
                XCTAssertEqual(error.message, "database table is locked")
            }
        }
    }
}
