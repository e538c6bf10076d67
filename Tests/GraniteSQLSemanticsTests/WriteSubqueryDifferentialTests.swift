import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

/// Subqueries in INSERT `VALUES`, UPDATE `SET`, `RETURNING` and upsert clauses, against SQLite: an uncorrelated subquery runs once
/// per execution, a correlated one per row, RETURNING's see the table after the row's change, and a prepared
/// statement run again starts afresh.
final class WriteSubqueryDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c TEXT)",
        "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'x')",
        "CREATE TABLE log(n, m)",
    ]

    static let scripts: [[String]] = [
        ["UPDATE t SET b = (SELECT max(b) FROM t) + b", "SELECT * FROM t"],
        ["UPDATE t SET b = (SELECT count(*) FROM t AS s WHERE s.b < t.b)", "SELECT * FROM t"],
        ["UPDATE t SET b = (SELECT sum(b) FROM t AS s WHERE s.a <= t.a) WHERE c = 'x'", "SELECT * FROM t"],
        [
            "UPDATE t SET c = (SELECT c FROM t WHERE a = 2) WHERE a IN (SELECT a FROM t WHERE b > 15)",
            "SELECT * FROM t",
        ],
        ["UPDATE t SET b = EXISTS (SELECT 1 FROM log), c = (SELECT group_concat(c) FROM t)", "SELECT * FROM t"],
        ["UPDATE t SET b = (SELECT b, c FROM t)"],
        ["UPDATE t SET b = (SELECT zz FROM t)"],
        [
            "INSERT INTO log VALUES ((SELECT count(*) FROM log), 1), ((SELECT count(*) FROM log), 2)",
            "SELECT * FROM log",
        ],
        [
            "INSERT INTO log VALUES ((SELECT max(b) FROM t), (SELECT c FROM t ORDER BY a DESC LIMIT 1))",
            "SELECT * FROM log",
        ],
        ["INSERT INTO log VALUES (1 IN (SELECT a FROM t), (SELECT a FROM t WHERE b = 99))", "SELECT * FROM log"],
        ["INSERT INTO t(b) VALUES ((SELECT max(a) FROM t)) RETURNING a, (SELECT count(*) FROM t)", "SELECT * FROM t"],
        ["INSERT INTO t(b) VALUES (1), (2) RETURNING (SELECT max(a) FROM t), b", "SELECT * FROM t"],
        ["UPDATE t SET b = b + 1 WHERE a < 3 RETURNING a, (SELECT sum(b) FROM t)", "SELECT * FROM t"],
        ["DELETE FROM t WHERE a < 3 RETURNING a, (SELECT count(*) FROM t), (SELECT b FROM t AS s WHERE s.a = t.a)"],
        ["DELETE FROM t WHERE a = 2 RETURNING (SELECT abs(-9223372036854775807 - 1))", "SELECT * FROM t"],
        ["INSERT INTO log VALUES ((SELECT 1, 2), 1)"],
        // RETURNING of UPDATE … FROM: its subqueries see the table after each row's change.
        [
            "INSERT INTO log VALUES (1, 100), (3, 300), (4, 400)",
            "UPDATE t SET b = log.m FROM log WHERE log.n = t.a "
                + "RETURNING a, (SELECT count(*) FROM log WHERE log.n <= t.a), (SELECT sum(b) FROM t)",
            "SELECT * FROM t",
        ],
        // `table.*` is refused in RETURNING, whichever table it names.
        ["INSERT INTO log VALUES (1, 2) RETURNING log.*", "SELECT * FROM log"],
        ["UPDATE t SET b = 1 RETURNING b, t.*", "SELECT * FROM t"],
        ["DELETE FROM t WHERE a = 1 RETURNING nowhere.*", "SELECT * FROM t"],
        // Upserts: the existing row, `excluded`, and the table as it is when the conflict is met.
        [
            "UPDATE t SET c = 'z' WHERE a = 3", "CREATE UNIQUE INDEX tc ON t(c) WHERE c IS NOT NULL",
            "INSERT INTO t(b, c) VALUES (5, 'x') ON CONFLICT (c) WHERE c IS NOT NULL DO UPDATE SET "
                + "b = (SELECT sum(b) FROM t) + excluded.b + (SELECT count(*) FROM t AS s WHERE s.b < t.b)",
            "SELECT * FROM t",
        ],
        [
            "CREATE UNIQUE INDEX tb ON t(b)",
            "INSERT INTO t(b, c) VALUES (20, 'new'), (40, 'other') ON CONFLICT (b) DO UPDATE SET "
                + "c = (SELECT group_concat(c) FROM t) WHERE EXISTS (SELECT 1 FROM t AS s WHERE s.a > t.a) "
                + "RETURNING a, b, c",
            "SELECT * FROM t",
        ],
    ]

    func testWriteSubqueries() throws {
        var failures: [String] = []
        for script in Self.scripts {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in Self.schema {
                oracle.execute(sql)
                try db.execute(sql)
            }
            for sql in script {
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                let actual = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                    failures.append("\(script.joined(separator: "; ")) — at \(sql): \(why)")
                    break
                }
            }
        }
        XCTAssert(failures.isEmpty, failures.joined(separator: "\n"))
    }

    /// A prepared statement run several times: uncorrelated results are not carried over to the next run.
    func testPreparedStatementsRunAgain() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        let statements = [
            "INSERT INTO log VALUES ((SELECT count(*) FROM log), (SELECT ? + max(b) FROM t))",
            "UPDATE t SET b = (SELECT count(*) FROM log) + ? WHERE a = 1 RETURNING b, (SELECT count(*) FROM log)",
            "INSERT INTO log VALUES (?, 0) RETURNING n, (SELECT count(*) FROM log)",
        ]
        for round in 0..<3 {
            for sql in statements {
                let args: [Value] = [.integer(Int64(round))]
                let expected = oracle.all(sql, args)
                let actual = StatementOutcome.granite(db, sql, args)
                XCTAssertNil(StatementOutcome.mismatch(sqlite: expected, granite: actual, what: "\(sql) #\(round)"))
            }
        }
        let expected = oracle.all("SELECT * FROM log", [])
        let actual = StatementOutcome.granite(db, "SELECT * FROM log", [])
        XCTAssertNil(StatementOutcome.mismatch(sqlite: expected, granite: actual, what: "log"))
    }
}
