import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// What a writing statement that fails part-way keeps, against SQLite: inside a transaction SQLite undoes the
/// statement's earlier rows only when it opened a statement journal, which it does for a statement that may write
/// several rows and may abort (an ABORT constraint check, a scalar function call, triggers, foreign keys). The
/// cases cross table shapes, conflict clauses, the error that stops the statement and the transaction it runs in;
/// each script's results, change counters and final table contents are compared.
final class StatementJournalDifferentialTests: XCTestCase {
    /// Tables `t(a, b)` with the constraints that decide whether a check may abort.
    static let shapes = [
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b NOT NULL)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b NOT NULL DEFAULT 7)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b CHECK (b > 0))",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE ON CONFLICT IGNORE)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY ON CONFLICT IGNORE, b)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY ON CONFLICT FAIL, b UNIQUE ON CONFLICT REPLACE)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c AS (b + 1))",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c AS (abs(b)))",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER) STRICT",
        "CREATE TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, b)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c DEFAULT (lower('X')))",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b); CREATE INDEX ti ON t(b + 1)",
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b); CREATE UNIQUE INDEX ti ON t(b) WHERE b > 50",
    ]

    static let clauses = ["", " OR ABORT", " OR FAIL", " OR IGNORE", " OR REPLACE", " OR ROLLBACK"]

    /// Writes whose second row fails: on the INTEGER PRIMARY KEY's type, a STRICT column's type, a function's
    /// error, or a constraint; and writes that call a function without failing.
    static func writes(_ clause: String) -> [String] {
        [
            "INSERT\(clause) INTO t(a, b) VALUES (1, 1), ('x', 2), (3, 3)",
            "INSERT\(clause) INTO t(a, b) SELECT column1, column2 FROM (VALUES (1, 1), ('x', 2), (3, 3))",
            "INSERT\(clause) INTO t(a, b) VALUES (1, 1), (2, 'y'), (3, 3)",
            "INSERT\(clause) INTO t(a, b) VALUES (1, 1), (2, json('x')), (3, 3)",
            "INSERT\(clause) INTO t(a, b) VALUES (1, lower('A')), ('x', 2)",
            "INSERT\(clause) INTO t(a, b) VALUES (1, coalesce(1, 2)), ('x', 2)",
            "INSERT\(clause) INTO t(a, b) VALUES (1, 1), (100, 2), ('x', 3)",
            "INSERT\(clause) INTO t(a, b) VALUES (1, 1), (2, NULL), ('x', 3)",
            "INSERT\(clause) INTO t(a, b) VALUES (1, 1), (2, -2), ('x', 3)",
            "INSERT\(clause) INTO t(a, b) VALUES (1, 1), (2, 100), ('x', 3)",
            "INSERT\(clause) INTO t(b) VALUES (5), (6)",
            "UPDATE\(clause) t SET a = CASE a WHEN 50 THEN 5 ELSE 'x' END",
            "UPDATE\(clause) t SET a = CASE a WHEN 50 THEN 5 ELSE 'x' END WHERE b > 0",
            "UPDATE\(clause) t SET b = CASE a WHEN 50 THEN 5 ELSE json('x') END",
            "UPDATE\(clause) t SET b = CASE a WHEN 50 THEN 5 ELSE 'z' END",
        ]
    }

    /// How the write runs: in autocommit mode, in a transaction, or in a savepoint.
    static let transactions: [(begin: String?, end: String?)] = [
        (nil, nil), ("BEGIN", "COMMIT"), ("SAVEPOINT s", "RELEASE s"),
    ]

    /// Every combination under `GRANITE_STRESS=20` (about 4,000 scripts); a default run takes every twentieth,
    /// from an offset the seed picks.
    func testPartialWritesMatchSQLite() throws {
        let seed = testSeed()
        let stride = max(1, 20 / stressFactor)
        let offset = Int(seed % UInt64(stride))
        var failures: [String] = []
        var combination = 0
        for shape in Self.shapes {
            for clause in Self.clauses {
                for write in Self.writes(clause) {
                    for transaction in Self.transactions {
                        combination += 1
                        guard combination % stride == offset else { continue }
                        var script = shape.components(separatedBy: "; ")
                        script += ["INSERT INTO t(a, b) VALUES (100, 100), (101, 101)"]
                        script += [transaction.begin, "INSERT INTO t(a, b) VALUES (50, 50)", write, "SELECT * FROM t"]
                            .compactMap { $0 }
                        script += [transaction.end, "SELECT * FROM t"].compactMap { $0 }
                        if shape.contains("AUTOINCREMENT") { script.append("SELECT * FROM sqlite_sequence") }
                        // Granite's sequence table is `granite_sequence`, listed in the schema (its rows are
                        // compared through the `sqlite_sequence` name both read).
                        let mismatches = try TriggerDifferentialTests.mismatches(script).filter {
                            !($0.hasPrefix("schema:") && $0.contains("granite_sequence"))
                        }
                        if !mismatches.isEmpty {
                            failures.append(script.joined(separator: "; ") + "\n  " + mismatches.joined(separator: "\n  "))
                        }
                    }
                }
            }
        }
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) scripts differ (GRANITE_SEED=\(seed)):\n" + failures.prefix(10).joined(separator: "\n"))
    }

    /// A trigger whose program calls a function, and an enforced foreign key, make SQLite journal a statement
    /// whatever its conflict clause.
    func testTriggersAndForeignKeysJournalTheStatement() throws {
        for script in [
            [
                "CREATE TABLE t(a INTEGER PRIMARY KEY, b)", "CREATE TABLE log(x)",
                "CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.a); SELECT json('x') WHERE new.a = 2; END",
                "BEGIN", "INSERT OR IGNORE INTO t VALUES (1, 1), (2, 2)", "COMMIT",
            ],
            [
                "CREATE TABLE p(id INTEGER PRIMARY KEY)", "INSERT INTO p VALUES (1), (2)",
                "CREATE TABLE t(a INTEGER PRIMARY KEY, b REFERENCES p)",
                "BEGIN", "INSERT OR IGNORE INTO t VALUES (1, 1), ('x', 2)", "SELECT * FROM t", "COMMIT",
            ],
        ] {
            try TriggerDifferentialTests.check(script)
        }
    }

    /// Trigger bodies, from ones whose statements cannot abort to ones that can (a constraint the firing
    /// statement's conflict clause may or may not resolve, a function, `RAISE(ABORT)`, a nested trigger).
    static let triggerBodies = [
        "INSERT INTO log VALUES (new.a)",
        "INSERT INTO strict_log VALUES (new.a)",
        "INSERT OR IGNORE INTO unique_log VALUES (new.a)",
        "INSERT INTO unique_log VALUES (new.a)",
        "SELECT 1 WHERE new.a = 1000",
        "SELECT RAISE(IGNORE) WHERE new.a = 1000",
        "SELECT RAISE(FAIL, 'no') WHERE new.a = 1000",
        "SELECT RAISE(ABORT, 'no') WHERE new.a = 1000",
        "UPDATE log SET x = x + 1",
        "UPDATE log SET x = abs(x)",
        "DELETE FROM log WHERE x = new.a",
        "INSERT INTO chained VALUES (new.a)",
    ]

    /// Whether a statement firing triggers runs with a statement journal depends on what their programs run, as
    /// SQLite codes them into the statement: each body, before and after, on INSERT and UPDATE (with and without
    /// a `WHEN` calling a function), under each conflict clause, with a write whose second row fails on the
    /// INTEGER PRIMARY KEY's type inside a transaction. A default run takes every other combination (432 under
    /// `GRANITE_STRESS=2`), from an offset the seed picks.
    func testTriggerProgramsDecideWhetherTheStatementIsJournaled() throws {
        let seed = testSeed()
        let stride = max(1, 2 / stressFactor)
        let offset = Int(seed % UInt64(stride))
        var failures: [String] = []
        var combination = 0
        var scripts = 0
        for body in Self.triggerBodies {
            for timing in ["BEFORE", "AFTER"] {
                for (event, when) in [("INSERT", ""), ("UPDATE OF a", ""), ("INSERT", " WHEN lower(new.b) = 'q'")] {
                    for clause in Self.clauses {
                        combination += 1
                        guard combination % stride == offset else { continue }
                        let write = event == "INSERT"
                            ? "INSERT\(clause) INTO t VALUES (NULL, 'y'), (0.5, 9), (3, 3)"
                            : "UPDATE\(clause) t SET a = CASE a WHEN 1 THEN 20 ELSE 'x' END"
                        let script = [
                            "CREATE TABLE t(a INTEGER PRIMARY KEY, b)", "CREATE TABLE log(x)",
                            "CREATE TABLE strict_log(x NOT NULL)", "CREATE TABLE unique_log(x UNIQUE)",
                            "CREATE TABLE chained(x)", "CREATE TABLE chained_log(x INTEGER PRIMARY KEY)",
                            "CREATE TRIGGER chain AFTER INSERT ON chained BEGIN INSERT INTO chained_log VALUES (new.x * 2); END",
                            "INSERT INTO t VALUES (1, 'm'), (5, 'n')", "INSERT INTO log VALUES (1), (2)",
                            "CREATE TRIGGER tr \(timing) \(event) ON t\(when) BEGIN \(body); END",
                            "BEGIN", write, "SELECT * FROM t", "SELECT * FROM log", "COMMIT",
                            "SELECT * FROM t", "SELECT * FROM unique_log", "SELECT * FROM chained_log",
                        ]
                        scripts += 1
                        let mismatches = try TriggerDifferentialTests.mismatches(script)
                        if !mismatches.isEmpty {
                            failures.append(script.joined(separator: "; ") + "\n  " + mismatches.joined(separator: "\n  "))
                        }
                    }
                }
            }
        }
        XCTAssertEqual(scripts, 432 / stride)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) scripts differ (GRANITE_SEED=\(seed)):\n" + failures.prefix(10).joined(separator: "\n"))
    }

    /// A prepared REPLACE keeps following `PRAGMA recursive_triggers`: with it on, the rows REPLACE deletes fire
    /// DELETE triggers, so SQLite journals the statement and a failure undoes its earlier rows; with it off, they
    /// stay. The statement is prepared once on Granite and run under each setting in turn.
    func testPreparedReplaceFollowsRecursiveTriggers() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in [
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE)", "CREATE TABLE log(x)",
            "CREATE TRIGGER d AFTER DELETE ON t BEGIN INSERT INTO log VALUES (old.a); END",
            "INSERT INTO t VALUES (1, 'p'), (2, 'q')",
        ] {
            oracle.execute(statement)
            try db.execute(statement)
        }
        let write = "INSERT OR REPLACE INTO t VALUES (10, 'p'), ('x', 'z')"
        let prepared = try db.prepare(write)
        var outcomes: [String] = []
        // Ended by ROLLBACK, or by COMMIT after putting the rows back (a rollback might make Granite rebuild its
        // cached plans for another reason).
        for (setting, ending) in [(0, "ROLLBACK"), (1, "ROLLBACK"), (0, "COMMIT"), (1, "COMMIT"), (0, "COMMIT")] {
            let pragma = "PRAGMA recursive_triggers = \(setting)"
            oracle.execute(pragma)
            try db.execute(pragma)
            oracle.execute("BEGIN")
            try db.execute("BEGIN")
            let expectedWrite = SelectDifferentialTests.sqlite(oracle, write)
            let actualWrite: SelectDifferentialTests.Result
            do {
                try prepared.execute()
                actualWrite = .rows([], [])
            } catch {
                actualWrite = .failure(graniteMessage(error))
            }
            XCTAssertNil(SelectDifferentialTests.mismatch(expectedWrite, actualWrite, ordered: true), "setting \(setting)")
            let read = "SELECT (SELECT group_concat(a || b) FROM t), (SELECT group_concat(x) FROM log)"
            let expected = SelectDifferentialTests.sqlite(oracle, read)
            if let why = SelectDifferentialTests.mismatch(expected, SelectDifferentialTests.granite(db, read), ordered: true) {
                XCTFail("recursive_triggers = \(setting): \(why)")
            }
            if case .rows(_, let rows) = expected { outcomes.append("\(rows)") }
            let restore = ending == "ROLLBACK" ? [] : [
                "DELETE FROM t", "INSERT INTO t VALUES (1, 'p'), (2, 'q')", "DELETE FROM log",
            ]
            for statement in restore + [ending] {
                oracle.execute(statement)
                try db.execute(statement)
            }
        }
        // The two settings leave different rows in SQLite, so the comparison above tells them apart.
        XCTAssertNotEqual(outcomes[0], outcomes[1])
    }
}
