import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Row values run on SQLite and Granite: random comparisons of rows of one to four terms (every comparison
/// operator, IS, BETWEEN) over columns with affinities and collations and values of every type with NULLs, as
/// results and as filters; row-value assignments in UPDATE and upserts; and the misuses SQLite refuses.
final class RowValueDifferentialTests: XCTestCase {
    static let schema = "CREATE TABLE t(a INTEGER, b TEXT COLLATE NOCASE, c REAL, d)"

    struct Generator {
        var src: ValueSource

        mutating func literal() -> String {
            src.pick(["NULL", "\(src.int(-2...2))", "\(src.int(-2...2)).5", "'\(src.pick(["x", "X", "2", ""]))'"])
        }

        mutating func term() -> String {
            src.int(0...1) == 0 ? literal() : src.pick(["a", "b", "c", "d", "b COLLATE BINARY", "a + 1"])
        }

        mutating func row(_ size: Int) -> String {
            "(" + (0..<size).map { _ in term() }.joined(separator: ", ") + ")"
        }

        mutating func comparison() -> String {
            let size = src.int(1...4)
            let right = src.int(0...15) == 0 ? size + 1 : size
            switch src.int(0...4) {
            case 0:
                let negated = src.bool() ? "NOT " : ""
                return "\(row(size)) \(negated)BETWEEN \(row(size)) AND \(row(size))"
            default:
                let op = src.pick(["=", "==", "<>", "!=", "<", "<=", ">", ">=", "IS", "IS NOT"])
                return "\(row(size)) \(op) \(row(right))"
            }
        }

        mutating func rows() -> [String] {
            (0..<src.int(1...6)).map { _ in
                "INSERT INTO t VALUES (\(literal()), \(literal()), \(literal()), \(literal()))"
            }
        }
    }

    /// Runs `condition` over table `t` on both engines, as a result column, as a filter and negated; appends each
    /// mismatch to `failures`; returns the number of statements compared.
    static func compare(
        _ condition: String, _ oracle: Oracle, _ db: SQLConnection, into failures: inout [String]
    ) -> Int {
        let statements = [
            "SELECT \(condition) FROM t ORDER BY rowid", "SELECT rowid FROM t WHERE \(condition) ORDER BY rowid",
            "SELECT rowid FROM t WHERE NOT (\(condition)) ORDER BY rowid",
        ]
        for sql in statements {
            let e = SelectDifferentialTests.sqlite(oracle, sql)
            let a = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(e, a, ordered: true) { failures.append("\(sql): \(why)") }
        }
        return statements.count
    }

    func testRandomRowComparisonsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        let rounds = 300 * stressFactor
        var compared = 0
        for _ in 0..<rounds {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            oracle.execute(Self.schema)
            try db.execute(Self.schema)
            for insert in generator.rows() {
                oracle.execute(insert)
                try db.execute(insert)
            }
            compared += Self.compare(generator.comparison(), oracle, db, into: &failures)
        }
        print("row values: \(compared) statements compared, seed \(seed)")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }

    func testAssignmentsAndMisusesMatchSQLite() throws {
        let statements = [
            "CREATE TABLE u(a UNIQUE, b, c)", "INSERT INTO u VALUES (1, 2, 3), (4, 5, 6)",
            "UPDATE u SET (a, b) = (b, a), c = a WHERE a = 1", "SELECT * FROM u ORDER BY rowid",
            "INSERT INTO u VALUES (4, 0, 0) ON CONFLICT(a) DO UPDATE SET (b, c) = (excluded.b + 10, b)",
            "SELECT * FROM u ORDER BY rowid", "UPDATE u SET (a, b) = (1, 2, 3)", "UPDATE u SET (a, b) = 1",
            "UPDATE u SET (a, nosuch) = (1, 2)", "SELECT (1, 2)", "SELECT (1, 2) = (1, 2, 3)",
            "SELECT (1, (2, 3)) = (1, (2, 3))", "SELECT (1, 2) IS TRUE", "SELECT (1, 2) + 1",
            "SELECT count(*) FROM u WHERE (a, b) > (1, 9)",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        SelectDifferentialTests.compareInOrder(statements, oracle, db)
    }
}
