import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// How the names of `FROM` sources resolve where they repeat or hide one another, run on SQLite and Granite: one
/// table twice under one name (`FROM t, t`), which fails only on a reference that is ambiguous, and the `ON`,
/// `USING` and `NATURAL` clauses of `UPDATE … FROM`, which see the `FROM` sources alone.
final class SourceNameDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
        "CREATE TABLE u(a, c)",
        "CREATE TABLE w(a, d)",
        "CREATE TEMP TABLE tt(a, e)",
        "CREATE TABLE wr(k PRIMARY KEY, v) WITHOUT ROWID",
        "CREATE VIEW vq AS SELECT 1 AS q",
        "INSERT INTO wr VALUES (1, 2)",
        "INSERT INTO t VALUES (1, 2), (2, 3), (3, NULL)",
        "INSERT INTO u VALUES (1, 10), (2, 20), (NULL, 30)",
        "INSERT INTO w VALUES (2, 100), (1, 200), (2, 300)",
        "INSERT INTO tt VALUES (1, 'e1')",
    ]

    func testOneTableTwiceUnderOneName() throws {
        let succeeded = try ParenthesisedJoinDifferentialTests.check(
            Self.schema + [
                "SELECT count(*) FROM t, t",
                "SELECT count(*) FROM u AS x, w AS x",
                "SELECT t.a FROM t, t",
                "SELECT a FROM t, t",
                "SELECT b FROM t, t",
                "SELECT * FROM t, t",
                "SELECT t.* FROM t, t",
                "SELECT rowid FROM t, t",
                "SELECT t.rowid FROM t, t",
                "SELECT * FROM t JOIN t USING (a)",
                "SELECT * FROM t JOIN t USING (a, b)",
                "SELECT a FROM t JOIN t USING (a)",
                "SELECT * FROM t NATURAL JOIN t",
                "SELECT t.* FROM t NATURAL JOIN t",
                "SELECT count(*) FROM t, t, t WHERE 1",
                "SELECT c FROM u, u AS x, t AS u",
                "SELECT x.c FROM u AS x, w AS x",
                "SELECT x.d FROM u AS x, w AS x",
                "SELECT * FROM u AS x, w AS x",
                "SELECT x.* FROM u AS x, w AS x",
                "SELECT * FROM u AS x JOIN w AS x USING (a)",
                "SELECT * FROM t, u JOIN w USING (a), t AS w",
                "SELECT * FROM t AS u, u JOIN w USING (a)",
                "SELECT u.c FROM t, u NATURAL JOIN t AS u",
                "SELECT * FROM (SELECT 1 AS a) AS s, (SELECT 2 AS a) AS s",
                "SELECT s.a FROM (SELECT 1 AS a) AS s, (SELECT 2 AS a) AS s",
                "SELECT count(*) FROM (SELECT 1 AS a) AS s, (SELECT 2 AS a) AS s",
                "SELECT * FROM t, temp.tt AS t",
                "SELECT main.t.b, temp.t.e FROM t, temp.tt AS t",
                "SELECT rowid FROM t, (SELECT 1)",
                "SELECT rowid FROM (SELECT 1), u",
                "SELECT rowid FROM t, wr",
                "SELECT rowid FROM t, vq",
                "SELECT rowid FROM t, json_each('[1]')",
                "WITH q AS (SELECT 1) SELECT rowid FROM t, q",
                "SELECT (SELECT t.rowid FROM u AS t, u AS t) FROM t",
                "SELECT count(*) FROM vq, vq",
                "SELECT * FROM vq, vq",
                "SELECT * FROM t, vq AS t",
                "SELECT (SELECT count(*) FROM u, u WHERE u.c > t.b) FROM t",
                "SELECT (SELECT u.c FROM u, u) FROM t",
                "CREATE VIEW v AS SELECT count(*) AS n FROM t, t",
                "SELECT * FROM v",
                "WITH q AS (SELECT 1 AS a) SELECT count(*) FROM q, q",
                "WITH q AS (SELECT 1 AS a) SELECT q.a FROM q, q",
            ])
        XCTAssertGreaterThan(succeeded, 20)
    }

    func testUpdateFromSeesTheFromTablesInItsJoins() throws {
        try TriggerDifferentialTests.check(
            Self.schema + [
                "UPDATE t SET b = u.c FROM u JOIN w ON a = w.a WHERE u.a = t.a RETURNING *",
                "UPDATE t SET b = w.d FROM u JOIN w ON c = a * 10 WHERE t.a = u.a RETURNING *",
                "UPDATE t SET b = w.d FROM u LEFT JOIN w ON a = w.a AND d > 150 WHERE t.a = u.a RETURNING *",
                "UPDATE t SET b = 0 FROM u JOIN w ON b = 1",
                "UPDATE t SET b = 0 FROM u JOIN w ON t.b = 1",
                "UPDATE t AS x SET b = w.d FROM u JOIN w ON a = w.a WHERE x.a = u.a RETURNING *",
                "UPDATE t SET b = 5 FROM u JOIN w USING (a) WHERE t.a = w.a RETURNING *",
                "UPDATE t SET b = 6 FROM u NATURAL JOIN w WHERE t.a = a RETURNING *",
                "UPDATE t SET b = 7 FROM u JOIN w ON a = 1 JOIN u AS v ON v.a = a",
                "UPDATE t SET b = 8 FROM u JOIN (w JOIN u AS v USING (a)) ON u.a = a WHERE t.a = u.a RETURNING *",
                "UPDATE t SET b = 9 FROM (u JOIN w USING (a)) AS g WHERE t.a = g.a RETURNING *",
                "UPDATE t SET b = 10 FROM u, (w JOIN u AS v ON w.a = v.a) WHERE t.a = v.a AND u.a = t.a RETURNING *",
                "UPDATE t SET b = d FROM u, (w JOIN u AS v ON w.a = v.a) WHERE t.a = w.a AND d < 300 RETURNING *",
                "UPDATE t SET b = 11 FROM u JOIN w ON (SELECT max(a) FROM u) = w.a WHERE t.a = u.a RETURNING *",
                "SELECT * FROM t",
            ])
    }

    func testUpdateFromNamingTablesTwice() throws {
        try TriggerDifferentialTests.check(
            Self.schema + [
                "UPDATE t SET b = 1 FROM t",
                "UPDATE t SET b = 2 FROM T",
                "UPDATE t SET b = 3 FROM main.t",
                "UPDATE t SET b = 4 FROM u, t",
                "UPDATE t SET b = 5 FROM (t)",
                "UPDATE t SET b = 6 FROM u JOIN (w JOIN t ON 1) ON 1",
                "UPDATE t SET b = 7 FROM t AS t",
                "UPDATE t SET b = t.b FROM t AS t",
                "UPDATE t AS t SET b = 8 FROM t",
                "UPDATE t AS x SET b = 9 FROM t WHERE x.a = t.a + 1 RETURNING *",
                "UPDATE t SET b = 10 FROM u AS t",
                "UPDATE t SET b = 11 FROM u, u",
                "UPDATE t SET b = 12 FROM u, u WHERE u.a = 1",
                "UPDATE t SET b = 13 FROM u JOIN u AS v USING (a) WHERE t.a = v.a RETURNING *",
                "UPDATE t SET b = 14 FROM u JOIN u USING (a)",
                "UPDATE t SET b = 15 FROM u AS x, w AS x",
                "UPDATE t SET b = 16 FROM u JOIN w ON 1 WHERE t.a = w.a AND c = 10 RETURNING *",
                // Several FROM items form one unnamed group: an inner group's alias, a FROM table's rowid and
                // a qualified USING copy are out of reach from the rest of the statement.
                "UPDATE t SET b = 17 FROM u, (w JOIN u AS v USING (a)) AS g WHERE g.a = t.a",
                "UPDATE t SET b = 18 FROM u, (w JOIN u AS v USING (a)) AS g WHERE v.a = t.a AND u.a = t.a RETURNING *",
                "UPDATE t SET b = 19 FROM w, u WHERE rowid = 1 AND u.a = 1 RETURNING *",
                "UPDATE t SET b = 20 FROM w, u WHERE u.rowid = 1",
                "UPDATE t SET b = 21 FROM u JOIN u AS v USING (a) WHERE u.a = t.a RETURNING *",
                "UPDATE t SET b = 22 FROM w JOIN u USING (a) WHERE u.a = t.a AND d < 300 RETURNING *",
                "UPDATE t SET b = 23 FROM u NATURAL JOIN t AS x WHERE a = 1",
                "SELECT * FROM t",
            ])
    }
}
