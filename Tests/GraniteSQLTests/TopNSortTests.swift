import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `ORDER BY … LIMIT n` without an index keeps only the best `n + offset` rows while it reads (see `Sorter`),
/// and drops most rows against the worst kept one. These tests check that bounded sort against a model — a
/// stable sort of the whole table in rowid order — over random tables with many ties, NULLs, a NOCASE key,
/// several keys, and LIMIT/OFFSET around the batch size the sorter trims at.
final class TopNSortTests: XCTestCase {
    /// One row of the model: the key columns as Swift values (nil is NULL).
    private struct Row {
        var id: Int
        var a: Int?
        var b: String?
    }

    private struct Term {
        var column: String
        var descending: Bool
    }

    func testBoundedSortMatchesModel() throws {
        let seed = testSeed()
        var random = SplitMix64(state: seed)
        for round in 0..<12 {
            let count = [0, 1, 50, 300, 2_000][random.below(5)]
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT)")
            var rows: [Row] = []
            let words = ["a", "A", "b", "B", "ab", "Ab", "aB", "ba", ""]
            try db.execute("BEGIN")
            for id in 1...max(count, 1) where count > 0 {
                let a: Int? = random.below(8) == 0 ? nil : random.below(10)
                let b: String? = random.below(10) == 0 ? nil : words[random.below(words.count)]
                rows.append(Row(id: id, a: a, b: b))
                let aSQL = a.map(String.init) ?? "NULL"
                let bSQL = b.map { "'\($0)'" } ?? "NULL"
                try db.execute("INSERT INTO t VALUES (\(id), \(aSQL), \(bSQL))")
            }
            try db.execute("COMMIT")
            for _ in 0..<25 {
                var terms: [Term] = []
                var columns = ["a", "b", "b COLLATE NOCASE"]
                while !columns.isEmpty {
                    let column = columns.remove(at: random.below(columns.count))
                    if random.below(2) == 0 { terms.append(Term(column: column, descending: random.below(2) == 0)) }
                }
                if terms.isEmpty { terms.append(Term(column: "a", descending: random.below(2) == 0)) }
                let limit = [0, 1, 3, 31, 32, 33, 64, 100, 1_000][random.below(9)]
                let offset = random.below(3) == 0 ? [1, 7, 40, 150][random.below(4)] : 0
                let order = terms.map { $0.column + ($0.descending ? " DESC" : "") }.joined(separator: ", ")
                let sql = "SELECT id FROM t ORDER BY \(order) LIMIT \(limit)" + (offset > 0 ? " OFFSET \(offset)" : "")
                let got = try db.query(sql).rows.map { row -> Int in
                    if case .integer(let i) = row[0] { return Int(i) }
                    return -1
                }
                let sorted = Self.stableSorted(rows, by: terms)
                let expected = Array(sorted.dropFirst(offset).prefix(limit)).map(\.id)
                XCTAssertEqual(got, expected, "seed \(seed) round \(round): \(sql) over \(count) rows")
                if got != expected { return }
            }
        }
    }

    /// A table of 20k rows where the best rows come last: every trim replaces the kept rows, the worst case
    /// for the early discard.
    func testDescendingInputKeepsBestRows() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
            INSERT INTO t SELECT x, 20000 - x FROM c;
            """)
        let ids = try db.query("SELECT id FROM t ORDER BY k LIMIT 5 OFFSET 2").rows.map { $0[0] }
        XCTAssertEqual(ids, [19998, 19997, 19996, 19995, 19994].map { Value.integer($0) })
        let ties = try db.query("SELECT id FROM t ORDER BY k / 20000 DESC, k / 10000 LIMIT 3").rows.map { $0[0] }
        // Every row ties on the first key; the first rows with k < 10000 in rowid order win.
        XCTAssertEqual(ties, [10001, 10002, 10003].map { Value.integer($0) })
    }

    // MARK: Model

    private static func stableSorted(_ rows: [Row], by terms: [Term]) -> [Row] {
        rows.enumerated().sorted { x, y in
            for term in terms {
                let c = compare(x.element, y.element, term.column)
                if c != 0 { return term.descending ? c > 0 : c < 0 }
            }
            return x.offset < y.offset
        }.map(\.element)
    }

    /// SQLite's order of one key: NULL first, then by value; NOCASE folds ASCII letters only.
    private static func compare(_ x: Row, _ y: Row, _ column: String) -> Int {
        switch column {
        case "a":
            return order(x.a, y.a) { $0 < $1 ? -1 : ($0 == $1 ? 0 : 1) }
        case "b":
            return order(x.b, y.b) { bytes($0, $1) }
        default:
            return order(x.b, y.b) { bytes($0.lowercased(), $1.lowercased()) }
        }
    }

    private static func order<T>(_ x: T?, _ y: T?, _ compare: (T, T) -> Int) -> Int {
        switch (x, y) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let x?, let y?): return compare(x, y)
        }
    }

    private static func bytes(_ x: String, _ y: String) -> Int {
        let a = Array(x.utf8)
        let b = Array(y.utf8)
        return a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
    }
}
