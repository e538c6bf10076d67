import Foundation
import Granite
import XCTest

/// Counts notifications from `@Sendable` closures.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// An embedder's observer of one table that counts the questions it is asked and the changes it is told.
private final class AskedObserver: TransactionObserver {
    let table: String
    var questions = 0
    var changes = 0

    init(table: String) {
        self.table = table
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        questions += 1
        return eventKind.tableName == table
    }

    func databaseDidChange(with event: DatabaseEvent) { changes += 1 }
    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}

/// An embedder's observer that wants no change and counts the transaction ends it hears.
private final class EndCountingObserver: TransactionObserver {
    var commits = 0
    var rollbacks = 0

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits += 1 }
    func databaseDidRollback(_ db: Database) { rollbacks += 1 }
}

/// The broker keeps which observers want the changes of each table from one statement and transaction to the
/// next when their answers allow it: these tests check that a write into an unobserved table is told to nobody,
/// and that nothing the broker kept hides a change from an observer added, a region that grew, or a schema that
/// changed since.
final class ObservationDecisionTests: XCTestCase {
    private let queue = DispatchQueue(label: "ObservationDecisionTests")

    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE config(id INTEGER PRIMARY KEY, watchesPlayers INTEGER NOT NULL);
                    INSERT INTO config VALUES (1, 0);
                    """)
        }
        return dbQueue
    }

    private func insertPlayer(_ writer: some DatabaseWriter) throws {
        try writer.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('x')") }
    }

    func testUnrelatedWritesAreToldToNobodyAndAnObserverAddedLaterHearsThem() throws {
        let dbQueue = try makeQueue()
        let teamChanges = Counter()
        let teamCancellable = DatabaseRegionObservation(tracking: Table("team"))
            .start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in teamChanges.increment() }
        for _ in 0..<3 { try insertPlayer(dbQueue) }
        XCTAssertEqual(teamChanges.value, 0)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(name) VALUES ('Reds')") }
        XCTAssertEqual(teamChanges.value, 1)

        // The player inserts above were wanted by nobody: an observation of the table started now hears the next.
        let playerChanges = Counter()
        let playerCancellable = DatabaseRegionObservation(tracking: Table("player"))
            .start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in playerChanges.increment() }
        try insertPlayer(dbQueue)
        XCTAssertEqual(playerChanges.value, 1)
        XCTAssertEqual(teamChanges.value, 1)

        // So does an embedder's observer, and it is asked once per statement and kind, even after the same
        // statement ran before.
        let embedderObserver = AskedObserver(table: "player")
        dbQueue.add(transactionObserver: embedderObserver)
        try insertPlayer(dbQueue)
        try insertPlayer(dbQueue)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(name) VALUES ('Blues')") }
        XCTAssertEqual(embedderObserver.changes, 2)
        XCTAssertEqual(embedderObserver.questions, 3)
        XCTAssertEqual(playerChanges.value, 3)
        XCTAssertEqual(teamChanges.value, 2)

        // Once the embedder's observer is gone, the observations still hear their tables.
        dbQueue.remove(transactionObserver: embedderObserver)
        try insertPlayer(dbQueue)
        XCTAssertEqual(embedderObserver.questions, 3)
        XCTAssertEqual(playerChanges.value, 4)
        withExtendedLifetime((teamCancellable, playerCancellable)) {}
    }

    /// The observation stops listening after the first row of each transaction, so the second insert below is
    /// wanted by nobody: what the broker notes then must not outlive the transaction.
    func testAnObserverThatStoppedUntilTheNextTransactionHearsTheNextOne() throws {
        let dbQueue = try makeQueue()
        let playerChanges = Counter()
        let cancellable = DatabaseRegionObservation(tracking: Table("player"))
            .start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in playerChanges.increment() }
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player(name) VALUES ('a')")
            try db.execute(sql: "INSERT INTO player(name) VALUES ('b')")
        }
        XCTAssertEqual(playerChanges.value, 1)
        try insertPlayer(dbQueue)
        XCTAssertEqual(playerChanges.value, 2)
        withExtendedLifetime(cancellable) {}
    }

    func testATriggerCreatedLaterIsHeard() throws {
        let dbQueue = try makeQueue()
        let teamChanges = Counter()
        let cancellable = DatabaseRegionObservation(tracking: Table("team"))
            .start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in teamChanges.increment() }
        try insertPlayer(dbQueue)
        XCTAssertEqual(teamChanges.value, 0)
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER playerTeam AFTER INSERT ON player
                    BEGIN INSERT INTO team(name) VALUES (NEW.name); END
                    """)
        }
        try insertPlayer(dbQueue)
        XCTAssertEqual(teamChanges.value, 1)
        // A table dropped and created again under the same name is still observed.
        try dbQueue.write { db in
            try db.execute(sql: "DROP TRIGGER playerTeam; DROP TABLE team; CREATE TABLE team(id INTEGER PRIMARY KEY)")
        }
        let afterSchemaChange = teamChanges.value
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team DEFAULT VALUES") }
        XCTAssertEqual(teamChanges.value, afterSchemaChange + 1)
        withExtendedLifetime(cancellable) {}
    }

    /// With only observations that want none of its changes, a transaction ends without a word to them; an
    /// embedder's observer still hears every end (GRDB tells each observer of each commit and rollback), and the
    /// savepoints and changes of the transactions that ended unheard are not carried into the next ones.
    func testTransactionsTheObservationsIgnoreEndUnheardWhileAnEmbedderHearsEveryEnd() throws {
        let dbQueue = try makeQueue()
        let teamChanges = Counter()
        let cancellable = DatabaseRegionObservation(tracking: Table("team"))
            .start(in: dbQueue, onError: { XCTFail("\($0)") }) { _ in teamChanges.increment() }
        let embedderObserver = EndCountingObserver()
        dbQueue.add(transactionObserver: embedderObserver)
        try insertPlayer(dbQueue)
        try insertPlayer(dbQueue)
        try? dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player(name) VALUES ('rolled back')")
            throw DatabaseError(resultCode: .SQLITE_ABORT)
        }
        XCTAssertEqual(embedderObserver.commits, 2)
        XCTAssertEqual(embedderObserver.rollbacks, 1)
        XCTAssertEqual(teamChanges.value, 0)

        dbQueue.remove(transactionObserver: embedderObserver)
        try insertPlayer(dbQueue)
        try dbQueue.write { db in
            try db.execute(sql: "SAVEPOINT s; INSERT INTO player(name) VALUES ('y'); ROLLBACK TO s; RELEASE s")
            try db.execute(sql: "SAVEPOINT open; INSERT INTO player(name) VALUES ('z')")
        }
        XCTAssertEqual(teamChanges.value, 0)
        // A team row inserted under a savepoint is told when the savepoint is released, and the observation hears
        // of the commit.
        try dbQueue.write { db in
            try db.execute(sql: "SAVEPOINT t; INSERT INTO team(name) VALUES ('Reds'); RELEASE t")
        }
        XCTAssertEqual(teamChanges.value, 1)
        // One undone by `ROLLBACK TO` is not.
        try dbQueue.write { db in
            try db.execute(sql: "SAVEPOINT t; INSERT INTO team(name) VALUES ('Blues'); ROLLBACK TO t; RELEASE t")
        }
        XCTAssertEqual(teamChanges.value, 1)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(name) VALUES ('Greens')") }
        XCTAssertEqual(teamChanges.value, 2)
        XCTAssertEqual(embedderObserver.commits, 2)
        withExtendedLifetime(cancellable) {}
    }

    /// A value observation whose region grows after a fetch: the player inserts that nobody wanted before must
    /// reach it afterwards.
    private func assertGrowingRegionIsHeard(_ writer: some DatabaseWriter) throws {
        let inbox = ObservationInbox<Int>()
        let observation = ValueObservation.tracking { db -> Int in
            let watchesPlayers = try Int.fetchOne(db, sql: "SELECT watchesPlayers FROM config") ?? 0
            guard watchesPlayers != 0 else { return -1 }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM player") ?? 0
        }
        let cancellable = observation.start(
            in: writer, scheduling: .async(onQueue: queue), onError: inbox.fail, onChange: inbox.receive)
        inbox.wait(until: { $0 == -1 })
        try insertPlayer(writer)
        try insertPlayer(writer)
        try writer.write { db in try db.execute(sql: "UPDATE config SET watchesPlayers = 1") }
        inbox.wait(until: { $0 == 2 })
        try insertPlayer(writer)
        // A pool may deliver its first value twice, and a value again after a fetch that found a new region.
        XCTAssertEqual(Set(inbox.wait(until: { $0 == 3 })), [-1, 2, 3])
        cancellable.cancel()
    }

    func testAGrowingRegionIsHeardOnAQueue() throws {
        try assertGrowingRegionIsHeard(try makeQueue())
    }

    func testAGrowingRegionIsHeardOnAPool() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.granite").path)
        try dbPool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE config(id INTEGER PRIMARY KEY, watchesPlayers INTEGER NOT NULL);
                    INSERT INTO config VALUES (1, 0);
                    """)
        }
        try assertGrowingRegionIsHeard(dbPool)
        try dbPool.close()
    }
}
