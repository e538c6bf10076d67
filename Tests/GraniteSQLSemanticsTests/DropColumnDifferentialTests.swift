import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `ALTER TABLE … DROP COLUMN` run on SQLite and Granite: random tables (column and table constraints, defaults,
/// collations, foreign keys), random indexes (plain, expression, partial, unique), rows written before and after
/// `ADD COLUMN`, then a drop of a random column. The outcome (error text), the stored schema text, the rows, and
/// writes made afterwards (which must see the new column positions and the constraints still in force) must match.
final class DropColumnDifferentialTests: XCTestCase {
    struct Generator {
        var src: ValueSource

        mutating func value() -> String {
            src.pick(["NULL", "\(src.int(-3...3))", "'\(src.pick(["a", "B", "b", ""]))'", "\(src.int(-2...2)).5"])
        }

        mutating func columnDefinition(_ name: String, first: Bool) -> String {
            var parts = [name]
            if src.int(0...1) == 0 { parts.append(src.pick(["INTEGER", "TEXT", "REAL", "NUMERIC", "BLOB"])) }
            if first && src.int(0...3) == 0 { parts.append("PRIMARY KEY") }
            switch src.int(0...9) {
            case 0: parts.append("UNIQUE")
            case 1: parts.append("CHECK(\(name) IS NOT 99)")
            case 2: parts.append("DEFAULT \(value())")
            case 3: parts.append("COLLATE NOCASE")
            case 4: parts.append("REFERENCES parent(id)")
            default: break
            }
            return parts.joined(separator: " ")
        }

        /// The table `t` with columns c0… and its constraints.
        mutating func table(columns: Int) -> String {
            let names = (0..<columns).map { "c\($0)" }
            var parts = names.enumerated().map { k, name in columnDefinition(name, first: k == 0) }
            let other = names[src.int(0...(columns - 1))]
            switch src.int(0...7) {
            case 0: parts.append("UNIQUE(\(other))")
            case 1: parts.append("CHECK(\(other) <> 'zz')")
            case 2: parts.append("FOREIGN KEY(\(other)) REFERENCES parent(id)")
            case 3: parts.append("CONSTRAINT named CHECK(length(\(other)) < 50)")
            default: break
            }
            let spacing = src.pick([", ", ",", " ,  "])
            return "CREATE TABLE t(\(parts.joined(separator: spacing)))"
        }

        mutating func index(_ k: Int, columns: Int) -> String? {
            let a = "c\(src.int(0...(columns - 1)))"
            let b = "c\(src.int(0...(columns - 1)))"
            switch src.int(0...5) {
            case 0: return "CREATE INDEX i\(k) ON t(\(a))"
            case 1: return "CREATE UNIQUE INDEX i\(k) ON t(\(a), \(b))"
            case 2: return "CREATE INDEX i\(k) ON t(\(a) || 'x')"
            case 3: return "CREATE INDEX i\(k) ON t(\(a)) WHERE \(b) IS NOT NULL"
            case 4: return "CREATE INDEX i\(k) ON t(\(a) COLLATE NOCASE DESC)"
            default: return nil
            }
        }

        mutating func insert(columns: Int) -> String {
            "INSERT INTO t VALUES (\((0..<columns).map { _ in value() }.joined(separator: ", ")))"
        }

        /// The statements of one case, the drop last.
        mutating func scenario() -> [String] {
            var columns = src.int(1...5)
            var statements = ["CREATE TABLE parent(id PRIMARY KEY)", table(columns: columns)]
            for k in 0..<src.int(0...2) { if let index = index(k, columns: columns) { statements.append(index) } }
            for _ in 0..<src.int(0...4) { statements.append(insert(columns: columns)) }
            if src.int(0...2) == 0 {
                statements.append("ALTER TABLE t ADD COLUMN c\(columns) DEFAULT \(src.pick(["7", "'d'", "NULL"]))")
                columns += 1
                for _ in 0..<src.int(0...2) { statements.append(insert(columns: columns)) }
            }
            let dropped = src.int(0...4) == 0 ? "nosuch" : "c\(src.int(0...(columns - 1)))"
            statements.append("ALTER TABLE t DROP COLUMN \(dropped)")
            return statements
        }
    }

    /// The queries compared after the drop, and after writes made with the new layout.
    private static let probes = [
        "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite%' AND name NOT LIKE 'granite%'"
            + " ORDER BY name",
        "SELECT * FROM t ORDER BY rowid",
    ]

    func testRandomDropsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var dropped = 0
        let rounds = 300 * stressFactor
        for _ in 0..<rounds {
            let oracle = Oracle()
            oracle.execute("PRAGMA foreign_keys = ON")
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            let statements = generator.scenario()
            var setupFailed = false
            for statement in statements.dropLast() {
                let expected = sqliteOutcome(oracle, statement)
                let actual = graniteOutcome(db, statement)
                if expected != actual {
                    failures.append("\(statement): sqlite \(expected ?? "ok"), granite \(actual ?? "ok")")
                    setupFailed = true
                    break
                }
            }
            if setupFailed { continue }
            let drop = statements.last!
            let expected = sqliteOutcome(oracle, drop)
            let actual = graniteOutcome(db, drop)
            let context = statements.joined(separator: "; ")
            guard expected == actual else {
                failures.append("\(context): sqlite \(expected ?? "ok"), granite \(actual ?? "ok")")
                continue
            }
            if expected == nil { dropped += 1 }
            var afterwards = Self.probes
            afterwards.insert(generator.insert(columns: 1 + generator.src.int(0...4)), at: 0)
            for sql in afterwards {
                let e = SelectDifferentialTests.sqlite(oracle, sql)
                let a = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(e, a, ordered: true) {
                    failures.append("\(context); \(sql): \(why)")
                }
            }
            let check = SelectDifferentialTests.granite(db, "PRAGMA integrity_check")
            if case .rows(_, let rows) = check, rows != [[.text("ok")]] {
                failures.append("\(context): integrity_check \(rows)")
            }
        }
        print("drop column: \(rounds) cases, \(dropped) drops done on both sides, seed \(seed)")
        XCTAssertGreaterThan(dropped, rounds / 5, "too few drops succeed: the generator tests only errors")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }

    /// A drop that a view refuses (SQLite's `error in view v after drop column`) leaves the table as it was, inside
    /// a transaction too (the results are SQLite 3.40.1's, run by its shell).
    func testDropRefusedByAViewChangesNothing() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(a, b, c); INSERT INTO t VALUES (1, 2, 3); CREATE VIEW v AS SELECT b FROM t; BEGIN")
        XCTAssertThrowsError(try db.execute("ALTER TABLE t DROP COLUMN b")) { error in
            XCTAssertEqual(graniteMessage(error), "error in view v after drop column: no such column: b")
        }
        XCTAssertEqual(try db.query("SELECT * FROM t").columns, ["a", "b", "c"])
        XCTAssertEqual(try db.query("SELECT * FROM v").rows, [[.integer(2)]])
        try db.execute("ALTER TABLE t DROP COLUMN c; COMMIT")
        XCTAssertEqual(try db.query("SELECT * FROM t").rows, [[.integer(1), .integer(2)]])
        XCTAssertEqual(try db.query("SELECT sql FROM sqlite_schema WHERE name = 't'").rows, [[.text("CREATE TABLE t(a, b)")]])
        XCTAssertEqual(try db.query("PRAGMA integrity_check").rows, [[.text("ok")]])
    }

    /// The rows are rewritten: text long enough to be stored compressed, and an INTEGER PRIMARY KEY after the
    /// dropped column, read back identically after the connection is closed and the file reopened.
    func testRowsAreRewrittenDurably() throws {
        let directory = try makeTemporaryDirectory()
        let path = directory.path("drop.granite")
        let long = String(repeating: "compressible text ", count: 40)
        do {
            let db = try SQLConnection(engine: try StorageEngine(path: path))
            try db.execute("CREATE TABLE t(a, b, id INTEGER PRIMARY KEY, c TEXT)")
            for k in 1...200 { try db.execute("INSERT INTO t(a, b, c) VALUES (\(k), 'b\(k)', '\(long)\(k)')") }
            try db.execute("ALTER TABLE t DROP COLUMN b")
            try db.engine.close()
        }
        let db = try SQLConnection(engine: try StorageEngine(path: path))
        XCTAssertEqual(try db.query("SELECT sql FROM sqlite_schema").rows, [
            [.text("CREATE TABLE t(a, id INTEGER PRIMARY KEY, c TEXT)")]
        ])
        let rows = try db.query("SELECT a, id, c FROM t ORDER BY id").rows
        XCTAssertEqual(rows.count, 200)
        XCTAssertEqual(rows.last, [.integer(200), .integer(200), .text("\(long)200")])
        XCTAssertEqual(try db.query("PRAGMA integrity_check").rows, [[.text("ok")]])
    }
}
