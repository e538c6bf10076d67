import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Triggers, run on SQLite and Granite statement by statement: each statement's result rows or error, then the
/// connection's changes(), total_changes() and last_insert_rowid(), and the tables' final contents.
final class TriggerDifferentialTests: XCTestCase {
    /// Runs `statements` on a fresh SQLite and a fresh Granite (foreign keys on in both), returning the mismatches.
    static func mismatches(_ statements: [String]) throws -> [String] {
        let oracle = Oracle()
        oracle.execute("PRAGMA foreign_keys = ON")
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        for sql in statements {
            failures += compare(sql, oracle, db)
        }
        failures += compareContents(oracle, db)
        return failures
    }

    /// Compares one statement's outcome and the change counters after it.
    static func compare(_ sql: String, _ oracle: Oracle, _ db: SQLConnection) -> [String] {
        let expected = SelectDifferentialTests.sqlite(oracle, sql)
        let actual = withoutLocation(SelectDifferentialTests.granite(db, sql))
        var failures: [String] = []
        if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
            failures.append("\(sql): \(why)")
        }
        let counters = (
            Int(sqlite3_changes(oracle.db)), Int(sqlite3_total_changes(oracle.db)),
            sqlite3_last_insert_rowid(oracle.db)
        )
        if counters != (db.changes, db.totalChanges, db.lastInsertedRowid) {
            failures.append(
                "\(sql): changes/total/rowid sqlite \(counters), "
                    + "granite \((db.changes, db.totalChanges, db.lastInsertedRowid))")
        }
        return failures
    }

    /// `result` with a syntax error's position (which SQLite's message does not give) removed.
    static func withoutLocation(_ result: SelectDifferentialTests.Result) -> SelectDifferentialTests.Result {
        guard case .failure(let message) = result, let open = message.range(of: " (line ")
        else { return result }
        return .failure(String(message[..<open.lowerBound]))
    }

    /// Compares the contents of every table (in rowid order) and the trigger rows of the schema.
    static func compareContents(_ oracle: Oracle, _ db: SQLConnection) -> [String] {
        var failures: [String] = []
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type IN ('table', 'trigger') "
            + "AND name NOT LIKE 'sqlite%' ORDER BY type, name"
        let listed = SelectDifferentialTests.sqlite(oracle, schema)
        if let why = SelectDifferentialTests.mismatch(listed, SelectDifferentialTests.granite(db, schema), ordered: true) {
            failures.append("schema: \(why)")
        }
        guard case .rows(_, let rows) = listed else { return failures }
        for row in rows where row[0] == .text("table") {
            guard case .text(let name) = row[1] else { continue }
            let sql = "SELECT rowid, * FROM \"\(name)\" ORDER BY rowid"
            if let why = SelectDifferentialTests.mismatch(
                SelectDifferentialTests.sqlite(oracle, sql), SelectDifferentialTests.granite(db, sql), ordered: true)
            {
                failures.append("contents of \(name): \(why)")
            }
        }
        return failures
    }

    func check(_ statements: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let failures = try Self.mismatches(statements)
        XCTAssert(failures.isEmpty, failures.prefix(20).joined(separator: "\n"), file: file, line: line)
    }

    // MARK: Hand-written cases

    func testBeforeAndAfterInsertSeeNewRow() throws {
        try check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT COLLATE NOCASE, b)",
            "CREATE TABLE log(x)",
            "CREATE TRIGGER tb BEFORE INSERT ON t BEGIN INSERT INTO log VALUES('bi ' || quote(new.id) || ' ' || quote(new.rowid) || ' ' || quote(new.a)); END",
            "CREATE TRIGGER ta AFTER INSERT ON t BEGIN INSERT INTO log VALUES('ai ' || new.id || ' ' || new.a || ' ' || typeof(new.a)); END",
            "INSERT INTO t(a, b) VALUES('5', 1)",
            "INSERT INTO t VALUES(10, 'x', 2), (NULL, 7, 3)",
            "INSERT INTO t SELECT id + 100, a, b FROM t",
            "SELECT * FROM log",
            "CREATE TABLE u(a, b)",
            "CREATE TRIGGER ub BEFORE INSERT ON u BEGIN INSERT INTO log VALUES(quote(new.rowid)); END",
            "INSERT INTO u VALUES(1, 2)",
            "INSERT INTO u(rowid, a) VALUES(42, 2)",
            "SELECT * FROM log",
        ])
    }

    func testUpdateAndDeleteTriggersSeeOldAndNew() throws {
        try check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT COLLATE NOCASE)",
            "CREATE TABLE log(x)",
            "INSERT INTO t VALUES(1, 1, 'X'), (2, 2, 'y'), (3, 3, 'Z')",
            "CREATE TRIGGER bu BEFORE UPDATE ON t BEGIN INSERT INTO log VALUES('bu ' || old.a || '>' || new.a); END",
            "CREATE TRIGGER au AFTER UPDATE ON t BEGIN INSERT INTO log VALUES('au ' || old.b || '>' || new.b || ' ' || (new.b = 'x')); END",
            "CREATE TRIGGER bd BEFORE DELETE ON t BEGIN INSERT INTO log VALUES('bd ' || old.id); END",
            "CREATE TRIGGER ad AFTER DELETE ON t BEGIN INSERT INTO log VALUES('ad ' || old.id || ' ' || old.rowid); END",
            "UPDATE t SET a = a * 10 WHERE id >= 2",
            "UPDATE t SET b = lower(b)",
            "DELETE FROM t WHERE id = 2",
            "DELETE FROM t",
            "SELECT * FROM log",
            "SELECT count(*) FROM t",
        ])
    }

    func testWhenClauseAndUpdateOf() throws {
        try check([
            "CREATE TABLE t(a, b, c)",
            "CREATE TABLE log(x)",
            "CREATE TRIGGER w AFTER UPDATE OF b, c ON t WHEN new.b > 5 BEGIN INSERT INTO log VALUES('w ' || new.b); END",
            "CREATE TRIGGER x AFTER UPDATE OF a ON t FOR EACH ROW BEGIN INSERT INTO log VALUES('x ' || new.a); END",
            "CREATE TRIGGER y AFTER INSERT ON t WHEN EXISTS (SELECT 1 FROM log WHERE x LIKE 'w%') BEGIN INSERT INTO log VALUES('y'); END",
            "INSERT INTO t VALUES(1, 2, 3), (4, 8, 9)",
            "UPDATE t SET b = b + 1",
            "UPDATE t SET a = a",
            "UPDATE t SET c = 0 WHERE a = 4",
            "INSERT INTO t VALUES(0, 0, 0)",
            "SELECT * FROM log",
        ])
    }

    func testBodiesWithSubqueriesWithClausesUpsertAndSelect() throws {
        try check([
            "CREATE TABLE t(k INTEGER PRIMARY KEY, v)",
            "CREATE TABLE totals(name TEXT PRIMARY KEY, n)",
            "CREATE TRIGGER s AFTER INSERT ON t BEGIN "
                + "INSERT INTO totals VALUES('all', 1) ON CONFLICT(name) DO UPDATE SET n = n + 1; "
                + "INSERT INTO totals WITH c(x) AS (SELECT new.v * 2) SELECT 'k' || new.k, x FROM c; "
                + "UPDATE totals SET n = (SELECT count(*) FROM t) WHERE name = 'count'; "
                + "WITH c(x) AS (SELECT 1) SELECT x FROM c; END",
            "CREATE TRIGGER w AFTER DELETE ON t BEGIN WITH c(x) AS (SELECT 1) DELETE FROM totals; END",
            "INSERT INTO totals VALUES('count', 0)",
            "INSERT INTO t(v) VALUES(5), (6)",
            "INSERT INTO t(v) SELECT v + 1 FROM t",
            "SELECT * FROM totals ORDER BY name",
        ])
    }

    func testRaise() throws {
        try check([
            "CREATE TABLE t(a)",
            "CREATE TABLE log(x)",
            "CREATE TRIGGER i BEFORE INSERT ON t WHEN new.a < 0 BEGIN SELECT RAISE(IGNORE); END",
            "CREATE TRIGGER f BEFORE INSERT ON t WHEN new.a = 100 BEGIN SELECT RAISE(FAIL, 'hundred'); END",
            "CREATE TRIGGER b BEFORE INSERT ON t WHEN new.a = 200 BEGIN SELECT RAISE(ABORT, 'two hundred'); END",
            "CREATE TRIGGER r BEFORE INSERT ON t WHEN new.a = 300 BEGIN SELECT RAISE(ROLLBACK, 'three hundred'); END",
            "CREATE TRIGGER l AFTER INSERT ON t BEGIN INSERT INTO log VALUES(new.a); END",
            "INSERT INTO t VALUES(1), (-1), (2)",
            "INSERT INTO t VALUES(3), (100), (4)",
            "INSERT INTO t VALUES(5), (200), (6)",
            "BEGIN",
            "INSERT INTO t VALUES(7)",
            "INSERT INTO t VALUES(8), (300)",
            "SELECT * FROM t",
            "BEGIN",
            "INSERT INTO t VALUES(9)",
            "INSERT INTO t VALUES(10), (200)",
            "COMMIT",
            "SELECT * FROM t",
            "SELECT * FROM log",
            "CREATE TRIGGER d BEFORE DELETE ON t WHEN old.a = 2 BEGIN SELECT RAISE(IGNORE); END",
            "CREATE TRIGGER u BEFORE UPDATE ON t WHEN old.a = 3 BEGIN SELECT RAISE(IGNORE); END",
            "UPDATE t SET a = a + 1000",
            "DELETE FROM t WHERE a > 1000 OR a = 2",
            "SELECT * FROM t",
            "SELECT RAISE(IGNORE)",
            "SELECT RAISE(ABORT, 'x')",
        ])
    }

    func testSchemaErrorsAndStoredRows() throws {
        try check([
            "CREATE TABLE t(a, b)",
            "CREATE VIEW v AS SELECT a, b FROM t",
            "CREATE TRIGGER  if not exists main.x after insert on t begin select 1; end",
            "CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 2; END",
            "CREATE TRIGGER IF NOT EXISTS x AFTER INSERT ON t BEGIN SELECT 2; END",
            "CREATE TRIGGER y AFTER INSERT ON nosuch BEGIN SELECT 1; END",
            "CREATE TRIGGER y BEFORE INSERT ON v BEGIN SELECT 1; END",
            "CREATE TRIGGER y AFTER DELETE ON v BEGIN SELECT 1; END",
            "CREATE TRIGGER y INSTEAD OF INSERT ON t BEGIN SELECT 1; END",
            "CREATE TRIGGER y AFTER INSERT ON sqlite_master BEGIN SELECT 1; END",
            "CREATE TRIGGER sqlite_y AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE TRIGGER t AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE TRIGGER y AFTER INSERT ON t BEGIN SELECT ?; END",
            "CREATE TRIGGER y AFTER INSERT ON t BEGIN INSERT INTO main.t VALUES(1, 2); END",
            "CREATE TRIGGER y AFTER INSERT ON t BEGIN END",
            "CREATE TRIGGER y AFTER INSERT ON t BEGIN SELECT RAISE(ABORT, 'a' || 'b'); END",
            "CREATE TRIGGER z AFTER INSERT ON t BEGIN SELECT new.nosuch; END",
            "INSERT INTO t VALUES(1, 2)",
            "DROP TRIGGER z",
            "CREATE TRIGGER z AFTER INSERT ON t BEGIN SELECT old.a; END",
            "INSERT INTO t VALUES(1, 2)",
            "DROP TRIGGER z",
            "CREATE TRIGGER z AFTER DELETE ON t BEGIN SELECT new.a; END",
            "DELETE FROM t",
            "DROP TRIGGER z",
            "CREATE TRIGGER z AFTER INSERT ON t BEGIN SELECT nosuch FROM t; END",
            "INSERT INTO t VALUES(1, 2)",
            "DROP TRIGGER z",
            "DROP TRIGGER nosuch",
            "DROP TRIGGER IF EXISTS nosuch",
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY name",
            "DROP TABLE t",
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY name",
        ])
    }

    func testInsteadOfTriggersOnViews() throws {
        try check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)",
            "CREATE TABLE log(x)",
            "CREATE VIEW v AS SELECT id, a, b FROM t",
            "INSERT INTO v VALUES(1, 2, 3)",
            "CREATE TRIGGER vi INSTEAD OF INSERT ON v BEGIN INSERT INTO t(a, b) VALUES(new.a, new.b); END",
            "INSERT INTO v(a, b) VALUES(7, 8), (9, 10)",
            "INSERT INTO v SELECT NULL, a + 1, b FROM t",
            "INSERT INTO v(a, zz) VALUES(1, 2)",
            "INSERT INTO v VALUES(1, 2)",
            "INSERT INTO v(a) VALUES(1, 2)",
            "UPDATE v SET a = 1",
            "DELETE FROM v",
            "CREATE TRIGGER vu INSTEAD OF UPDATE OF a ON v BEGIN UPDATE t SET a = new.a, b = old.b || '>' || new.b WHERE id = old.id; END",
            "CREATE TRIGGER vd INSTEAD OF DELETE ON v FOR EACH ROW WHEN old.a > 8 BEGIN DELETE FROM t WHERE id = old.id; INSERT INTO log VALUES('vd ' || old.id); END",
            "UPDATE v SET a = a + 100, b = 'q' WHERE id > 1",
            "UPDATE v SET b = 'only b'",
            "UPDATE v SET zz = 1",
            "DELETE FROM v WHERE id < 3",
            "DELETE FROM v",
            "SELECT * FROM t",
            "SELECT * FROM log",
            "DROP VIEW v",
            "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name",
        ])
    }

    func testRecursionAndNesting() throws {
        try check([
            "CREATE TABLE a(x)",
            "CREATE TABLE b(x)",
            "CREATE TABLE c(x)",
            "CREATE TRIGGER ta AFTER INSERT ON a BEGIN INSERT INTO a VALUES(new.x + 1); INSERT INTO b VALUES(new.x * 10); END",
            "CREATE TRIGGER tb AFTER INSERT ON b BEGIN INSERT INTO c VALUES(new.x + 1); INSERT INTO a VALUES(new.x + 5); END",
            "CREATE TRIGGER tc AFTER INSERT ON c WHEN new.x < 1000 BEGIN INSERT INTO b VALUES(new.x * 2); END",
            "INSERT INTO a VALUES(1)",
            "SELECT * FROM a",
            "SELECT * FROM b",
            "SELECT * FROM c",
            "CREATE TRIGGER ud AFTER UPDATE ON a BEGIN UPDATE a SET x = x + 1; END",
            "UPDATE a SET x = 0 WHERE rowid = 1",
            "SELECT * FROM a",
        ])
    }

    func testForeignKeyActionsReplaceAndUpsertFireTriggers() throws {
        try check([
            "CREATE TABLE p(id INTEGER PRIMARY KEY)",
            "CREATE TABLE c(pid REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE, x)",
            "CREATE TABLE n(pid REFERENCES p ON DELETE SET NULL, x)",
            "CREATE TABLE log(x)",
            "CREATE TRIGGER cd AFTER DELETE ON c BEGIN INSERT INTO log VALUES('cdel ' || old.pid || old.x); END",
            "CREATE TRIGGER cu AFTER UPDATE OF pid ON c BEGIN INSERT INTO log VALUES('cupd ' || old.pid || '>' || new.pid); END",
            "CREATE TRIGGER nu AFTER UPDATE ON n BEGIN INSERT INTO log VALUES('nupd ' || quote(new.pid)); END",
            "INSERT INTO p VALUES(1), (2)",
            "INSERT INTO c VALUES(1, 'a'), (1, 'b'), (2, 'c')",
            "INSERT INTO n VALUES(1, 'z')",
            "UPDATE p SET id = 3 WHERE id = 2",
            "DELETE FROM p WHERE id = 1",
            "SELECT * FROM log",
            "CREATE TABLE u(k UNIQUE, v)",
            "CREATE TRIGGER ud AFTER DELETE ON u BEGIN INSERT INTO log VALUES('udel ' || old.k); END",
            "CREATE TRIGGER ui AFTER INSERT ON u BEGIN INSERT INTO log VALUES('uins ' || new.k || new.v); END",
            "CREATE TRIGGER ub BEFORE INSERT ON u BEGIN INSERT INTO log VALUES('ubins ' || new.k || new.v); END",
            "CREATE TRIGGER uu AFTER UPDATE ON u BEGIN INSERT INTO log VALUES('uupd ' || old.v || '>' || new.v); END",
            "INSERT INTO u VALUES(1, 1)",
            "INSERT OR REPLACE INTO u VALUES(1, 2)",
            "REPLACE INTO u VALUES(1, 3)",
            "INSERT INTO u VALUES(1, 4) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
            "INSERT INTO u VALUES(1, 5) ON CONFLICT DO NOTHING",
            "INSERT OR IGNORE INTO u VALUES(1, 6)",
            "SELECT * FROM log",
        ])
    }

    func testReturningAndCounters() throws {
        try check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a)",
            "CREATE TABLE log(id INTEGER PRIMARY KEY, x)",
            "CREATE TRIGGER ta AFTER INSERT ON t BEGIN INSERT INTO log(x) VALUES(new.a); INSERT INTO log(x) VALUES(new.a); END",
            "CREATE TRIGGER tu BEFORE UPDATE ON t BEGIN UPDATE log SET x = x || '!' WHERE x = old.a; END",
            "INSERT INTO log(id, x) VALUES(100, 'seed')",
            "INSERT INTO t(a) VALUES('p'), ('q') RETURNING id, a",
            "UPDATE t SET a = a || a RETURNING *",
            "DELETE FROM t WHERE id = 1 RETURNING a",
            "SELECT * FROM log",
        ])
    }

    func testTriggersSurviveReopen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("granite-trigger-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.granite").path
        do {
            let db = try SQLConnection(engine: try StorageEngine(path: path))
            try db.execute("CREATE TABLE t(a); CREATE TABLE log(x)")
            try db.execute("CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES(new.a * 2); END")
        }
        let db = try SQLConnection(engine: try StorageEngine(path: path))
        try db.execute("INSERT INTO t VALUES(21)")
        XCTAssertEqual(try db.query("SELECT x FROM log").rows, [[.integer(42)]])
        XCTAssertEqual(
            try db.query("SELECT type, name, tbl_name FROM sqlite_master WHERE type = 'trigger'").rows,
            [[.text("trigger"), .text("tr"), .text("t")]])
    }
}
