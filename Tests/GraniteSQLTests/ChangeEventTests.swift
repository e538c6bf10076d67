import GraniteStorage
import XCTest

@testable import GraniteSQL

/// Records what an ``SQLConnection`` reports, one short line per event.
private final class EventRecorder: SQLChangeObserver {
    var events: [String] = []
    /// The updated column names of each reported update, in order.
    var updatedColumns: [[String]] = []
    /// The tables of the reported rows that live in the temporary schema.
    var temporaryTables: Set<String> = []
    /// When set, ``transactionWillCommit()`` throws it.
    var veto: SQLExecutionError?

    func rowDidChange(_ change: SQLRowChange) {
        events.append("\(change.kind) \(change.tableName) \(change.rowid)")
        if let names = change.updatedColumnNames { updatedColumns.append(names) }
        XCTAssertEqual(change.updatedColumnNames != nil, change.kind == .update)
        if change.isTemporary { temporaryTables.insert(change.tableName) }
    }
    func statementDidEnd(_ result: SQLStatementResult) {
        events.append(result == .changesKept ? "end" : "end undone")
    }
    func savepointDidBegin(named name: String) { events.append("savepoint \(name)") }
    func savepointDidRelease(named name: String) { events.append("release \(name)") }
    func savepointDidRollback(named name: String) { events.append("rollback to \(name)") }
    func transactionWillCommit() throws {
        events.append("will commit")
        if let veto { throw veto }
    }
    func transactionDidCommit() { events.append("commit") }
    func transactionDidRollback() { events.append("rollback") }

    /// The events recorded since the last call.
    func drain() -> [String] {
        defer { events.removeAll() }
        return events
    }
}

final class ChangeEventTests: XCTestCase {
    private var db: SQLConnection!
    private var recorder: EventRecorder!

    override func setUpWithError() throws {
        db = try SQLConnection(engine: try StorageEngine.inMemory())
        recorder = EventRecorder()
        db.changeObserver = recorder
    }

    private func rows(_ sql: String) throws -> [[Value]] { try db.query(sql).rows }

    /// Like SQLite's update hook, no row event is reported for a WITHOUT ROWID table (whose rows have no rowid to
    /// report); the statement and the transaction still are.
    func testWithoutRowidTablesReportNoRowEvents() throws {
        try db.execute("CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID")
        try db.execute("CREATE TABLE plain(x)")
        _ = recorder.drain()
        try db.execute("INSERT INTO kv VALUES ('a', 1), ('b', 2)")
        XCTAssertEqual(recorder.drain(), ["end", "will commit", "commit"])
        try db.execute("UPDATE kv SET v = 3 WHERE k = 'a'")
        try db.execute("DELETE FROM kv WHERE k = 'b'")
        XCTAssertEqual(recorder.drain(), ["end", "will commit", "commit", "end", "will commit", "commit"])
        try db.execute("INSERT INTO plain VALUES (1)")
        XCTAssertEqual(recorder.drain(), ["insert plain 1", "end", "will commit", "commit"])
    }

    func testAutocommitStatementsEachCommit() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
        XCTAssertEqual(recorder.drain(), ["end", "will commit", "commit"])
        try db.execute("INSERT INTO t(name) VALUES ('a')")
        try db.execute("INSERT INTO t(id, name) VALUES (7, 'b'), (3, 'c')")
        XCTAssertEqual(
            recorder.drain(),
            [
                "insert t 1", "end", "will commit", "commit",
                "insert t 7", "insert t 3", "end", "will commit", "commit",
            ])
        try db.execute("UPDATE t SET name = upper(name) WHERE id > 1")
        try db.execute("DELETE FROM t WHERE id = 1")
        XCTAssertEqual(
            recorder.drain(),
            [
                "update t 3", "update t 7", "end", "will commit", "commit",
                "delete t 1", "end", "will commit", "commit",
            ])
        // A statement changing nothing still ends and commits; reads report nothing.
        try db.execute("DELETE FROM t WHERE id = 100")
        _ = try rows("SELECT * FROM t")
        XCTAssertEqual(recorder.drain(), ["end", "will commit", "commit"])
    }

    func testRowidMovesAreReportedWithTheNewRowid() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE u(name TEXT)")
        try db.execute("INSERT INTO t VALUES (1, 'a'); INSERT INTO u(rowid, name) VALUES (5, 'x')")
        _ = recorder.drain()
        try db.execute("UPDATE t SET id = 10; UPDATE u SET rowid = 6")
        XCTAssertEqual(
            recorder.drain(),
            ["update t 10", "end", "will commit", "commit", "update u 6", "end", "will commit", "commit"])
    }

    func testForeignKeyActionsAreReported() throws {
        try db.execute(
            """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE cascaded(id INTEGER PRIMARY KEY, p REFERENCES parent(id) ON DELETE CASCADE ON UPDATE CASCADE);
            CREATE TABLE nulled(id INTEGER PRIMARY KEY, p REFERENCES parent(id) ON DELETE SET NULL);
            CREATE TABLE defaulted(id INTEGER PRIMARY KEY, p DEFAULT 2 REFERENCES parent(id) ON DELETE SET DEFAULT);
            INSERT INTO parent VALUES (1), (2), (3);
            INSERT INTO cascaded VALUES (10, 1), (11, 1), (12, 2);
            INSERT INTO nulled VALUES (20, 3);
            INSERT INTO defaulted VALUES (30, 3);
            """)
        _ = recorder.drain()
        try db.execute("UPDATE parent SET id = 4 WHERE id = 1")
        XCTAssertEqual(
            recorder.drain(),
            ["update parent 4", "update cascaded 10", "update cascaded 11", "end", "will commit", "commit"]
        )
        try db.execute("DELETE FROM parent WHERE id = 3")
        XCTAssertEqual(
            recorder.drain(),
            ["delete parent 3", "update defaulted 30", "update nulled 20", "end", "will commit", "commit"])
        try db.execute("DELETE FROM parent WHERE id = 4")
        XCTAssertEqual(
            recorder.drain(),
            ["delete parent 4", "delete cascaded 10", "delete cascaded 11", "end", "will commit", "commit"])
        XCTAssertEqual(try rows("SELECT id, p FROM cascaded"), [[.integer(12), .integer(2)]])
    }

    func testReplaceAndUpsert() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, email TEXT UNIQUE, n INT)")
        try db.execute("INSERT INTO t VALUES (1, 'a', 0), (2, 'b', 0)")
        _ = recorder.drain()
        // REPLACE deletes the rows in the way (by rowid and by the unique email), then inserts.
        try db.execute("INSERT OR REPLACE INTO t VALUES (1, 'b', 5)")
        XCTAssertEqual(recorder.drain(), ["delete t 1", "delete t 2", "insert t 1", "end", "will commit", "commit"])
        try db.execute("INSERT INTO t VALUES (9, 'b', 1) ON CONFLICT(email) DO UPDATE SET n = n + excluded.n")
        try db.execute("INSERT INTO t VALUES (9, 'b', 1) ON CONFLICT DO NOTHING")
        XCTAssertEqual(
            recorder.drain(), ["update t 1", "end", "will commit", "commit", "end", "will commit", "commit"])
        XCTAssertEqual(try rows("SELECT id, email, n FROM t"), [[.integer(1), .text("b"), .integer(6)]])
    }

    func testExplicitTransaction() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
        _ = recorder.drain()
        try db.execute("BEGIN; INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); COMMIT")
        XCTAssertEqual(recorder.drain(), ["insert t 1", "end", "insert t 2", "end", "will commit", "commit"])
        try db.execute("BEGIN; DELETE FROM t; ROLLBACK")
        XCTAssertEqual(recorder.drain(), ["delete t 1", "delete t 2", "end", "rollback"])
        XCTAssertEqual(try rows("SELECT count(*) FROM t"), [[.integer(2)]])
        // DDL inside a transaction ends like any statement, with no row.
        try db.execute("BEGIN; CREATE TABLE u(x); COMMIT")
        XCTAssertEqual(recorder.drain(), ["end", "will commit", "commit"])
    }

    func testFailingStatementInsideATransactionIsUndone() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, n INT CHECK (n < 3))")
        try db.execute("INSERT INTO t VALUES (1, 0), (2, 1), (3, 2)")
        try db.execute("BEGIN")
        _ = recorder.drain()
        // The first two rows change before the third fails: the statement savepoint puts them back.
        XCTAssertThrowsError(try db.execute("UPDATE t SET n = n + 1"))
        XCTAssertEqual(recorder.drain(), ["update t 1", "update t 2", "end undone"])
        XCTAssertTrue(db.isInTransaction)
        // OR FAIL keeps the changes made before the failure.
        XCTAssertThrowsError(try db.execute("UPDATE OR FAIL t SET n = n + 1"))
        XCTAssertEqual(recorder.drain(), ["update t 1", "update t 2", "end"])
        // OR ROLLBACK ends the whole transaction.
        XCTAssertThrowsError(try db.execute("UPDATE OR ROLLBACK t SET n = n + 1"))
        XCTAssertEqual(recorder.drain(), ["update t 1", "end undone", "rollback"])
        XCTAssertFalse(db.isInTransaction)
        XCTAssertEqual(try rows("SELECT n FROM t ORDER BY id"), [[.integer(0)], [.integer(1)], [.integer(2)]])
        // A one-row insert checked before it writes fails with nothing written.
        try db.execute("BEGIN")
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (1, 0)"))
        try db.execute("COMMIT")
        XCTAssertEqual(recorder.drain(), ["end undone", "will commit", "commit"])
    }

    func testFailingAutocommitStatementRollsBack() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, n INT CHECK (n < 3))")
        try db.execute("INSERT INTO t VALUES (1, 0), (2, 1), (3, 2)")
        _ = recorder.drain()
        XCTAssertThrowsError(try db.execute("UPDATE t SET n = n + 1"))
        XCTAssertEqual(recorder.drain(), ["update t 1", "update t 2", "end undone", "rollback"])
        XCTAssertThrowsError(try db.execute("UPDATE OR FAIL t SET n = n + 1"))
        XCTAssertEqual(recorder.drain(), ["update t 1", "update t 2", "end", "will commit", "commit"])
        XCTAssertEqual(try rows("SELECT n FROM t ORDER BY id"), [[.integer(1)], [.integer(2)], [.integer(2)]])
    }

    func testSavepoints() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
        _ = recorder.drain()
        try db.execute(
            """
            SAVEPOINT a; INSERT INTO t VALUES (1);
            SAVEPOINT b; INSERT INTO t VALUES (2);
            SAVEPOINT c; INSERT INTO t VALUES (3);
            ROLLBACK TO b; INSERT INTO t VALUES (4);
            SAVEPOINT d; RELEASE d;
            RELEASE b;
            """)
        XCTAssertEqual(
            recorder.drain(),
            [
                "savepoint a", "insert t 1", "end",
                "savepoint b", "insert t 2", "end",
                "savepoint c", "insert t 3", "end",
                "rollback to b", "insert t 4", "end",
                "savepoint d", "release d", "release b",
            ])
        XCTAssertTrue(db.isInTransaction)
        // Releasing the savepoint that began the transaction commits it.
        try db.execute("RELEASE a")
        XCTAssertEqual(recorder.drain(), ["will commit", "commit"])
        XCTAssertEqual(try rows("SELECT id FROM t"), [[.integer(1)], [.integer(4)]])
        // Inside BEGIN, releasing the outermost savepoint does not commit.
        try db.execute("BEGIN; SAVEPOINT a; INSERT INTO t VALUES (5); RELEASE a; ROLLBACK")
        XCTAssertEqual(recorder.drain(), ["savepoint a", "insert t 5", "end", "release a", "rollback"])
    }

    func testWillCommitVetoRollsBack() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
        _ = recorder.drain()
        let veto = SQLExecutionError("vetoed")
        recorder.veto = veto
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (1)")) {
            XCTAssertEqual($0 as? SQLExecutionError, veto)
        }
        try db.execute("BEGIN; INSERT INTO t VALUES (2)")
        XCTAssertThrowsError(try db.execute("COMMIT")) { XCTAssertEqual($0 as? SQLExecutionError, veto) }
        XCTAssertFalse(db.isInTransaction)
        try db.execute("SAVEPOINT a; INSERT INTO t VALUES (3)")
        XCTAssertThrowsError(try db.execute("RELEASE a")) { XCTAssertEqual($0 as? SQLExecutionError, veto) }
        XCTAssertFalse(db.isInTransaction)
        XCTAssertEqual(
            recorder.drain(),
            [
                "insert t 1", "end", "will commit", "rollback",
                "insert t 2", "end", "will commit", "rollback",
                "savepoint a", "insert t 3", "end", "will commit", "rollback",
            ])
        recorder.veto = nil
        XCTAssertEqual(try rows("SELECT count(*) FROM t"), [[.integer(0)]])
    }

    func testDropTableDeletesReferencingRowsFirst() throws {
        try db.execute(
            """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, p REFERENCES parent(id) ON DELETE CASCADE);
            INSERT INTO parent VALUES (1); INSERT INTO child VALUES (5, 1);
            """)
        _ = recorder.drain()
        try db.execute("DROP TABLE parent")
        XCTAssertEqual(recorder.drain(), ["delete parent 1", "delete child 5", "end", "will commit", "commit"])
    }

    func testAutoincrementSequenceIsNotReported() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT)")
        _ = recorder.drain()
        try db.execute("INSERT INTO t DEFAULT VALUES")
        XCTAssertEqual(recorder.drain(), ["insert t 1", "end", "will commit", "commit"])
    }

    func testNoObserverReportsNothingAndStatementsUseTheObserverTheyStartedWith() throws {
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
        let insert = try db.prepare("INSERT INTO t VALUES (?)")
        db.changeObserver = nil
        _ = recorder.drain()
        try insert.bind([.integer(1)])
        try insert.execute()
        XCTAssertEqual(recorder.drain(), [])
        db.changeObserver = recorder
        try insert.bind([.integer(2)])
        try insert.execute()
        XCTAssertEqual(recorder.drain(), ["insert t 2", "end", "will commit", "commit"])
    }

    func testUpdatesNameTheColumnsTheirStatementAssigns() throws {
        try db.execute(
            """
            CREATE TABLE parent(id INTEGER PRIMARY KEY, name TEXT UNIQUE);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parentId REFERENCES parent(id) ON UPDATE CASCADE, note TEXT);
            CREATE TABLE plain(a, b, c);
            INSERT INTO parent VALUES (1, 'x'); INSERT INTO child VALUES (5, 1, 'n'); INSERT INTO plain VALUES (1, 2, 3);
            """)
        _ = recorder.drain()
        // An assignment that keeps the value still names the column, as SQLite's authorizer does.
        try db.execute("UPDATE plain SET b = b, c = 4")
        XCTAssertEqual(recorder.updatedColumns, [["b", "c"]])
        recorder.updatedColumns = []
        try db.execute("UPDATE plain SET rowid = 9")
        XCTAssertEqual(recorder.updatedColumns, [["rowid"]])
        recorder.updatedColumns = []
        // The foreign key action sets the child key column.
        try db.execute("UPDATE parent SET id = 2")
        XCTAssertEqual(recorder.updatedColumns, [["id"], ["parentId"]])
        recorder.updatedColumns = []
        try db.execute("INSERT INTO parent VALUES (7, 'x') ON CONFLICT(name) DO UPDATE SET name = 'y'")
        XCTAssertEqual(recorder.updatedColumns, [["name"]])
        recorder.updatedColumns = []
        try db.execute("UPDATE child SET note = p.name FROM parent p WHERE p.id = child.parentId")
        XCTAssertEqual(recorder.updatedColumns, [["note"]])
        XCTAssertEqual(
            recorder.drain(),
            [
                "update plain 1", "end", "will commit", "commit", "update plain 9", "end", "will commit", "commit",
                "update parent 2", "update child 5", "end", "will commit", "commit",
                "update parent 2", "end", "will commit", "commit", "update child 5", "end", "will commit", "commit",
            ])
    }

    func testTriggerChangesAreReportedInOrder() throws {
        try db.execute(
            """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE log(id INTEGER PRIMARY KEY, what TEXT);
            CREATE TRIGGER itemInserted AFTER INSERT ON item BEGIN INSERT INTO log(what) VALUES ('+' || NEW.name); END;
            CREATE TRIGGER itemRenamed BEFORE UPDATE OF name ON item BEGIN UPDATE log SET what = 'renamed'; END;
            CREATE TRIGGER itemDeleted AFTER DELETE ON item BEGIN DELETE FROM log WHERE what = 'renamed'; END;
            CREATE VIEW itemView AS SELECT id, name FROM item;
            CREATE TRIGGER viewInsert INSTEAD OF INSERT ON itemView BEGIN INSERT INTO item VALUES (NEW.id, NEW.name); END;
            """)
        _ = recorder.drain()
        try db.execute("INSERT INTO item VALUES (1, 'a')")
        try db.execute("UPDATE item SET name = 'b'")
        XCTAssertEqual(recorder.updatedColumns, [["what"], ["name"]])
        try db.execute("DELETE FROM item")
        try db.execute("INSERT INTO itemView VALUES (3, 'c')")
        XCTAssertEqual(
            recorder.drain(),
            [
                "insert item 1", "insert log 1", "end", "will commit", "commit",
                "update log 1", "update item 1", "end", "will commit", "commit",
                "delete item 1", "delete log 1", "end", "will commit", "commit",
                // The log is empty again, so its next rowid is 1.
                "insert item 3", "insert log 1", "end", "will commit", "commit",
            ])
    }

    func testTemporaryTablesAreFlagged() throws {
        try db.execute("CREATE TABLE t(x); CREATE TEMP TABLE scratch(x)")
        try db.execute("INSERT INTO t VALUES (1); INSERT INTO scratch VALUES (1)")
        XCTAssertEqual(recorder.temporaryTables, ["scratch"])
    }
}
