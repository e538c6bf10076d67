import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Aggregate `FILTER (WHERE …)` clauses (SQLite 3.30+), run on SQLite and Granite: random data and conditions,
/// grouped and ungrouped, with DISTINCT, HAVING, bare columns of min/max, and the errors of misplaced clauses.
final class AggregateFilterDifferentialTests: XCTestCase {
    static let schema = "CREATE TABLE t(a INTEGER, b TEXT, c REAL, g INTEGER)"

    struct Generator {
        var src: ValueSource

        mutating func value() -> String {
            src.pick(["NULL", "\(src.int(-5...5))", "'\(src.pick(["x", "y", "Y", ""]))'", "\(src.int(-3...3)).5"])
        }

        mutating func condition() -> String {
            let column = src.pick(["a", "b", "c", "g"])
            switch src.int(0...5) {
            case 0: return "\(column) IS NOT NULL"
            case 1: return "\(column) > \(value())"
            case 2: return "\(column) = \(value())"
            case 3: return "\(column) IN (\(value()), \(value()))"
            case 4: return "NOT (\(column) < \(value()))"
            default: return "\(condition()) \(src.pick(["AND", "OR"])) \(condition())"
            }
        }

        mutating func aggregate() -> String {
            let column = src.pick(["a", "b", "c"])
            let call = src.pick([
                "count(*)", "count(\(column))", "count(DISTINCT \(column))", "sum(\(column))", "total(\(column))",
                "avg(\(column))", "min(\(column))", "max(\(column))", "group_concat(\(column))",
                "group_concat(\(column), '-')",
            ])
            return src.int(0...3) == 0 ? call : "\(call) FILTER (WHERE \(condition()))"
        }

        mutating func statement() -> (sql: String, ordered: Bool) {
            let aggregates = (0..<src.int(1...3)).map { _ in aggregate() }.joined(separator: ", ")
            switch src.int(0...3) {
            case 0:
                return ("SELECT \(aggregates) FROM t", true)
            case 1:
                return ("SELECT g, \(aggregates) FROM t GROUP BY g ORDER BY g", true)
            case 2:
                return ("SELECT g FROM t GROUP BY g HAVING \(aggregate()) > 0 ORDER BY g", true)
            default:
                return ("SELECT \(aggregates) FROM t WHERE \(condition())", true)
            }
        }

        mutating func rows() -> [String] {
            (0..<src.int(0...12)).map { _ in
                "INSERT INTO t VALUES (\(value()), \(value()), \(value()), \(src.int(0...3)))"
            }
        }
    }

    func testRandomFilteredAggregatesMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        let rounds = 150 * stressFactor
        for _ in 0..<rounds {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for statement in [Self.schema] + generator.rows() {
                oracle.execute(statement)
                try db.execute(statement)
            }
            let (sql, ordered) = generator.statement()
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: ordered) {
                failures.append("\(sql): \(why)")
            }
        }
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    func testFixedStatementsMatchSQLite() throws {
        let statements = [
            "SELECT count(*) FILTER (WHERE a > 1), sum(a) FILTER (WHERE b IS NOT NULL) FROM t",
            "SELECT g, max(a) FILTER (WHERE c < 0), a FROM t GROUP BY g ORDER BY g",
            "SELECT min(c) FILTER (WHERE g = 2), b FROM t",
            "SELECT count(DISTINCT g) FILTER (WHERE a IS NULL) FROM t",
            "SELECT group_concat(b, '/') FILTER (WHERE b <> '') FROM t",
            "SELECT g FROM t GROUP BY g HAVING total(a) FILTER (WHERE a > 0) > 1 ORDER BY g",
            "SELECT count(*) FILTER (WHERE (SELECT count(*) FROM t AS u WHERE u.g = t.g) > 1) FROM t",
            // FILTER not followed by a parenthesis is a column alias.
            "SELECT count(*) filter FROM t",
            "SELECT a filter FROM t ORDER BY rowid",
            // Errors.
            "SELECT abs(a) FILTER (WHERE a > 1) FROM t",
            "SELECT max(a, c) FILTER (WHERE 1) FROM t",
            "SELECT a FROM t WHERE count(*) FILTER (WHERE 1)",
            "SELECT count(*) FILTER (WHERE count(*) > 0) FROM t",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let setup = [
            Self.schema,
            "INSERT INTO t VALUES (1, 'x', -1.5, 1), (2, '', 2.5, 1), (NULL, 'y', -0.5, 2), (3, NULL, NULL, 2)",
            "INSERT INTO t VALUES (-4, 'x', 1.0, 3), (5, 'Y', -2.0, 3)",
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

    func testSyntaxErrorsMatchSQLite() {
        var db: OpaquePointer?
        sqlite3_open(":memory:", &db)
        defer { sqlite3_close(db) }
        sqlite3_exec(db, Self.schema, nil, nil, nil)
        for sql in ["SELECT count(*) FILTER (a > 1) FROM t", "SELECT count(*) FILTER (WHERE a > 1 FROM t"] {
            var stmt: OpaquePointer?
            XCTAssertNotEqual(sqlite3_prepare_v2(db, sql, -1, &stmt, nil), SQLITE_OK, sql)
            sqlite3_finalize(stmt)
            let expected = String(cString: sqlite3_errmsg(db))
            let offset = Int(sqlite3_error_offset(db))
            do {
                _ = try Parser.parseScript(sql)
                XCTFail("no syntax error for \(sql); SQLite says \(expected)")
            } catch {
                XCTAssertEqual(error.message, expected, sql)
                XCTAssertEqual(error.location.offset, offset, sql)
            }
        }
    }
}
