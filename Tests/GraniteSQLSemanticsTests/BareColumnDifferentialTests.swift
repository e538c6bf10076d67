import GraniteSQL
import GraniteStorage
import XCTest

/// Bare columns of a grouped query (and so of a view over one) come from the row on which one of its `min()` or
/// `max()` aggregates last changed, whatever other aggregates it has; without either, from the group's first row.
final class BareColumnDifferentialTests: XCTestCase {
    func testBareColumnsFollowMinAndMaxAmongOtherAggregates() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t1(a INTEGER, b TEXT COLLATE NOCASE, c REAL, d)",
            "CREATE TABLE t2(x INTEGER)",
            "INSERT INTO t1 VALUES (NULL, 'X', NULL, NULL), (NULL, 'x', 1.0, -2), (7, 'X', 0.5, 3), (1, 'y', 2, 'q')",
            "INSERT INTO t2 VALUES ('X'), ('x'), ('y')",
            "CREATE VIEW v1 AS SELECT b, count(*) AS n, sum(a) AS s, max(c) FROM t1 GROUP BY b",
            "SELECT b FROM t1 GROUP BY b ORDER BY b",
            "SELECT b, d, count(*) FROM t1 GROUP BY b ORDER BY b",
            "SELECT b, d, count(*), max(c) FROM t1 GROUP BY b ORDER BY b",
            "SELECT b, d, sum(a), min(c), count(*) FROM t1 GROUP BY b ORDER BY b",
            "SELECT b, d, max(c), min(c) FROM t1 GROUP BY b ORDER BY b",
            "SELECT d, count(*), max(a) FROM t1",
            "SELECT b FROM v1 ORDER BY b",
            "SELECT x, x IN (SELECT b FROM v1) FROM t2",
            "SELECT x FROM t2 WHERE x IN (SELECT b FROM v1) ORDER BY x",
        ])
    }

    /// A group's row follows min() or max() only in the columns its result reads (``SelectCursor``'s bare column
    /// slots): outputs mixing bare columns and aggregates, ORDER BY terms reading bare columns the outputs do not,
    /// and the whole row under HAVING or a correlated subquery, with groups found by hashing (no index on the key)
    /// and streamed (through an index on it).
    func testOnlyTheReadBareColumnsFollowMinAndMax() throws {
        var statements = [
            "CREATE TABLE t(g TEXT, a INTEGER, b TEXT, c REAL, d)",
            "INSERT INTO t VALUES ('p', 1, 'one', 1.5, 'w'), ('q', 2, 'two', 0.5, 'x'), ('p', 3, 'three', 9.0, 'y'),"
                + " ('q', 4, 'four', 7.0, 'z'), ('p', 5, 'five', 2.0, 'v'), (NULL, 6, 'six', 3.0, 'u'),"
                + " ('q', 7, 'seven', 7.5, 't')",
        ]
        let queries = [
            "SELECT g, max(c) FROM t GROUP BY g ORDER BY g",
            "SELECT g, b || ':' || count(*), max(c) FROM t GROUP BY g ORDER BY g",
            "SELECT g, max(c) + a, sum(a) FROM t GROUP BY g ORDER BY g",
            "SELECT g, count(*), max(c) FROM t GROUP BY g ORDER BY d",
            "SELECT g, count(*), min(c) FROM t GROUP BY g ORDER BY upper(b) DESC",
            "SELECT g, b, max(c) FROM t GROUP BY g HAVING d > 'a' ORDER BY g",
            "SELECT g, (SELECT count(*) FROM t AS u WHERE u.b <= t.b), max(c) FROM t GROUP BY g ORDER BY g",
            "SELECT DISTINCT d, max(c) FROM t GROUP BY g ORDER BY 1",
        ]
        statements += queries
        statements.append("CREATE INDEX t_g ON t(g)")
        statements += queries
        try TriggerDifferentialTests.check(statements)
    }
}
