import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Random scripts of writes that call `changes()`, `total_changes()` and `last_insert_rowid()` in their values,
/// conditions, `RETURNING` lists, column defaults and trigger bodies, run on SQLite and Granite statement by
/// statement (each statement's rows or error and the counters after it, then the final tables).
final class ConnectionCounterRandomDifferentialTests: XCTestCase {
    private struct Script {
        var src: ValueSource

        static let schema = [
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE, c NOT NULL DEFAULT (changes()))",
            "CREATE TABLE log(id INTEGER PRIMARY KEY, what, n DEFAULT (last_insert_rowid()), m DEFAULT (total_changes()))",
            "CREATE TABLE p(id INTEGER PRIMARY KEY)",
            "CREATE TABLE k(id INTEGER PRIMARY KEY, p REFERENCES p ON DELETE CASCADE ON UPDATE SET NULL)",
            "CREATE VIEW v AS SELECT a, b, c FROM t",
            "INSERT INTO p VALUES (1), (2), (3), (4)",
            "INSERT INTO k VALUES (10, 1), (11, 2), (12, 2), (13, 3)",
        ]

        mutating func counter() -> String {
            src.pick(["changes()", "total_changes()", "last_insert_rowid()", "changes(*)"])
        }

        /// A value: a small integer, a counter call, or an expression of both.
        mutating func value() -> String {
            switch src.int(0...5) {
            case 0, 1: return "\(src.int(0...9))"
            case 2, 3: return counter()
            case 4: return "\(counter()) + \(src.int(0...3))"
            default: return "(\(counter()) % 5)"
            }
        }

        mutating func returning() -> String {
            src.int(0...3) == 0 ? " RETURNING \(counter()), \(counter())" : ""
        }

        mutating func trigger(_ number: Int) -> String {
            let timing = src.pick(["BEFORE", "AFTER"])
            let event = src.pick(["INSERT", "UPDATE", "DELETE"])
            let when = src.int(0...3) == 0 ? " WHEN \(counter()) >= \(src.int(0...3))" : ""
            var body = ["INSERT INTO log(what, n, m) VALUES ('tr\(number)', \(counter()), \(counter()))"]
            if src.bool() { body.append("INSERT INTO log(what) VALUES (\(counter()))") }
            if src.int(0...2) == 0 { body.append("DELETE FROM log WHERE id < \(counter()) - 8") }
            if src.int(0...2) == 0 { body.append("UPDATE p SET id = id WHERE id > \(counter())") }
            return "CREATE TRIGGER tr\(number) \(timing) \(event) ON t\(when) BEGIN "
                + body.joined(separator: "; ") + "; END"
        }

        mutating func viewTrigger() -> String {
            "CREATE TRIGGER tv INSTEAD OF INSERT ON v BEGIN INSERT INTO t(b, c) VALUES (new.b, \(value())); "
                + "INSERT INTO log(what) VALUES (\(counter())); END"
        }

        mutating func write() -> String {
            let key = src.int(0...12)
            switch src.int(0...14) {
            case 0: return "INSERT INTO t(b, c) VALUES (\(key), \(value()))" + returning()
            case 1: return "INSERT INTO t(b) VALUES (\(key)), (\(src.int(0...12)))" + returning()
            case 2:
                let action = src.pick(["OR IGNORE", "OR REPLACE", "OR FAIL", "OR ABORT", "OR ROLLBACK", ""])
                return "INSERT \(action) INTO t(a, b, c) VALUES (\(src.int(1...8)), \(key), \(value())), "
                    + "(\(src.int(1...8)), \(src.int(0...12)), \(value()))" + returning()
            case 3:
                return "INSERT INTO t(a, b, c) VALUES (\(src.int(1...8)), \(key), \(value())) ON CONFLICT(a) DO "
                    + "UPDATE SET c = \(value()) + excluded.c" + returning()
            case 4:
                return "INSERT INTO t(b, c) VALUES (\(key), \(value())) ON CONFLICT DO NOTHING" + returning()
            case 5: return "UPDATE t SET c = \(value()) WHERE a > \(value())" + returning()
            case 6: return "UPDATE OR IGNORE t SET b = b + 1 WHERE c <= \(value())" + returning()
            case 7: return "DELETE FROM t WHERE a % 3 = \(value()) % 3" + returning()
            case 8: return "INSERT INTO t(b, c) SELECT b + 20, \(value()) FROM t WHERE a < \(value())"
            case 9: return "INSERT INTO v(b) VALUES (\(key + 40))"
            case 10: return "DELETE FROM p WHERE id = \(src.int(1...4))" + returning()
            case 11: return "INSERT INTO t(c) VALUES (NULL)"
            case 12: return "SELECT \(counter()), \(counter()), (SELECT count(*) FROM t WHERE a <= \(counter()))"
            case 13: return "INSERT INTO log(what) VALUES (\(value()))"
            default: return "SELECT a, \(counter()) FROM t WHERE a = last_insert_rowid() OR b = \(value()) ORDER BY a"
            }
        }

        /// A whole script: the schema, some triggers, writes with savepoints around some of them.
        mutating func statements() -> [String] {
            var statements = ["PRAGMA foreign_keys = \(src.bool() ? "ON" : "OFF")"] + Self.schema
            for number in 0..<src.int(0...3) { statements.append(trigger(number)) }
            if src.bool() { statements.append(viewTrigger()) }
            for _ in 0..<src.int(6...14) {
                switch src.int(0...9) {
                case 0: statements.append("SAVEPOINT s")
                case 1: statements.append(src.pick(["ROLLBACK TO s", "RELEASE s"]))
                default: statements.append(write())
                }
                if src.int(0...2) == 0 { statements.append(ConnectionCounterFunctionDifferentialTests.counters) }
            }
            return statements
        }
    }

    func testRandomScriptsMatchSQLite() throws {
        let seed = testSeed()
        var script = Script(src: ValueSource(seed: seed))
        var failures: [String] = []
        var cases = 0
        for _ in 0..<(60 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var ran: [String] = []
            for sql in script.statements() {
                cases += 1
                ran.append(sql)
                let found = TriggerDifferentialTests.compare(sql, oracle, db)
                if !found.isEmpty {
                    failures.append(found.joined(separator: "\n") + "\n  after: " + ran.joined(separator: ";\n    "))
                    break
                }
            }
            let contents = TriggerDifferentialTests.compareContents(oracle, db)
            if !contents.isEmpty {
                failures.append(contents.joined(separator: "\n") + "\n  after: " + ran.joined(separator: ";\n    "))
            }
        }
        XCTAssertGreaterThanOrEqual(cases, 600 * stressFactor)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches in \(cases) cases (GRANITE_SEED=\(seed)):\n"
                + failures.prefix(3).joined(separator: "\n"))
    }
}
