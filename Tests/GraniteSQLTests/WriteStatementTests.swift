import GraniteSQL
import GraniteStorage
import XCTest

/// Conflict resolution, upsert, RETURNING, AUTOINCREMENT and the change counters (expected values checked
/// against SQLite 3.40).
final class WriteStatementTests: XCTestCase {
    func open(_ schema: String) throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(schema)
        return db
    }

    func rows(_ db: SQLConnection, _ sql: String) throws -> [[Value]] { try db.query(sql).rows }

    func expectError(
        _ message: String, code: Int32? = nil, _ body: () throws -> Void, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        do {
            try body()
            XCTFail("expected error '\(message)'", file: file, line: line)
        } catch let error as SQLExecutionError {
            XCTAssertEqual(error.message, message, file: file, line: line)
            if let code { XCTAssertEqual(error.extendedResultCode, code, file: file, line: line) }
        } catch {
            XCTAssertEqual("\(error)", message, file: file, line: line)
        }
    }

    func testInsertOrActions() throws {
        let db = try open("CREATE TABLE t(id INTEGER PRIMARY KEY, u UNIQUE, n NOT NULL DEFAULT 0)")
        try db.execute("INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)")
        try db.execute("INSERT OR IGNORE INTO t VALUES (3, 'a', 3), (4, 'd', 4)")
        XCTAssertEqual(db.changes, 1)
        XCTAssertEqual(try rows(db, "SELECT id FROM t"), [[.integer(1)], [.integer(2)], [.integer(4)]])
        // REPLACE deletes every conflicting row; NOT NULL takes the default.
        try db.execute("INSERT OR REPLACE INTO t VALUES (1, 'b', NULL)")
        XCTAssertEqual(db.changes, 1)
        XCTAssertEqual(
            try rows(db, "SELECT * FROM t"),
            [[.integer(1), .text("b"), .integer(0)], [.integer(4), .text("d"), .integer(4)]])
        try db.execute("REPLACE INTO t(id, u, n) VALUES (4, 'e', 5)")
        XCTAssertEqual(try rows(db, "SELECT u FROM t WHERE id = 4"), [[.text("e")]])
        // FAIL keeps the rows before the failing one; ABORT keeps none.
        expectError("UNIQUE constraint failed: t.u", code: 2067) {
            try db.execute("INSERT OR FAIL INTO t VALUES (10, 'x', 1), (11, 'b', 1), (12, 'y', 1)")
        }
        XCTAssertEqual(db.changes, 1)
        expectError("UNIQUE constraint failed: t.u") {
            try db.execute("INSERT OR ABORT INTO t VALUES (20, 'z', 1), (21, 'b', 1)")
        }
        XCTAssertEqual(db.changes, 0)
        XCTAssertEqual(try rows(db, "SELECT id FROM t ORDER BY id").map { $0[0] }, [1, 4, 10].map(Value.integer))
        expectError("UNIQUE constraint failed: t.id", code: 1555) { try db.execute("INSERT INTO t VALUES (1, 'q', 1)") }
    }

    func testOrRollbackEndsTheTransaction() throws {
        let db = try open("CREATE TABLE t(id INTEGER PRIMARY KEY, u UNIQUE)")
        try db.execute("BEGIN")
        try db.execute("INSERT INTO t VALUES (1, 'a')")
        expectError("UNIQUE constraint failed: t.u") {
            try db.execute("INSERT OR ROLLBACK INTO t VALUES (2, 'a')")
        }
        XCTAssertFalse(db.isInTransaction)
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM t"), [[.integer(0)]])
        expectError("cannot commit - no transaction is active") { try db.execute("COMMIT") }
        // Outside a transaction ROLLBACK behaves like ABORT.
        try db.execute("INSERT INTO t VALUES (1, 'a')")
        expectError("UNIQUE constraint failed: t.u") {
            try db.execute("INSERT OR ROLLBACK INTO t VALUES (2, 'b'), (3, 'a')")
        }
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM t"), [[.integer(1)]])
    }

    func testUpdateOrActions() throws {
        let db = try open("CREATE TABLE t(id INTEGER PRIMARY KEY, u UNIQUE, n)")
        try db.execute("INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
        try db.execute("UPDATE OR IGNORE t SET u = 'c' WHERE id < 3")
        XCTAssertEqual(db.changes, 0)
        try db.execute("UPDATE OR REPLACE t SET u = 'c' WHERE id = 1")
        XCTAssertEqual(db.changes, 1)
        XCTAssertEqual(
            try rows(db, "SELECT id, u FROM t"), [[.integer(1), .text("c")], [.integer(2), .text("b")]])
        expectError("UNIQUE constraint failed: t.id", code: 1555) { try db.execute("UPDATE t SET id = 2 WHERE id = 1") }
        try db.execute("UPDATE OR REPLACE t SET id = 2 WHERE id = 1")
        XCTAssertEqual(try rows(db, "SELECT id, u FROM t"), [[.integer(2), .text("c")]])
    }

    /// An UPDATE by rowid that sets columns from parameters reads only the columns it keeps and the index keys of
    /// the old row: the other columns, the index entries and the constraints must come out as with a full read.
    func testUpdateByRowidSettingParameters() throws {
        let db = try open(
            "CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT, score INTEGER, note TEXT UNIQUE, "
                + "c REAL CHECK (c IS NULL OR c > 0)); CREATE INDEX p_score ON p(score)")
        try db.execute("INSERT INTO p VALUES (1, 'a', 'x', 10, 'n1', 1.5), (2, 'b', 'y', 20, 'n2', NULL)")
        let update = try db.prepare("UPDATE p SET name = ?, team = ?, c = ? WHERE id = ?")
        try update.bind([.text("a2"), .text("x2"), .real(2.5), .integer(1)])
        try update.execute()
        XCTAssertEqual(
            try rows(db, "SELECT * FROM p ORDER BY id"),
            [
                [.integer(1), .text("a2"), .text("x2"), .integer(10), .text("n1"), .real(2.5)],
                [.integer(2), .text("b"), .text("y"), .integer(20), .text("n2"), .null],
            ])
        // The same statement again: NOT NULL and CHECK still apply to the new values.
        try update.bind([.null, .text("x3"), .real(3), .integer(2)])
        expectError("NOT NULL constraint failed: p.name") { try update.execute() }
        try update.bind([.text("b2"), .text("x3"), .real(-1), .integer(2)])
        XCTAssertThrowsError(try update.execute())
        // A key column set by a parameter moves the index entry; a UNIQUE column keeps checking conflicts.
        try db.execute(
            "UPDATE p SET score = ?, note = ? WHERE id = ?", arguments: [.integer(5), .text("n9"), .integer(2)])
        XCTAssertEqual(try rows(db, "SELECT id FROM p WHERE score = 5"), [[.integer(2)]])
        XCTAssertEqual(try rows(db, "SELECT id FROM p WHERE score = 20"), [])
        XCTAssertEqual(try rows(db, "SELECT name, team FROM p WHERE id = 2"), [[.text("b"), .text("y")]])
        expectError("UNIQUE constraint failed: p.note") {
            try db.execute("UPDATE p SET note = ? WHERE id = ?", arguments: [.text("n1"), .integer(2)])
        }
        XCTAssertEqual(try rows(db, "PRAGMA integrity_check"), [[.text("ok")]])
    }

    func testConstraintConflictClauses() throws {
        let db = try open(
            "CREATE TABLE t(id INTEGER PRIMARY KEY ON CONFLICT REPLACE, u UNIQUE ON CONFLICT IGNORE, "
                + "a NOT NULL ON CONFLICT IGNORE, b NOT NULL ON CONFLICT REPLACE DEFAULT 7, c CHECK (c > 0))")
        try db.execute("INSERT INTO t VALUES (1, 'x', 1, 1, 1)")
        try db.execute("INSERT INTO t VALUES (2, 'x', 1, 1, 1)")  // u: IGNORE
        try db.execute("INSERT INTO t VALUES (3, 'y', NULL, 1, 1)")  // a: IGNORE
        try db.execute("INSERT INTO t VALUES (1, 'z', 2, NULL, 1)")  // id: REPLACE, b: default
        XCTAssertEqual(
            try rows(db, "SELECT * FROM t"), [[.integer(1), .text("z"), .integer(2), .integer(7), .integer(1)]])
        // The statement's OR clause overrides the constraints' clauses.
        expectError("NOT NULL constraint failed: t.a", code: 1299) {
            try db.execute("INSERT OR ABORT INTO t VALUES (5, 'w', NULL, 1, 1)")
        }
        expectError("CHECK constraint failed: c > 0", code: 275) {
            try db.execute("INSERT INTO t VALUES (6, 'v', 1, 1, 0)")
        }
        try db.execute("INSERT OR IGNORE INTO t VALUES (6, 'v', 1, 1, 0)")
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM t"), [[.integer(1)]])
    }

    func testUpsert() throws {
        let db = try open("CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT UNIQUE, n INTEGER DEFAULT 0)")
        try db.execute("INSERT INTO t(k, n) VALUES ('a', 1)")
        let result = try db.query(
            "INSERT INTO t(k, n) VALUES ('a', 5), ('b', 2) ON CONFLICT(k) DO UPDATE SET n = t.n + excluded.n "
                + "RETURNING id, k, n")
        XCTAssertEqual(
            result.rows,
            [[.integer(1), .text("a"), .integer(6)], [.integer(2), .text("b"), .integer(2)]])
        XCTAssertEqual(db.changes, 2)
        XCTAssertEqual(db.lastInsertedRowid, 2)
        // DO UPDATE does not change the last inserted rowid; its WHERE can skip the row.
        try db.execute("INSERT INTO t(k, n) VALUES ('a', 1) ON CONFLICT(k) DO UPDATE SET n = 100 WHERE excluded.n > 1")
        XCTAssertEqual(db.changes, 0)
        try db.execute("INSERT INTO t(id, k) VALUES (1, 'zz') ON CONFLICT(rowid) DO UPDATE SET k = excluded.k")
        XCTAssertEqual(db.lastInsertedRowid, 2)
        XCTAssertEqual(try rows(db, "SELECT k FROM t WHERE id = 1"), [[.text("zz")]])
        try db.execute("INSERT INTO t(id, k) VALUES (2, 'zz') ON CONFLICT DO NOTHING")
        try db.execute("INSERT INTO t(id, k) VALUES (9, 'zz') ON CONFLICT(id) DO NOTHING ON CONFLICT(k) DO NOTHING")
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM t"), [[.integer(2)]])
        expectError("ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint") {
            try db.execute("INSERT INTO t(k) VALUES ('q') ON CONFLICT(n) DO NOTHING")
        }
        // A conflict on a constraint the clauses do not name is an error.
        expectError("UNIQUE constraint failed: t.k") {
            try db.execute("INSERT INTO t(id, k) VALUES (7, 'zz') ON CONFLICT(id) DO NOTHING")
        }
    }

    func testReturning() throws {
        let db = try open("CREATE TABLE t(id INTEGER PRIMARY KEY, v UNIQUE, w)")
        let inserted = try db.query("INSERT INTO t VALUES (1, 'a', 0) RETURNING id, v || 'x', w AS ww, rowid, t.v, *")
        XCTAssertEqual(inserted.columns, ["id", "v || 'x'", "ww", "id", "v", "id", "v", "w"])
        XCTAssertEqual(
            inserted.rows,
            [[.integer(1), .text("ax"), .integer(0), .integer(1), .text("a"), .integer(1), .text("a"), .integer(0)]])
        let generated = try db.query("INSERT INTO t(v) VALUES ('x'), ('y') RETURNING rowid")
        XCTAssertEqual(generated.rows, [[.integer(2)], [.integer(3)]])
        let updated = try db.query("UPDATE t SET w = id * 10 WHERE id > 1 RETURNING w")
        XCTAssertEqual(updated.columns, ["w"])
        XCTAssertEqual(updated.rows, [[.integer(20)], [.integer(30)]])
        let deleted = try db.query("DELETE FROM t WHERE id = 3 RETURNING *")
        XCTAssertEqual(deleted.rows, [[.integer(3), .text("y"), .integer(30)]])
        XCTAssertEqual(try db.query("INSERT OR IGNORE INTO t VALUES (1, 'q', 0) RETURNING id").rows, [])
    }

    func testInsertSelect() throws {
        let db = try open("CREATE TABLE t(a, b); CREATE TABLE u(a, b)")
        try db.execute("INSERT INTO t VALUES (1, 2), (3, 4)")
        try db.execute("INSERT INTO u SELECT b, a FROM t")
        XCTAssertEqual(db.changes, 2)
        XCTAssertEqual(try rows(db, "SELECT * FROM u"), [[.integer(2), .integer(1)], [.integer(4), .integer(3)]])
    }

    func testAutoincrement() throws {
        let db = try open("CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, v)")
        XCTAssertEqual(try rows(db, "SELECT * FROM granite_sequence"), [])
        try db.execute("INSERT INTO t(v) VALUES ('a'), ('b'), ('c')")
        try db.execute("DELETE FROM t WHERE id = 3")
        try db.execute("INSERT INTO t(v) VALUES ('d')")
        XCTAssertEqual(db.lastInsertedRowid, 4)
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t(v) VALUES ('e')")
        XCTAssertEqual(db.lastInsertedRowid, 5)
        try db.execute("INSERT INTO t VALUES (100, 'f')")
        try db.execute("DELETE FROM t WHERE id = 100")
        try db.execute("INSERT INTO t(v) VALUES ('g')")
        XCTAssertEqual(db.lastInsertedRowid, 101)
        XCTAssertEqual(try rows(db, "SELECT name, seq FROM granite_sequence"), [[.text("t"), .integer(101)]])
        try db.execute("INSERT INTO t VALUES (9223372036854775807, 'max')")
        expectError("database or disk is full") { try db.execute("INSERT INTO t(v) VALUES ('h')") }
        try db.execute("ALTER TABLE t RENAME TO t2")
        XCTAssertEqual(try rows(db, "SELECT name FROM granite_sequence"), [[.text("t2")]])
        try db.execute("DROP TABLE t2")
        XCTAssertEqual(try rows(db, "SELECT * FROM granite_sequence"), [])
        // Without AUTOINCREMENT the largest rowid is reused.
        try db.execute("CREATE TABLE p(id INTEGER PRIMARY KEY, v); INSERT INTO p(v) VALUES (1), (2)")
        try db.execute("DELETE FROM p WHERE id = 2; INSERT INTO p(v) VALUES (3)")
        XCTAssertEqual(db.lastInsertedRowid, 2)
        // Once the largest rowid is 2^63 - 1, a new row takes a random unused one in 1...2^62, as in SQLite.
        try db.execute("INSERT INTO p VALUES (9223372036854775807, 'max')")
        var taken: Set<Int64> = [1, 2, Int64.max]
        for k in 0..<20 {
            try db.execute("INSERT INTO p(v) VALUES (\(k))")
            let rowid = db.lastInsertedRowid
            XCTAssert((1...(Int64.max >> 1) + 1).contains(rowid), "\(rowid)")
            XCTAssert(taken.insert(rowid).inserted, "rowid \(rowid) given twice")
        }
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM p"), [[.integer(23)]])
    }

    /// Scripts written for SQLite (the output of `sqlite3 .dump` ends with `DELETE FROM sqlite_sequence;` and an
    /// INSERT per AUTOINCREMENT table) read and write the sequence table as `sqlite_sequence`; names starting with
    /// `sqlite_` are reserved for new objects, as in SQLite.
    func testSequenceTableAnswersToSQLitesName() throws {
        let db = try open("CREATE TABLE plain(a)")
        expectError("no such table: sqlite_sequence") { try db.execute("DELETE FROM sqlite_sequence") }
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, v)")
        try db.execute("INSERT INTO t(v) VALUES ('a')")
        try db.execute("DELETE FROM sqlite_sequence; INSERT INTO sqlite_sequence VALUES ('t', 41)")
        try db.execute("INSERT INTO t(v) VALUES ('b')")
        XCTAssertEqual(db.lastInsertedRowid, 42)
        try db.execute("UPDATE SQLITE_SEQUENCE SET seq = 99 WHERE name = 't'")
        XCTAssertEqual(try rows(db, "SELECT name, seq FROM sqlite_sequence"), [[.text("t"), .integer(99)]])
        XCTAssertEqual(try rows(db, "SELECT seq FROM granite_sequence"), [[.integer(99)]])
        for sql in [
            "CREATE TABLE sqlite_x(a)", "CREATE INDEX sqlite_i ON plain(a)", "ALTER TABLE plain RENAME TO Sqlite_y",
            "CREATE TABLE sqlite_sequence(name, seq)",
        ] {
            let name = sql.split(separator: " ").first { $0.lowercased().hasPrefix("sqlite_") }!
            expectError("object name reserved for internal use: \(name.prefix { $0 != "(" })") { try db.execute(sql) }
        }
    }

    /// One prepared INSERT run many times remembers where its `granite_sequence` row is, but must notice when other
    /// statements change, delete, move or rename that row, and when a run fails.
    func testSequenceOfARepeatedStatement() throws {
        let db = try open(
            "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, v UNIQUE); "
                + "CREATE TABLE u(id INTEGER PRIMARY KEY AUTOINCREMENT, v)")
        let insert = try db.prepare("INSERT INTO t(v) VALUES (?)")
        func run(_ v: Int64) throws -> Int64? {
            try insert.bind([.integer(v)])
            try insert.execute()
            return db.lastInsertedRowid
        }
        XCTAssertEqual(try run(1), 1)
        XCTAssertEqual(try run(2), 2)
        try db.execute("INSERT INTO u(v) VALUES ('x')")
        XCTAssertEqual(
            try rows(db, "SELECT name, seq FROM granite_sequence ORDER BY name"),
            [[.text("t"), .integer(2)], [.text("u"), .integer(1)]])
        // Changed by another statement: the next run starts from the new value.
        try db.execute("UPDATE granite_sequence SET seq = 50 WHERE name = 't'")
        XCTAssertEqual(try run(3), 51)
        // Deleted, then re-created under another rowid: the hint points at u's row now, which is not t's.
        try db.execute("DELETE FROM granite_sequence WHERE name = 't'")
        try db.execute("DELETE FROM granite_sequence WHERE name = 'u'")
        try db.execute("INSERT INTO granite_sequence(rowid, name, seq) VALUES (1, 'u', 7), (9, 't', 60)")
        XCTAssertEqual(try run(4), 61)
        XCTAssertEqual(
            try rows(db, "SELECT rowid, name, seq FROM granite_sequence ORDER BY rowid"),
            [[.integer(1), .text("u"), .integer(7)], [.integer(9), .text("t"), .integer(61)]])
        // A failing run (UNIQUE) leaves the stored sequence as it was.
        expectError("UNIQUE constraint failed: t.v") { _ = try run(4) }
        XCTAssertEqual(try rows(db, "SELECT seq FROM granite_sequence WHERE name = 't'"), [[.integer(61)]])
        // A value that is not an integer counts as 0 and is rewritten as an integer.
        try db.execute("UPDATE granite_sequence SET seq = 'abc' WHERE name = 't'")
        XCTAssertEqual(try run(5), 62)
        XCTAssertEqual(try rows(db, "SELECT seq FROM granite_sequence WHERE name = 't'"), [[.integer(62)]])
        // Gone altogether: the run stores a new row.
        try db.execute("DELETE FROM granite_sequence")
        XCTAssertEqual(try run(6), 63)
        XCTAssertEqual(try rows(db, "SELECT name, seq FROM granite_sequence"), [[.text("t"), .integer(63)]])
    }

    func testSequenceSurvivesReopening() throws {
        let engine = try StorageEngine.inMemory()
        let db = try SQLConnection(engine: engine)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, v)")
        try db.execute("INSERT INTO t(v) VALUES (1), (2); DELETE FROM t")
        let again = try SQLConnection(engine: engine)
        try again.execute("INSERT INTO t(v) VALUES (3)")
        XCTAssertEqual(again.lastInsertedRowid, 3)
    }

    func testChangeCounters() throws {
        let db = try open("CREATE TABLE t(id INTEGER PRIMARY KEY, u UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        XCTAssertEqual(db.changes, 3)
        XCTAssertEqual(db.lastInsertedRowid, 3)
        // REPLACE deletions are not counted.
        try db.execute("REPLACE INTO t VALUES (1, 'b')")
        XCTAssertEqual(db.changes, 1)
        try db.execute("UPDATE t SET u = u || '!'")
        XCTAssertEqual(db.changes, 2)
        try db.execute("DELETE FROM t")
        XCTAssertEqual(db.changes, 2)
        XCTAssertEqual(db.totalChanges, 8)
        _ = try db.query("SELECT * FROM t")
        XCTAssertEqual(db.changes, 2)
    }
}
