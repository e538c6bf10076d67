import Foundation
import Granite
import GraniteStorage
import GraniteTestSupport
import XCTest

final class BackupTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-backup")
    }

    private func makeSource(rows: Int = 200) throws -> DatabaseQueue {
        let source = try DatabaseQueue(path: directory.path("source.granite"))
        try source.write { db in
            try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT)")
            try db.execute(sql: "CREATE INDEX player_score ON player(score)")
            for i in 0..<rows {
                try db.execute(
                    sql: "INSERT INTO player(name, score) VALUES (?, ?)",
                    arguments: [String(repeating: "n\(i)", count: 20), i % 17])
            }
        }
        return source
    }

    private func content(_ reader: some DatabaseReader) throws -> [Row] {
        try reader.read { db in try Row.fetchAll(db, sql: "SELECT * FROM player ORDER BY id") }
    }

    private func schema(_ reader: some DatabaseReader) throws -> [String] {
        try reader.read { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master ORDER BY name") }
    }

    func testBackupCopiesSchemaAndContent() throws {
        let source = try makeSource()
        let destination = try DatabaseQueue(path: directory.path("destination.granite"))
        try destination.write { db in try db.execute(sql: "CREATE TABLE other(a); INSERT INTO other VALUES (1)") }
        try source.backup(to: destination)
        XCTAssertEqual(try content(destination), try content(source))
        XCTAssertEqual(try schema(destination), try schema(source))
        XCTAssertFalse(try destination.read { db in try db.tableExists("other") })
        // The copy is a working database: it takes writes and uses its index.
        try destination.write { db in try db.execute(sql: "INSERT INTO player(name, score) VALUES ('new', 3)") }
        XCTAssertEqual(
            try destination.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player WHERE score = 3") },
            try source.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player WHERE score = 3") }! + 1)
    }

    func testProgressReportsEachStep() throws {
        let source = try makeSource()
        let destination = try DatabaseQueue()
        var reports: [DatabaseBackupProgress] = []
        try source.backup(to: destination, pagesPerStep: 1) { reports.append($0) }
        let total = try XCTUnwrap(reports.first?.totalPageCount)
        XCTAssertGreaterThan(total, 3)
        XCTAssertEqual(reports.count, total)
        XCTAssertEqual(reports.map(\.completedPageCount), Array(1...total))
        XCTAssertEqual(reports.map(\.remainingPageCount), Array((0..<total).reversed()))
        XCTAssertEqual(reports.map(\.isCompleted), Array(repeating: false, count: total - 1) + [true])
        XCTAssertEqual(try content(destination), try content(source))
    }

    func testSingleStepReportsCompletionOnce() throws {
        let source = try makeSource(rows: 10)
        let destination = try DatabaseQueue()
        var reports: [DatabaseBackupProgress] = []
        try source.backup(to: destination) { reports.append($0) }
        XCTAssertEqual(reports.count, 1)
        XCTAssertTrue(reports[0].isCompleted)
        XCTAssertEqual(reports[0].remainingPageCount, 0)
        XCTAssertEqual(reports[0].completedPageCount, reports[0].totalPageCount)
    }

    func testThrowingProgressAbortsAndLeavesTheDestinationUnchanged() throws {
        struct Stop: Error {}
        let source = try makeSource()
        let destination = try DatabaseQueue()
        try destination.write { db in try db.execute(sql: "CREATE TABLE other(a); INSERT INTO other VALUES (1)") }
        var steps = 0
        XCTAssertThrowsError(
            try source.backup(to: destination, pagesPerStep: 2) { _ in
                steps += 1
                if steps == 2 { throw Stop() }
            }
        ) { error in XCTAssertTrue(error is Stop) }
        XCTAssertEqual(steps, 2)
        XCTAssertEqual(try destination.read { db in try Int.fetchOne(db, sql: "SELECT a FROM other") }, 1)
        XCTAssertFalse(try destination.read { db in try db.tableExists("player") })
    }

    func testErrorOnCompletionIsIgnored() throws {
        struct Stop: Error {}
        let source = try makeSource(rows: 5)
        let destination = try DatabaseQueue()
        try source.backup(to: destination) { progress in
            if progress.isCompleted { throw Stop() }
        }
        XCTAssertEqual(try content(destination), try content(source))
    }

    func testBackupIsASnapshotOfTheSourceTransaction() throws {
        let source = try makeSource(rows: 3)
        let destination = try DatabaseQueue()
        try source.inDatabase { sourceDb in
            try sourceDb.inTransaction {
                try sourceDb.execute(sql: "DELETE FROM player WHERE id = 1")
                try destination.writeWithoutTransaction { destDb in try sourceDb.backup(to: destDb) }
                return .rollback
            }
        }
        XCTAssertEqual(try destination.read { db in try Int.fetchAll(db, sql: "SELECT id FROM player") }, [2, 3])
    }

    func testDestinationInsideATransactionIsRefused() throws {
        let source = try makeSource(rows: 1)
        let destination = try DatabaseQueue()
        try source.read { sourceDb in
            try destination.write { destDb in
                XCTAssertThrowsError(try sourceDb.backup(to: destDb)) { error in
                    let error = error as! DatabaseError
                    XCTAssertEqual(error.resultCode, .SQLITE_ERROR)
                    XCTAssertEqual(error.message, "destination database is in use")
                }
            }
        }
    }

    func testBackupFromAPoolWhileItWrites() throws {
        let dbPool = try DatabasePool(path: directory.path("pool.granite"))
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let destination = try DatabaseQueue()
        try dbPool.backup(to: destination)
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try destination.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") }, [1])
    }

    func testInMemoryCopy() throws {
        let source = try makeSource(rows: 20)
        let path = source.path
        try source.close()
        let copy = try DatabaseQueue.inMemoryCopy(fromPath: path)
        XCTAssertEqual(copy.path, ":memory:")
        XCTAssertEqual(try copy.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }, 20)
        try copy.write { db in try db.execute(sql: "DELETE FROM player") }
        let reopened = try DatabaseQueue(path: path)
        XCTAssertEqual(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }, 20)
    }

    func testReadOnlyTemporaryCopy() throws {
        let source = try makeSource(rows: 20)
        let path = source.path
        try source.close()
        var configuration = Configuration()
        configuration.readonly = true
        let copy = try DatabaseQueue.temporaryCopy(fromPath: path, configuration: configuration)
        XCTAssertEqual(try copy.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }, 20)
        XCTAssertThrowsError(try copy.write { db in try db.execute(sql: "DELETE FROM player") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_READONLY)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path))
    }

    /// A backup whose source has a damaged page fails with `SQLITE_CORRUPT` and leaves the destination's content
    /// as it was: the copy runs in one write transaction of the destination.
    func testBackupFromADamagedSourceLeavesTheDestinationAsItWas() throws {
        let source = try makeSource(rows: 2_000)
        let root = try XCTUnwrap(
            try source.read { db in
                try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_schema WHERE name = 'player'")
            })
        try source.close()
        let path = directory.path("source.granite")
        let (pageSize, leaves) = try tableLeafPages(ofFile: path, root: PageNumber(root))
        let damaged = try XCTUnwrap(leaves.dropFirst(leaves.count / 2).first)
        try damagePage(damaged, ofFile: path, pageSize: pageSize)

        let reopened = try DatabaseQueue(path: path)
        let destination = try DatabaseQueue(path: directory.path("destination.granite"))
        try destination.write { db in try db.execute(sql: "CREATE TABLE other(a); INSERT INTO other VALUES (1)") }
        XCTAssertThrowsError(try reopened.backup(to: destination)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CORRUPT, "\(error)")
        }
        XCTAssertEqual(try destination.read { db in try Int.fetchAll(db, sql: "SELECT a FROM other") }, [1])
        XCTAssertFalse(try destination.read { db in try db.tableExists("player") })
    }
}
