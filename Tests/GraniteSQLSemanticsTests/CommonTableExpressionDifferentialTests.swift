import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Common table expressions (`WITH`, `WITH RECURSIVE`), run on SQLite and Granite: CTEs over random tables,
/// chained and forward-referencing CTEs, CTEs in subqueries and shadowing tables, recursive counting and tree walks
/// over random parent links with depth limits, `UNION` against `UNION ALL`, ordered queues, `LIMIT` and `OFFSET`
/// on recursive tables, and the errors of bad ones.
final class CommonTableExpressionDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(a INTEGER, b TEXT, c REAL)",
        "CREATE TABLE tree(id INTEGER PRIMARY KEY, parent INTEGER, name TEXT)",
    ]

    struct Generator {
        var src: ValueSource

        mutating func value() -> String {
            src.pick(["NULL", "\(src.int(-4...6))", "'\(src.pick(["x", "y", "Y", ""]))'", "\(src.int(-2...3)).5"])
        }

        mutating func rows() -> [String] {
            var statements = (0..<src.int(0...10)).map { _ in
                "INSERT INTO t VALUES (\(value()), \(value()), \(value()))"
            }
            // A forest with random parent links (some dangling, some cycles).
            let nodes = src.int(1...14)
            for id in 1...nodes {
                let parent = src.int(0...3) == 0 ? "NULL" : "\(src.int(1...nodes))"
                statements.append("INSERT INTO tree VALUES (\(id), \(parent), 'n\(id)')")
            }
            return statements
        }

        mutating func condition(_ column: String) -> String {
            switch src.int(0...4) {
            case 0: return "\(column) IS NOT NULL"
            case 1: return "\(column) > \(value())"
            case 2: return "\(column) = \(value())"
            case 3: return "\(column) IN (\(value()), \(value()))"
            default: return "NOT (\(column) < \(value()))"
            }
        }

        mutating func materialization() -> String {
            src.pick(["", "", "MATERIALIZED ", "NOT MATERIALIZED "])
        }

        mutating func union() -> String { src.pick(["UNION", "UNION ALL"]) }

        /// A statement and whether its rows come in a defined order.
        mutating func statement() -> (sql: String, ordered: Bool) {
            switch src.int(0...13) {
            case 0: return (simple(), false)
            case 1: return (chained(), false)
            case 2: return (inSubquery(), false)
            case 3: return (shadowing(), false)
            case 4, 5: return (counting(), true)
            case 6, 7: return (treeWalk(), true)
            case 8: return (distinctCycle(), true)
            case 9: return (orderedQueue(), true)
            case 10: return (multipleSteps(), true)
            case 11: return (outerLimit(), true)
            case 12: return (correlated(), false)
            default: return (error(), true)
            }
        }

        mutating func simple() -> String {
            let columns = src.bool() ? "(x, y)" : ""
            let names = columns.isEmpty ? ("a", "b") : ("x", "y")
            return "WITH c\(columns) AS \(materialization())(SELECT a, b FROM t WHERE \(condition("a"))) "
                + "SELECT \(names.1), \(names.0) * 2 FROM c WHERE \(condition(names.0))"
        }

        mutating func chained() -> String {
            let first = "c1(x, y) AS (SELECT a, c FROM t WHERE \(condition("c")))"
            let second = "c2 AS (SELECT x + 1 AS z, y FROM c1 WHERE \(condition("x")))"
            let with = src.bool() ? "\(first), \(second)" : "\(second), \(first)"
            let main = src.pick([
                "SELECT * FROM c2",
                "SELECT c1.x, c2.z FROM c1 JOIN c2 ON c1.y = c2.y",
                "SELECT count(*), sum(z) FROM c2",
                "SELECT x FROM c1 WHERE x NOT IN (SELECT z FROM c2)",
            ])
            return "WITH \(with) \(main)"
        }

        mutating func inSubquery() -> String {
            src.pick([
                "WITH c AS (SELECT a FROM t WHERE \(condition("a"))) SELECT b FROM t WHERE a IN (SELECT a FROM c)",
                "WITH c AS (SELECT b FROM t) SELECT (SELECT count(*) FROM c), (SELECT max(b) FROM c)",
                "SELECT a, (WITH c(v) AS (SELECT c FROM t WHERE \(condition("c"))) SELECT count(*) FROM c) FROM t",
                "SELECT * FROM (WITH c AS (SELECT a, b FROM t) SELECT b FROM c WHERE \(condition("a")))",
                "WITH c AS (SELECT id FROM tree WHERE \(condition("parent"))) "
                    + "SELECT name FROM tree WHERE EXISTS (SELECT 1 FROM c WHERE c.id = tree.parent)",
                "WITH c AS (SELECT 1 AS k) SELECT (WITH d AS (SELECT k + 1 AS k FROM c) SELECT k FROM d)",
            ])
        }

        mutating func shadowing() -> String {
            src.pick([
                "WITH t(a, b, c) AS (SELECT 1, 'z', 2.5) SELECT * FROM t",
                "WITH t AS (SELECT a + 100 AS a FROM main.t WHERE \(condition("a"))) SELECT a FROM t",
                "WITH tree AS (SELECT 7 AS id) SELECT (SELECT count(*) FROM tree), (SELECT count(*) FROM main.tree)",
                "WITH c AS (SELECT 1 AS v) SELECT (WITH c AS (SELECT 2 AS v) SELECT v FROM c), v FROM c",
            ])
        }

        mutating func counting() -> String {
            let start = src.int(-2...3)
            let step = src.int(1...3)
            let stop = src.int(-1...25)
            var bounds = ""
            if src.int(0...2) == 0 {
                bounds = " LIMIT \(src.int(-1...8))"
                if src.bool() { bounds += " OFFSET \(src.int(0...4))" }
            }
            let recursive = src.bool() ? "RECURSIVE " : ""
            return "WITH \(recursive)cnt(n) AS (SELECT \(start) \(union()) SELECT n + \(step) FROM cnt "
                + "WHERE n < \(stop)\(bounds)) SELECT n FROM cnt"
        }

        mutating func treeWalk() -> String {
            let root = src.bool() ? "id = \(src.int(1...6))" : "parent IS NULL"
            let depth = src.int(0...5)
            var bounds = ""
            if src.int(0...3) == 0 { bounds = " LIMIT \(src.int(0...8))" }
            let main = src.pick([
                "SELECT * FROM sub", "SELECT id, depth FROM sub WHERE depth > 0",
                "SELECT depth, count(*) FROM sub GROUP BY depth ORDER BY depth",
                "SELECT sub.id, tree.name FROM sub JOIN tree ON tree.id = sub.id",
            ])
            return "WITH RECURSIVE sub(id, depth) AS (SELECT id, 0 FROM tree WHERE \(root) \(union()) "
                + "SELECT tree.id, sub.depth + 1 FROM tree JOIN sub ON tree.parent = sub.id "
                + "WHERE sub.depth < \(depth)\(bounds)) \(main)"
        }

        mutating func distinctCycle() -> String {
            let multiplier = src.int(2...7)
            let modulus = src.int(3...23)
            let limit = src.int(1...30)
            return "WITH RECURSIVE r(x) AS (SELECT 1 \(union()) SELECT (x * \(multiplier)) % \(modulus) FROM r "
                + "LIMIT \(limit)) SELECT x FROM r"
        }

        mutating func orderedQueue() -> String {
            let direction = src.pick(["", " ASC", " DESC"])
            let key = src.pick(["1", "n", "n % 3", "label"])
            let limit = src.int(1...20)
            let union = union()
            return "WITH RECURSIVE q(n, label) AS (SELECT 1, 'a' \(union) "
                + "SELECT n + 1, label || 'b' FROM q WHERE n < 6 \(union) SELECT n + 2, 'c' FROM q WHERE n < 5 "
                + "ORDER BY \(key)\(direction) LIMIT \(limit)) SELECT * FROM q"
        }

        mutating func multipleSteps() -> String {
            "WITH RECURSIVE m(x) AS (SELECT \(src.int(0...2)) UNION ALL SELECT x + 1 FROM m WHERE x < \(src.int(1...4)) "
                + "UNION ALL SELECT x * 10 FROM m WHERE x BETWEEN 1 AND \(src.int(1...3))) SELECT x FROM m"
        }

        mutating func outerLimit() -> String {
            "WITH RECURSIVE c(x) AS (SELECT \(src.int(0...3)) UNION ALL SELECT x + \(src.int(1...2)) FROM c) "
                + "SELECT x FROM c LIMIT \(src.int(0...12))"
        }

        mutating func correlated() -> String {
            "SELECT a, (WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < t.a AND n < 8) "
                + "SELECT count(*) FROM d) FROM t WHERE \(condition("a"))"
        }

        mutating func error() -> String {
            src.pick([
                "WITH a AS (SELECT * FROM a) SELECT * FROM a",
                "WITH a AS (SELECT * FROM b), b AS (SELECT * FROM a) SELECT * FROM a",
                "WITH a(x, y) AS (SELECT 1) SELECT * FROM a",
                "WITH a(x) AS (SELECT 1, 2) SELECT x FROM a",
                "WITH a(x, y) AS (SELECT 1) SELECT 5",
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c, c AS d WHERE x < 3) SELECT * FROM c",
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT max(x) + 1 FROM c) SELECT * FROM c",
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 GROUP BY x) SELECT * FROM c",
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1, 2 FROM c WHERE x < 3) SELECT * FROM c",
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < (SELECT max(x) FROM c)) SELECT * FROM c",
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 ORDER BY x) SELECT * FROM c",
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 ORDER BY 2) SELECT * FROM c",
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3 LIMIT 'z') SELECT * FROM c",
                "WITH c AS (SELECT 1 AS v) SELECT * FROM main.c",
                "SELECT (WITH c AS (SELECT 1 AS v) SELECT v FROM c), (SELECT v FROM c)",
                "WITH c AS (SELECT 1 AS v) SELECT nosuch FROM c",
                "WITH c AS (SELECT 1 AS v) SELECT rowid FROM c",
            ])
        }
    }

    func testRandomCommonTablesMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var cases = 0
        for _ in 0..<(40 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for statement in Self.schema + generator.rows() {
                oracle.execute(statement)
                try db.execute(statement)
            }
            for _ in 0..<30 {
                let (sql, ordered) = generator.statement()
                cases += 1
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                let actual = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: ordered) {
                    failures.append("\(sql): \(why)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(cases, 1_000)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// The classic examples: counting, Fibonacci, tree walks with depth, the Mandelbrot set and a sudoku.
    func testFixedStatementsMatchSQLite() throws {
        let statements = [
            "WITH RECURSIVE cnt(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM cnt WHERE x < 10) SELECT x FROM cnt",
            "WITH RECURSIVE cnt(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM cnt) SELECT x FROM cnt LIMIT 5",
            "WITH RECURSIVE cnt(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM cnt LIMIT 4 OFFSET 2) SELECT x FROM cnt",
            "WITH RECURSIVE fib(a, b) AS (SELECT 0, 1 UNION ALL SELECT b, a + b FROM fib WHERE b < 1000) "
                + "SELECT a FROM fib",
            "WITH RECURSIVE sub(id, depth) AS (SELECT id, 0 FROM tree WHERE parent IS NULL UNION ALL "
                + "SELECT tree.id, depth + 1 FROM tree JOIN sub ON tree.parent = sub.id) SELECT * FROM sub",
            "WITH RECURSIVE sub(id, path) AS (SELECT id, name FROM tree WHERE parent IS NULL UNION ALL "
                + "SELECT tree.id, path || '/' || tree.name FROM sub JOIN tree ON tree.parent = sub.id "
                + "ORDER BY 2 DESC) SELECT path FROM sub",
            "WITH c(x) AS (SELECT 1 UNION SELECT x FROM c) SELECT * FROM c",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) "
                + "SELECT a.x, b.x FROM c AS a, c AS b",
            "WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS y) SELECT * FROM a",
            "WITH t(a) AS (SELECT 5) SELECT * FROM t",
            "WITH c AS (SELECT 1 AS v) SELECT * FROM c AS d WHERE d.v = 1",
            "WITH c(x, x) AS (SELECT 1, 2) SELECT * FROM c",
            "WITH c AS (SELECT name FROM tree) SELECT name FROM c ORDER BY name COLLATE NOCASE",
            "WITH RECURSIVE c(x) AS (SELECT 'b' UNION SELECT upper(x) FROM c UNION SELECT x || 'b' FROM c "
                + "WHERE length(x) < 3) SELECT * FROM c",
            "WITH RECURSIVE c(x) AS (SELECT 'b' COLLATE NOCASE UNION SELECT upper(x) FROM c) SELECT * FROM c",
            """
            WITH RECURSIVE
              xaxis(x) AS (SELECT -2.0 UNION ALL SELECT x + 0.05 FROM xaxis WHERE x < 1.2),
              yaxis(y) AS (SELECT -1.0 UNION ALL SELECT y + 0.1 FROM yaxis WHERE y < 1.0),
              m(iter, cx, cy, x, y) AS (
                SELECT 0, x, y, 0.0, 0.0 FROM xaxis, yaxis
                UNION ALL
                SELECT iter + 1, cx, cy, x * x - y * y + cx, 2.0 * x * y + cy FROM m
                 WHERE (x * x + y * y) < 4.0 AND iter < 28
              ),
              m2(iter, cx, cy) AS (SELECT max(iter), cx, cy FROM m GROUP BY cx, cy),
              a(t) AS (
                SELECT group_concat(substr(' .+*#', 1 + min(iter / 7, 4), 1), '')
                FROM m2 GROUP BY cy
              )
            SELECT group_concat(rtrim(t), x'0a') FROM a
            """,
            """
            WITH RECURSIVE
              input(sud) AS (
                SELECT '53.67.9.26.2195.4.198.4.56.85.76.4.342.853.917.3.24.56.61.3.284.8.4196.53.5.86.79'
              ),
              digits(z, lp) AS (SELECT '1', 1 UNION ALL SELECT CAST(lp + 1 AS TEXT), lp + 1 FROM digits WHERE lp < 9),
              x(s, ind) AS (
                SELECT sud, instr(sud, '.') FROM input
                UNION ALL
                SELECT substr(s, 1, ind - 1) || z || substr(s, ind + 1), instr(substr(s, 1, ind - 1) || z
                  || substr(s, ind + 1), '.')
                 FROM x, digits AS z
                WHERE ind > 0
                  AND NOT EXISTS (
                        SELECT 1 FROM digits AS lp
                         WHERE z.z = substr(s, ((ind - 1) / 9) * 9 + lp, 1)
                            OR z.z = substr(s, ((ind - 1) % 9) + (lp - 1) * 9 + 1, 1)
                            OR z.z = substr(s, (((ind - 1) / 3) % 3) * 3
                                    + ((ind - 1) / 27) * 27 + lp
                                    + ((lp - 1) / 3) * 6, 1)
                     )
              )
            SELECT s FROM x WHERE ind = 0
            """,
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let setup = Self.schema + [
            "INSERT INTO tree VALUES (1, NULL, 'root'), (2, 1, 'b'), (3, 1, 'a'), (4, 2, 'c'), (5, 4, 'd')",
            "INSERT INTO tree VALUES (6, NULL, 'other'), (7, 6, 'e')",
        ]
        for statement in setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                XCTFail("\(sql): \(why)")
            }
        }
    }

    /// `WITH` before `INSERT`, `UPDATE` and `DELETE`: the statement's queries see the tables (recursive ones too),
    /// one named like the changed table hides it from the queries but not from the change, and the statement's
    /// results and the table afterwards are SQLite's.
    func testWritesWithCommonTablesMatchSQLite() throws {
        let statements = [
            "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) INSERT INTO t(a) SELECT x FROM c",
            "WITH c AS (SELECT 10 AS v) INSERT INTO t(a, b) VALUES ((SELECT v FROM c), 'ten')",
            "WITH c AS (SELECT 5 AS v) INSERT INTO t(a) VALUES (1) ON CONFLICT(a) DO UPDATE SET b = (SELECT v FROM c)",
            "WITH c AS (SELECT a FROM t WHERE a > 3) DELETE FROM t WHERE a IN (SELECT a FROM c)",
            "WITH c AS (SELECT max(a) AS m FROM t) UPDATE t SET b = 'max' WHERE a = (SELECT m FROM c)",
            "WITH t AS (SELECT 3 AS a) DELETE FROM t WHERE a IN (SELECT a FROM t) RETURNING a",
            "WITH t(a) AS (SELECT 2) UPDATE t SET c = (SELECT a FROM t) WHERE a >= (SELECT a FROM t)",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) "
                + "UPDATE t SET c = (SELECT sum(x) FROM c) RETURNING a, c",
            "WITH c AS (SELECT 1 AS v) UPDATE t SET b = (SELECT v FROM c) RETURNING (SELECT v + 1 FROM c)",
            "WITH c AS (SELECT 1) DELETE FROM c",
            "WITH c AS (SELECT 1) INSERT INTO c VALUES (1)",
            "WITH c AS (SELECT * FROM c) DELETE FROM t WHERE a IN (SELECT * FROM c)",
            "WITH c(x, y) AS (SELECT 1) UPDATE t SET b = (SELECT x FROM c)",
            "WITH c AS (SELECT 7 AS v) INSERT INTO t(a) WITH d AS (SELECT v + 1 AS w FROM c) SELECT w FROM d",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in ["CREATE TABLE t(a UNIQUE, b, c)", "INSERT INTO t VALUES (1, 2, 3), (3, 4, 5), (6, 'x', NULL)"] {
            oracle.execute(statement)
            try db.execute(statement)
        }
        let contents = "SELECT rowid, * FROM t ORDER BY rowid"
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                XCTFail("\(sql): \(why)")
            }
            let expectedRows = SelectDifferentialTests.sqlite(oracle, contents)
            let actualRows = SelectDifferentialTests.granite(db, contents)
            if let why = SelectDifferentialTests.mismatch(expectedRows, actualRows, ordered: true) {
                XCTFail("table after \(sql): \(why)")
            }
        }
    }

    /// A `WITH` clause naming a table twice is an error while parsing (so even in a statement that never reads
    /// it), with SQLite's message; `WITH` leads a write statement but no other.
    func testParseErrorsMatchSQLite() {
        var db: OpaquePointer?
        sqlite3_open(":memory:", &db)
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "CREATE TABLE t(a)", nil, nil, nil)
        let statements = [
            "WITH a AS (SELECT 1), A AS (SELECT 2) SELECT 3",
            "WITH a AS (SELECT 1), a AS (SELECT 2) DELETE FROM t",
            "SELECT (WITH x AS (SELECT 1), x AS (SELECT 2) SELECT 3)",
            "WITH a AS (SELECT 1) CREATE TABLE u(x)",
            "WITH a AS (SELECT 1) WITH b AS (SELECT 2) SELECT 3",
            "WITH a AS (SELECT 1)",
            "WITH a AS (DELETE FROM t) SELECT 1",
        ]
        for sql in statements {
            var stmt: OpaquePointer?
            XCTAssertNotEqual(sqlite3_prepare_v2(db, sql, -1, &stmt, nil), SQLITE_OK, sql)
            sqlite3_finalize(stmt)
            let expected = String(cString: sqlite3_errmsg(db))
            do {
                _ = try Parser.parseScript(sql)
                XCTFail("no syntax error for \(sql); SQLite says \(expected)")
            } catch {
                XCTAssertEqual(error.message, expected, sql)
            }
        }
        // Each statement that may follow a WITH parses with it.
        for sql in [
            "WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a", "WITH a AS (SELECT 1) REPLACE INTO t VALUES (1)",
            "WITH a AS (SELECT 1) UPDATE t SET a = 2", "WITH a AS (SELECT 1) DELETE FROM t",
        ] {
            XCTAssertNoThrow(try Parser.parseScript(sql), sql)
        }
    }

    /// A statement run again with new arguments recomputes its common tables: a recursive table read at an inner
    /// join level (whose rows one execution keeps), one bounded by parameters, one in a correlated subquery.
    func testRerunWithNewArgumentsMatchesSQLite() throws {
        let statements = [
            "WITH RECURSIVE c(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM c WHERE x < ?) "
                + "SELECT group_concat(a.x || ':' || b.x, ' ') FROM c AS a, c AS b",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT ? OFFSET ?) "
                + "SELECT group_concat(x, ' ') FROM c",
            "WITH RECURSIVE c(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM c WHERE x < ?) "
                + "SELECT group_concat((SELECT count(*) FROM c AS d WHERE d.x <= c.x), ' ') FROM c",
        ]
        let arguments: [[Value]] = [[.integer(1), .integer(3)], [.integer(2), .integer(6)], [.integer(0), .integer(1)]]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in statements {
            for values in arguments {
                let expected = oracle.row(sql, values)
                let actual = try db.query(sql, arguments: values).rows.first ?? []
                XCTAssertEqual(expected, actual.map { .value($0) }, "\(sql) with \(values)")
            }
        }
    }
}
