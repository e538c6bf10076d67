import Foundation
import Granite
import GraniteTestSupport
import XCTest

final class DatabasePoolTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-pool").url
    }

    private func makePool(readers: Int = 5) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.maximumReaderCount = readers
        return try DatabasePool(
            path: directory.appendingPathComponent("pool.granite").path, configuration: configuration)
    }

    func testReadsSeeCommittedData() throws {
        let dbPool = try makePool()
        XCTAssertEqual(dbPool.configuration.maximumReaderCount, 5)
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT SUM(a) FROM t") }, 1)
        XCTAssertThrowsError(try dbPool.read { db in try db.execute(sql: "INSERT INTO t VALUES (2)") })
        XCTAssertEqual(try dbPool.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 1)
    }

    func testReadIsASnapshotWhileTheWriterCommits() throws {
        let dbPool = try makePool()
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        let readerStarted = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        let counts = EventLog()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            do {
                try dbPool.read { db in
                    let before = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")!
                    readerStarted.signal()
                    writerDone.wait()
                    let after = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")!
                    counts.append("\(before)", "\(after)")
                }
            } catch {
                counts.append("error", "\(error)")
            }
        }
        readerStarted.wait()
        // The writer is not blocked by the open read.
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        writerDone.signal()
        group.wait()
        XCTAssertEqual(counts.expanded, ["1"])
        XCTAssertEqual(counts.plain, ["1"], "a read sees one snapshot from start to end")
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 2)
    }

    func testConcurrentReadersAndWriterUnderSwiftConcurrency() async throws {
        let dbPool = try makePool(readers: 4)
        try await dbPool.write { db in
            try db.execute(sql: "CREATE TABLE account (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
            for id in 1...10 { try db.execute(sql: "INSERT INTO account VALUES (?, 100)", arguments: [id]) }
        }
        let transfers = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<transfers {
                    try await dbPool.write { db in
                        let from = i % 10 + 1
                        let to = (i * 7) % 10 + 1
                        try db.execute(sql: "UPDATE account SET balance = balance - 5 WHERE id = ?", arguments: [from])
                        try db.execute(sql: "UPDATE account SET balance = balance + 5 WHERE id = ?", arguments: [to])
                    }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<100 {
                        // Every snapshot is committed: the total never changes.
                        let total = try await dbPool.read { db in
                            try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account")!
                        }
                        XCTAssertEqual(total, 1000)
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = try await dbPool.read { db in try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account") }
        XCTAssertEqual(total, 1000)
    }

    func testBarrierWaitsForReads() throws {
        let dbPool = try makePool()
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        let value = try dbPool.barrierWriteWithoutTransaction { db -> Int in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")!
        }
        XCTAssertEqual(value, 1)
    }

    func testReentrancyThrows() throws {
        let dbPool = try makePool()
        XCTAssertThrowsError(try dbPool.read { _ in try dbPool.read { _ in 1 } })
        XCTAssertThrowsError(try dbPool.write { _ in try dbPool.write { _ in 1 } })
    }

    func testAsyncRead() throws {
        let dbPool = try makePool()
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (3)") }
        let done = expectation(description: "read")
        dbPool.asyncRead { result in
            let value = try? Int.fetchOne(result.get(), sql: "SELECT a FROM t")
            XCTAssertEqual(value, 3)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }
}
