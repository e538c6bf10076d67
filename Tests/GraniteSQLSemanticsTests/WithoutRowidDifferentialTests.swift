import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// WITHOUT ROWID tables run on SQLite and Granite: random declarations (single and composite primary keys of
/// TEXT, INTEGER, INT or untyped columns, DESC and COLLATE NOCASE key columns, a conflict clause on the key, a
/// UNIQUE column, a secondary index), then random INSERTs (every conflict resolution, REPLACE, upserts on the
/// key), UPDATEs (of key columns too), DELETEs and SELECTs. Every write's outcome (error text and extended code)
/// must match, and so must the rows of every query whose order SQLite defines, *in order*: a WITHOUT ROWID table
/// is read in primary-key order.
final class WithoutRowidDifferentialTests: XCTestCase {
    struct Generator {
        var src: ValueSource
        /// The primary key columns of the current table (`k0`, `k1`).
        var keyCount = 1
        /// Whether the current table has a secondary index on `v0`.
        var indexed = false

        mutating func keyColumn(_ k: Int) -> String {
            var parts = ["k\(k)"]
            if let type = src.pick(["TEXT", "INTEGER", "INT", nil] as [String?]) { parts.append(type) }
            if src.int(0...4) == 0 { parts.append("COLLATE NOCASE") }
            return parts.joined(separator: " ")
        }

        mutating func table() -> [String] {
            keyCount = src.int(1...2)
            var columns = (0..<keyCount).map { keyColumn($0) }
            columns.append("v0" + src.pick(["", " INT", " TEXT"]))
            columns.append("v1" + src.pick(["", "", " UNIQUE", " NOT NULL DEFAULT 0"]))
            // One direction for the whole key: Granite reads a key mixing ASC and DESC in the first column's
            // direction only (see FORMAT.md, "WITHOUT ROWID tables").
            let direction = src.pick(["", "", " DESC", " ASC"])
            let key = (0..<keyCount).map { k -> String in
                "k\(k)" + src.pick(["", "", " COLLATE NOCASE"]) + direction
            }
            let conflict = src.pick(["", "", "", " ON CONFLICT REPLACE", " ON CONFLICT IGNORE"])
            let options = src.pick(["WITHOUT ROWID", "WITHOUT ROWID", "without rowid", "STRICT, WITHOUT ROWID"])
            var statements = [
                "CREATE TABLE t(\(columns.joined(separator: ", ")), PRIMARY KEY(\(key.joined(separator: ", ")))\(conflict)) "
                    + options
            ]
            indexed = src.bool()
            if indexed { statements.append("CREATE INDEX t_v0 ON t(v0\(src.pick(["", ", k0", " DESC"])))") }
            return statements
        }

        mutating func key() -> String {
            src.pick(["0", "1", "2", "3", "-1", "'a'", "'A'", "'b'", "'B'", "'c'", "'10'", "2.5", "NULL", "x'00'"])
        }

        mutating func value() -> String {
            src.pick(["NULL", "0", "1", "2", "'x'", "'y'", "1.5", "'2'"])
        }

        /// A condition on the key, or (`onValues`) on `v0`, which the secondary index may serve.
        mutating func keyCondition(onValues: Bool = true) -> String {
            let column = "k\(src.int(0...(keyCount - 1)))"
            switch src.int(0...5) {
            case 4 where !onValues: return "\(column) < \(key())"
            case 0: return "\(column) = \(key())"
            case 1: return "\(column) > \(key())"
            case 2: return "\(column) BETWEEN \(key()) AND \(key())"
            case 3: return "\(column) IN (\(key()), \(key()))"
            case 4: return "v0 = \(value())"
            default: return "\(column) <= \(key()) AND v1 IS NOT \(value())"
            }
        }

        mutating func insert() -> String {
            let keys = (0..<keyCount).map { _ in key() }
            let values = keys + [value(), value()]
            let columns = (0..<keyCount).map { "k\($0)" } + ["v0", "v1"]
            let head = "(\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
            switch src.int(0...6) {
            case 0:
                return "INSERT INTO t\(head) ON CONFLICT(\(columns.prefix(keyCount).joined(separator: ", "))) "
                    + "DO UPDATE SET v0 = excluded.v0, v1 = coalesce(v1, 0) + 1"
            case 1: return "INSERT INTO t\(head) ON CONFLICT DO NOTHING"
            case 2: return "REPLACE INTO t\(head)"
            default:
                let resolution = src.pick([
                    "", "", "OR IGNORE ", "OR REPLACE ", "OR ABORT ", "OR FAIL ", "OR ROLLBACK ",
                ])
                return "INSERT \(resolution)INTO t\(head)"
            }
        }

        mutating func write() -> String {
            switch src.int(0...9) {
            case 0, 1:
                let resolution = src.pick(["", "", "OR IGNORE ", "OR REPLACE "])
                // Not through the secondary index: Granite's entries end with the storage rowid, SQLite's with the
                // key, so rows with equal `v0` come in another order, which decides which of two rows moved to one
                // key is kept (see FORMAT.md, "WITHOUT ROWID tables").
                return "UPDATE \(resolution)t SET k0 = \(key()) WHERE \(keyCondition(onValues: false))"
            case 2:
                return "UPDATE t SET v0 = \(value()), v1 = \(value()) WHERE \(keyCondition())"
            case 3:
                return "DELETE FROM t WHERE \(keyCondition())"
            case 4:
                return "DELETE FROM t WHERE \(keyCondition()) RETURNING *"
            default:
                return insert()
            }
        }

        /// A query and whether its rows have one defined order in both engines.
        mutating func query() -> (sql: String, ordered: Bool) {
            switch src.int(0...4) {
            case 0: return ("SELECT * FROM t", true)
            case 1: return ("SELECT * FROM t WHERE \(keyCondition())", !indexed)
            case 2: return ("SELECT k0, count(*) FROM t GROUP BY k0", false)
            case 3: return ("SELECT * FROM t ORDER BY v0, v1, k0", false)
            default: return ("SELECT * FROM t WHERE k0 > \(key()) ORDER BY k0 DESC", false)
            }
        }
    }

    func testRandomWithoutRowidTablesMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var refused = 0
        var queries = 0
        let rounds = 300 * stressFactor
        for _ in 0..<rounds {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var script: [String] = []
            for create in generator.table() {
                script.append(create)
                let e = sqliteOutcomeWithCode(oracle, create)
                let a = graniteOutcomeWithCode(db, create)
                if e != a {
                    failures.append("\(script.joined(separator: "; ")): sqlite \(e ?? "ok"), granite \(a ?? "ok")")
                }
            }
            for _ in 0..<generator.src.int(4...16) {
                if generator.src.int(0...3) == 0 {
                    let (sql, ordered) = generator.query()
                    queries += 1
                    if let why = SelectDifferentialTests.mismatch(
                        SelectDifferentialTests.sqlite(oracle, sql), SelectDifferentialTests.granite(db, sql),
                        ordered: ordered)
                    {
                        failures.append("\(script.joined(separator: "; ")); \(sql): \(why)")
                    }
                    continue
                }
                let write = generator.write()
                script.append(write)
                let e = sqliteOutcomeWithCode(oracle, write)
                let a = graniteOutcomeWithCode(db, write)
                if e != nil { refused += 1 }
                if e != a {
                    failures.append("\(script.joined(separator: "; ")): sqlite \(e ?? "ok"), granite \(a ?? "ok")")
                }
            }
            if sqlite3_last_insert_rowid(oracle.db) != db.lastInsertedRowid {
                failures.append("\(script.joined(separator: "; ")): last insert rowid changed")
            }
            if Int(sqlite3_changes(oracle.db)) != db.changes {
                failures.append(
                    "\(script.joined(separator: "; ")): changes \(sqlite3_changes(oracle.db)) != \(db.changes)")
            }
            for probe in ["SELECT * FROM t", "PRAGMA integrity_check"] {
                if let why = SelectDifferentialTests.mismatch(
                    SelectDifferentialTests.sqlite(oracle, probe), SelectDifferentialTests.granite(db, probe),
                    ordered: true)
                {
                    failures.append("\(script.joined(separator: "; ")); \(probe): \(why)")
                }
            }
        }
        print("without rowid: \(rounds) cases, \(queries) queries, \(refused) writes refused, seed \(seed)")
        XCTAssertGreaterThan(refused, rounds / 4, "the generator rarely breaks a key constraint")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }
}
