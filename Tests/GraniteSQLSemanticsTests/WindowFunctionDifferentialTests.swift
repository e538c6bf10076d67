import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Window functions, run on SQLite and Granite: every function, partitions, orderings, each frame kind and
/// exclusion, FILTER, named windows, and window functions with aggregates, subqueries, views, common tables and
/// compounds, compared row for row (as multisets when the query has no ORDER BY) and error for error.
final class WindowFunctionDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, g TEXT, h TEXT COLLATE NOCASE, x INTEGER, y REAL, z)",
        "CREATE TABLE u(k INTEGER, v TEXT)",
    ]

    /// Why the outcomes differ (values compared exactly: type and value), or nil.
    static func difference(
        _ expected: SelectDifferentialTests.Result, _ actual: SelectDifferentialTests.Result,
        ordered: Bool
    ) -> String? {
        if case .rows(let en, let e) = expected, case .rows(let an, let a) = actual, en == an {
            let ek = e.map(SelectDifferentialTests.key)
            let ak = a.map(SelectDifferentialTests.key)
            if ordered ? ek == ak : ek.sorted() == ak.sorted() { return nil }
            return "rows differ (\(ordered ? "ordered" : "multiset")):\n  sqlite  \(e)\n  granite \(a)"
        }
        return SelectDifferentialTests.mismatch(expected, actual, ordered: ordered)
    }

    /// Granite's outcome, with a syntax error's message alone (SQLite's message has no position).
    static func granite(_ db: SQLConnection, _ sql: String) -> SelectDifferentialTests.Result {
        do {
            let result = try db.query(sql)
            return .rows(result.columns, result.rows)
        } catch let error as SQLSyntaxError {
            return .failure(error.message)
        } catch {
            return .failure(graniteMessage(error))
        }
    }

    private func compare(_ statements: [String], setup: [String], ordered: (String) -> Bool) throws -> [String] {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in Self.schema + setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        var failures: [String] = []
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = Self.granite(db, sql)
            if let why = Self.difference(expected, actual, ordered: ordered(sql)) { failures.append("\(sql): \(why)") }
        }
        return failures
    }

    static let fixedRows = [
        "INSERT INTO t VALUES (1, 'a', 'p', 1, 1.5, 'x')", "INSERT INTO t VALUES (2, 'a', 'P', 1, NULL, 2)",
        "INSERT INTO t VALUES (3, 'b', 'q', NULL, 2.5, NULL)", "INSERT INTO t VALUES (4, 'a', 'q', 3, -1.0, 'y')",
        "INSERT INTO t VALUES (5, NULL, 'Q', 5, 4.0, 3.5)", "INSERT INTO t VALUES (6, 'b', NULL, 3, 2.5, 'x')",
        "INSERT INTO t VALUES (7, 'b', 'p', 8, 0.0, X'00')", "INSERT INTO t VALUES (8, 'a', 'r', NULL, 7.25, 1)",
        "INSERT INTO u VALUES (1, 'one'), (3, 'three'), (3, 'drei'), (NULL, 'none')",
    ]

    /// Queries without ORDER BY whose rows come in the first window's order in SQLite, and so in Granite.
    static let implicitlyOrdered = [
        "SELECT id, row_number() OVER (ORDER BY x DESC, id), row_number() OVER (ORDER BY h, id) FROM t",
        "SELECT id, row_number() OVER (ORDER BY h, id), rank() OVER (ORDER BY x DESC, id), "
            + "dense_rank() OVER (ORDER BY id DESC) FROM t",
        "SELECT id, sum(x) OVER (PARTITION BY g) FROM t",
    ]

    static let views = [
        "CREATE VIEW vw AS SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY id) AS rn, "
            + "sum(x) OVER (ORDER BY id ROWS 1 PRECEDING) AS s FROM t",
        "CREATE VIEW vw2 AS SELECT g, count(*) AS n, rank() OVER (ORDER BY count(*)) FROM t GROUP BY g",
    ]

    /// Hand-picked queries: each function, frame and placement once.
    func testFixedQueriesMatchSQLite() throws {
        let queries = [
            "SELECT id, row_number() OVER (ORDER BY id) FROM t",
            "SELECT id, rank() OVER (ORDER BY x), dense_rank() OVER (ORDER BY x) FROM t",
            "SELECT id, percent_rank() OVER (PARTITION BY g ORDER BY x), cume_dist() OVER (PARTITION BY g ORDER BY x) FROM t",
            "SELECT id, ntile(3) OVER (ORDER BY id), ntile(10) OVER (ORDER BY id DESC) FROM t",
            "SELECT id, lag(x) OVER (ORDER BY id), lead(x, 2, -1) OVER (ORDER BY id), lag(x, -1) OVER (ORDER BY id) FROM t",
            "SELECT id, first_value(x) OVER w, last_value(x) OVER w, nth_value(x, 2) OVER w FROM t WINDOW w AS (ORDER BY id)",
            "SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t",
            "SELECT id, sum(x) OVER (ORDER BY x RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t",
            "SELECT id, sum(x) OVER (ORDER BY x DESC RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t",
            "SELECT id, sum(x) OVER (ORDER BY x NULLS LAST RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t",
            "SELECT id, count(*) OVER (ORDER BY x GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
            "SELECT id, group_concat(id) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) FROM t",
            "SELECT id, sum(id) OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP) FROM t",
            "SELECT id, sum(id) OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES) FROM t",
            "SELECT id, sum(id) OVER (ORDER BY x ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) FROM t",
            "SELECT id, avg(y) OVER (PARTITION BY g), total(y) OVER (), min(z) OVER (ORDER BY id), max(z) OVER (ORDER BY id) FROM t",
            "SELECT id, count(x) FILTER (WHERE x > 1) OVER (ORDER BY id) FROM t",
            "SELECT id, json_group_array(x) OVER (ORDER BY id), json_group_object(h, x) OVER (ORDER BY id) FROM t",
            "SELECT g, count(*), sum(count(*)) OVER (), rank() OVER (ORDER BY count(*) DESC) FROM t GROUP BY g",
            "SELECT count(*) OVER (), count(*) FROM t",
            "SELECT x, row_number() OVER (ORDER BY x) AS r FROM t ORDER BY r DESC LIMIT 3",
            "SELECT DISTINCT g, count(*) OVER (PARTITION BY g) FROM t",
            "SELECT id FROM t ORDER BY row_number() OVER (ORDER BY id DESC)",
            "SELECT *, row_number() OVER (ORDER BY id) FROM t",
            "SELECT t.*, u.*, rank() OVER (ORDER BY k) FROM t JOIN u ON t.x = u.k",
            "SELECT id, h, rank() OVER (ORDER BY h) FROM t",
            "SELECT id, h, rank() OVER (ORDER BY h COLLATE BINARY) FROM t",
            "SELECT id, x + row_number() OVER (ORDER BY id) * 10 AS v FROM t ORDER BY v",
            "SELECT (SELECT max(r) FROM (SELECT row_number() OVER () AS r FROM u)) FROM t WHERE id < 3",
            "SELECT id, (SELECT count(*) FROM u WHERE u.k = t.x) AS c, sum(x) OVER (ORDER BY id) FROM t",
            "WITH c AS (SELECT g, x, row_number() OVER (PARTITION BY g ORDER BY id) AS r FROM t) SELECT * FROM c WHERE r = 1",
            "SELECT id, row_number() OVER (ORDER BY id) FROM t UNION ALL SELECT k, rank() OVER (ORDER BY k) FROM u",
            "SELECT * FROM (SELECT id, lag(id) OVER (ORDER BY id) AS p FROM t) WHERE p IS NOT NULL",
            "SELECT id, row_number() OVER win2 FROM t WINDOW win2 AS (win ROWS 1 PRECEDING), win AS (ORDER BY id)",
            "SELECT id, sum(x) OVER (w ORDER BY id) FROM t WINDOW w AS (PARTITION BY g)",
            "SELECT id, sum(x) OVER (ROWS ? PRECEDING) FROM t",
            "SELECT id, sum(x) OVER (ORDER BY id ROWS '2' PRECEDING) FROM t",
            "SELECT id, sum(x) OVER (ORDER BY z RANGE 1 PRECEDING) FROM t",
            "SELECT id, sum(x) OVER (ORDER BY y RANGE 1.5 PRECEDING) FROM t",
            "SELECT count(*) over, 1 FROM t",
            "SELECT x AS window FROM t AS window WHERE id = 1",
            "SELECT id FROM t WINDOW w AS (ORDER BY nosuch)",
            "WITH c AS (SELECT x FROM t WHERE x > 0) SELECT x, rank() OVER (ORDER BY x) FROM c",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6) "
                + "SELECT i, sum(i) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM n",
            "SELECT count(*) OVER (), row_number() OVER ()",
            "SELECT row_number() OVER () FROM t LIMIT 0",
            "SELECT g, x, first_value(x) OVER (PARTITION BY g ORDER BY id) FROM t WHERE id IN (SELECT max(id) FROM t GROUP BY g)",
            "SELECT id, (SELECT group_concat(k, '+') OVER (ORDER BY k * t.x, v) FROM u ORDER BY 1 DESC LIMIT 1) FROM t",
            "SELECT id, (SELECT count(*) FILTER (WHERE k > t.x) OVER () FROM u LIMIT 1) FROM t",
            "SELECT id FROM t WHERE x = (SELECT max(k) OVER (PARTITION BY t.g) FROM u LIMIT 1)",
            "SELECT id, lag(x, NULL, 'd') OVER w, lead(x, '1', 'd') OVER w, lag(x, 1.5, 'd') OVER w, "
                + "lag(x, 1.0) OVER w, lead(x, x, 'd') OVER w, lag(x, -9223372036854775807, 'd') OVER w, "
                + "lead(x, 9223372036854775807, 'd') OVER w FROM t WINDOW w AS (ORDER BY id)",
            "SELECT id, ntile(x) OVER (ORDER BY id), ntile(id) OVER (ORDER BY id DESC) FROM t",
            "SELECT id, ntile(x - 1) OVER (ORDER BY id) FROM t",
            "SELECT * FROM vw WHERE id > 3",
            "SELECT * FROM vw WHERE rn = 1 AND g = 'b'",
            "SELECT vw.id, vw.s, u.v FROM vw JOIN u ON vw.rn = u.k",
            "PRAGMA table_info(vw)",
            "SELECT * FROM vw2",
            // Errors.
            "SELECT id FROM t WHERE row_number() OVER () > 1",
            "SELECT id FROM t GROUP BY row_number() OVER ()",
            "SELECT g FROM t GROUP BY g HAVING rank() OVER () > 1",
            "SELECT abs(x) OVER () FROM t",
            "SELECT min(x, y) OVER () FROM t",
            "SELECT sum(row_number() OVER ()) FROM t",
            "SELECT sum(row_number() OVER ()) OVER () FROM t",
            "SELECT rank() FROM t",
            "SELECT row_number() OVER w FROM t",
            "SELECT row_number() OVER (w ORDER BY x) FROM t WINDOW w AS (ORDER BY y)",
            "SELECT row_number() OVER (w PARTITION BY x) FROM t WINDOW w AS (ORDER BY y)",
            "SELECT row_number() OVER (w) FROM t WINDOW w AS (ROWS 1 PRECEDING)",
            "SELECT row_number() OVER (w) FROM t WINDOW v AS (ROWS 1 PRECEDING)",
            "SELECT sum(x) OVER (ORDER BY x, y RANGE 1 PRECEDING) FROM t",
            "SELECT sum(x) OVER (RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM t",
            "SELECT sum(x) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t",
            "SELECT sum(x) OVER (ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM t",
            "SELECT sum(x) OVER (ROWS 1 FOLLOWING) FROM t",
            "SELECT sum(x) OVER (ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t",
            "SELECT sum(x) OVER (ROWS -1 PRECEDING) FROM t",
            "SELECT sum(x) OVER (ROWS BETWEEN 1 PRECEDING AND -1 FOLLOWING) FROM t",
            "SELECT sum(x) OVER (ROWS 1.5 PRECEDING) FROM t",
            "SELECT sum(x) OVER (ROWS x PRECEDING) FROM t",
            "SELECT sum(x) OVER (GROUPS NULL PRECEDING) FROM t",
            "SELECT sum(x) OVER (ORDER BY x RANGE -1 PRECEDING) FROM t",
            "SELECT sum(x) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND 'a' FOLLOWING) FROM t",
            "SELECT ntile(0) OVER () FROM t",
            "SELECT ntile('a') OVER () FROM t",
            "SELECT ntile() OVER () FROM t",
            "SELECT nth_value(x, 0) OVER () FROM t",
            "SELECT nth_value(x, 1.5) OVER () FROM t",
            "SELECT lag() OVER () FROM t",
            "SELECT lead(x, 1, 2, 3) OVER () FROM t",
            "SELECT row_number(1) OVER () FROM t",
            "SELECT row_number() FILTER (WHERE x > 1) OVER () FROM t",
            "SELECT count(DISTINCT x) OVER () FROM t",
            "SELECT nosuch(x) OVER () FROM t",
            "SELECT sum(x) OVER (PARTITION BY nosuch) FROM t",
            "UPDATE t SET x = row_number() OVER ()",
        ]
        let failures = try compare(queries + Self.implicitlyOrdered, setup: Self.fixedRows + Self.views) {
            Self.implicitlyOrdered.contains($0) || $0.contains("ORDER BY v") || $0.contains("LIMIT")
        }
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.joined(separator: "\n"))
    }

    /// Random queries: every function, partition, ordering, frame and exclusion, in every placement.
    func testRandomQueriesMatchSQLite() throws {
        let seed = testSeed()
        var generator = WindowFunctionGenerator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var cases = 0
        for _ in 0..<(40 * stressFactor) where failures.count < 30 {
            let setup = generator.rows()
            var queries: [(sql: String, ordered: Bool)] = []
            for _ in 0..<30 { queries.append(generator.query()) }
            let ordered = Dictionary(queries.map { ($0.sql, $0.ordered) }, uniquingKeysWith: { a, _ in a })
            failures += try compare(queries.map(\.sql), setup: setup) { ordered[$0] ?? false }
            cases += queries.count
        }
        XCTAssertGreaterThanOrEqual(cases, 1000 * stressFactor)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches in \(cases) cases (GRANITE_SEED=\(seed)):\n"
                + failures.prefix(30).joined(separator: "\n"))
    }

    /// Window functions in other statements and in schema expressions, where SQLite refuses or accepts them.
    func testOtherPlacesMatchSQLite() throws {
        let statements = [
            "SELECT a FROM (SELECT 1 AS a UNION SELECT 2) ORDER BY row_number() OVER (ORDER BY a DESC)",
            "SELECT 1 UNION SELECT 2 ORDER BY row_number() OVER ()",
            "VALUES (row_number() OVER ())",
            "SELECT (SELECT row_number() OVER ()) FROM t WHERE id < 3",
            "SELECT id FROM t WHERE x IN (SELECT rank() OVER (ORDER BY k) FROM u)",
            "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.x AND lag(u.k) OVER () IS NULL)",
            "INSERT INTO u SELECT id, row_number() OVER (ORDER BY id DESC) FROM t",
            "SELECT k, v FROM u ORDER BY k, v",
            "INSERT INTO u VALUES (row_number() OVER (), 1)",
            "UPDATE u SET v = (SELECT max(r) FROM (SELECT rank() OVER (ORDER BY x) AS r FROM t)) WHERE k = 1",
            "SELECT k, v FROM u ORDER BY k, v",
            "DELETE FROM u WHERE k = row_number() OVER ()",
            "UPDATE t SET x = 1 RETURNING row_number() OVER ()",
            "CREATE TABLE c1(a CHECK (rank() OVER () > 0))",
            "CREATE TABLE c2(a, b AS (row_number() OVER ()))",
            "CREATE TABLE c3(a DEFAULT (rank() OVER ()))",
            "CREATE INDEX i1 ON t(row_number() OVER ())",
            "CREATE INDEX i2 ON t(x) WHERE rank() OVER () > 0",
            "SELECT id, (SELECT group_concat(v) OVER () FROM u WHERE u.k = t.x) FROM t",
            "SELECT sum(x) OVER (ORDER BY id ROWS (SELECT 1) PRECEDING) FROM t",
            "SELECT x, rank() OVER (ORDER BY x) AS r FROM t GROUP BY x HAVING r > 1",
            "SELECT x, rank() OVER (ORDER BY x) AS r FROM t WHERE r > 1",
            "SELECT x, rank() OVER (ORDER BY x) AS r FROM t GROUP BY r",
            "SELECT x AS a, rank() OVER (ORDER BY a) FROM t",
            "SELECT x AS a, rank() OVER (PARTITION BY a ORDER BY id) FROM t",
            "SELECT x, max(y), row_number() OVER () FROM t",
            "SELECT sum(x) OVER () FROM t ORDER BY count(*)",
            "SELECT sum(x) OVER (), count(*) FROM t ORDER BY count(*)",
            "SELECT sum(sum(x)) OVER () FROM t ORDER BY count(*)",
            "SELECT x, sum(x) OVER () FROM t GROUP BY x ORDER BY count(*), x",
            "SELECT sum(x) OVER () FROM t ORDER BY (SELECT count(*) FROM u)",
            "SELECT x, row_number() OVER (ORDER BY x) FROM t ORDER BY row_number() OVER (ORDER BY x) DESC",
            "SELECT sum(x) OVER (ORDER BY id ROWS count(*) PRECEDING) FROM t",
            "SELECT max(x) OVER (PARTITION BY sum(y)) FROM t",
            "SELECT max(x) OVER (PARTITION BY rank() OVER ()) FROM t",
            "SELECT count(*) FILTER (WHERE rank() OVER () > 1) OVER () FROM t",
            "SELECT row_number() OVER (ORDER BY 1), row_number() OVER (ORDER BY 2) FROM t",
            "SELECT x, count(*) OVER (PARTITION BY x ORDER BY NULL) FROM t",
        ]
        let failures = try compare(statements, setup: Self.fixedRows) { $0.contains("ORDER BY k, v") }
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.joined(separator: "\n"))
    }

    /// Renaming a column or a table that a view's windows read rewrites the view's text as SQLite does.
    func testRenamesRewriteWindowsOfViews() throws {
        let statements = [
            "ALTER TABLE t RENAME COLUMN g TO gg",
            "SELECT name, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name",
            "SELECT * FROM vw",
            "ALTER TABLE t RENAME COLUMN x TO xx",
            "SELECT name, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name",
            "ALTER TABLE t RENAME TO t2",
            "SELECT name, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name",
            "SELECT * FROM vw3",
        ]
        let views =
            Self.views + [
                "CREATE VIEW vw3 AS SELECT t.id, sum(t.x) OVER w AS s FROM t WINDOW w AS (PARTITION BY t.g ORDER BY t.x)"
            ]
        let failures = try compare(statements, setup: Self.fixedRows + views) { $0.contains("ORDER BY name") }
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.joined(separator: "\n"))
    }
}
