import Foundation
import Granite
import XCTest

private struct Player: Codable, FetchableRecord, PersistableRecord, Equatable, Sendable {
    var id: Int64
    var name: String
    var score: Int
}

final class ValueObservationTests: XCTestCase {
    private let queue = DispatchQueue(label: "ValueObservationTests")

    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL);
                    CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
                    """)
        }
        return dbQueue
    }

    private func makePool() throws -> (DatabasePool, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.granite").path)
        try dbPool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL);
                    CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
                    """)
        }
        return (dbPool, directory)
    }

    func testInitialValueThenOneValuePerChangingTransaction() throws {
        let dbQueue = try makeQueue()
        let inbox = ObservationInbox<Int>()
        let observation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player")! }
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        XCTAssertEqual(inbox.wait(for: 1), [0])
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 10)")
            try db.execute(sql: "INSERT INTO player VALUES (2, 'Barbara', 20)")
        }
        XCTAssertEqual(inbox.wait(for: 2), [0, 2])
        // Unrelated tables and rolled back transactions give nothing.
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team VALUES (1, 'Reds')") }
        try dbQueue.inDatabase { db in
            try db.inTransaction {
                try db.execute(sql: "DELETE FROM player")
                return .rollback
            }
        }
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM player WHERE id = 1") }
        XCTAssertEqual(inbox.wait(for: 3), [0, 2, 1])
        cancellable.cancel()
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM player") }
        queue.sync {}
        XCTAssertEqual(inbox.received, [0, 2, 1], "nothing after cancellation")
    }

    func testRecordsAndRemoveDuplicates() throws {
        let dbQueue = try makeQueue()
        let inbox = ObservationInbox<[Player]>()
        let observation = ValueObservation.tracking { db in try Player.order(Column("id")).fetchAll(db) }
            .removeDuplicates()
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        _ = inbox.wait(for: 1)
        try dbQueue.write { db in try Player(id: 1, name: "Arthur", score: 1).insert(db) }
        _ = inbox.wait(for: 2)
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET score = score") }
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET score = 2") }
        XCTAssertEqual(
            inbox.wait(for: 3),
            [[], [Player(id: 1, name: "Arthur", score: 1)], [Player(id: 1, name: "Arthur", score: 2)]])
        withExtendedLifetime(cancellable) {}
    }

    func testTrackedColumnsAndRows() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 10), (2, 'Barbara', 20)")
        }
        let inbox = ObservationInbox<String?>()
        let regions = ObservationInbox<String>()
        let observation = ValueObservation.tracking { db in
            try String.fetchOne(db, Table("player").select(Column("name")).filter(key: 1))
        }.handleEvents(willTrackRegion: { regions.receive($0.description) })
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        _ = inbox.wait(for: 1)
        XCTAssertEqual(regions.received, ["player(id,name)[1]"])
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET score = 0") }
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET name = 'Bob' WHERE id = 2") }
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET name = 'Art' WHERE id = 1") }
        XCTAssertEqual(inbox.wait(for: 2), ["Arthur", "Art"], "changes outside the region do not fetch")
        withExtendedLifetime(cancellable) {}
    }

    func testRegionFollowsTheFetch() throws {
        let dbQueue = try makeQueue()
        let inbox = ObservationInbox<Int>()
        // The second table is read only once the first has a row: tracking(_:) follows the region.
        let observation = ValueObservation.tracking { db -> Int in
            let players = try Int.fetchOne(db, sql: "SELECT count(*) FROM player")!
            guard players > 0 else { return -1 }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM team")!
        }
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        _ = inbox.wait(for: 1)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team VALUES (1, 'Reds')") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 0)") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team VALUES (2, 'Blues')") }
        XCTAssertEqual(inbox.wait(for: 3), [-1, 1, 2])
        withExtendedLifetime(cancellable) {}
    }

    func testConstantAndExplicitRegions() throws {
        let dbQueue = try makeQueue()
        let constant = ObservationInbox<Int>()
        let explicit = ObservationInbox<Int>()
        let c1 = ValueObservation.trackingConstantRegion { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM player")!
        }.start(in: dbQueue, scheduling: .async(onQueue: queue), onError: constant.fail, onChange: constant.receive)
        // The region is given: the team table triggers fetches that do not read it.
        let c2 = ValueObservation.tracking(
            region: Table("team"),
            fetch: { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM player")!
            }
        ).start(in: dbQueue, scheduling: .async(onQueue: queue), onError: explicit.fail, onChange: explicit.receive)
        _ = constant.wait(for: 1)
        _ = explicit.wait(for: 1)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 0)") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team VALUES (1, 'Reds')") }
        XCTAssertEqual(constant.wait(for: 2), [0, 1])
        XCTAssertEqual(explicit.wait(for: 2), [0, 1])
        queue.sync {}
        XCTAssertEqual(constant.received, [0, 1])
        withExtendedLifetime((c1, c2)) {}
    }

    func testMapAndErrors() throws {
        let dbQueue = try makeQueue()
        let inbox = ObservationInbox<String>()
        struct TooMany: Error {}
        let observation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player")! }
            .map { count -> String in
                if count > 1 { throw TooMany() }
                return "\(count) player(s)"
            }
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        _ = inbox.wait(for: 1)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 0)") }
        _ = inbox.wait(for: 2)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player VALUES (2, 'Barbara', 0)") }
        XCTAssertTrue(inbox.waitForError() is TooMany)
        // The error ended the observation.
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM player") }
        queue.sync {}
        XCTAssertEqual(inbox.received, ["0 player(s)", "1 player(s)"])
        // A fetch that fails from the start reports its error.
        let failing = ObservationInbox<Int>()
        let c2 = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM missing")! }
            .start(in: dbQueue, scheduling: .async(onQueue: queue), onError: failing.fail, onChange: failing.receive)
        let error = failing.waitForError() as? DatabaseError
        XCTAssertEqual(error?.message, "no such table: missing")
        withExtendedLifetime((cancellable, c2)) {}
    }

    func testHandleEventsAndPrint() throws {
        let dbQueue = try makeQueue()
        final class Lines: TextOutputStream, @unchecked Sendable {
            let lock = NSLock()
            var text = ""
            func write(_ string: String) { lock.withLock { text += string } }
        }
        let lines = Lines()
        let inbox = ObservationInbox<Int>()
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM team")! }
            .print("teams", to: lines)
            .start(in: dbQueue, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        _ = inbox.wait(for: 1)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team VALUES (1, 'Reds')") }
        _ = inbox.wait(for: 2)
        cancellable.cancel()
        XCTAssertEqual(
            lines.lock.withLock { lines.text },
            """
            teams: start
            teams: fetch
            teams: tracked region: team(*)
            teams: value: 0
            teams: database did change
            teams: fetch
            teams: value: 1
            teams: cancel

            """)
    }

    func testValuesAsAsyncSequence() async throws {
        let dbQueue = try makeQueue()
        let observation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player")! }
        var seen: [Int] = []
        for try await count in observation.values(in: dbQueue) {
            seen.append(count)
            if count == 3 { break }
            try await dbQueue.write { db in try db.execute(sql: "INSERT INTO player(name, score) VALUES ('x', 0)") }
        }
        XCTAssertEqual(seen, [0, 1, 2, 3])
    }

    /// Inserts players of score 1 from `tasks` concurrent tasks, one write transaction each; returns how many.
    private func insertPlayersConcurrently(into dbPool: DatabasePool, tasks: Int, playersPerTask: Int) async throws
        -> Int
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for i in 0..<playersPerTask {
                        try await dbPool.write { db in
                            try db.execute(
                                sql: "INSERT INTO player(name, score) VALUES (?, 1)", arguments: ["\(task)-\(i)"])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return tasks * playersPerTask
    }

    func testPoolObservationNeverMissesTheLastCommit() async throws {
        let (dbPool, directory) = try makePool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inbox = ObservationInbox<Int>()
        let cancellable = ValueObservation.tracking { db in
            try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(score), 0) FROM player")!
        }.start(in: dbPool, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        _ = inbox.wait(for: 1)
        // Many tasks write concurrently; values may be coalesced but each is a committed state, they only grow,
        // and the last one is the final sum.
        let total = try await insertPlayersConcurrently(into: dbPool, tasks: 8, playersPerTask: 25)
        let deadline = Date().addingTimeInterval(10)
        while inbox.received.last != total && Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        let values = inbox.received
        XCTAssertEqual(values.last, total)
        XCTAssertEqual(values, values.sorted(), "values follow the commits in order")
        cancellable.cancel()
    }

    func testPoolObservationsOfConstantRegionsSeeEveryCommitInOrder() async throws {
        let (dbPool, directory) = try makePool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sum: @Sendable (Database) throws -> Int = { db in
            try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(score), 0) FROM player")!
        }
        // Their fetches run on readers while the writer goes on, one at a time per observation: commits made while
        // one runs are seen by the next, so values may be fewer than commits, never older than one already told.
        let observations = [
            ValueObservation.trackingConstantRegion(sum),
            ValueObservation.tracking(region: Table("player"), fetch: sum),
        ]
        let inboxes = observations.map { _ in ObservationInbox<Int>() }
        var cancellables: [AnyDatabaseCancellable] = []
        for (observation, inbox) in zip(observations, inboxes) {
            cancellables.append(
                observation.start(
                    in: dbPool, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive))
            XCTAssertEqual(inbox.wait(for: 1), [0])
        }
        let total = try await insertPlayersConcurrently(into: dbPool, tasks: 4, playersPerTask: 50)
        for inbox in inboxes {
            let deadline = Date().addingTimeInterval(10)
            while inbox.received.last != total && Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
            let values = inbox.received
            XCTAssertEqual(values.last, total)
            XCTAssertEqual(values, values.sorted(), "values follow the commits in order")
            XCTAssertLessThanOrEqual(values.count, total + 2)
        }
        // A commit after a quiet moment is heard on its own.
        try await dbPool.write { db in try db.execute(sql: "INSERT INTO player(name, score) VALUES ('last', 5)") }
        for inbox in inboxes {
            let deadline = Date().addingTimeInterval(10)
            while inbox.received.last != total + 5 && Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
            XCTAssertEqual(inbox.received.last, total + 5)
        }
        for cancellable in cancellables { cancellable.cancel() }
    }

    func testPoolObservationFollowsChangingRegions() throws {
        let (dbPool, directory) = try makePool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inbox = ObservationInbox<Int>()
        let cancellable = ValueObservation.tracking { db -> Int in
            let players = try Int.fetchOne(db, sql: "SELECT count(*) FROM player")!
            guard players > 0 else { return -1 }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM team")!
        }.removeDuplicates()
            .start(in: dbPool, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        _ = inbox.wait(for: 1)
        try dbPool.write { db in try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 0)") }
        try dbPool.write { db in try db.execute(sql: "INSERT INTO team VALUES (1, 'Reds')") }
        let deadline = Date().addingTimeInterval(10)
        while inbox.received.last != 1 && Date() < deadline { usleep(1000) }
        XCTAssertEqual(inbox.received.first, -1)
        XCTAssertEqual(inbox.received.last, 1)
        withExtendedLifetime(cancellable) {}
    }

    func testRequiresWriteAccess() throws {
        let dbQueue = try makeQueue()
        let inbox = ObservationInbox<Int>()
        var observation = ValueObservation.tracking { db -> Int in
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS scratch(x)")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM player")!
        }
        observation.requiresWriteAccess = true
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        _ = inbox.wait(for: 1)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 0)") }
        XCTAssertEqual(inbox.wait(for: 2), [0, 1])
        withExtendedLifetime(cancellable) {}
    }

    func testSnapshotGivesOneValue() throws {
        let (dbPool, directory) = try makePool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let snapshot = try dbPool.makeSnapshot()
        let inbox = ObservationInbox<Int>()
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player")! }
            .start(in: snapshot, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        XCTAssertEqual(inbox.wait(for: 1), [0])
        withExtendedLifetime(cancellable) {}
    }

    func testSharedObservationFetchesOnceForAllSubscribers() throws {
        let dbQueue = try makeQueue()
        let fetches = ObservationInbox<Int>()
        let shared = ValueObservation.tracking { db -> Int in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM player")!
            fetches.receive(count)
            return count
        }.shared(in: dbQueue, scheduling: .async(onQueue: queue))
        let first = ObservationInbox<Int>()
        let second = ObservationInbox<Int>()
        let c1 = shared.start(onError: first.fail, onChange: first.receive)
        XCTAssertEqual(first.wait(for: 1), [0])
        // A late subscriber gets the latest value without a fetch.
        let c2 = shared.start(onError: second.fail, onChange: second.receive)
        XCTAssertEqual(second.wait(for: 1), [0])
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 0)") }
        XCTAssertEqual(first.wait(for: 2), [0, 1])
        XCTAssertEqual(second.wait(for: 2), [0, 1])
        XCTAssertEqual(fetches.received, [0, 1], "one fetch per change, whatever the number of subscribers")
        // Once every subscriber left, the database observation stops (extent whileObserved)...
        c1.cancel()
        c2.cancel()
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player VALUES (2, 'Barbara', 0)") }
        queue.sync {}
        XCTAssertEqual(fetches.received, [0, 1])
        // ... and a new subscriber starts a fresh one.
        let third = ObservationInbox<Int>()
        let c3 = shared.start(onError: third.fail, onChange: third.receive)
        XCTAssertEqual(third.wait(for: 1), [2])
        withExtendedLifetime(c3) {}
    }

    func testSharedValuesAsAsyncSequence() async throws {
        let dbQueue = try makeQueue()
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM team")! }
            .shared(in: dbQueue, scheduling: .async(onQueue: queue), extent: .observationLifetime)
        var seen: [Int] = []
        for try await count in shared.values() {
            seen.append(count)
            if count == 2 { break }
            try await dbQueue.write { db in try db.execute(sql: "INSERT INTO team(name) VALUES ('x')") }
        }
        XCTAssertEqual(seen, [0, 1, 2])
    }
}
