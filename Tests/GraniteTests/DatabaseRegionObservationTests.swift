import Foundation
import Granite
import XCTest

/// Counts from `@Sendable` closures.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var notes: [String] = []
    func add(_ note: String = "") {
        lock.withLock {
            count += 1
            notes.append(note)
        }
    }
    var value: Int { lock.withLock { count } }
    var all: [String] { lock.withLock { notes } }
}

final class DatabaseRegionObservationTests: XCTestCase {
    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql:
                    "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, score INT); CREATE TABLE team(id INTEGER PRIMARY KEY)"
            )
        }
        return dbQueue
    }

    func testOneNotificationPerTransactionThatChangesTheRegion() throws {
        let dbQueue = try makeQueue()
        let tally = Tally()
        let observation = DatabaseRegionObservation(tracking: Table("player"))
        let cancellable = observation.start(in: dbQueue, onError: { XCTFail("\($0)") }) { db in
            // The connection is usable in the callback.
            tally.add("\((try? Int.fetchOne(db, sql: "SELECT count(*) FROM player")) ?? -1)")
        }
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player(name) VALUES ('a'), ('b')")
            try db.execute(sql: "UPDATE player SET score = 1")
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team DEFAULT VALUES") }
        try dbQueue.inDatabase { db in
            try db.inTransaction {
                try db.execute(sql: "DELETE FROM player")
                return .rollback
            }
        }
        try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "DELETE FROM player WHERE id = 1") }
        XCTAssertEqual(tally.all, ["2", "1"])
        cancellable.cancel()
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM player") }
        XCTAssertEqual(tally.value, 2)
    }

    func testRegionsOfColumnsAndRows() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (1, 'a', 0), (2, 'b', 0)")
        }
        let tally = Tally()
        let observation = DatabaseRegionObservation(
            tracking: Table("player").select(Column("name")).filter(key: 1), Table("team"))
        let cancellable = observation.start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in tally.add() }
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET score = 5") }
        XCTAssertEqual(tally.value, 0, "score is not in the region")
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET name = 'c' WHERE id = 2") }
        XCTAssertEqual(tally.value, 0, "row 2 is not in the region")
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET name = 'c' WHERE id = 1") }
        XCTAssertEqual(tally.value, 1)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team DEFAULT VALUES") }
        XCTAssertEqual(tally.value, 2)
        withExtendedLifetime(cancellable) {}
    }

    func testDeallocatingTheCancellableStops() throws {
        let dbQueue = try makeQueue()
        let tally = Tally()
        do {
            let cancellable = DatabaseRegionObservation(tracking: DatabaseRegion.fullDatabase)
                .start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in tally.add() }
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO team DEFAULT VALUES") }
            _ = cancellable
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team DEFAULT VALUES") }
        XCTAssertEqual(tally.value, 1)
    }

    func testARegionThatFailsReportsTheError() throws {
        let dbQueue = try makeQueue()
        let tally = Tally()
        let cancellable = DatabaseRegionObservation(tracking: SQLRequest<Row>(sql: "SELECT * FROM missing"))
            .start(in: dbQueue, onError: { tally.add("\($0)") }) { _ in XCTFail("no change expected") }
        XCTAssertEqual(tally.value, 1)
        XCTAssertTrue(tally.all[0].contains("no such table: missing"), tally.all[0])
        cancellable.cancel()
    }

    func testAnyDatabaseCancellableCancelsOnce() {
        let tally = Tally()
        let cancellable = AnyDatabaseCancellable { tally.add() }
        cancellable.cancel()
        cancellable.cancel()
        XCTAssertEqual(tally.value, 1)
        do { _ = AnyDatabaseCancellable(AnyDatabaseCancellable { tally.add() }) }
        XCTAssertEqual(tally.value, 2, "deallocation cancels")
    }
}
