import Foundation
import Granite
import XCTest

/// A counter shared with callbacks.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// A transaction observer that counts the commits it hears.
private final class CommitCounter: TransactionObserver, @unchecked Sendable {
    let commits = Counter()
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits.increment() }
    func databaseDidRollback(_ db: Database) {}
}

/// Observations see the commits of the other connections of the process to the same file: two queues, a pool
/// and a queue, several writers at once.
final class CrossConnectionObservationTests: XCTestCase {
    private let notifications = DispatchQueue(label: "CrossConnectionObservationTests")
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private var path: String { directory.appendingPathComponent("db.granite").path }

    private func createTables(_ writer: some DatabaseWriter) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    """)
        }
    }

    private static let playerCount = ValueObservation.tracking { db in
        try Int.fetchOne(db, sql: "SELECT count(*) FROM player")!
    }

    private func observeCount(
        in reader: some DatabaseReader, fetches: Counter? = nil
    ) -> (ObservationInbox<Int>, AnyDatabaseCancellable) {
        let received = ObservationInbox<Int>()
        let observation = Self.playerCount.handleEvents(willFetch: { fetches?.increment() })
        let cancellable = observation.start(
            in: reader, scheduling: .async(onQueue: notifications), onError: received.fail,
            onChange: received.receive)
        return (received, cancellable)
    }

    func testQueueSeesTheCommitsOfAnotherQueue() throws {
        let writerQueue = try DatabaseQueue(path: path)
        try createTables(writerQueue)
        let observedQueue = try DatabaseQueue(path: path)
        let (received, cancellable) = observeCount(in: observedQueue)
        received.wait(until: { $0 == 0 })
        for id in 1...3 {
            try writerQueue.write { db in
                try db.execute(sql: "INSERT INTO player(id, name) VALUES (?, ?)", arguments: [id, "P\(id)"])
            }
            received.wait(until: { $0 == id })
        }
        try writerQueue.write { db in try db.execute(sql: "DELETE FROM player WHERE id = 2") }
        received.wait(until: { $0 == 2 })
        cancellable.cancel()
    }

    func testUnrelatedTablesUncommittedAndRolledBackChangesFetchNothing() throws {
        let writerQueue = try DatabaseQueue(path: path)
        try createTables(writerQueue)
        let observedQueue = try DatabaseQueue(path: path)
        let fetches = Counter()
        let (received, cancellable) = observeCount(in: observedQueue, fetches: fetches)
        received.wait(until: { $0 == 0 })
        XCTAssertEqual(fetches.value, 1)
        // A fetch for another connection's commit is scheduled on the observed queue before that commit returns:
        // once an access of the observed queue has run after it, the fetch has run too.
        try writerQueue.write { db in try db.execute(sql: "INSERT INTO team(id, name) VALUES (1, 'Reds')") }
        observedQueue.inDatabase { _ in }
        XCTAssertEqual(fetches.value, 1, "a commit to an unrelated table fetches nothing")

        try writerQueue.write { db in
            try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'Arthur')")
            observedQueue.inDatabase { _ in }
            XCTAssertEqual(fetches.value, 1, "an uncommitted change fetches nothing")
        }
        received.wait(until: { $0 == 1 })
        XCTAssertEqual(fetches.value, 2)

        try writerQueue.inDatabase { db in
            try db.inTransaction {
                try db.execute(sql: "DELETE FROM player")
                return .rollback
            }
        }
        observedQueue.inDatabase { _ in }
        XCTAssertEqual(fetches.value, 2, "a rolled back change fetches nothing")

        cancellable.cancel()
        try writerQueue.write { db in try db.execute(sql: "DELETE FROM player") }
        observedQueue.inDatabase { _ in }
        notifications.sync {}
        XCTAssertEqual(received.received.last, 1, "nothing after cancellation")
    }

    func testTransactionObserversHearOnlyTheirOwnConnection() throws {
        let writerQueue = try DatabaseQueue(path: path)
        try createTables(writerQueue)
        let observedQueue = try DatabaseQueue(path: path)
        let observer = CommitCounter()
        observedQueue.add(transactionObserver: observer)
        let (received, cancellable) = observeCount(in: observedQueue)
        received.wait(until: { $0 == 0 })
        try writerQueue.write { db in try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'Arthur')") }
        received.wait(until: { $0 == 1 })
        XCTAssertEqual(observer.commits.value, 0)
        try observedQueue.write { db in try db.execute(sql: "INSERT INTO player(id, name) VALUES (2, 'Barbara')") }
        XCTAssertEqual(observer.commits.value, 1)
        received.wait(until: { $0 == 2 })
        cancellable.cancel()
    }

    func testRegionObservationSeesTheCommitsOfAnotherQueue() throws {
        let writerQueue = try DatabaseQueue(path: path)
        try createTables(writerQueue)
        let observedQueue = try DatabaseQueue(path: path)
        let changes = ObservationInbox<Int>()
        let counter = Counter()
        let cancellable = DatabaseRegionObservation(tracking: Table("player")).start(
            in: observedQueue, onError: changes.fail,
            onChange: { db in
                counter.increment()
                changes.receive((try? Int.fetchOne(db, sql: "SELECT count(*) FROM player")) ?? -1)
            })
        try writerQueue.write { db in try db.execute(sql: "INSERT INTO team(id, name) VALUES (1, 'Reds')") }
        observedQueue.inDatabase { _ in }
        XCTAssertEqual(counter.value, 0, "an unrelated table")
        try writerQueue.write { db in try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'Arthur')") }
        changes.wait(until: { $0 == 1 })
        XCTAssertEqual(counter.value, 1)
        cancellable.cancel()
        try writerQueue.write { db in try db.execute(sql: "INSERT INTO player(id, name) VALUES (2, 'Barbara')") }
        observedQueue.inDatabase { _ in }
        XCTAssertEqual(counter.value, 1, "nothing after cancellation")
    }

    func testPoolAndQueueOnOneFileSeeEachOther() throws {
        let dbPool = try DatabasePool(path: path)
        try createTables(dbPool)
        let dbQueue = try DatabaseQueue(path: path)
        let (poolValues, poolCancellable) = observeCount(in: dbPool)
        let (queueValues, queueCancellable) = observeCount(in: dbQueue)
        poolValues.wait(until: { $0 == 0 })
        queueValues.wait(until: { $0 == 0 })
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'Arthur')") }
        poolValues.wait(until: { $0 == 1 })
        queueValues.wait(until: { $0 == 1 })
        try dbPool.write { db in try db.execute(sql: "INSERT INTO player(id, name) VALUES (2, 'Barbara')") }
        poolValues.wait(until: { $0 == 2 })
        queueValues.wait(until: { $0 == 2 })
        poolCancellable.cancel()
        queueCancellable.cancel()
    }

    /// A transaction that began before the observation started commits after it: the connection did not hear
    /// all of the transaction's changes, so it tells a change of the whole file.
    func testCommitOfATransactionOpenWhenTheObservationStarted() throws {
        let writerQueue = try DatabaseQueue(path: path)
        try createTables(writerQueue)
        let observedQueue = try DatabaseQueue(path: path)
        var cancellable: AnyDatabaseCancellable?
        var received: ObservationInbox<Int>?
        try writerQueue.write { db in
            try db.execute(sql: "INSERT INTO player(id, name) VALUES (1, 'Arthur')")
            let observation = observeCount(in: observedQueue)
            (received, cancellable) = observation
            observation.0.wait(until: { $0 == 0 })
            try db.execute(sql: "INSERT INTO player(id, name) VALUES (2, 'Barbara')")
        }
        received?.wait(until: { $0 == 2 })
        cancellable?.cancel()
    }

    /// Several tasks write through two queues and a pool on one file; the observations of every connection end
    /// on the final count.
    func testConcurrentWritersThroughSeveralConnections() async throws {
        let dbPool = try DatabasePool(path: path)
        try createTables(dbPool)
        let writers: [any DatabaseWriter] = [dbPool, try DatabaseQueue(path: path), try DatabaseQueue(path: path)]
        let observations = writers.map { observeCount(in: $0) }
        for (values, _) in observations { values.wait(until: { $0 == 0 }) }
        let tasks = 6
        let rowsPerTask = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                let writer = writers[task % writers.count]
                group.addTask {
                    for row in 0..<rowsPerTask {
                        let id = task * rowsPerTask + row + 1
                        try await writer.write { db in
                            try db.execute(sql: "INSERT INTO player(id, name) VALUES (?, ?)", arguments: [id, "P\(id)"])
                            if row % 5 == 0 {
                                try db.execute(sql: "INSERT INTO team(id, name) VALUES (?, 'T')", arguments: [id])
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = tasks * rowsPerTask
        for (values, cancellable) in observations {
            let seen = values.wait(until: { $0 == total })
            XCTAssertEqual(seen, seen.sorted(), "counts only grow")
            cancellable.cancel()
        }
    }
}
