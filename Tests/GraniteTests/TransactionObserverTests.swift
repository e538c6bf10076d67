import Foundation
import Granite
import XCTest

/// Notes what a connection tells it, one short line per change and per transaction end.
private final class Journal: TransactionObserver {
    var log: [String] = []
    let accepts: (DatabaseEventKind) -> Bool
    /// Thrown by `databaseWillCommit()` when set.
    var commitRefusal: (any Error)?
    /// Called on each change, before it is noted.
    var onChange: ((Journal, DatabaseEvent) -> Void)?

    init(accepting accepts: @escaping (DatabaseEventKind) -> Bool = { _ in true }) {
        self.accepts = accepts
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { accepts(eventKind) }

    func databaseDidChange(with event: DatabaseEvent) {
        onChange?(self, event)
        log.append("\(event.kind) \(event.tableName) \(event.rowID)")
    }

    func databaseDidChange() { log.append("changed") }

    func databaseWillCommit() throws {
        log.append("will commit")
        if let commitRefusal { throw commitRefusal }
    }

    func databaseDidCommit(_ db: Database) { log.append("commit") }
    func databaseDidRollback(_ db: Database) { log.append("rollback") }

    func take() -> [String] {
        defer { log = [] }
        return log
    }
}

private struct Refusal: Error, Equatable {}

final class TransactionObserverTests: XCTestCase {
    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE player(id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id) ON DELETE CASCADE,
                                        name TEXT, score INTEGER);
                    """)
        }
        return dbQueue
    }

    func testEachChangeThenTheCommit() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        dbQueue.add(transactionObserver: journal)
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (1, 'Arthur', 10), (2, 'Barbara', 20)")
            try db.execute(sql: "UPDATE player SET score = score + 1 WHERE id = 2")
            try db.execute(sql: "DELETE FROM player WHERE id = 1")
        }
        XCTAssertEqual(
            journal.take(),
            ["insert player 1", "insert player 2", "update player 2", "delete player 1", "will commit", "commit"])
        // Outside a transaction, each statement is its own transaction.
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO team(id, name) VALUES (5, 'Reds')")
            try db.execute(sql: "UPDATE team SET name = 'Blues'")
        }
        XCTAssertEqual(
            journal.take(), ["insert team 5", "will commit", "commit", "update team 5", "will commit", "commit"])
    }

    func testEventsDescribeTheirRow() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        var seen: [(DatabaseEvent.Kind, String, String, Int64)] = []
        journal.onChange = { _, event in
            let copy = event.copy()
            seen.append((copy.kind, copy.databaseName, copy.tableName, copy.rowID))
        }
        dbQueue.add(transactionObserver: journal)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TEMP TABLE scratch(x)")
            try db.execute(sql: "INSERT INTO scratch(rowid, x) VALUES (3, 'a')")
            try db.execute(sql: "INSERT INTO team(id) VALUES (8)")
        }
        XCTAssertEqual(seen.map(\.0), [.insert, .insert])
        XCTAssertEqual(seen.map(\.1), ["temp", "main"])
        XCTAssertEqual(seen.map(\.2), ["scratch", "team"])
        XCTAssertEqual(seen.map(\.3), [3, 8])
        XCTAssertEqual(DatabaseEvent.Kind.insert.rawValue, 18)
        XCTAssertEqual(DatabaseEvent.Kind.delete.rawValue, 9)
        XCTAssertEqual(DatabaseEvent.Kind.update.rawValue, 23)
    }

    func testObservedKindsFilterTheChanges() throws {
        let dbQueue = try makeQueue()
        let scoreWatcher = Journal { kind in
            if case .update(let table, let columns) = kind { return table == "player" && columns.contains("score") }
            return false
        }
        let teamWatcher = Journal { $0.tableName == "team" }
        var kindsAsked: [String] = []
        let recorder = Journal { kind in
            switch kind {
            case .insert(let table): kindsAsked.append("insert \(table)")
            case .delete(let table): kindsAsked.append("delete \(table)")
            case .update(let table, let columns): kindsAsked.append("update \(table) \(columns.sorted())")
            }
            return false
        }
        dbQueue.add(transactionObserver: scoreWatcher)
        dbQueue.add(transactionObserver: teamWatcher)
        dbQueue.add(transactionObserver: recorder)
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO team(id, name) VALUES (1, 'Reds')")
            try db.execute(sql: "INSERT INTO player(id, teamId, name, score) VALUES (1, 1, 'Arthur', 0)")
            try db.execute(sql: "UPDATE player SET name = 'Art'")
            try db.execute(sql: "UPDATE player SET score = 3, name = 'Arthur'")
            // The foreign key action deletes a player too: only the team deletion interests teamWatcher.
            try db.execute(sql: "DELETE FROM team")
        }
        XCTAssertEqual(scoreWatcher.take(), ["update player 1", "will commit", "commit"])
        XCTAssertEqual(teamWatcher.take(), ["insert team 1", "delete team 1", "will commit", "commit"])
        XCTAssertEqual(
            kindsAsked,
            [
                "insert team", "insert player", "update player [\"name\"]", "update player [\"name\", \"score\"]",
                "delete team", "delete player",
            ])
        XCTAssertEqual(recorder.take(), ["will commit", "commit"])
    }

    func testRollbackIsTold() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        dbQueue.add(transactionObserver: journal)
        try dbQueue.inDatabase { db in
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO team(id) VALUES (1)")
                return .rollback
            }
            // A failing statement outside a transaction rolls its own transaction back.
            try db.execute(sql: "INSERT INTO team(id) VALUES (2)")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO team(id) VALUES (3), (2)"))
        }
        XCTAssertEqual(
            journal.take(),
            ["insert team 1", "rollback", "insert team 2", "will commit", "commit", "insert team 3", "rollback"])
    }

    func testAnEmptyTransactionCommits() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        dbQueue.add(transactionObserver: journal)
        try dbQueue.inDatabase { db in
            try db.execute(sql: "BEGIN; COMMIT")
            try db.inTransaction { .commit }
        }
        XCTAssertEqual(journal.take(), ["will commit", "commit", "will commit", "commit"])
    }

    func testSavepointChangesWaitForTheOutermostRelease() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        dbQueue.add(transactionObserver: journal)
        try dbQueue.inDatabase { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "INSERT INTO team(id) VALUES (1)")
            XCTAssertEqual(journal.take(), ["insert team 1"])
            try db.execute(sql: "SAVEPOINT first")
            try db.execute(sql: "INSERT INTO team(id) VALUES (2)")
            try db.execute(sql: "SAVEPOINT second")
            try db.execute(sql: "INSERT INTO team(id) VALUES (3)")
            try db.execute(sql: "RELEASE second")
            XCTAssertEqual(journal.take(), [], "still inside savepoint first")
            try db.execute(sql: "RELEASE FIRST")
            XCTAssertEqual(journal.take(), ["insert team 2", "insert team 3"])
            try db.execute(sql: "COMMIT")
        }
        XCTAssertEqual(journal.take(), ["will commit", "commit"])
    }

    func testRollingBackToASavepointDiscardsItsChanges() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        dbQueue.add(transactionObserver: journal)
        try dbQueue.inDatabase { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "SAVEPOINT a")
            try db.execute(sql: "INSERT INTO team(id) VALUES (1)")
            try db.execute(sql: "SAVEPOINT b")
            try db.execute(sql: "INSERT INTO team(id) VALUES (2)")
            try db.execute(sql: "ROLLBACK TO a")
            try db.execute(sql: "INSERT INTO team(id) VALUES (3)")
            try db.execute(sql: "SAVEPOINT c")
            try db.execute(sql: "INSERT INTO team(id) VALUES (4)")
            try db.execute(sql: "ROLLBACK TO c")
            try db.execute(sql: "RELEASE a")
            try db.execute(sql: "COMMIT")
        }
        XCTAssertEqual(journal.take(), ["insert team 3", "will commit", "commit"])
        // A transaction begun by SAVEPOINT commits with its release; its changes come before the commit.
        try dbQueue.inDatabase { db in
            try db.execute(sql: "SAVEPOINT only; INSERT INTO team(id) VALUES (9); RELEASE only")
        }
        XCTAssertEqual(journal.take(), ["insert team 9", "will commit", "commit"])
        // inSavepoint inside a transaction: a rolled back block's changes are never told.
        try dbQueue.write { db in
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO team(id) VALUES (10)")
                return .rollback
            }
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO team(id) VALUES (11)")
                return .commit
            }
        }
        XCTAssertEqual(journal.take(), ["insert team 11", "will commit", "commit"])
    }

    func testAFailedStatementInsideASavepointIsNotTold() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        dbQueue.add(transactionObserver: journal)
        try dbQueue.write { db in
            try db.execute(sql: "SAVEPOINT s")
            try db.execute(sql: "INSERT INTO team(id) VALUES (1)")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO team(id) VALUES (2), (1)"))
            try db.execute(sql: "RELEASE s")
        }
        XCTAssertEqual(journal.take(), ["insert team 1", "will commit", "commit"])
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM team") }, 1)
    }

    func testThrowingFromWillCommitRollsBack() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        let bystander = Journal()
        journal.commitRefusal = Refusal()
        dbQueue.add(transactionObserver: journal)
        dbQueue.add(transactionObserver: bystander)
        XCTAssertThrowsError(
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (1)") }
        ) { error in
            XCTAssertEqual(error as? Refusal, Refusal())
        }
        XCTAssertEqual(journal.take(), ["insert team 1", "will commit", "rollback"])
        XCTAssertEqual(bystander.take(), ["insert team 1", "rollback"])
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM team") }, 0)
        // Autocommit statements are refused the same way.
        XCTAssertThrowsError(
            try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "INSERT INTO team(id) VALUES (2)") })
        XCTAssertEqual(journal.take(), ["insert team 2", "will commit", "rollback"])
        journal.commitRefusal = nil
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (3)") }
        XCTAssertEqual(journal.take(), ["insert team 3", "will commit", "commit"])
        XCTAssertEqual(try dbQueue.read { try Int.fetchAll($0, sql: "SELECT id FROM team") }, [3])
    }

    func testObserverLifetimeExtentHoldsTheObserverWeakly() throws {
        let dbQueue = try makeQueue()
        var journal: Journal? = Journal()
        weak let weakJournal = journal
        dbQueue.add(transactionObserver: journal!)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (1)") }
        XCTAssertEqual(journal?.take(), ["insert team 1", "will commit", "commit"])
        journal = nil
        XCTAssertNil(weakJournal)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (2)") }
    }

    func testNextTransactionExtent() throws {
        let dbQueue = try makeQueue()
        var log: [String] = []
        do {
            let journal = Journal()
            journal.onChange = { _, event in log.append("change \(event.rowID)") }
            dbQueue.add(transactionObserver: journal, extent: .nextTransaction)
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (1)") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (2)") }
        XCTAssertEqual(log, ["change 1"], "held until the end of the next transaction, then released")
    }

    func testDatabaseLifetimeExtentHoldsTheObserver() throws {
        let dbQueue = try makeQueue()
        var log: [String] = []
        do {
            let journal = Journal()
            journal.onChange = { _, event in log.append("change \(event.rowID)") }
            dbQueue.add(transactionObserver: journal, extent: .databaseLifetime)
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (1)") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (2)") }
        XCTAssertEqual(log, ["change 1", "change 2"])
        XCTAssertEqual(Database.TransactionObservationExtent.databaseLifetime, .databaseLifetime)
        XCTAssertNotEqual(Database.TransactionObservationExtent.nextTransaction, .observerLifetime)
    }

    func testRemovedObserverHearsNothing() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        let other = Journal()
        dbQueue.add(transactionObserver: journal)
        dbQueue.add(transactionObserver: other)
        dbQueue.remove(transactionObserver: journal)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (1)") }
        XCTAssertEqual(journal.take(), [])
        XCTAssertEqual(other.take(), ["insert team 1", "will commit", "commit"])
        // Removal in the middle of a transaction stops the notifications at once.
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO team(id) VALUES (2)")
            db.remove(transactionObserver: other)
            try db.execute(sql: "INSERT INTO team(id) VALUES (3)")
        }
        XCTAssertEqual(other.take(), ["insert team 2"])
    }

    func testAfterNextTransaction() throws {
        let dbQueue = try makeQueue()
        let outcomes = LockedList()
        try dbQueue.write { db in
            db.afterNextTransaction(
                onCommit: { db in
                    // The connection may be used: the commit is over.
                    let count = try? Int.fetchOne(db, sql: "SELECT count(*) FROM team")
                    outcomes.append("commit \(count ?? -1)")
                },
                onRollback: { _ in outcomes.append("rollback") })
            try db.execute(sql: "INSERT INTO team(id) VALUES (1)")
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id) VALUES (2)") }
        XCTAssertEqual(outcomes.items, ["commit 1"])
        try dbQueue.inDatabase { db in
            db.afterNextTransaction(
                onCommit: { _ in outcomes.append("commit") }, onRollback: { _ in outcomes.append("rollback") })
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO team(id) VALUES (3)")
                return .rollback
            }
            db.afterNextTransaction { db in
                // A write from the commit callback: the connection is free.
                try? db.execute(sql: "INSERT INTO team(id) VALUES (100)")
                outcomes.append("wrote")
            }
            try db.inTransaction { .commit }
        }
        XCTAssertEqual(outcomes.items, ["commit 1", "rollback", "wrote"])
        XCTAssertEqual(try dbQueue.read { try Int.fetchAll($0, sql: "SELECT id FROM team ORDER BY id") }, [1, 2, 100])
    }

    func testStopObservingUntilNextTransaction() throws {
        let dbQueue = try makeQueue()
        let journal = Journal()
        journal.onChange = { journal, _ in journal.stopObservingDatabaseChangesUntilNextTransaction() }
        dbQueue.add(transactionObserver: journal)
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO team(id) VALUES (1), (2)")
            try db.execute(sql: "INSERT INTO team(id) VALUES (3)")
        }
        XCTAssertEqual(journal.take(), ["insert team 1", "will commit", "commit"])
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM team WHERE id = 3") }
        XCTAssertEqual(journal.take(), ["delete team 3", "will commit", "commit"])
    }

    func testTriggerChangesAreTold() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE audit(id INTEGER PRIMARY KEY, note TEXT);
                    CREATE TRIGGER teamAudit AFTER INSERT ON team BEGIN INSERT INTO audit(note) VALUES (NEW.name); END;
                    """)
        }
        let auditWatcher = Journal { $0.tableName == "audit" }
        dbQueue.add(transactionObserver: auditWatcher)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO team(id, name) VALUES (4, 'Greens')") }
        XCTAssertEqual(auditWatcher.take(), ["insert audit 1", "will commit", "commit"])
    }

    func testPoolWriterObservers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.granite").path)
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t(x)") }
        let journal = Journal()
        dbPool.add(transactionObserver: journal)
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        // Reads change nothing and tell nothing.
        _ = try dbPool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(journal.take(), ["insert t 1", "will commit", "commit"])
        // A reader connection is read-only: observers added there hear nothing, as in GRDB.
        let readerJournal = Journal()
        try dbPool.read { db in db.add(transactionObserver: readerJournal) }
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        XCTAssertEqual(readerJournal.take(), [])
    }
}

/// A list appended to from `@Sendable` closures.
private final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ item: String) { lock.withLock { storage.append(item) } }
    var items: [String] { lock.withLock { storage } }
}
