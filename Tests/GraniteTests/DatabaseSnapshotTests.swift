import Foundation
import Granite
import GraniteTestSupport
import XCTest

final class DatabaseSnapshotTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-snapshot")
    }

    private func makePool(busyTimeout: Double? = nil) throws -> DatabasePool {
        var configuration = Configuration()
        if let busyTimeout { configuration.busyMode = .timeout(busyTimeout) }
        let dbPool = try DatabasePool(path: directory.path("db.granite"), configuration: configuration)
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        return dbPool
    }

    private func count(_ reader: some DatabaseReader) throws -> Int {
        try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")! }
    }

    func testSnapshotIgnoresLaterWrites() throws {
        let dbPool = try makePool()
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try count(snapshot), 1)
        XCTAssertEqual(try count(dbPool), 2)
        XCTAssertEqual(snapshot.path, dbPool.path)
        XCTAssertTrue(snapshot.configuration.readonly)
    }

    func testSnapshotSurvivesCheckpoints() throws {
        let dbPool = try makePool(busyTimeout: 0.1)
        let snapshot = try dbPool.makeSnapshot()
        for i in 0..<50 {
            try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i]) }
            _ = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        }
        XCTAssertThrowsError(try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_BUSY)
        }
        XCTAssertEqual(try count(snapshot), 1)
        XCTAssertEqual(try count(dbPool), 51)
    }

    func testManySnapshotsEachSeeTheirOwnCommit() throws {
        let dbPool = try makePool()
        var snapshots: [DatabaseSnapshot] = []
        for i in 0..<10 {
            snapshots.append(try dbPool.makeSnapshot())
            try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i]) }
            _ = try dbPool.writeWithoutTransaction { db in try db.checkpoint() }
        }
        XCTAssertEqual(try snapshots.map { try count($0) }, Array(1...10))
        snapshots.removeAll()
        let result = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        XCTAssertEqual(result.walFrameCount, 0)
        XCTAssertEqual(try count(dbPool), 11)
    }

    func testSnapshotRefusesWritesAndAllowsReentrantReads() throws {
        let dbPool = try makePool()
        let snapshot = try dbPool.makeSnapshot()
        XCTAssertThrowsError(try snapshot.read { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_READONLY)
        }
        let nested = try snapshot.read { _ in
            try snapshot.reentrantRead { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }
        }
        XCTAssertEqual(nested, 1)
        XCTAssertEqual(try snapshot.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
    }

    func testSnapshotAsyncReads() async throws {
        let dbPool = try makePool()
        let snapshot = try dbPool.makeSnapshot()
        try await dbPool.write { db in try db.execute(sql: "DELETE FROM t") }
        let asyncCount = try await snapshot.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")! }
        XCTAssertEqual(asyncCount, 1)
        let viaCallback: Int = try await withCheckedThrowingContinuation { continuation in
            snapshot.asyncRead { result in
                continuation.resume(with: Result { try Int.fetchOne(result.get(), sql: "SELECT COUNT(*) FROM t")! })
            }
        }
        XCTAssertEqual(viaCallback, 1)
    }

    func testMakeSnapshotInsideATransactionIsAMisuse() throws {
        let dbPool = try makePool()
        try dbPool.write { _ in
            XCTAssertThrowsError(try dbPool.makeSnapshot()) { error in
                let error = error as! DatabaseError
                XCTAssertEqual(error.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(error.message, "makeSnapshot() must not be called from inside a transaction.")
            }
        }
    }

    func testClosedSnapshotNoLongerHoldsTheLog() throws {
        let dbPool = try makePool(busyTimeout: 0.1)
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        XCTAssertThrowsError(try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) })
        try snapshot.close()
        let result = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        XCTAssertEqual(result.walFrameCount, 0)
    }

    func testAsyncConcurrentReadSeesTheWriterStateWhenSpawned() throws {
        let dbPool = try makePool()
        let done = expectation(description: "read")
        let counted = LockedValue<Int?>(nil)
        try dbPool.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            dbPool.asyncConcurrentRead { result in
                counted.set(try? Int.fetchOne(result.get(), sql: "SELECT COUNT(*) FROM t"))
                done.fulfill()
            }
            try db.execute(sql: "INSERT INTO t VALUES (3)")
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(counted.get(), 2)
    }

    func testSpawnConcurrentReadInsideATransactionFails() throws {
        let dbPool = try makePool()
        let failure = LockedValue<DatabaseError?>(nil)
        try dbPool.write { _ in
            dbPool.spawnConcurrentRead { result in
                if case .failure(let error) = result { failure.set(error as? DatabaseError) }
            }
        }
        XCTAssertEqual(failure.get()?.resultCode, .SQLITE_MISUSE)
        XCTAssertTrue(failure.get()?.message?.hasPrefix("must not be called from inside a transaction.") ?? false)
    }

    func testQueueSpawnConcurrentReadRunsRightAway() throws {
        let dbQueue = try DatabaseQueue()
        let counted = LockedValue<Int?>(nil)
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            dbQueue.spawnConcurrentRead { result in
                counted.set(try? Int.fetchOne(result.get(), sql: "SELECT COUNT(*) FROM t"))
            }
        }
        XCTAssertEqual(counted.get(), 1)
    }

    func testWriteInTransaction() throws {
        let dbPool = try makePool()
        try dbPool.writeInTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return .rollback
        }
        try dbPool.writeInTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO t VALUES (3)")
            return .commit
        }
        XCTAssertEqual(try dbPool.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") }, [1, 3])
    }
}

/// A value shared with callbacks running on other threads.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
