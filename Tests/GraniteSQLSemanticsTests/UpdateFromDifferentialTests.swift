import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `UPDATE … FROM` run on SQLite and Granite: a target joined with a keyed source table or an aggregate subquery
/// (so that each target row matches at most one join row, where SQLite's choice among several is unspecified),
/// random assignments reading both sides, conditions, conflict clauses and RETURNING. Outcomes and the tables after
/// must match.
final class UpdateFromDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT, c REAL UNIQUE)",
        "CREATE TABLE u(k PRIMARY KEY, v, w)",
        "CREATE TABLE m(k, n)",
    ]

    struct Generator {
        var src: ValueSource

        mutating func value() -> String {
            src.pick(["NULL", "\(src.int(-3...5))", "\(src.int(-2...2)).5", "'\(src.pick(["x", "y", "3"]))'"])
        }

        mutating func rows() -> [String] {
            var statements: [String] = []
            for id in 1...src.int(1...8) {
                statements.append("INSERT OR IGNORE INTO t VALUES (\(id), \(src.int(0...5)), \(value()), \(value()))")
            }
            for k in 0...src.int(0...5) {
                statements.append("INSERT OR IGNORE INTO u VALUES (\(k), \(value()), \(value()))")
            }
            for _ in 0..<src.int(0...6) {
                statements.append("INSERT INTO m VALUES (\(src.int(0...5)), \(value()))")
            }
            return statements
        }

        /// `SET (…) = (SELECT …)`, the subquery correlated to the target and the joined row or not, returning one
        /// row, none or several (the first counts).
        mutating func rowAssignment() -> String {
            let columns = src.pick([["a", "b"], ["b", "a"], ["c"], ["b", "c", "a"]])
            let candidates = ["u.v", "t.a", "m.n", "t.b || u.k", "\(value())", "m.k + t.id", "m.rowid"]
            let values = columns.map { _ in src.pick(candidates) }.joined(separator: ", ")
            let condition = src.pick(["m.k = u.k", "m.k > t.id", "1", "m.n IS u.v", "0"])
            let order = src.pick(["", " ORDER BY m.rowid DESC", " ORDER BY 1"])
            return "(\(columns.joined(separator: ", "))) = (SELECT \(values) FROM m WHERE \(condition)\(order))"
        }

        mutating func update() -> String {
            let source: String
            let key: String
            switch src.int(0...2) {
            case 0:
                source = "u"
                key = "u.k"
            case 1:
                source = "(SELECT k, sum(n) AS v, count(*) AS w FROM m GROUP BY k) AS u"
                key = "u.k"
            default:
                source = "u JOIN m ON m.k = u.k AND m.rowid = (SELECT min(rowid) FROM m WHERE k = u.k)"
                key = "u.k"
            }
            let expression = src.pick(["u.v", "u.w", "t.a + u.v", "coalesce(u.w, t.b)", "u.v || t.b", "\(value())"])
            let column = src.pick(["a", "b", "c"])
            var assignments = ["\(column) = \(expression)"]
            if src.bool() { assignments.append("\(src.pick(["a", "b"])) = \(src.pick(["t.c", "u.k", "u.v * 2"]))") }
            if src.int(0...2) == 0 { assignments.insert(rowAssignment(), at: src.int(0...assignments.count)) }
            let resolution = src.pick(["", "OR IGNORE ", "OR REPLACE ", "OR FAIL "])
            var sql = "UPDATE \(resolution)t SET \(assignments.joined(separator: ", ")) FROM \(source) WHERE t.a = \(key)"
            if src.bool() { sql += " AND u.v IS NOT \(value())" }
            if src.int(0...3) == 0 { sql += " RETURNING id, a, b, c" }
            return sql
        }
    }

    func testRandomUpdatesFromMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var changed = 0
        let rounds = 300 * stressFactor
        for _ in 0..<rounds {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for statement in Self.schema + generator.rows() {
                oracle.execute(statement)
                try db.execute(statement)
            }
            let update = generator.update()
            let e = SelectDifferentialTests.sqlite(oracle, update)
            let a = SelectDifferentialTests.granite(db, update)
            if let why = SelectDifferentialTests.mismatch(e, a, ordered: false) {
                failures.append("\(update): \(why)")
                continue
            }
            if case .rows = e { changed += 1 }
            let probe = "SELECT id, a, typeof(a), b, c FROM t ORDER BY id"
            if let why = SelectDifferentialTests.mismatch(
                SelectDifferentialTests.sqlite(oracle, probe), SelectDifferentialTests.granite(db, probe), ordered: true)
            {
                failures.append("\(update); \(probe): \(why)")
            }
        }
        print("update from: \(rounds) statements, \(changed) ran on both sides, seed \(seed)")
        XCTAssertGreaterThan(changed, rounds / 2)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }

    func testErrorsMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in Self.schema {
            oracle.execute(statement)
            try db.execute(statement)
        }
        for sql in [
            "UPDATE t SET a = k FROM nosuch", "UPDATE t SET a = v FROM u WHERE a = k",
            "UPDATE t SET nosuch = 1 FROM u", "UPDATE t SET (a, b) = (u.v, u.w) FROM u WHERE t.a = u.k",
            "UPDATE t SET (a, b) = (SELECT 1) FROM u", "UPDATE t SET (a, b) = (SELECT 1, 2, 3) FROM u",
            "UPDATE t SET (a, nosuch) = (SELECT 1, 2) FROM u", "UPDATE t SET (a) = (SELECT 1, 2) FROM u",
            "UPDATE t SET (a, b) = (SELECT nosuch, 2) FROM u", "UPDATE t SET (a, b) = (SELECT * FROM u) FROM u",
            "UPDATE t SET (id, b) = (SELECT 1, 2) FROM u",
        ] {
            let e = SelectDifferentialTests.sqlite(oracle, sql)
            let a = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(e, a, ordered: true) { XCTFail("\(sql): \(why)") }
        }
    }

    /// `SET (…) = (SELECT …)` in `UPDATE … FROM`: the subquery runs once per updated row, correlated to the target
    /// row and its joined row, beside other assignments, with triggers and RETURNING.
    func testRowAssignmentsFromSubqueries() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)",
            "CREATE TABLE u(id, k)",
            "CREATE TABLE s(k, x, y)",
            "CREATE TABLE log(x)",
            "INSERT INTO t VALUES (1, 0, 0), (2, 0, 0), (3, 0, 0)",
            "INSERT INTO u VALUES (1, 10), (2, 20), (4, 40)",
            "INSERT INTO s VALUES (10, 'x10', 'y10'), (20, 'x20', 'y20'), (30, 'x30', 'y30')",
            "UPDATE t SET (a, b) = (SELECT x, y FROM s WHERE s.k = u.k) FROM u WHERE t.id = u.id",
            "SELECT * FROM t",
            "UPDATE t SET (b, a) = (SELECT t.a || x, count(*) FROM s WHERE s.k >= u.k) FROM u WHERE t.id = u.id "
                + "RETURNING *",
            "UPDATE t SET b = 'q', (a) = (SELECT max(x) FROM s WHERE s.k > u.k) FROM u WHERE t.id = u.id RETURNING *",
            "UPDATE t SET (a, b) = (SELECT x, y FROM s WHERE 0) FROM u WHERE t.id = u.id RETURNING *",
            "UPDATE t SET (a, b) = (SELECT x, y FROM s ORDER BY k DESC), (b) = (SELECT u.k * 2) FROM u "
                + "WHERE t.id = u.id RETURNING *",
            "CREATE TRIGGER tu AFTER UPDATE OF b ON t BEGIN INSERT INTO log VALUES(old.b || '>' || new.b); END",
            "WITH w(z) AS (SELECT 'w') UPDATE t SET (a, b) = (SELECT z, u.k FROM w) FROM u WHERE t.id = u.id",
            "UPDATE t SET (a) = (SELECT x FROM s WHERE s.k = u.k) FROM (SELECT id, k + 10 AS k FROM u) AS u "
                + "WHERE t.id = u.id RETURNING a",
            "SELECT * FROM log",
        ])
    }

    /// `UPDATE v … FROM` on a view with INSTEAD OF triggers: the triggers fire once for each combination of a view
    /// row and `FROM` rows that the `WHERE` clause keeps (a view row matched twice fires twice), with OLD the view
    /// row and NEW its assigned values; names resolve as in `UPDATE t … FROM` on a table (an alias qualifies the
    /// view's columns everywhere); RETURNING, row assignments, `WITH`, and SQLite's errors.
    func testUpdatesFromOnViewsWithInsteadOfTriggers() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(a, b)",
            "INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, NULL)",
            "CREATE VIEW v AS SELECT a, b FROM t",
            "CREATE TABLE log(oa, ob, na, nb)",
            "CREATE TRIGGER tr INSTEAD OF UPDATE ON v BEGIN INSERT INTO log VALUES (old.a, old.b, new.a, new.b); END",
            "CREATE TABLE u(k, val)",
            "INSERT INTO u VALUES (1, 'p'), (1, 'q'), (2, 'r'), (4, 's')",
            "UPDATE v SET b = u.val FROM u WHERE u.k = v.a",
            "UPDATE v SET b = val FROM u WHERE k = a",
            "UPDATE v AS x SET b = x.b || u.val FROM u WHERE u.k = x.a",
            "UPDATE v AS x SET b = u.val FROM u WHERE u.k = a",
            "UPDATE v AS x SET b = u.val FROM u WHERE u.k = v.a",
            "UPDATE v SET b = u.val FROM u JOIN t ON t.a = u.k WHERE u.k = v.a",
            "UPDATE v SET b = u.val FROM u, t WHERE t.a = u.k AND u.k = v.a RETURNING *",
            "UPDATE v SET b = (SELECT max(val) FROM u WHERE k = v.a) FROM u WHERE u.k = v.a RETURNING b, a",
            "UPDATE v SET (a, b) = (u.k, u.val) FROM u WHERE u.k = v.a",
            "UPDATE v SET (a, b) = (SELECT k * 10, val FROM u WHERE k = v.a) FROM u WHERE u.k = v.a",
            "WITH w AS (SELECT 2 AS k) UPDATE v SET b = 'w' FROM w WHERE w.k = v.a",
            "UPDATE v SET b = 1 FROM u WHERE 0",
            "UPDATE v SET b = 1 FROM v",
            "UPDATE v SET b = 1 FROM v AS w WHERE w.a = v.a",
            "UPDATE v SET nosuch = 1 FROM u",
            "UPDATE v SET b = 1 FROM nosuch",
            "SELECT * FROM log",
            "SELECT * FROM t",
            // Without a trigger for UPDATE (OF the assigned column), the view cannot be written.
            "DROP TRIGGER tr",
            "CREATE TRIGGER tr2 INSTEAD OF UPDATE OF a ON v BEGIN INSERT INTO log VALUES (0, 0, 0, 0); END",
            "UPDATE v SET b = u.val FROM u WHERE u.k = v.a",
            "UPDATE v SET a = u.k FROM u WHERE u.k = v.a",
            "UPDATE v SET b = u.val FROM u WHERE u.k = v.a RETURNING *",
            "SELECT * FROM log",
        ])
    }

    /// The joins of the `FROM` clause form a join of their own, as SQLite reads them: their `ON`, `USING` and
    /// `NATURAL` clauses see the `FROM` tables only, never the target (which shares a column name with them here).
    func testJoinConstraintsDoNotSeeTheTarget() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
            "CREATE TABLE u(a, c)",
            "CREATE TABLE w(a, d)",
            "INSERT INTO t VALUES (1, 2), (2, 3)",
            "INSERT INTO u VALUES (1, 10), (2, 20)",
            "INSERT INTO w VALUES (2, 100), (1, 200)",
            "UPDATE t SET b = w.d FROM u JOIN w USING (a) WHERE u.c = 10 RETURNING *",
            "UPDATE t SET b = w.d + 1 FROM u NATURAL JOIN w WHERE u.c = 20 RETURNING *",
            "UPDATE t SET b = w.d + 2 FROM u LEFT JOIN w ON w.d = c * 10 WHERE u.a = t.a RETURNING *",
            "UPDATE t SET b = w.d + 3 FROM u JOIN w ON w.a = (SELECT max(a) FROM t) WHERE u.c = 10 RETURNING *",
            "UPDATE t SET b = 0 FROM u JOIN w ON w.a = t.a WHERE u.c = 10",
            "UPDATE t AS x SET b = 0 FROM u JOIN w ON w.a = x.a",
            "UPDATE t AS x SET b = 0 FROM u JOIN w ON w.d = b",
            "UPDATE t SET b = 0 FROM u JOIN w ON w.a = u.a JOIN t AS v ON v.a = t.a",
            "SELECT * FROM t",
        ])
    }
}
