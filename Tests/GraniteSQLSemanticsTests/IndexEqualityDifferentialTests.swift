import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Index searches by `column = value` whose term a level does not test again when the search's probe is exact
/// (no affinity conversion of the probe): joins, `LEFT JOIN ... ON` and `WHERE` equalities over columns of every
/// affinity and of NOCASE and BINARY collations, with probes of every type (numbers against TEXT columns, text
/// that looks like a number against numeric ones, NULL, integers against equal and nearly equal REALs), must
/// find the rows SQLite finds, and `LEFT JOIN` misses must give their NULL rows.
final class IndexEqualityDifferentialTests: XCTestCase {
    static let columns = ["i", "r", "t", "n", "b", "x"]

    static let schema = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, n TEXT COLLATE NOCASE, b BLOB, x)",
        "CREATE TABLE c(id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, n TEXT COLLATE NOCASE, b BLOB, x)",
        "CREATE INDEX c_i ON c(i)",
        "CREATE INDEX c_r ON c(r)",
        "CREATE INDEX c_t ON c(t)",
        "CREATE INDEX c_n ON c(n)",
        "CREATE INDEX c_b ON c(b)",
        "CREATE INDEX c_x ON c(x)",
        "CREATE INDEX c_t_nocase ON c(t COLLATE NOCASE)",
        "CREATE INDEX c_i_t ON c(i, t)",
    ]

    /// Values that compare equal, or nearly, across types and collations.
    static let pool: [Value] = [
        .null, .integer(1), .real(1.0), .real(1.5), .text("1"), .text("1.0"), .text(" 1"), .text("a"), .text("A"),
        .text("a "), .blob([0x61]), .blob([0x31]), .integer(9_007_199_254_740_993), .real(9_007_199_254_740_992.0),
        .integer(0), .real(-0.0), .text("0"), .integer(2), .text("b"),
    ]

    struct Workload {
        var src: ValueSource

        mutating func value() -> Value { src.pick(IndexEqualityDifferentialTests.pool) }

        mutating func row(_ id: Int) -> [Value] {
            [.integer(Int64(id))] + IndexEqualityDifferentialTests.columns.map { _ in value() }
        }

        /// A literal spelling `v` (NULL, number, string or blob).
        func literal(_ v: Value) -> String {
            switch v {
            case .integer(let i): return "\(i)"
            case .real(let d): return d == 0 && d.sign == .minus ? "-0.0" : "\(d)"
            case .text(let s): return "'\(s)'"
            case .blob(let b): return "x'" + b.map { String($0, radix: 16) }.joined() + "'"
            default: return "NULL"  // the pool holds no other kind of value
            }
        }

        mutating func query() -> (sql: String, args: [Value]) {
            let l = "p." + src.pick(IndexEqualityDifferentialTests.columns)
            let r = "c." + src.pick(IndexEqualityDifferentialTests.columns)
            let extra = src.pick(["", "", " AND c.id > 2", " AND c.t = p.t", " AND c.i = 1"])
            let equality = src.int(0...1) == 0 ? "\(r) = \(l)" : "\(l) = \(r)"
            switch src.int(0...5) {
            case 0: return ("SELECT p.id, c.id FROM p LEFT JOIN c ON \(equality)\(extra)", [])
            case 1: return ("SELECT p.id, c.id FROM p JOIN c ON \(equality)\(extra)", [])
            case 2: return ("SELECT p.id, c.id FROM p LEFT JOIN c ON \(equality)\(extra) WHERE c.id IS NULL", [])
            case 3: return ("SELECT p.id, count(c.id) FROM p LEFT JOIN c ON \(equality)\(extra) GROUP BY p.id", [])
            case 4:
                let single = src.pick(["", " AND c.id > 2", " AND c.t = 'a'", " AND c.i = 1"])
                return ("SELECT c.id FROM c WHERE \(r) = ?\(single)", [value()])
            default:
                return ("SELECT c.id FROM c WHERE \(r) = \(literal(value()))", [])
            }
        }
    }

    func testIndexEqualitiesMatchSQLite() throws {
        let seed = testSeed()
        var workload = Workload(src: ValueSource(seed: seed))
        var failures: [String] = []
        var rowsCompared = 0
        var indexSearches = 0
        for _ in 0..<(3 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in Self.schema {
                oracle.execute(sql)
                try db.execute(sql)
            }
            for table in ["p", "c"] {
                for id in 1...workload.src.int(10...40) {
                    let sql = "INSERT INTO \(table) VALUES (?, ?, ?, ?, ?, ?, ?)"
                    let args = workload.row(id)
                    _ = oracle.all(sql, args)
                    _ = StatementOutcome.granite(db, sql, args)
                }
            }
            for _ in 0..<200 {
                let (sql, args) = workload.query()
                var expected = oracle.all(sql, args)
                var actual = StatementOutcome.granite(db, sql, args)
                if case .rows(let e) = expected, case .rows(let a) = actual {
                    expected = .rows(e.sorted { "\($0)" < "\($1)" })
                    actual = .rows(a.sorted { "\($0)" < "\($1)" })
                    rowsCompared += e.count
                }
                let plan = try db.query("EXPLAIN QUERY PLAN " + sql, arguments: args).rows
                if plan.contains(where: { "\($0)".contains("SEARCH c USING") }) { indexSearches += 1 }
                if let failure = StatementOutcome.mismatch(sqlite: expected, granite: actual, what: "\(sql) \(args)") {
                    failures.append(failure)
                }
                if failures.count >= 10 { break }
            }
        }
        print("index equalities: \(rowsCompared) rows compared, \(indexSearches) index searches, seed \(seed)")
        XCTAssertGreaterThan(rowsCompared, 0)
        XCTAssertGreaterThan(indexSearches, 0)
        if !failures.isEmpty {
            XCTFail("index equality differs from SQLite (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n"))
        }
    }
}
