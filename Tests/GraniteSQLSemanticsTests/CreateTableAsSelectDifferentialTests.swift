import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `CREATE TABLE … AS SELECT`, run on SQLite and Granite: after each statement the outcome, both schema tables
/// (the generated `CREATE TABLE` text included), `PRAGMA table_info` of the new table, its rows and the `typeof` of
/// every stored value are compared.
final class CreateTableAsSelectDifferentialTests: XCTestCase {
    static let setup = [
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d NUMERIC, e BLOB, f)",
        "INSERT INTO t VALUES (1, 'x', 1.5, '12', x'01', 7), (2, 'Y', 2, '3.0', 'e', 'f'), (3, NULL, NULL, 'n', 4, 2.5)",
        "INSERT INTO t VALUES (4, 'x', -1, 5, NULL, NULL)",
        "CREATE TABLE u(a INT, g VARCHAR(10))",
        "INSERT INTO u VALUES (1, 'one'), (3, 'three'), (9, 'nine')",
        "CREATE VIEW v AS SELECT a, b || 'x' AS bx, c FROM t",
        "CREATE TEMP TABLE tt(x, y TEXT)",
        "INSERT INTO tt VALUES (1, 2), ('a', 'b')",
    ]

    /// Each case: the statements to run in order, and the table whose definition and rows are then compared.
    static let cases: [(statements: [String], table: String)] = [
        // Names: columns, aliases, expressions' text, duplicates, odd spellings.
        (["CREATE TABLE n AS SELECT * FROM t"], "n"),
        (["CREATE TABLE n AS SELECT a, b FROM t WHERE a > 1"], "n"),
        (["CREATE TABLE n AS SELECT a AS x, b AS \"y z\", t.c AS w FROM t"], "n"),
        (["CREATE TABLE n AS SELECT a, a, a, b AS a, a AS \"a:1\" FROM t"], "n"),
        (["CREATE TABLE n AS SELECT a+1, b||'s', c * 2, abs(c), -a, t.a + 1 FROM t"], "n"),
        (["CREATE TABLE n AS SELECT a, A, b, B, b FROM t"], "n"),
        (
            [
                "CREATE TABLE n AS SELECT 1 AS \"select\", 2 AS \"a b\", 3 AS \"1x\", 4 AS \"q\"\"t\", 5 AS \"ä\", 6 AS x_1"
            ], "n"
        ),
        (["CREATE TABLE \"odd name\" AS SELECT 1 AS k"], "odd name"),
        (["CREATE TABLE \"select\" AS SELECT 1 AS abort, 2 AS \"order\", 3 AS rowid"], "select"),
        (["CREATE TABLE n AS SELECT a AS a_very_long_column_name, b AS another_long_column_name FROM t"], "n"),
        (["CREATE TABLE n AS SELECT a AS aaaaaaaaaaaa, b AS bbbbbbbbbbbbb, c AS ccccccccc FROM t"], "n"),
        (["CREATE TABLE n AS SELECT true, false, NULL, x'00ff', 1.5, 'str', -3, TRUE AS t"], "n"),
        (["CREATE TABLE n AS SELECT rowid, oid, _rowid_, b FROM t"], "n"),
        (["CREATE TABLE n AS SELECT rowid, a, g FROM u"], "n"),
        // Types from affinities.
        (
            [
                "CREATE TABLE n AS SELECT CAST(a AS TEXT), CAST(b AS INTEGER), CAST(c AS REAL) AS r, CAST(d AS NUMERIC), "
                    + "CAST(e AS BLOB), CAST(f AS VARCHAR(5)), CAST(f AS FLOATING POINT), CAST(f AS WHATEVER) FROM t"
            ], "n"
        ),
        (["CREATE TABLE n AS SELECT b COLLATE NOCASE, upper(b), likely(c) FROM t ORDER BY 1 LIMIT 2"], "n"),
        (["CREATE TABLE n AS SELECT a, (SELECT max(c) FROM t) AS m, (SELECT b FROM t LIMIT 1) FROM u"], "n"),
        (["CREATE TABLE n AS SELECT DISTINCT d FROM t"], "n"),
        // Aggregates, joins, views, subqueries, CTEs, compounds, windows.
        (["CREATE TABLE n AS SELECT count(*), sum(c), max(b), group_concat(b), avg(a) FROM t"], "n"),
        (["CREATE TABLE n AS SELECT b, count(*) AS k FROM t GROUP BY b ORDER BY b"], "n"),
        (["CREATE TABLE n AS SELECT t.a, u.a, u.g FROM t JOIN u ON t.a = u.a"], "n"),
        (["CREATE TABLE n AS SELECT * FROM t, u WHERE t.a = u.a"], "n"),
        (["CREATE TABLE n AS SELECT * FROM t LEFT JOIN u USING (a)"], "n"),
        (["CREATE TABLE n AS SELECT * FROM v"], "n"),
        (["CREATE TABLE n AS SELECT bx, c FROM v WHERE c IS NOT NULL"], "n"),
        (["CREATE TABLE n AS SELECT * FROM (SELECT a, b, c AS z FROM t) AS s WHERE z > 0"], "n"),
        (["CREATE TABLE n AS WITH w(p, q) AS (SELECT a, b FROM t) SELECT * FROM w"], "n"),
        (
            [
                "CREATE TABLE n AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 5) SELECT i, i * i FROM r"
            ],
            "n"
        ),
        (["CREATE TABLE n AS SELECT a, b FROM t UNION SELECT a, g FROM u"], "n"),
        (["CREATE TABLE n AS SELECT 1 AS one UNION ALL SELECT 'two' UNION ALL SELECT 3.5"], "n"),
        (["CREATE TABLE n AS SELECT g, a FROM u EXCEPT SELECT b, a FROM t"], "n"),
        (["CREATE TABLE n AS SELECT a, row_number() OVER (ORDER BY a DESC) AS rn FROM t"], "n"),
        (["CREATE TABLE n AS VALUES (1, 'a'), (2, 'b')"], "n"),
        (["CREATE TABLE n AS SELECT ?1, :x, @y"], "n"),
        (["CREATE TABLE n AS SELECT * FROM t ORDER BY c DESC LIMIT 2 OFFSET 1"], "n"),
        (["CREATE TABLE n AS SELECT * FROM (SELECT c FROM t UNION ALL SELECT g FROM u)"], "n"),
        (["CREATE TABLE n AS SELECT a AS x FROM t UNION SELECT a FROM u ORDER BY x DESC"], "n"),
        (["CREATE VIEW v2(p, q) AS SELECT a, b FROM t", "CREATE TABLE n AS SELECT * FROM v2"], "n"),
        (["CREATE TABLE n AS SELECT * FROM t NATURAL JOIN u"], "n"),
        (
            [
                "CREATE TABLE g(a INT, b AS (a * 2))", "INSERT INTO g(a) VALUES (4)",
                "CREATE TABLE n AS SELECT * FROM g",
            ], "n"
        ),
        (["CREATE TABLE n AS SELECT a   +  1, (SELECT 1), count(DISTINCT b) FROM t"], "n"),
        (["CREATE TABLE n AS SELECT * FROM json_each('[1, \"x\", 2.5]')"], "n"),
        // Zero rows.
        (["CREATE TABLE n AS SELECT * FROM t WHERE 0"], "n"),
        (["CREATE TABLE n AS SELECT count(*) AS k FROM t WHERE 0 GROUP BY a"], "n"),
        // The temporary schema.
        (["CREATE TEMP TABLE n AS SELECT * FROM t"], "n"),
        (["CREATE TEMPORARY TABLE n AS SELECT x, y FROM tt"], "n"),
        (["CREATE TABLE temp.n AS SELECT a FROM t"], "n"),
        (["CREATE TABLE main.n AS SELECT * FROM tt"], "n"),
        (["CREATE TEMP TABLE t AS SELECT b, a FROM t", "SELECT * FROM main.t"], "t"),
        (["CREATE TEMP TABLE main.n AS SELECT 1"], "n"),
        // IF NOT EXISTS and existing names.
        (["CREATE TABLE IF NOT EXISTS t AS SELECT 1 AS z"], "t"),
        (["CREATE TABLE IF NOT EXISTS n AS SELECT a FROM t"], "n"),
        (["CREATE TABLE IF NOT EXISTS t AS SELECT * FROM nosuch"], "t"),
        (["CREATE TABLE IF NOT EXISTS tt AS SELECT 1", "CREATE TABLE IF NOT EXISTS temp.tt AS SELECT 1"], "tt"),
        (["CREATE TABLE t AS SELECT 1"], "t"),
        (["CREATE TABLE v AS SELECT 1"], "n"),
        (["CREATE TABLE t AS SELECT * FROM nosuch"], "t"),
        (["CREATE TABLE n AS SELECT 1", "CREATE TABLE n AS SELECT 2"], "n"),
        (
            ["CREATE INDEX i ON t(b)", "CREATE TABLE i AS SELECT nosuch", "CREATE TABLE IF NOT EXISTS i AS SELECT 1"],
            "i"
        ),
        (["CREATE TABLE aux.n AS SELECT nosuch", "CREATE TABLE IF NOT EXISTS aux.t AS SELECT 1"], "n"),
        (["CREATE TEMP TABLE aux.n AS SELECT 1"], "n"),
        // Errors of the query or the name.
        (["CREATE TABLE n AS SELECT nosuch FROM t"], "n"),
        (["CREATE TABLE n AS SELECT * FROM nosuch"], "n"),
        (["CREATE TABLE n AS SELECT 1/0, abs(-9223372036854775808)"], "n"),
        (["CREATE TABLE n AS SELECT a FROM t UNION SELECT a, g FROM u"], "n"),
        (["CREATE TABLE sqlite_x AS SELECT 1"], "sqlite_x"),
        (["CREATE TABLE n AS SELECT * FROM n"], "n"),
        // Transactions: the table and its rows come and go together.
        (["BEGIN", "CREATE TABLE n AS SELECT * FROM t", "ROLLBACK"], "n"),
        (["BEGIN", "CREATE TEMP TABLE n AS SELECT * FROM u", "COMMIT"], "n"),
        (["SAVEPOINT s", "CREATE TABLE n AS SELECT a FROM t", "ROLLBACK TO s", "RELEASE s"], "n"),
        // The new table is an ordinary table afterwards.
        (
            [
                "CREATE TABLE n AS SELECT a, b, c FROM t", "INSERT INTO n VALUES ('7', 8, '9')",
                "UPDATE n SET c = '2' WHERE a = 1",
            ], "n"
        ),
    ]

    /// The checks after a case: both schema tables and the new table's definition, rows and stored types.
    static func checks(of table: String, oracle: Oracle) -> [String] {
        let quoted = "\"" + table.replacing("\"", with: "\"\"") + "\""
        var queries = TempSchemaDifferentialTests.schemaQueries + ["PRAGMA table_info(\(quoted))"]
        queries.append("SELECT * FROM \(quoted) ORDER BY rowid")
        if case .rows(_, let info) = SelectDifferentialTests.sqlite(oracle, "PRAGMA table_info(\(quoted))"),
            !info.isEmpty
        {
            let types = info.map { row -> String in
                guard case .text(let name) = row[1] else { return "NULL" }
                return "typeof(\"" + name.replacing("\"", with: "\"\"") + "\")"
            }
            queries.append("SELECT \(types.joined(separator: ", ")) FROM \(quoted) ORDER BY rowid")
        }
        return queries
    }

    func testFixedStatementsMatchSQLite() throws {
        var failures: [String] = []
        var compared = 0
        for (statements, table) in Self.cases {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in Self.setup {
                oracle.execute(sql)
                try db.execute(sql)
            }
            var found = TempSchemaDifferentialTests.compare(statements.map { ($0, true) }, oracle: oracle, db: db)
            found += TempSchemaDifferentialTests.compare(
                Self.checks(of: table, oracle: oracle).map { ($0, true) }, oracle: oracle, db: db)
            compared += 1
            if !found.isEmpty {
                failures.append(statements.joined(separator: "; ") + ":\n    " + found.joined(separator: "\n    "))
            }
        }
        XCTAssertEqual(compared, Self.cases.count)
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.joined(separator: "\n"))
    }

    /// A bound parameter's value is what the query stores.
    func testParametersAreBound() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE n AS SELECT ? AS p, :q AS q", arguments: [.integer(5), .text("w")])
        let result = try db.query("SELECT p, q FROM n")
        XCTAssertEqual(result.rows, [[.integer(5), .text("w")]])
    }

    /// Like SQLite's, the statement counts no changes and leaves the last inserted rowid alone.
    func testCountsNoChanges() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.setup + ["INSERT INTO u VALUES (5, 'five')", "CREATE TABLE n AS SELECT * FROM t"] {
            oracle.execute(sql)
            try db.execute(sql)
        }
        let expected = [
            Int(sqlite3_changes(oracle.db)), Int(sqlite3_total_changes(oracle.db)),
            Int(sqlite3_last_insert_rowid(oracle.db)),
        ]
        XCTAssertEqual(expected, [1, 10, 4])
        XCTAssertEqual([db.changes, db.totalChanges, Int(db.lastInsertedRowid)], expected)
        XCTAssertEqual(try db.query("SELECT count(*) FROM n").rows, [[.integer(4)]])
    }
}
