import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// WITHOUT ROWID tables statement by statement against SQLite: each script runs on both engines, and every
/// statement must give the same rows, in the same order, or the same error. Schema texts are compared without
/// the automatic indexes' rows (Granite names them `granite_autoindex_…` and lists the primary key's, which
/// SQLite keeps inside the table itself).
final class WithoutRowidScriptTests: XCTestCase {
    /// Runs `statements` on both engines and returns them for further checks.
    @discardableResult
    private func compare(
        _ statements: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws -> (Oracle, SQLConnection) {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in statements {
            let expected = Self.graniteNames(SelectDifferentialTests.sqlite(oracle, sql))
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                XCTFail("\(sql): \(why)", file: file, line: line)
            }
        }
        return (oracle, db)
    }

    /// SQLite's result with its automatic index names spelled as Granite's.
    private static func graniteNames(_ result: SelectDifferentialTests.Result) -> SelectDifferentialTests.Result {
        guard case .rows(let columns, let rows) = result else { return result }
        return .rows(
            columns,
            rows.map { row in
                row.map { value in
                    guard case .text(let text) = value, text.hasPrefix("sqlite_autoindex_") else { return value }
                    return .text("granite_autoindex_" + text.dropFirst("sqlite_autoindex_".count))
                }
            })
    }

    func testDeclarationsAndTheirErrors() throws {
        try compare([
            "CREATE TABLE a(x) WITHOUT ROWID",
            "CREATE TABLE a(x INTEGER PRIMARY KEY AUTOINCREMENT) WITHOUT ROWID",
            "CREATE TABLE a(x PRIMARY KEY) WITHOUT ROWID, STRICT",
            "CREATE TABLE a(x INT PRIMARY KEY, y TEXT) STRICT, WITHOUT ROWID",
            "CREATE TABLE b(x INT PRIMARY KEY) without rowid, without ROWID",
            "CREATE TABLE c(p, q, r, PRIMARY KEY(q DESC, p COLLATE NOCASE)) WITHOUT ROWID",
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "PRAGMA table_list(c)", "PRAGMA table_info(c)", "PRAGMA table_xinfo(a)",
            "INSERT INTO a VALUES ('1', 'x')",
            "INSERT INTO a VALUES (NULL, 'x')",
            "INSERT INTO c VALUES (1, NULL, 3)",
            "INSERT INTO c(p) VALUES (1)",
        ])
    }

    func testRowidIsNoColumn() throws {
        let (oracle, db) = try compare([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT) WITHOUT ROWID",
            "CREATE TABLE r(x)",
            "INSERT INTO r VALUES (1)",
            "INSERT INTO t(name) VALUES ('no key')",
            "INSERT INTO t VALUES (3, 'c'), (1, 'a'), (2, 'b')",
            "SELECT rowid FROM t", "SELECT oid, * FROM t", "SELECT t._rowid_ FROM t",
            "SELECT * FROM t WHERE rowid = 1",
            "INSERT INTO t(rowid, id, name) VALUES (9, 9, 'i')",
            "UPDATE t SET rowid = 4", "DELETE FROM t WHERE oid = 1",
            "SELECT * FROM t",
            "SELECT (SELECT rowid FROM r) FROM t",
        ])
        // Inserting into the WITHOUT ROWID table left the rowid of the last insert into `r`.
        XCTAssertEqual(sqlite3_last_insert_rowid(oracle.db), 1)
        XCTAssertEqual(db.lastInsertedRowid, 1)
    }

    func testKeyOrderAndPlans() throws {
        try compare([
            "CREATE TABLE t(a TEXT COLLATE NOCASE, b INT, c, PRIMARY KEY(b DESC, a DESC)) WITHOUT ROWID",
            "INSERT INTO t VALUES ('b', 1, 'x'), ('A', 1, 'y'), ('a2', 2, 'z'), ('C', 1, 'w'), ('z', -5, 'v')",
            "INSERT INTO t VALUES ('a', 1, 'dup')",
            "SELECT * FROM t",
            "SELECT * FROM t WHERE b = 1",
            "SELECT * FROM t WHERE b = 1 AND a = 'c'",
            "SELECT * FROM t WHERE b > 0",
            "SELECT * FROM t WHERE b BETWEEN -5 AND 1 ORDER BY a",
            "EXPLAIN QUERY PLAN SELECT * FROM t",
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE b = 1",
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE b = 1 AND a = 'c'",
            "CREATE INDEX t_c ON t(c)",
            "SELECT a FROM t WHERE c = 'w'",
            "PRAGMA index_list(t)", "PRAGMA index_info(t_c)", "PRAGMA index_xinfo(t_c)",
            "PRAGMA integrity_check",
        ])
    }

    func testConflictsUpsertsAndReturning() throws {
        try compare([
            "CREATE TABLE kv(k TEXT PRIMARY KEY, v INT, u UNIQUE) WITHOUT ROWID",
            "INSERT INTO kv VALUES ('a', 1, 10), ('b', 2, 20) RETURNING *",
            "INSERT INTO kv VALUES ('a', 3, 30)",
            "INSERT OR IGNORE INTO kv VALUES ('a', 3, 30) RETURNING k",
            "INSERT OR REPLACE INTO kv VALUES ('a', 4, 20) RETURNING *",
            "SELECT * FROM kv",
            "REPLACE INTO kv VALUES ('c', 5, 50)",
            "INSERT INTO kv VALUES ('c', 6, 60) ON CONFLICT (k) DO UPDATE SET v = v + excluded.v RETURNING *",
            "INSERT INTO kv VALUES ('d', 7, 50) ON CONFLICT (k) DO UPDATE SET v = 0",
            "INSERT INTO kv VALUES ('d', 7, 50) ON CONFLICT DO NOTHING",
            "INSERT INTO kv VALUES ('e', 8, 80) ON CONFLICT (v) DO NOTHING",
            "UPDATE kv SET k = 'z' WHERE k = 'a' RETURNING *",
            "UPDATE kv SET k = 'c' WHERE k = 'z'",
            "UPDATE OR REPLACE kv SET k = 'c' WHERE k = 'z' RETURNING k, v",
            "UPDATE kv SET k = k || '!' RETURNING *",
            "DELETE FROM kv WHERE v > 2 RETURNING *",
            "SELECT * FROM kv", "PRAGMA integrity_check",
        ])
    }

    func testForeignKeysTriggersAndViews() throws {
        try compare([
            "PRAGMA foreign_keys = ON",
            "CREATE TABLE parent(a TEXT, b INT, name, PRIMARY KEY(a, b)) WITHOUT ROWID",
            "CREATE TABLE child(id TEXT PRIMARY KEY, pa, pb, FOREIGN KEY(pa, pb) REFERENCES parent "
                + "ON DELETE CASCADE ON UPDATE CASCADE) WITHOUT ROWID",
            "CREATE TABLE log(event, old, new)",
            "CREATE TRIGGER pu AFTER UPDATE ON parent BEGIN "
                + "INSERT INTO log VALUES ('update', OLD.a || OLD.b, NEW.a || NEW.b); END",
            "CREATE TRIGGER cd BEFORE DELETE ON child BEGIN INSERT INTO log VALUES ('delete', OLD.id, NULL); END",
            "CREATE VIEW family AS SELECT parent.name, child.id FROM parent JOIN child ON (pa, pb) = (a, b)",
            "INSERT INTO parent VALUES ('x', 1, 'first'), ('y', 2, 'second')",
            "CREATE TRIGGER bad AFTER INSERT ON child BEGIN SELECT NEW.rowid; END",
            "INSERT INTO child VALUES ('c0', 'x', 1)",
            "DROP TRIGGER bad",
            "INSERT INTO child VALUES ('c1', 'x', 1), ('c2', 'y', 2), ('c3', 'x', 1)",
            "INSERT INTO child VALUES ('c4', 'x', 2)",
            "INSERT INTO child VALUES ('c1', 'y', 2)",
            "SELECT * FROM family ORDER BY id", "SELECT * FROM family WHERE id > 'c1' ORDER BY name, id",
            "UPDATE parent SET b = 10 WHERE a = 'x'",
            "SELECT * FROM child",
            "DELETE FROM parent WHERE a = 'x'",
            "SELECT * FROM child", "SELECT * FROM log",
            "PRAGMA foreign_key_check",
        ])
    }

    func testForeignKeyCheckAndIndexInfo() throws {
        let (oracle, db) = try compare([
            "PRAGMA foreign_keys = OFF",
            "CREATE TABLE p(id TEXT PRIMARY KEY) WITHOUT ROWID",
            "CREATE TABLE c(a INT, b TEXT COLLATE NOCASE, pid REFERENCES p, d, PRIMARY KEY(b DESC, a)) WITHOUT ROWID",
            "CREATE INDEX c_d ON c(d, a)",
            "INSERT INTO c VALUES (1, 'x', 'missing', 0), (2, 'y', NULL, 0)",
            "PRAGMA foreign_key_check", "PRAGMA foreign_key_check(c)",
            "PRAGMA index_list(c)", "PRAGMA index_info(c_d)", "PRAGMA index_xinfo(c_d)",
        ])
        // The key index has a different name in each engine.
        let expected = SelectDifferentialTests.sqlite(oracle, "PRAGMA index_xinfo(sqlite_autoindex_c_1)")
        let actual = SelectDifferentialTests.granite(db, "PRAGMA index_xinfo(granite_autoindex_c_1)")
        if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) { XCTFail(why) }
    }

    func testAlterTable() throws {
        try compare([
            "CREATE TABLE t(a TEXT PRIMARY KEY, b) WITHOUT ROWID",
            "INSERT INTO t VALUES ('q', 1), ('p', 2)",
            "ALTER TABLE t ADD COLUMN c DEFAULT 7",
            "ALTER TABLE t RENAME COLUMN b TO bee",
            "ALTER TABLE t RENAME COLUMN a TO key",
            "ALTER TABLE t DROP COLUMN key",
            "ALTER TABLE t DROP COLUMN c",
            "ALTER TABLE t RENAME TO u",
            "SELECT name FROM sqlite_schema WHERE sql LIKE '%WITHOUT ROWID'", "PRAGMA table_list(u)",
            "SELECT * FROM u", "SELECT * FROM u WHERE key = 'q'", "PRAGMA table_info(u)",
            "INSERT INTO u VALUES ('a', 0)",
            "SELECT * FROM u",
            "PRAGMA integrity_check",
        ])
    }

    func testTemporaryTables() throws {
        try compare([
            "CREATE TEMP TABLE t(k INT PRIMARY KEY, v) WITHOUT ROWID",
            "INSERT INTO t VALUES (3, 'c'), (1, 'a'), (2, 'b')",
            "SELECT * FROM temp.t", "SELECT rowid FROM t",
            "PRAGMA temp.table_list(t)",
            "SELECT type, name, sql FROM sqlite_temp_schema WHERE name NOT LIKE '%autoindex%'",
        ])
    }
}
