import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Generated columns run on SQLite and Granite: random tables whose generated columns (VIRTUAL and STORED, typed
/// or not, reading plain and other generated columns, with NOT NULL, UNIQUE and CHECK) are written by random
/// INSERTs, UPDATEs, upserts, foreign key actions and `ADD COLUMN … AS`, read through indexes on them. Every
/// statement's outcome and the rows must match.
final class GeneratedColumnDifferentialTests: XCTestCase {
    struct Generator {
        var src: ValueSource

        mutating func value() -> String {
            src.pick(["NULL", "\(src.int(-3...6))", "\(src.int(-3...3)).5", "'\(src.pick(["a", "B", "7"]))'"])
        }

        /// An expression over the plain columns a, b and, when `generated` allows, the generated column g0.
        mutating func expression(readingGenerated: Bool) -> String {
            let column = readingGenerated && src.int(0...2) == 0 ? "g0" : src.pick(["a", "b"])
            switch src.int(0...5) {
            case 0: return "\(column) * 2"
            case 1: return "\(column) || 'x'"
            case 2: return "coalesce(\(column), \(value()))"
            case 3: return "abs(\(column)) + 1"
            case 4: return "length(\(column))"
            default: return "\(column)"
            }
        }

        mutating func generatedColumn(_ name: String, readingGenerated: Bool) -> String {
            var parts = [name]
            if src.bool() { parts.append(src.pick(["INTEGER", "TEXT", "REAL"])) }
            parts.append(src.bool() ? "AS" : "GENERATED ALWAYS AS")
            parts.append("(\(expression(readingGenerated: readingGenerated)))")
            parts.append(src.pick(["", "VIRTUAL", "STORED"]))
            switch src.int(0...7) {
            case 0: parts.append("NOT NULL")
            case 1: parts.append("UNIQUE")
            case 2: parts.append("CHECK(\(name) IS NOT 4)")
            default: break
            }
            return parts.filter { !$0.isEmpty }.joined(separator: " ")
        }

        mutating func scenario() -> [String] {
            let g1 = generatedColumn("g1", readingGenerated: true)
            let g0 = generatedColumn("g0", readingGenerated: false)
            let parent = src.bool() ? " REFERENCES p(id) ON UPDATE CASCADE ON DELETE SET NULL" : ""
            var statements = [
                "CREATE TABLE p(id PRIMARY KEY)", "INSERT INTO p VALUES (1), (2), (3)",
                "CREATE TABLE t(id INTEGER PRIMARY KEY, a\(parent), \(g1), b UNIQUE, \(g0))",
            ]
            if src.bool() { statements.append("CREATE INDEX ig ON t(\(src.pick(["g0", "g1"])))") }
            for _ in 0..<src.int(2...8) {
                switch src.int(0...6) {
                case 0: statements.append("UPDATE t SET a = \(value()) WHERE id % 2 = \(src.int(0...1))")
                case 1: statements.append("UPDATE t SET b = \(value()), a = b WHERE g0 IS NOT NULL")
                case 2: statements.append("DELETE FROM t WHERE g1 = \(value())")
                case 3:
                    statements.append(
                        "INSERT INTO t(a, b) VALUES (\(value()), \(value())) ON CONFLICT(b) DO UPDATE SET a = excluded.a")
                case 4: statements.append("UPDATE p SET id = id + 10 WHERE id = \(src.int(1...3))")
                case 5: statements.append("INSERT INTO t(a, g0) VALUES (1, 2)")
                default: statements.append("INSERT INTO t(a, b) VALUES (\(value()), \(value()))")
                }
            }
            if src.int(0...2) == 0 {
                statements.append("ALTER TABLE t ADD COLUMN g2 AS (\(expression(readingGenerated: true)))\(src.pick(["", " NOT NULL"]))")
            }
            return statements
        }
    }

    func testRandomGeneratedColumnsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var writes = 0
        let rounds = 250 * stressFactor
        for _ in 0..<rounds {
            let oracle = Oracle()
            oracle.execute("PRAGMA foreign_keys = ON")
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var script: [String] = []
            var diverged = false
            for statement in generator.scenario() {
                script.append(statement)
                let expected = sqliteOutcome(oracle, statement)
                let actual = graniteOutcome(db, statement)
                if expected == nil { writes += 1 }
                if expected != actual {
                    failures.append("\(script.joined(separator: "; ")): sqlite \(expected ?? "ok"), granite \(actual ?? "ok")")
                    diverged = true
                    break
                }
            }
            if diverged { continue }
            for probe in ["SELECT * FROM t ORDER BY id", "SELECT id FROM t WHERE g0 > 0 OR g1 > 0 ORDER BY id"] {
                let e = SelectDifferentialTests.sqlite(oracle, probe)
                let a = SelectDifferentialTests.granite(db, probe)
                if let why = SelectDifferentialTests.mismatch(e, a, ordered: true) {
                    failures.append("\(script.joined(separator: "; ")); \(probe): \(why)")
                }
            }
            if case .rows(_, let rows) = SelectDifferentialTests.granite(db, "PRAGMA integrity_check"),
                rows != [[.text("ok")]]
            {
                failures.append("\(script.joined(separator: "; ")): integrity_check \(rows)")
            }
        }
        print("generated columns: \(rounds) cases, \(writes) statements succeeded on both sides, seed \(seed)")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }

    func testDeclarationsAndCatalogMatchSQLite() throws {
        let statements = [
            "CREATE TABLE t(a INT, b AS (a*2), c TEXT GENERATED ALWAYS AS (a || 'x') STORED, d)",
            "INSERT INTO t(a, d) VALUES (3, 4)", "INSERT INTO t VALUES (1, 2)", "INSERT INTO t VALUES (1, 2, 3)",
            "UPDATE t SET c = 1", "PRAGMA table_info(t)", "PRAGMA table_xinfo(t)", "SELECT * FROM t",
            "CREATE TABLE l(a, b AS (c), c AS (b))", "INSERT INTO l VALUES (1)",
            "CREATE TABLE r(a, b AS (rowid))", "CREATE TABLE n(a, b AS (random()))", "CREATE TABLE q(a, b AS ((SELECT 1)))",
            "CREATE TABLE k(a PRIMARY KEY AS (1))", "CREATE TABLE d(a, b AS (a) DEFAULT 3)", "CREATE TABLE o(b AS (1))",
            "CREATE TABLE s(a, b AS (a + 1))", "INSERT INTO s VALUES (5)", "ALTER TABLE s ADD COLUMN c AS (b) STORED",
            "ALTER TABLE s DROP COLUMN a", "ALTER TABLE s ADD COLUMN e AS (b * 10)", "SELECT * FROM s",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        SelectDifferentialTests.compareInOrder(statements, oracle, db)
    }
}
