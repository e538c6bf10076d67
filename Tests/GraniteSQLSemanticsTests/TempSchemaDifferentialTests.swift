import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// The temporary schema (`temp`), run on SQLite and Granite: temporary tables, indexes, views and triggers that
/// shadow main objects of the same names, qualified and unqualified names, writes, transactions and savepoints,
/// compared statement by statement (rows, errors, `sqlite_temp_master` and `sqlite_master`).
final class TempSchemaDifferentialTests: XCTestCase {
    /// The rows of both schema tables, without root pages (which differ between the engines) and automatic
    /// indexes (which Granite names `granite_autoindex_…`).
    static let schemaQueries = [
        "SELECT type, name, tbl_name, sql FROM sqlite_temp_master WHERE name NOT LIKE '%autoindex%' ORDER BY type, name",
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE '%autoindex%' ORDER BY type, name",
    ]

    /// Runs `statements` on SQLite and Granite, returning the mismatches.
    static func compare(_ statements: [(sql: String, ordered: Bool)], oracle: Oracle, db: SQLConnection) -> [String] {
        var failures: [String] = []
        for (sql, ordered) in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: ordered) {
                failures.append("\(sql): \(why)")
            }
        }
        return failures
    }

    func testFixedStatementsMatchSQLite() throws {
        let statements = [
            "CREATE TABLE t(a, b)",
            "INSERT INTO t VALUES (1, 'main')",
            "CREATE TEMP TABLE t(a, c)",
            "CREATE TEMPORARY TABLE u(x INTEGER PRIMARY KEY, y TEXT UNIQUE)",
            "CREATE TABLE temp.w(p)",
            "CREATE TEMP TABLE temp.w2(p)",
            "CREATE TEMP TABLE main.w3(p)",
            "CREATE TEMP TABLE other.w3(p)",
            "CREATE TABLE temp.w(p)",
            "CREATE TABLE IF NOT EXISTS temp.w(p)",
            "CREATE TABLE other.w(p)",
            "INSERT INTO t VALUES (2, 'temp')",
            "SELECT * FROM t",
            "SELECT * FROM main.t",
            "SELECT * FROM temp.t",
            "SELECT * FROM other.t",
            "SELECT t.a, main.t.b FROM main.t",
            "SELECT temp.t.c FROM temp.t",
            "SELECT * FROM main.t AS m JOIN temp.t AS x ON m.a < x.a + 5",
            "INSERT INTO main.t VALUES (3, 'main again')",
            "INSERT INTO temp.t VALUES (4, 'temp again')",
            "SELECT * FROM main.t ORDER BY a",
            "SELECT * FROM t ORDER BY a",
            "UPDATE t SET c = c || '!' WHERE a = 4",
            "UPDATE main.t SET b = upper(b)",
            "DELETE FROM temp.t WHERE a = 2",
            "SELECT * FROM main.t ORDER BY a",
            "SELECT * FROM t ORDER BY a",
            "INSERT INTO u(y) VALUES ('one'), ('two')",
            "INSERT INTO u(y) VALUES ('one')",
            "INSERT OR REPLACE INTO u(x, y) VALUES (7, 'one')",
            "SELECT * FROM u ORDER BY x",
            "CREATE INDEX ui ON u(y)",
            "CREATE INDEX temp.ti ON t(c)",
            "CREATE INDEX temp.ti2 ON t(b)",
            "CREATE INDEX main.mi ON u(y)",
            "CREATE INDEX mi ON t(a)",
            "CREATE UNIQUE INDEX temp.tu ON w(p)",
            "INSERT INTO w VALUES (1), (1)",
            "SELECT * FROM w",
            "SELECT c FROM t WHERE c > 'a' ORDER BY c",
            "SELECT * FROM u WHERE y = 'two'",
            "CREATE VIEW mv AS SELECT * FROM t",
            "CREATE TEMP VIEW tv AS SELECT a, c FROM t",
            "CREATE VIEW temp.tv2 AS SELECT * FROM main.t",
            "CREATE TEMP VIEW main.tv3 AS SELECT 1",
            "SELECT * FROM tv ORDER BY a",
            "SELECT * FROM temp.tv2 ORDER BY a",
            "SELECT * FROM main.tv",
            "SELECT * FROM mv ORDER BY a",
            "CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO w VALUES (new.a * 10); END",
            "INSERT INTO t VALUES (5, 'five')",
            "SELECT * FROM w ORDER BY p",
            "CREATE TRIGGER tr2 AFTER INSERT ON u BEGIN INSERT INTO w VALUES (new.x + 100); END",
            "INSERT INTO u(y) VALUES ('three')",
            "SELECT * FROM w ORDER BY p",
            "DROP TRIGGER tr",
            "DROP TRIGGER temp.tr2",
            "PRAGMA table_info(t)",
            "PRAGMA temp.table_info(t)",
            "PRAGMA table_info(u)",
            "SELECT * FROM sqlite_temp_master WHERE 0",
            "SELECT name FROM temp.sqlite_master WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "SELECT name FROM temp.sqlite_schema WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "SELECT name FROM sqlite_temp_schema WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "SELECT name FROM main.sqlite_temp_master",
            "DROP INDEX ui",
            "DROP INDEX temp.ti",
            "DROP INDEX main.ti2",
            "DROP VIEW tv",
            "DROP VIEW temp.tv2",
            "DROP VIEW main.mv",
            "DROP TABLE t",
            "SELECT * FROM t ORDER BY a",
            "DROP TABLE t",
            "SELECT * FROM t",
            "DROP TABLE IF EXISTS temp.t",
            "DROP TABLE temp.nosuch",
            "DROP TABLE u",
            "SELECT * FROM u",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        for sql in statements {
            failures += Self.compare([(sql, true)], oracle: oracle, db: db)
            // The schema tables after each statement (the first difference only: it would repeat).
            let schemaFailures = Self.compare(Self.schemaQueries.map { ($0, true) }, oracle: oracle, db: db)
            if !schemaFailures.isEmpty {
                failures += schemaFailures.map { "after \(sql): \($0)" }
                break
            }
        }
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.prefix(30).joined(separator: "\n"))
    }
}
