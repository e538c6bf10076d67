import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Row values against subqueries, run on SQLite and Granite: a subquery of several columns as either operand of
/// every comparison operator, IS and BETWEEN (its first row, or NULLs when it returns none; correlated or not),
/// `(…) [NOT] IN (SELECT …)`, `(…) [NOT] IN ((…), (…))`, `(…) IN table`, and a simple CASE over a row, over
/// columns with affinities and collations and values of every type with NULLs; plus the misuses SQLite refuses.
final class RowValueSubqueryDifferentialTests: XCTestCase {
    static let schema = [
        RowValueDifferentialTests.schema,
        "CREATE TABLE s(x INTEGER, y TEXT, z)",
    ]

    struct Generator {
        var rows: RowValueDifferentialTests.Generator

        init(seed: UInt64) { rows = RowValueDifferentialTests.Generator(src: ValueSource(seed: seed)) }

        var src: ValueSource {
            get { rows.src }
            set { rows.src = newValue }
        }

        /// A subquery of `size` columns over `s`, filtered, ordered or correlated with `t` at random.
        mutating func subquery(_ size: Int) -> String {
            let columns = (0..<size).map { _ in
                src.pick(["x", "y", "z", "y COLLATE NOCASE", "x + 0", "CAST(z AS TEXT)", rows.literal()])
            }
            var sql = "SELECT " + columns.joined(separator: ", ") + " FROM s"
            switch src.int(0...4) {
            case 0: sql += " WHERE x > \(src.int(-2...2))"
            case 1: sql += " WHERE x = t.a"
            case 2: sql += " WHERE 0"
            default: break
            }
            if src.bool() { sql += " ORDER BY \(src.int(1...size))" + (src.bool() ? " DESC" : "") }
            return "(" + sql + ")"
        }

        /// A row operand: a row of terms, or a subquery.
        mutating func operand(_ size: Int) -> String {
            src.int(0...2) == 0 ? rows.row(size) : subquery(size)
        }

        mutating func condition() -> String {
            let size = src.int(2...3)
            let negated = src.bool() ? "NOT " : ""
            switch src.int(0...6) {
            case 0:
                return "\(operand(size)) \(negated)BETWEEN \(operand(size)) AND \(operand(size))"
            case 1:
                return "\(rows.row(size)) \(negated)IN \(subquery(size))"
            case 2:
                let items = (0..<src.int(1...3)).map { _ in rows.row(size) }
                return "\(operand(size)) \(negated)IN (\(items.joined(separator: ", ")))"
            case 3:
                return "(a, b, c) \(negated)IN s"
            case 4:
                return "CASE \(operand(size)) WHEN \(operand(size)) THEN 1 WHEN \(operand(size)) THEN 2 ELSE 3 END"
            default:
                let op = src.pick(["=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"])
                return "\(operand(size)) \(op) \(subquery(size))"
            }
        }

        mutating func inserts() -> [String] {
            rows.rows()
                + (0..<src.int(0...4)).map { _ in
                    "INSERT INTO s VALUES (\(rows.literal()), \(rows.literal()), \(rows.literal()))"
                }
        }
    }

    func testRandomRowValueSubqueriesMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(seed: seed)
        var failures: [String] = []
        var compared = 0
        for _ in 0..<(300 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in Self.schema + generator.inserts() {
                oracle.execute(sql)
                try db.execute(sql)
            }
            compared += RowValueDifferentialTests.compare(generator.condition(), oracle, db, into: &failures)
        }
        print("row values against subqueries: \(compared) statements compared, seed \(seed)")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }

    func testMisusesAndWritesMatchSQLite() throws {
        let statements = [
            "CREATE TABLE u(a, b)", "INSERT INTO u VALUES (1, 2), (3, 4)",
            "SELECT (1, 2) = (SELECT 1)", "SELECT (1, 2) = (SELECT 1, 2, 3)", "SELECT (1, 2) IN (SELECT 1, 2, 3)",
            "SELECT (1, 2) IN (SELECT 1)", "SELECT (SELECT 1, 2)", "SELECT 1 IN (SELECT 1, 2)",
            "SELECT (1, (2, 3)) IN (SELECT 1, 2)", "SELECT (1, 2) IN ((1, 2), 3)", "SELECT (1, 2) IN (1, 2)",
            "SELECT 1 IN ((1, 2))", "SELECT (1, 2) IN ((1, 2, 3))", "SELECT (SELECT 1, 2) = (SELECT 1, 2)",
            "SELECT (SELECT * FROM u) = (1, 2)", "SELECT (SELECT * FROM u WHERE a = 3) IN u",
            "SELECT (a, b) IN u FROM u", "SELECT * FROM u WHERE (a, b) IN (VALUES (3, 4))",
            "UPDATE u SET a = ((a, b) IN ((1, 2))) RETURNING a, b",
            "UPDATE u SET b = (a, b) = (SELECT a, b FROM u AS w WHERE w.a = u.a) RETURNING a, b",
            "SELECT * FROM u ORDER BY rowid",
            "UPDATE u SET (a, b) = (SELECT 1)", "UPDATE u SET (a, b) = (SELECT 1, 2, 3)",
            "UPDATE u SET (a, b) = (SELECT * FROM u, u AS w)", "UPDATE u SET (a, b, a) = (SELECT 1, 2)",
            "UPDATE u SET (a, nope) = (SELECT 1, 2)", "UPDATE u SET b = (SELECT 1, 2)",
            "UPDATE u SET (b) = (SELECT 1, 2)", "UPDATE u SET (b) = (1, 2)", "UPDATE u SET b = (1, 2)",
            "UPDATE u SET (b, a) = (SELECT b * 10, a * 10 FROM u AS w WHERE w.a = u.a) RETURNING a, b",
            "UPDATE u SET (a, b) = (SELECT 7, 8 WHERE 0) WHERE a = 30 RETURNING *",
            "UPDATE u SET (a, b) = ((SELECT 5, 6)), (b) = (SELECT 9) RETURNING *",
            "UPDATE u SET (a, b) = (VALUES (1, 2)), (b, a) = (SELECT a + 1, b + 1) RETURNING *",
            "UPDATE u SET (a, b) = (SELECT x.a * 3, x.b FROM u AS x ORDER BY x.a DESC) RETURNING *",
            "CREATE UNIQUE INDEX ua ON u(a)",
            "INSERT INTO u VALUES (3, 0) ON CONFLICT(a) DO UPDATE SET (b, a) = (SELECT excluded.b - 1, u.a + 100) "
                + "RETURNING *",
            "INSERT INTO u VALUES (3, 0) ON CONFLICT(a) DO UPDATE SET (b, a) = (SELECT 1, 2, 3)",
            "CREATE TABLE log(x, y)",
            "CREATE TRIGGER tr AFTER UPDATE OF b ON u BEGIN "
                + "UPDATE log SET (x, y) = (SELECT new.a, old.b); INSERT INTO log SELECT new.a, new.b; END",
            "INSERT INTO log VALUES (0, 0)",
            "UPDATE u SET (b) = (SELECT b + 1)", "SELECT * FROM log ORDER BY rowid",
            "CREATE VIEW uv AS SELECT a, b FROM u",
            "CREATE TRIGGER tv INSTEAD OF UPDATE ON uv BEGIN UPDATE u SET (a, b) = (SELECT new.a, new.b) "
                + "WHERE a = old.a; END",
            "UPDATE uv SET a = a + 1000", "SELECT * FROM u ORDER BY rowid",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        SelectDifferentialTests.compareInOrder(statements, oracle, db)
    }

    /// `UPDATE t SET (a, b[, c]) = (SELECT …)`, with the subquery correlated with the updated row or not, returning
    /// no row or several, beside other assignments; compared by the final contents of the table (and the error when
    /// SQLite gives one).
    func testRandomRowAssignmentsFromSubqueriesMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(seed: seed)
        var failures: [String] = []
        var compared = 0
        for _ in 0..<(200 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in Self.schema + generator.inserts() {
                oracle.execute(sql)
                try db.execute(sql)
            }
            var assignments: [String] = []
            for _ in 0..<generator.src.int(1...2) {
                let size = generator.src.int(1...3)
                let columns = (0..<size).map { _ in generator.src.pick(["a", "b", "c", "d"]) }
                assignments.append("(\(columns.joined(separator: ", "))) = \(generator.subquery(size))")
            }
            if generator.src.bool() { assignments.append("d = \(generator.rows.literal())") }
            if generator.src.bool() { assignments.reverse() }
            let filter = generator.src.bool() ? " WHERE \(generator.condition())" : ""
            for sql in [
                "UPDATE t SET \(assignments.joined(separator: ", "))\(filter)",
                "SELECT rowid, a, b, c, d FROM t ORDER BY rowid",
            ] {
                let e = SelectDifferentialTests.sqlite(oracle, sql)
                let a = SelectDifferentialTests.granite(db, sql)
                compared += 1
                if let why = SelectDifferentialTests.mismatch(e, a, ordered: true) {
                    failures.append("\(sql): \(why)")
                }
            }
        }
        print("row assignments from subqueries: \(compared) statements compared, seed \(seed)")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }

    /// `SET (…) = (SELECT …)` in an UPDATE of a view through its INSTEAD OF UPDATE trigger: the subquery runs once
    /// per view row, correlated to it; NEW holds the values it returns.
    func testRowAssignmentsFromSubqueriesOnViews() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)",
            "CREATE TABLE s(k, x, y)",
            "CREATE TABLE log(x)",
            "INSERT INTO t VALUES (1, 0, 0), (2, 0, 0), (3, 0, 0)",
            "INSERT INTO s VALUES (10, 'x10', 'y10'), (20, 'x20', 'y20'), (30, 'x30', 'y30')",
            "CREATE VIEW v AS SELECT id, a, b FROM t",
            "UPDATE v SET (a, b) = (SELECT 1, 2)",
            "CREATE TRIGGER vu INSTEAD OF UPDATE ON v BEGIN "
                + "INSERT INTO log VALUES(old.id || ':' || quote(new.a) || ',' || quote(new.b)); "
                + "UPDATE t SET a = new.a, b = new.b WHERE id = old.id; END",
            "UPDATE v SET (a, b) = (SELECT x, y FROM s WHERE s.k = v.id * 10)",
            "UPDATE v SET (b, a) = (SELECT x, v.a || '!' FROM s WHERE s.k = id * 10) WHERE id > 1 RETURNING *",
            "UPDATE v SET (a, b) = (SELECT 1)",
            "UPDATE v SET (a, b) = (SELECT 1, 2, 3)",
            "UPDATE v SET (a, nosuch) = (SELECT 1, 2)",
            "UPDATE v SET b = 'q', (a) = (SELECT count(*) FROM s WHERE s.k > v.id * 5) RETURNING a, b",
            "UPDATE v SET (a, b) = (SELECT x, y FROM s WHERE 0) WHERE id = 2",
            "WITH w(z) AS (SELECT 'w') UPDATE v SET (a, b) = (SELECT z, id FROM w) WHERE id < 3",
            "CREATE TRIGGER vb INSTEAD OF UPDATE OF b ON v BEGIN INSERT INTO log VALUES('b ' || new.b); END",
            "UPDATE v SET (a) = (SELECT 5)",
            "UPDATE v SET (a, b) = (SELECT 6, 7) WHERE id = 1",
            "SELECT * FROM log",
            "SELECT * FROM t",
        ])
    }
}
