import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Joins that search an index once per outer row, on small pages so that the index spans many leaves: each search
/// starts from where the last one left the cursor (on the same leaf when the key is there, else from the root),
/// and the open of each search writes its key over the last one's. The outer rows come in rowid order with join
/// keys that mostly grow, in descending order, or in random order; keys repeat (many children per parent), miss
/// (a `LEFT JOIN` gives its NULL row and a count of 0), are NULL, REAL, numeric TEXT, or TEXT compared under
/// NOCASE; indexes are composite (searched by a prefix, with a range on the next column) and descending. Results
/// must equal SQLite's.
final class IndexJoinSeekDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, k, name TEXT)",
        "CREATE TABLE c(id INTEGER PRIMARY KEY, pk INTEGER, t TEXT COLLATE NOCASE, r REAL, y INTEGER)",
        "CREATE INDEX c_pk ON c(pk)",
        "CREATE INDEX c_t ON c(t)",
        "CREATE INDEX c_y_r ON c(y DESC, r)",
        "CREATE TABLE d(id INTEGER PRIMARY KEY, pk INTEGER, t TEXT)",
        "CREATE INDEX d_pk_t ON d(pk, t)",
    ]

    struct Workload {
        var src: ValueSource
        let parents: Int

        /// A parent's join key: mostly its own number (keys grow with the rowid), sometimes another, NULL, a REAL
        /// or numeric TEXT equal to an integer, or one no child has.
        mutating func parentKey(_ id: Int) -> Value {
            switch src.int(0...11) {
            case 0: return .null
            case 1: return .real(Double(id))
            case 2: return .text(String(id))
            case 3: return .integer(Int64(src.int(1...parents)))
            case 4: return .integer(Int64(parents + src.int(1...50)))
            default: return .integer(Int64(id))
            }
        }

        mutating func label() -> Value {
            src.int(0...9) == 0 ? .null : .text(src.pick(["a", "A", "b", "B ", "c", "ab", "Ab", "é", "É"]))
        }

        /// A child's parent: children of one parent mostly come together, some belong to no parent.
        mutating func childKey() -> Value {
            switch src.int(0...19) {
            case 0: return .null
            case 1: return .integer(Int64(parents + src.int(1...50)))
            case 2: return .real(Double(src.int(1...parents)) + 0.5)
            default: return .integer(Int64(src.int(1...parents)))
            }
        }

        mutating func query() -> String {
            let join = src.pick(["LEFT JOIN", "LEFT JOIN", "JOIN"])
            let order = src.pick(["", " ORDER BY p.id DESC", " ORDER BY p.id", " ORDER BY p.name, p.id"])
            let key = src.pick(["p.id", "p.k", "p.id", "p.k + 0", "-p.id"])
            switch src.int(0...8) {
            case 0, 1:
                // The association request and its variants: every parent with the number of its children.
                let count = src.pick(["count(DISTINCT c.id)", "count(c.id)", "count(*)", "count(c.id), max(c.t)"])
                return "SELECT p.*, \(count) FROM p \(join) c ON c.pk = \(key) GROUP BY p.id\(order)"
            case 2:
                // Every joined row, the children's columns read from the index or from the table.
                let columns = src.pick(["p.id, c.id", "p.id, c.id, c.pk", "p.name, c.t, c.r", "p.id, c.rowid"])
                return "SELECT \(columns) FROM p \(join) c ON c.pk = \(key)\(order)"
            case 3:
                // A composite index searched by its first column and a range (or equality) on its second.
                let second = src.pick([
                    "d.t = p.name", "d.t > 'a'", "d.t <= 'b'", "d.t BETWEEN 'a' AND 'b'", "d.t IS NOT NULL",
                ])
                return "SELECT p.id, count(d.id), min(d.t) FROM p \(join) d ON d.pk = \(key) AND \(second) "
                    + "GROUP BY p.id\(order)"
            case 4:
                // A NOCASE column joined with TEXT, its index compared under NOCASE.
                return "SELECT p.id, p.name, count(c.id) FROM p \(join) c ON c.t = p.name GROUP BY p.id\(order)"
            case 5:
                // A descending index column searched by equality, the rest of its entry in ascending order.
                let range = src.pick(["", " AND c.r > 3", " AND c.r < 10.5", " AND c.r IS NULL"])
                return "SELECT p.id, count(c.id), sum(c.r) FROM p \(join) c ON c.y = \(key)\(range) GROUP BY p.id"
                    + order
            case 6:
                // The outer rows in descending order: each search's key is below the last one's.
                return "SELECT p.id, c.id FROM (SELECT * FROM p ORDER BY id DESC) p \(join) c ON c.pk = p.id"
            case 7:
                // An IN list as the outer keys, in any order and repeated.
                let a = src.int(1...parents)
                let b = src.int(1...parents)
                return "SELECT c.id FROM c WHERE c.pk IN (\(a), \(b), \(a), \(b + 1), NULL)"
            default:
                // Two searches per outer row on two indexes of the same table.
                return "SELECT p.id, count(DISTINCT c1.id), count(DISTINCT c2.id) FROM p LEFT JOIN c c1 "
                    + "ON c1.pk = p.id LEFT JOIN c c2 ON c2.y = p.id GROUP BY p.id\(order)"
            }
        }
    }

    func testIndexJoinSeeksMatchSQLite() throws {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        var failures: [String] = []
        var rowsCompared = 0
        for round in 0..<(2 * stressFactor) {
            let parents = src.int(20...(round == 0 ? 60 : 400))
            var workload = Workload(src: src, parents: parents)
            let oracle = Oracle()
            var options = StorageOptions()
            options.pageSize = 512
            let db = try SQLConnection(engine: try StorageEngine.inMemory(options: options))
            for sql in Self.schema {
                oracle.execute(sql)
                try db.execute(sql)
            }
            var inserts: [(String, [Value])] = []
            for id in 1...parents {
                let row = [.integer(Int64(id)), workload.parentKey(id), workload.label()]
                inserts.append(("INSERT INTO p VALUES (?, ?, ?)", row))
            }
            for id in 1...(parents * workload.src.int(1...12)) {
                let y: Value = workload.src.int(0...5) == 0 ? .null : .integer(Int64(workload.src.int(1...parents)))
                let r: Value = workload.src.int(0...4) == 0 ? .null : .real(Double(workload.src.int(0...20)) / 2)
                let child = [.integer(Int64(id)), workload.childKey(), workload.label(), r, y]
                inserts.append(("INSERT INTO c VALUES (?, ?, ?, ?, ?)", child))
                if workload.src.int(0...1) == 0 {
                    let other = [.integer(Int64(id)), workload.childKey(), workload.label()]
                    inserts.append(("INSERT INTO d VALUES (?, ?, ?)", other))
                }
            }
            try db.execute("BEGIN")
            oracle.execute("BEGIN")
            for (sql, args) in inserts {
                let expected = oracle.all(sql, args)
                let actual = StatementOutcome.granite(db, sql, args)
                if let failure = StatementOutcome.mismatch(sqlite: expected, granite: actual, what: sql) {
                    failures.append(failure)
                }
            }
            try db.execute("COMMIT")
            oracle.execute("COMMIT")
            for _ in 0..<60 {
                let sql = workload.query()
                // Compared as sets of rows: the order of the children within one parent is not defined.
                let expected = oracle.all(sql, []).sortedRows
                let actual = StatementOutcome.granite(db, sql, []).sortedRows
                rowsCompared += expected.rowCount
                if let failure = StatementOutcome.mismatch(sqlite: expected, granite: actual, what: sql) {
                    failures.append(failure)
                }
                if failures.count >= 10 { break }
            }
            src = workload.src
        }
        print("index join seeks: \(rowsCompared) rows compared, seed \(seed)")
        XCTAssertGreaterThan(rowsCompared, 0)
        if !failures.isEmpty {
            XCTFail(
                "index join results differ from SQLite (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n"))
        }
    }
}
