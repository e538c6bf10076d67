import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

/// `LIMIT` and `OFFSET` holding subqueries, against SQLite. They used to trap: their subqueries were registered
/// with a scope no program ran.
final class LimitSubqueryDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c)",
        "INSERT INTO t VALUES (1, 'x', 3), (2, 'y', NULL), (3, 'z', -2), (4, '2', '1'), (5, NULL, 2.0)",
        "CREATE TABLE e(a)",
    ]

    static let queries = [
        "SELECT 1 LIMIT (SELECT 5)",
        "SELECT 1 LIMIT 1 OFFSET (SELECT 0)",
        "SELECT 1 LIMIT 1 OFFSET (SELECT 1)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT 2)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT 2) OFFSET (SELECT 1)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT 1), (SELECT 3)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT count(*) FROM t) - 2",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT max(a) FROM t WHERE a < 3)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT c FROM t WHERE a = 1)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT c FROM t WHERE a = 4)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT c FROM t WHERE a = 5)",
        "SELECT a FROM t ORDER BY a LIMIT -1 OFFSET (SELECT c FROM t WHERE a = 1)",
        // NULL, negative, text, real, blob and no row.
        "SELECT 1 LIMIT (SELECT NULL)",
        "SELECT 1 LIMIT (SELECT c FROM t WHERE a = 2)",
        "SELECT 1 LIMIT (SELECT 1 WHERE 0)",
        "SELECT a FROM e LIMIT (SELECT a FROM e)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT -1)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT c FROM t WHERE a = 3)",
        "SELECT a FROM t ORDER BY a LIMIT 2 OFFSET (SELECT -5)",
        "SELECT a FROM t ORDER BY a LIMIT 2 OFFSET (SELECT NULL)",
        "SELECT 1 LIMIT (SELECT 'x')",
        "SELECT 1 LIMIT (SELECT b FROM t WHERE a = 4)",
        "SELECT 1 LIMIT (SELECT ' 3 ')",
        "SELECT 1 LIMIT (SELECT 2.5)",
        "SELECT 1 LIMIT (SELECT 2.0)",
        "SELECT 1 LIMIT (SELECT x'01')",
        // Nested, EXISTS, IN, and a subquery beside the query's own subqueries.
        "SELECT 1 LIMIT (SELECT (SELECT 2))",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT (SELECT a FROM t WHERE a = 2) + (SELECT 1))",
        "SELECT a FROM t ORDER BY a LIMIT EXISTS (SELECT 1 FROM t WHERE a > 4)",
        "SELECT a FROM t ORDER BY a LIMIT 2 IN (SELECT a FROM t)",
        "SELECT (SELECT 7), a FROM t ORDER BY a LIMIT (SELECT 1)",
        "SELECT a FROM t WHERE a IN (SELECT a FROM t WHERE a > 1) ORDER BY a LIMIT (SELECT 2) OFFSET (SELECT 1)",
        "SELECT (SELECT b FROM t LIMIT (SELECT 1) OFFSET (SELECT 1)) FROM t WHERE a < 3",
        "SELECT a, (SELECT count(*) FROM t AS u WHERE u.a < t.a LIMIT (SELECT 1)) FROM t ORDER BY a",
        "SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT (SELECT 3)) ORDER BY a DESC LIMIT (SELECT 2)",
        "SELECT a FROM t ORDER BY a LIMIT (SELECT a FROM t ORDER BY a LIMIT 1 OFFSET (SELECT 2))",
        "SELECT count(*) FROM t LIMIT (SELECT 1)",
        "SELECT c, count(*) FROM t GROUP BY c ORDER BY c LIMIT (SELECT 2)",
        // A scalar or EXISTS subquery's LIMIT x reads as LIMIT (x <> 0): only NULL is an error.
        "SELECT (SELECT 5 LIMIT 'abc')",
        "SELECT (SELECT 5 LIMIT 2.5)",
        "SELECT (SELECT 5 LIMIT x'00')",
        "SELECT (SELECT 5 LIMIT '0.0'), (SELECT 5 LIMIT ' 0 '), (SELECT 5 LIMIT -0.0), (SELECT 5 LIMIT 0)",
        "SELECT (SELECT a FROM t ORDER BY a DESC LIMIT -3)",
        "SELECT (SELECT 5 LIMIT NULL)",
        "SELECT (SELECT 5 LIMIT 2.5 OFFSET 'x')",
        "SELECT (SELECT a FROM t ORDER BY a LIMIT 'x' OFFSET (SELECT 2))",
        "SELECT EXISTS (SELECT 5 LIMIT 'abc'), EXISTS (SELECT 5 LIMIT '0')",
        "SELECT EXISTS (SELECT 5 LIMIT NULL)",
        "SELECT 5 IN (SELECT 5 LIMIT 'abc')",
        "SELECT a FROM t WHERE a IN (SELECT a FROM t ORDER BY a LIMIT 2.0) ORDER BY a",
        "SELECT x FROM (SELECT a AS x FROM t LIMIT 'abc')",
        // Errors SQLite reports while preparing.
        "SELECT a FROM t LIMIT (SELECT a)",
        "SELECT (SELECT 1 LIMIT (SELECT t.a)) FROM t",
        "SELECT 1 LIMIT (SELECT 1, 2)",
        "SELECT 1 LIMIT max(1)",
        "SELECT 1 LIMIT a",
        "SELECT 1 LIMIT (SELECT max(1))",
    ]

    func testLimitAndOffsetSubqueries() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        var failures: [String] = []
        for sql in Self.queries {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                failures.append("\(sql): \(why)")
            }
        }
        XCTAssert(failures.isEmpty, failures.joined(separator: "\n"))
    }

    /// `EXPLAIN QUERY PLAN` shows the subqueries of LIMIT and OFFSET first, numbered after the others.
    func testPlanOfLimitSubqueries() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        let sql =
            "EXPLAIN QUERY PLAN SELECT a FROM t WHERE b IN (SELECT 'x') LIMIT (SELECT 2) OFFSET (SELECT c FROM t WHERE a = 1)"
        guard case .rows(_, let expected) = SelectDifferentialTests.sqlite(oracle, sql),
            case .rows(_, let actual) = SelectDifferentialTests.granite(db, sql)
        else { return XCTFail("EXPLAIN failed") }
        XCTAssertEqual(actual.map { $0[3] }, expected.map { $0[3] })
    }

    /// `LIMIT ?` with a bound parameter inside a subquery, executed again with other values.
    func testBoundParametersInLimitSubqueries() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        let sql = "SELECT a FROM t ORDER BY a LIMIT (SELECT ?) OFFSET (SELECT ? + 0)"
        let cases: [[Value]] = [
            [.integer(2), .integer(1)], [.integer(-1), .integer(3)], [.null, .integer(0)], [.text("2"), .real(1)],
            [.integer(0), .integer(0)],
        ]
        for args in cases {
            let expected = oracle.all(sql, args)
            let actual = StatementOutcome.granite(db, sql, args)
            XCTAssertNil(StatementOutcome.mismatch(sqlite: expected, granite: actual, what: "\(sql) \(args)"))
        }
    }
}
