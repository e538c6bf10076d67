import GraniteSQL
import GraniteStorage
import XCTest

/// The window syntax: OVER clauses, window definitions and frames, the WINDOW clause, their canonical forms, and
/// the words that stay usable as names.
final class WindowSyntaxTests: XCTestCase {
    func testOverClauses() {
        assertCanonical("SELECT row_number() OVER () FROM t", "SELECT row_number() OVER () FROM t")
        assertCanonical("SELECT rank() over w FROM t", "SELECT rank() OVER w FROM t")
        assertCanonical(
            "SELECT sum(a) FILTER (WHERE a > 0) OVER (PARTITION BY b, c ORDER BY d DESC NULLS LAST) FROM t",
            "SELECT sum(a) FILTER (WHERE (a > 0)) OVER (PARTITION BY b, c ORDER BY d DESC NULLS LAST) FROM t")
        assertCanonical(
            "SELECT count(*) OVER (w ORDER BY a) FROM t WINDOW w AS (PARTITION BY b)",
            "SELECT count(*) OVER (w ORDER BY a) FROM t WINDOW w AS (PARTITION BY b)")
        assertCanonical(
            "SELECT a FROM t GROUP BY a HAVING count(*) > 1 WINDOW w AS (), \"v w\" AS (w) ORDER BY a",
            "SELECT a FROM t GROUP BY a HAVING (count(*) > 1) WINDOW w AS (), \"v w\" AS (w) ORDER BY a")
    }

    func testFrames() {
        assertCanonical(
            "SELECT sum(a) OVER (ORDER BY a ROWS 2 PRECEDING) FROM t",
            "SELECT sum(a) OVER (ORDER BY a ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t")
        assertCanonical(
            "SELECT sum(a) OVER (ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t",
            "SELECT sum(a) OVER (ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t")
        assertCanonical(
            "SELECT sum(a) OVER (GROUPS BETWEEN 1 + 1 FOLLOWING AND ? FOLLOWING EXCLUDE TIES) FROM t",
            "SELECT sum(a) OVER (GROUPS BETWEEN (1 + 1) FOLLOWING AND ? FOLLOWING EXCLUDE TIES) FROM t")
        assertCanonical(
            "SELECT sum(a) OVER (ROWS CURRENT ROW EXCLUDE CURRENT ROW) FROM t",
            "SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND CURRENT ROW EXCLUDE CURRENT ROW) FROM t")
        assertCanonical(
            "SELECT sum(a) OVER (ROWS UNBOUNDED PRECEDING EXCLUDE GROUP) FROM t",
            "SELECT sum(a) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP) FROM t")
        assertCanonical(
            "SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING EXCLUDE NO OTHERS) FROM t",
            "SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING EXCLUDE NO OTHERS) FROM t")
    }

    func testWindowWordsStayNames() {
        // OVER not followed by a window is an alias; WINDOW not followed by `name AS` is one too.
        assertCanonical("SELECT count(*) over, 1 FROM t", "SELECT count(*) AS over, 1 FROM t")
        assertCanonical("SELECT a window FROM t AS window", "SELECT a AS window FROM t AS window")
        assertCanonical(
            "SELECT a FROM t window WINDOW w AS ()", "SELECT a FROM t AS window WINDOW w AS ()")
        assertCanonical(
            "SELECT over, partition, rows, range, groups, preceding, following, unbounded, current, exclude, ties, "
                + "others FROM t",
            "SELECT over, partition, rows, range, groups, preceding, following, unbounded, current, exclude, ties, "
                + "others FROM t")
    }

    func testFrameErrors() {
        for (sql, message) in [
            ("SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t", "unsupported frame specification"),
            ("SELECT sum(a) OVER (ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) FROM t", "unsupported frame specification"),
            ("SELECT sum(a) OVER (ROWS 1 FOLLOWING) FROM t", "unsupported frame specification"),
            ("SELECT sum(a) OVER (ROWS UNBOUNDED FOLLOWING) FROM t", "near \"FOLLOWING\": syntax error"),
            (
                "SELECT sum(a) OVER (ROWS BETWEEN 1 PRECEDING AND UNBOUNDED PRECEDING) FROM t",
                "near \"PRECEDING\": syntax error"
            ),
            ("SELECT sum(a) OVER (ORDER BY a EXCLUDE TIES) FROM t", "near \"EXCLUDE\": syntax error"),
            ("SELECT sum(a) OVER (ROWS 1 PRECEDING EXCLUDE OTHERS) FROM t", "near \"OTHERS\": syntax error"),
        ] {
            XCTAssertThrowsError(try Parser.parseStatement(sql), sql) { error in
                XCTAssertEqual((error as? SQLSyntaxError)?.message, message, sql)
            }
        }
    }
}

/// Window functions over an application's aggregates, and the shapes of frames the cursor computes in one pass.
final class WindowFunctionTests: XCTestCase {
    private func rows(_ db: SQLConnection, _ sql: String) throws -> [[Value]] { try db.query(sql).rows }

    private func database() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, g, v)")
        try db.execute("INSERT INTO t VALUES (1, 'a', 2), (2, 'a', 3), (3, 'b', 5), (4, 'b', 7), (5, 'b', 1)")
        return db
    }

    final class Product: SQLAggregateState {
        var product: Int64 = 1
        var steps = 0
        func step(_ arguments: [Value]) throws {
            steps += 1
            if case .integer(let i) = arguments[0] { product *= i }
        }
        func finish() throws -> Value { steps == 0 ? .null : .integer(product) }
    }

    func testApplicationAggregateAsWindowFunction() throws {
        let db = try database()
        db.addFunction(
            SQLCustomFunction(name: "product", argumentCount: 1, isDeterministic: true, kind: .aggregate { Product() }))
        XCTAssertEqual(
            try rows(db, "SELECT id, product(v) OVER (ORDER BY id) FROM t ORDER BY id").map { $0[1] },
            [.integer(2), .integer(6), .integer(30), .integer(210), .integer(210)])
        XCTAssertEqual(
            try rows(db, "SELECT id, product(v) OVER (PARTITION BY g) FROM t ORDER BY id").map { $0[1] },
            [.integer(6), .integer(6), .integer(35), .integer(35), .integer(35)])
        XCTAssertEqual(
            try rows(
                db, "SELECT product(v) FILTER (WHERE v > 2) OVER (ORDER BY id ROWS 1 PRECEDING) FROM t ORDER BY id"
            )
            .map { $0[0] },
            [.null, .integer(3), .integer(15), .integer(35), .integer(7)])
        XCTAssertEqual(
            try rows(
                db,
                "SELECT product(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM t ORDER BY id"
            )
            .map { $0[0] },
            [.integer(3), .integer(10), .integer(21), .integer(5), .integer(7)])
        XCTAssertThrowsError(try rows(db, "SELECT 1 FROM t WHERE product(v) OVER () > 1")) { error in
            XCTAssertEqual((error as? SQLExecutionError)?.message, "misuse of window function product()")
        }
    }

    func testScalarApplicationFunctionIsNoWindowFunction() throws {
        let db = try database()
        db.addFunction(
            SQLCustomFunction(name: "twice", argumentCount: 1, isDeterministic: true, kind: .scalar { $0[0] }))
        XCTAssertThrowsError(try rows(db, "SELECT twice(v) OVER () FROM t")) { error in
            XCTAssertEqual((error as? SQLExecutionError)?.message, "twice() may not be used as a window function")
        }
    }

    func testQueryPlanShowsTheInnerQueryAndItsSorts() throws {
        let db = try database()
        let plan = try rows(
            db, "EXPLAIN QUERY PLAN SELECT rank() OVER (ORDER BY v), count(*) OVER () FROM t WHERE g = 'a'"
        ).map { $0[3] }
        XCTAssertEqual(
            plan,
            [
                .text("CO-ROUTINE (window)"), .text("SCAN t"), .text("USE TEMP B-TREE FOR ORDER BY"),
                .text("SCAN (window)"),
            ])
    }

    func testLargePartitionsRunInOnePass() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE big(id INTEGER PRIMARY KEY, v INTEGER)")
        try db.execute(
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 20000) "
                + "INSERT INTO big SELECT n, n % 7 FROM c")
        let result = try rows(
            db,
            "SELECT sum(v) OVER (ORDER BY id), count(*) OVER (), sum(v) OVER (ORDER BY id ROWS BETWEEN 10 PRECEDING "
                + "AND 10 FOLLOWING), rank() OVER (ORDER BY v), max(v) OVER (ORDER BY id), "
                + "avg(v) OVER (ORDER BY v RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM big ORDER BY id DESC LIMIT 1"
        )
        XCTAssertEqual(result.count, 1)
        XCTAssertEqual(result[0][0], .integer((1...20000).reduce(0) { $0 + Int64($1 % 7) }))
        XCTAssertEqual(result[0][1], .integer(20000))
        XCTAssertEqual(result[0][2], .integer((19990...20000).reduce(0) { $0 + Int64($1 % 7) }))
        XCTAssertEqual(result[0][4], .integer(6))
        // One partition per row: each partition's results are stored without copying the rows.
        let start = ContinuousClock.now
        let single = try rows(
            db, "SELECT count(*) FROM (SELECT row_number() OVER (PARTITION BY id) AS r FROM big) WHERE r = 1")
        XCTAssertEqual(single, [[.integer(20000)]])
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(20))
    }
}
