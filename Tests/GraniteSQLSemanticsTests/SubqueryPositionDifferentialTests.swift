import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Places random subqueries in every expression position the grammar allows (result columns, WHERE, ORDER BY,
/// GROUP BY, HAVING, CASE, function and aggregate arguments, IN lists, LIMIT/OFFSET, joins, FROM subqueries,
/// INSERT VALUES, UPDATE SET, DELETE WHERE, RETURNING, upserts, CHECK, DEFAULT, index expressions) and runs each
/// statement on a fresh database in SQLite and Granite. Nothing may trap; outcomes and the tables' contents
/// afterwards must agree (errors by message).
final class SubqueryPositionDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c)",
        "INSERT INTO t VALUES (1, 'x', 3), (2, 'y', NULL), (3, 'x', -2), (4, '2', '1'), (5, NULL, 2.5)",
        "CREATE TABLE u(x, y UNIQUE)",
        "INSERT INTO u VALUES (1, 10), (2, 20), (NULL, 30), (3, NULL), (2, 40)",
    ]

    struct Generator {
        var src: ValueSource

        mutating func literal() -> String {
            src.pick(["NULL", "0", "1", "2", "3", "-1", "'x'", "'2'", "2.5", "x'01'", "5", "'abc'"])
        }

        /// An expression over `columns` (the names in scope), with subqueries up to `depth` deep.
        mutating func expression(_ columns: [String], depth: Int = 2) -> String {
            let roll = src.int(0...(depth > 0 ? 11 : 4))
            switch roll {
            case 0, 1: return literal()
            case 2, 3: return columns.isEmpty ? literal() : src.pick(columns)
            case 4: return "(\(expression(columns, depth: depth)) + \(literal()))"
            default: return subquery(columns, depth: depth - 1)
            }
        }

        /// A subquery, possibly correlated to `outer` (the enclosing names).
        mutating func subquery(_ outer: [String], depth: Int) -> String {
            let inner = ["u.x", "u.y"]
            let correlated = outer.isEmpty ? literal() : src.pick(outer)
            switch src.int(0...10) {
            case 0: return "(SELECT \(expression([], depth: depth)))"
            case 1: return "(SELECT y FROM u WHERE x = \(expression(outer, depth: depth)) ORDER BY y LIMIT 1)"
            case 2: return "(SELECT count(*) FROM u WHERE u.x = \(correlated))"
            case 3: return "(SELECT max(y) FROM u)"
            case 4: return "EXISTS (SELECT 1 FROM u WHERE \(src.pick(inner)) > \(expression(outer, depth: depth)))"
            case 5: return "(\(expression(outer, depth: depth)) IN (SELECT x FROM u))"
            case 6: return "(SELECT b FROM t AS s WHERE s.a = \(expression(outer, depth: depth)))"
            case 7: return "(SELECT sum(y) FROM u WHERE y < \(expression(inner + outer, depth: depth)))"
            case 8: return "(SELECT x FROM u ORDER BY \(expression(inner, depth: depth)), y LIMIT 1 OFFSET 1)"
            case 9: return "(SELECT NULL WHERE 0)"
            default:
                return "(SELECT y FROM u ORDER BY y LIMIT \(expression([], depth: depth)))"
            }
        }

        /// A statement with subqueries in one or more positions; `ordered` says whether its row order is fixed.
        mutating func statement() -> (sql: String, ordered: Bool) {
            let tc = ["a", "b", "c", "t.a"]
            let uc = ["x", "y"]
            func e(_ g: inout Generator, _ columns: [String]) -> String { g.expression(columns) }
            func s(_ g: inout Generator, _ columns: [String]) -> String { g.subquery(columns, depth: 1) }
            switch src.int(0...29) {
            case 0: return ("SELECT \(s(&self, tc)), a FROM t ORDER BY a", true)
            case 1: return ("SELECT a FROM t WHERE \(s(&self, tc)) ORDER BY a", true)
            case 2: return ("SELECT a FROM t ORDER BY \(s(&self, tc)), a", true)
            case 3: return ("SELECT count(*), min(a) FROM t GROUP BY \(s(&self, tc)) ORDER BY 2", true)
            case 4: return ("SELECT b, count(*) FROM t GROUP BY b HAVING \(s(&self, ["b"])) ORDER BY b", true)
            case 5:
                return (
                    "SELECT CASE \(s(&self, tc)) WHEN \(e(&self, tc)) THEN 'p' WHEN \(s(&self, tc)) THEN 'q' "
                        + "ELSE \(e(&self, tc)) END FROM t ORDER BY a", true
                )
            case 6:
                return ("SELECT CASE WHEN \(s(&self, tc)) THEN \(s(&self, tc)) END, a FROM t ORDER BY a", true)
            case 7:
                let f = src.pick(["abs", "coalesce", "typeof", "length", "quote", "ifnull", "nullif", "max", "min"])
                let args = ["coalesce", "ifnull", "nullif", "max", "min"].contains(f) ? 2 : 1
                let list = (0..<args).map { _ in s(&self, tc) }.joined(separator: ", ")
                return ("SELECT \(f)(\(list)) FROM t ORDER BY a", true)
            case 8:
                let f = src.pick(["sum", "count", "max", "group_concat", "total", "avg"])
                return ("SELECT \(f)(\(s(&self, tc))) FROM t", true)
            case 9: return ("SELECT a FROM t WHERE a IN (\(s(&self, tc)), \(e(&self, tc))) ORDER BY a", true)
            case 10: return ("SELECT a FROM t WHERE \(s(&self, tc)) IN (1, 2, \(s(&self, tc))) ORDER BY a", true)
            case 11: return ("SELECT a FROM t ORDER BY a LIMIT \(s(&self, []))", true)
            case 12: return ("SELECT a FROM t ORDER BY a LIMIT 3 OFFSET \(s(&self, []))", true)
            case 13:
                return ("SELECT t.a, u.y FROM t JOIN u ON \(s(&self, tc + uc)) ORDER BY t.a, u.y", true)
            case 14:
                return ("SELECT v FROM (SELECT \(s(&self, tc)) AS v, a FROM t) ORDER BY a", true)
            case 15: return ("INSERT INTO u VALUES (\(s(&self, [])), \(s(&self, [])))", true)
            case 16: return ("INSERT INTO u SELECT \(s(&self, tc)), a * 100 FROM t", true)
            case 17: return ("UPDATE u SET x = \(s(&self, uc)) WHERE y > 15", true)
            case 18: return ("UPDATE u SET x = 9 WHERE \(s(&self, uc))", true)
            case 19: return ("DELETE FROM u WHERE \(s(&self, uc))", true)
            case 20: return ("INSERT INTO u VALUES (7, 70) RETURNING \(s(&self, uc))", true)
            case 21: return ("UPDATE u SET x = x + 1 WHERE y = 20 RETURNING \(s(&self, uc)), y", true)
            case 22: return ("DELETE FROM u WHERE y = 10 RETURNING \(s(&self, uc))", true)
            case 23:
                return (
                    "INSERT INTO u VALUES (1, 10) ON CONFLICT (y) DO UPDATE SET x = \(s(&self, uc)) "
                        + "WHERE \(s(&self, uc))", true
                )
            case 24: return ("CREATE TABLE z(q CHECK (\(s(&self, ["q"]))))", true)
            case 25: return ("CREATE INDEX z ON t(\(s(&self, tc)))", true)
            case 26: return ("CREATE INDEX z ON t(a) WHERE \(s(&self, tc))", true)
            case 27: return ("CREATE TABLE z(q DEFAULT (\(s(&self, []))))", true)
            case 28: return ("ALTER TABLE u ADD COLUMN z CHECK (\(s(&self, uc + ["z"])))", true)
            default:
                return (
                    "SELECT a FROM t WHERE \(e(&self, tc)) BETWEEN \(s(&self, tc)) AND \(s(&self, tc)) ORDER BY a", true
                )
            }
        }
    }

    func testSubqueriesInEveryPosition() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        let rounds = 400 * stressFactor
        for _ in 0..<rounds {
            let (sql, ordered) = generator.statement()
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for statement in Self.schema {
                oracle.execute(statement)
                try db.execute(statement)
            }
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: ordered) {
                failures.append("\(sql): \(why)")
                continue
            }
            for table in ["t", "u"] {
                let check = "SELECT rowid, * FROM \(table) ORDER BY rowid"
                let e = SelectDifferentialTests.sqlite(oracle, check)
                let a = SelectDifferentialTests.granite(db, check)
                if let why = SelectDifferentialTests.mismatch(e, a, ordered: true) {
                    failures.append("\(sql): afterwards \(table): \(why)")
                }
            }
        }
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
        print("SubqueryPositionDifferentialTests: \(rounds) statements (seed \(seed))")
    }
}
