import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `DELETE FROM t` without WHERE, which Granite (like SQLite) runs by emptying the table's trees when nothing
/// needs the rows: the changes counted, the rowids and AUTOINCREMENT sequences after it, indexes, rollbacks,
/// and the cases that must still delete row by row (triggers, foreign keys, RETURNING).
final class DeleteAllDifferentialTests: XCTestCase {
    /// Runs `statements` on SQLite and Granite, comparing each one's outcome and the counters after it (the
    /// schemas differ by Granite's `granite_sequence`, so the final contents are compared by the statements).
    static func checkStatements(_ statements: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let oracle = Oracle()
        oracle.execute("PRAGMA foreign_keys = ON")
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let failures = statements.flatMap { TriggerDifferentialTests.compare($0, oracle, db) }
        XCTAssert(failures.isEmpty, failures.prefix(10).joined(separator: "\n"), file: file, line: line)
    }

    func testDeleteAllMatchesSQLite() throws {
        try Self.checkStatements([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE, c)",
            "CREATE INDEX tc ON t(c, b)",
            "CREATE TABLE s(a INTEGER PRIMARY KEY AUTOINCREMENT, b)",
            "INSERT INTO t(b, c) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) "
                + "SELECT i, 'v' || i || substr(hex(i * 7919) || 'abcdefghijklmnopqrstuvwxyz0123456789', 1, i % 40) FROM n",
            "INSERT INTO s(b) SELECT b FROM t",
            "DELETE FROM t",
            "SELECT changes(), total_changes()",
            "INSERT INTO t(b, c) VALUES (1, 2)",
            "SELECT a, b, c FROM t",
            "DELETE FROM s",
            "INSERT INTO s(b) VALUES ('after')",
            "SELECT a, b FROM s",
            "DELETE FROM t",
            "DELETE FROM t",
            "SELECT changes()",
            "BEGIN",
            "INSERT INTO t(b, c) VALUES (5, 5), (6, 6)",
            "SAVEPOINT x",
            "DELETE FROM t",
            "SELECT count(*) FROM t",
            "ROLLBACK TO x",
            "SELECT a, b, c FROM t ORDER BY a",
            "DELETE FROM t",
            "ROLLBACK",
            "SELECT count(*) FROM t WHERE c = 2",
            "PRAGMA integrity_check",
            "CREATE TEMP TABLE tt(a INTEGER PRIMARY KEY, b UNIQUE)",
            "INSERT INTO tt(b) VALUES (1), (2), (3)",
            "DELETE FROM tt",
            "SELECT changes()",
            "INSERT INTO tt(b) VALUES (1)",
            "SELECT a, b FROM tt",
            "SELECT a, b, c FROM t ORDER BY a",
            "SELECT a, b FROM s ORDER BY a",
        ])
    }

    func testRowsStillDeletedOneByOneWhenSomethingSeesThem() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE p(id INTEGER PRIMARY KEY, v)",
            "CREATE TABLE c(id INTEGER PRIMARY KEY, p REFERENCES p ON DELETE CASCADE)",
            "CREATE TABLE log(x)",
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
            "CREATE TRIGGER td AFTER DELETE ON t BEGIN INSERT INTO log VALUES (old.b); END",
            "INSERT INTO p VALUES (1, 'a'), (2, 'b')",
            "INSERT INTO c VALUES (10, 1), (11, 2), (12, NULL)",
            "INSERT INTO t VALUES (1, 'x'), (2, 'y')",
            "DELETE FROM p",
            "SELECT changes(), total_changes()",
            "SELECT id, p FROM c ORDER BY id",
            "DELETE FROM t",
            "SELECT x FROM log ORDER BY x",
            "INSERT INTO t VALUES (3, 'z')",
            "DELETE FROM t RETURNING a, b",
            "DELETE FROM c",
            "SELECT changes()",
        ])
    }

    func testRandomTruncationsMatchSQLite() throws {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        var failures: [String] = []
        var cases = 0
        for _ in 0..<(40 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = [
                "PRAGMA foreign_keys = \(src.bool() ? "ON" : "OFF")",
                "CREATE TABLE t(a INTEGER PRIMARY KEY\(src.bool() ? " AUTOINCREMENT" : ""), b, c)",
                "CREATE TABLE r(x REFERENCES t ON DELETE SET NULL)",
            ]
            if src.bool() { statements.append("CREATE INDEX tb ON t(b)") }
            if src.bool() { statements.append("CREATE UNIQUE INDEX tc ON t(c, a)") }
            for _ in 0..<src.int(4...12) {
                switch src.int(0...7) {
                case 0, 1:
                    statements.append(
                        "INSERT INTO t(b, c) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                            + "WHERE i < \(src.int(1...400))) SELECT i * \(src.int(1...9)), 'w' || i FROM n")
                case 2: statements.append("DELETE FROM t")
                case 3: statements.append("SELECT changes(), total_changes(), count(*), max(a) FROM t")
                case 4: statements.append(src.pick(["BEGIN", "SAVEPOINT s", "ROLLBACK TO s", "RELEASE s", "COMMIT"]))
                case 5: statements.append("INSERT INTO r SELECT a FROM t LIMIT \(src.int(0...3))")
                case 6: statements.append("DELETE FROM r")
                default:
                    statements.append("SELECT count(*), sum(b), min(a), max(a) FROM t WHERE b > \(src.int(0...100))")
                }
            }
            statements.append("PRAGMA integrity_check")
            statements.append("SELECT a, b, c FROM t ORDER BY a")
            var ran: [String] = []
            for sql in statements {
                cases += 1
                ran.append(sql)
                let found = TriggerDifferentialTests.compare(sql, oracle, db)
                if !found.isEmpty {
                    failures.append(found.joined(separator: "\n") + "\n  after: " + ran.joined(separator: ";\n    "))
                    break
                }
            }
        }
        XCTAssertGreaterThanOrEqual(cases, 200 * stressFactor)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches in \(cases) cases (GRANITE_SEED=\(seed)):\n"
                + failures.prefix(3).joined(separator: "\n"))
    }
}
