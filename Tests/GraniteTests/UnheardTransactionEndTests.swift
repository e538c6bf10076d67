import Foundation
import XCTest

@testable import Granite

/// A transaction that tells Granite's own observations of no change ends unheard (see `SilentWithoutChanges`):
/// these tests check, inside the broker, that an observation that goes away is still forgotten, and that one that
/// stays is not.
final class UnheardTransactionEndTests: XCTestCase {
    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY); CREATE TABLE team(id INTEGER PRIMARY KEY)")
        }
        return dbQueue
    }

    private func observerCount(_ dbQueue: DatabaseQueue) throws -> Int {
        try dbQueue.writeWithoutTransaction { db in db.observationBroker?.observers.count ?? 0 }
    }

    func testAReleasedRegionObservationIsForgottenAfterUnheardTransactions() throws {
        let dbQueue = try makeQueue()
        var cancellable: AnyDatabaseCancellable? = DatabaseRegionObservation(tracking: Table("team"))
            .start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in }
        XCTAssertEqual(try observerCount(dbQueue), 1)
        XCTAssertNotNil(cancellable)
        // Released without a cancel on the writer: the connection holds the observer weakly.
        cancellable = nil
        for _ in 0..<16 {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO player DEFAULT VALUES") }
        }
        XCTAssertEqual(try observerCount(dbQueue), 0)
        let changeObserver = try dbQueue.writeWithoutTransaction { db in db.connection.changeObserver }
        XCTAssertNil(changeObserver, "a connection nobody observes reports no change")
    }

    func testALiveObservationStaysThroughUnheardTransactionsAndHearsItsTable() throws {
        let dbQueue = try makeQueue()
        let changes = LockedCount()
        let cancellable = DatabaseRegionObservation(tracking: Table("team"))
            .start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in changes.increment() }
        for _ in 0..<40 {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO player DEFAULT VALUES") }
        }
        XCTAssertEqual(try observerCount(dbQueue), 1)
        XCTAssertEqual(changes.value, 0)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team DEFAULT VALUES") }
        XCTAssertEqual(changes.value, 1)
        withExtendedLifetime(cancellable) {}
    }
}

private final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
