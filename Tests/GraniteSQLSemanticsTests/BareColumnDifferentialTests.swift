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
}
