import Foundation
import Granite
import XCTest

/// A clock handing out the given dates in order, counting its calls.
private final class SequenceClock: @unchecked Sendable {
    private let lock = NSLock()
    private var dates: [Date]
    private(set) var calls = 0

    init(_ dates: [Date]) { self.dates = dates }

    func next() -> Date {
        lock.withLock {
            calls += 1
            return dates.removeFirst()
        }
    }
}

final class TransactionDateTests: XCTestCase {
    private let dates = [
        Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2), Date(timeIntervalSince1970: 3),
        Date(timeIntervalSince1970: 4),
    ]

    private func makeQueue(_ clock: SequenceClock) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.transactionClock = .custom { _ in clock.next() }
        return try DatabaseQueue(configuration: configuration)
    }

    func testOutsideOfTransactionEachRequestAsksTheClock() throws {
        let clock = SequenceClock(dates)
        let collected = try makeQueue(clock).inDatabase { db in
            try [db.transactionDate, db.transactionDate, db.transactionDate]
        }
        XCTAssertEqual(collected, Array(dates.prefix(3)))
        XCTAssertEqual(clock.calls, 3)
    }

    func testCommittedTransactionHasOneDate() throws {
        let clock = SequenceClock(dates)
        let collected = try makeQueue(clock).inDatabase { db -> [Date] in
            var collected = [try db.transactionDate]
            try db.execute(sql: "BEGIN")
            collected += [try db.transactionDate, try db.transactionDate]
            try db.execute(sql: "COMMIT")
            collected.append(try db.transactionDate)
            return collected
        }
        XCTAssertEqual(collected, [dates[0], dates[1], dates[1], dates[2]])
    }

    func testRolledBackTransactionHasOneDate() throws {
        let clock = SequenceClock(dates)
        let collected = try makeQueue(clock).inDatabase { db -> [Date] in
            var collected = [try db.transactionDate]
            try db.execute(sql: "BEGIN")
            collected += [try db.transactionDate, try db.transactionDate]
            try db.execute(sql: "ROLLBACK")
            collected.append(try db.transactionDate)
            return collected
        }
        XCTAssertEqual(collected, [dates[0], dates[1], dates[1], dates[2]])
    }

    func testConsecutiveTransactionsGetTheirOwnDates() throws {
        let clock = SequenceClock(dates)
        let dbQueue = try makeQueue(clock)
        let first = try dbQueue.write { db in try [db.transactionDate, db.transactionDate] }
        let second = try dbQueue.write { db in try [db.transactionDate, db.transactionDate] }
        let read = try dbQueue.read { db in try [db.transactionDate, db.transactionDate] }
        XCTAssertEqual(first, [dates[0], dates[0]])
        XCTAssertEqual(second, [dates[1], dates[1]])
        XCTAssertEqual(read, [dates[2], dates[2]])
    }

    func testTransactionEndedByAFailingStatementForgetsItsDate() throws {
        let clock = SequenceClock(dates)
        let collected = try makeQueue(clock).inDatabase { db -> [Date] in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY ON CONFLICT ROLLBACK)")
            try db.execute(sql: "BEGIN")
            var collected = [try db.transactionDate]
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (1)"))
            XCTAssertFalse(db.isInsideTransaction)
            collected.append(try db.transactionDate)
            return collected
        }
        XCTAssertEqual(collected, [dates[0], dates[1]])
    }

    func testClockErrorIsThrownForTheWholeTransaction() throws {
        struct ClockFailure: Error {}
        let calls = SequenceClock(dates)
        var configuration = Configuration()
        configuration.transactionClock = .custom { _ in
            _ = calls.next()
            throw ClockFailure()
        }
        let dbQueue = try DatabaseQueue(configuration: configuration)
        try dbQueue.write { db in
            XCTAssertThrowsError(try db.transactionDate) { XCTAssertTrue($0 is ClockFailure) }
            XCTAssertThrowsError(try db.transactionDate) { XCTAssertTrue($0 is ClockFailure) }
        }
        XCTAssertEqual(calls.calls, 1)
    }

    func testDefaultClockIsTheSystemClock() throws {
        let before = Date()
        let date = try DatabaseQueue().write { db in try db.transactionDate }
        XCTAssertGreaterThanOrEqual(date, before)
        XCTAssertLessThanOrEqual(date, Date())
        XCTAssertTrue(Configuration().transactionClock is DefaultTransactionClock)
    }
}
