import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `UPDATE t AS x …` and `DELETE FROM t AS x …`, run on SQLite and Granite: the alias alone qualifies the target's
/// columns in `SET`, `FROM`, `WHERE` and their subqueries, `RETURNING` still names the table, `EXPLAIN QUERY PLAN`
/// names the alias, and trigger bodies refuse it. Rows, errors (word for word), change counters, table contents and
/// plans must match.
final class WriteTargetAliasDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT)",
        "CREATE INDEX t_a ON t(a)",
        "CREATE TABLE u(k INTEGER PRIMARY KEY, a INTEGER, c)",
        "CREATE TABLE w(k TEXT PRIMARY KEY, a INTEGER, b) WITHOUT ROWID",
        "CREATE INDEX w_a ON w(a)",
        "CREATE TABLE log(what, a, b)",
        "CREATE VIEW v AS SELECT id, a, b FROM t",
        "CREATE TRIGGER vu INSTEAD OF UPDATE ON v BEGIN UPDATE t SET b = new.b WHERE id = old.id; END",
        "CREATE TRIGGER vd INSTEAD OF DELETE ON v BEGIN DELETE FROM t WHERE id = old.id; END",
        "INSERT INTO t VALUES (1, 1, 'one'), (2, 2, 'two'), (3, 3, 'three'), (4, NULL, 'four'), (5, 1, 'five')",
        "INSERT INTO u VALUES (1, 1, 10), (2, 3, 30), (3, 9, 90)",
        "INSERT INTO w VALUES ('k1', 1, 'x'), ('k2', 2, NULL), ('k3', 1, 'y')",
    ]

    /// Statements run in order after ``schema``: each must give SQLite's rows or error, changes and contents.
    func testAliasedWritesMatchSQLite() throws {
        try TriggerDifferentialTests.check(
            Self.schema + [
                "UPDATE t AS x SET b = x.b || '!' WHERE x.a = 1",
                "UPDATE t AS x SET b = upper(b) WHERE a = 2",
                "UPDATE main.t AS x SET a = x.a + 10 WHERE main.x.id = 3",
                "UPDATE OR IGNORE t AS \"X\" SET b = 'quoted' WHERE x.id = 4",
                "UPDATE t AS 'y' SET b = y.b || '?' WHERE y.id = 5",
                // The alias may be the table's own name, or that of a common table the statement hides.
                "UPDATE t AS t SET a = t.a WHERE t.id = 1",
                "WITH x AS (SELECT 1 AS a) UPDATE t AS x SET b = 'cte' WHERE x.a = 2",
                // Rowid lookups through the alias.
                "UPDATE t AS x SET b = 'by rowid' WHERE x.rowid = 2",
                "UPDATE t AS x SET b = 'by id' WHERE x.id = 1 RETURNING id, b",
                // INDEXED BY and NOT INDEXED after the alias.
                "UPDATE t AS x INDEXED BY t_a SET b = 'hinted' WHERE x.a = 2",
                "UPDATE t AS x NOT INDEXED SET b = 'plain' WHERE x.a = 1 RETURNING *",
                // Correlated subqueries read the target's row through the alias.
                "UPDATE t AS x SET b = (SELECT c FROM u WHERE u.a = x.a) WHERE EXISTS (SELECT 1 FROM u WHERE u.a = x.a)",
                "UPDATE t AS x SET (a, b) = (SELECT x.a + 1, c FROM u WHERE u.k = x.id) WHERE x.id < 3",
                "UPDATE t AS x SET b = 'in' WHERE x.a IN (SELECT a FROM t WHERE a = x.a AND id <> x.id)",
                // RETURNING names the table, not the alias, as SQLite 3.40 does.
                "UPDATE t AS x SET b = 'ret' WHERE x.id = 2 RETURNING t.a, b, (SELECT count(*) FROM u WHERE u.a = t.a)",
                "UPDATE t AS x SET b = (SELECT max(c) FROM u WHERE u.a <= x.a) WHERE x.id = 3 "
                    + "RETURNING (SELECT min(c) FROM u WHERE u.a >= t.a), id",
                // UPDATE … FROM: the alias qualifies the target in the assignments and the condition.
                "UPDATE t AS x SET b = u.c FROM u WHERE u.a = x.a",
                "UPDATE t AS x SET a = y.k FROM u AS y WHERE y.a = x.a AND x.id > 1 RETURNING id, a",
                "UPDATE t AS x INDEXED BY t_a SET b = x.b || u.c FROM (SELECT a, max(c) AS c FROM u GROUP BY a) AS u "
                    + "WHERE u.a = x.a",
                // DELETE.
                "DELETE FROM t AS x WHERE x.id = 4 RETURNING a, b",
                "DELETE FROM t AS x WHERE EXISTS (SELECT 1 FROM u WHERE u.c > 20 AND u.a = x.a) RETURNING id",
                "DELETE FROM t AS x INDEXED BY t_a WHERE x.a = 1",
                "DELETE FROM t AS x NOT INDEXED WHERE x.rowid = 99",
                // A WITHOUT ROWID target.
                "UPDATE w AS x SET b = x.k || x.a WHERE x.a = 1",
                "UPDATE w AS x INDEXED BY w_a SET a = x.a + 1 WHERE x.a = 2 RETURNING k, a",
                "DELETE FROM w AS x WHERE x.k = 'k1'",
                // Triggers on the target fire as for an unaliased write; their bodies see NEW and OLD, not the alias.
                "CREATE TRIGGER tu AFTER UPDATE ON t BEGIN INSERT INTO log VALUES ('u', old.b, new.b); END",
                "CREATE TRIGGER td BEFORE DELETE ON t BEGIN INSERT INTO log VALUES ('d', old.id, old.a); END",
                "UPDATE t AS x SET b = 'trig' WHERE x.id = 2",
                "DELETE FROM t AS x WHERE x.b = 'trig'",
                "SELECT * FROM log ORDER BY rowid",
                // A view's INSTEAD OF triggers run for an aliased write naming its columns unqualified.
                "UPDATE v AS x SET b = 'view' WHERE a = 3 RETURNING id, b",
                // The alias qualifies the view's columns in SET, the view's name in RETURNING.
                "UPDATE v AS x SET b = x.b || '!' WHERE a = 3 RETURNING v.b",
                "UPDATE v SET b = v.b || '?' WHERE v.a = 3 RETURNING v.b",
                "DELETE FROM v AS x WHERE a IN (SELECT x.a FROM u AS x) RETURNING *",
                "DELETE FROM v AS x WHERE b = 'view' RETURNING *",
                "UPDATE t AS x SET b = 'again' WHERE x.a > 0",
            ])
    }

    /// Prepared aliased writes run again with other arguments (reusing what their first run compiled): the rows
    /// they return and the tables after must be SQLite's.
    func testPreparedAliasedWritesRerunAsSQLite() throws {
        let (oracle, db) = try Oracle.enginesHolding(Self.schema)
        let writes: [(sql: String, runs: [[Value]])] = [
            (
                "UPDATE t AS x SET b = ? WHERE x.id = ? RETURNING id, b",
                [[.text("p"), .integer(1)], [.null, .integer(3)]]
            ),
            (
                "UPDATE t AS x SET a = x.a + ? WHERE x.a = ? RETURNING id, a",
                [[.integer(5), .integer(1)], [.integer(1), .integer(2)]]
            ),
            (
                "UPDATE w AS x SET b = ? || x.k WHERE x.a = ? RETURNING k, b",
                [[.text("w"), .integer(1)], [.text("v"), .integer(2)]]
            ),
            ("DELETE FROM t AS x WHERE x.b IS ? RETURNING id", [[.text("p")], [.null]]),
            ("DELETE FROM w AS x WHERE x.k = ? RETURNING k", [[.text("k1")], [.text("k3")]]),
        ]
        for (sql, runs) in writes {
            let statement = try db.prepare(sql)
            for arguments in runs {
                try statement.bind(arguments)
                let returned = try statement.all()
                statement.reset()
                guard case .rows(let expected) = oracle.all(sql, arguments) else {
                    XCTFail("SQLite failed: \(sql)")
                    continue
                }
                XCTAssertEqual(returned, expected, "\(sql) with \(arguments)")
            }
        }
        for table in ["SELECT * FROM t ORDER BY id", "SELECT * FROM w ORDER BY k"] {
            let why = SelectDifferentialTests.mismatch(
                SelectDifferentialTests.sqlite(oracle, table), SelectDifferentialTests.granite(db, table), ordered: true
            )
            XCTAssertNil(why, table)
        }
    }

    /// Statements that fail, each on a fresh ``schema``: the message must be SQLite's, word for word.
    static let failures = [
        // The table's name does not qualify the target once it has an alias.
        "UPDATE t AS x SET b = 1 WHERE t.a = 1",
        "UPDATE t AS x SET b = t.a",
        "UPDATE t AS x SET b = 1 WHERE main.t.a = 1",
        "UPDATE t AS x SET b = 1 WHERE t.rowid = 1",
        "UPDATE t AS x SET b = 1 WHERE t.id = 1",
        "DELETE FROM t AS x WHERE t.a = 1",
        "DELETE FROM t AS x WHERE t.rowid = 1",
        "UPDATE t AS x SET b = (SELECT c FROM u WHERE u.a = t.a)",
        "DELETE FROM t AS x WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
        "UPDATE t AS x SET b = u.c FROM u WHERE u.a = t.a",
        "UPDATE w AS x SET b = 1 WHERE w.k = 'k1'",
        "UPDATE t AS x SET b = 1 WHERE x.nosuch = 1",
        "UPDATE t AS x SET nosuch = 1",
        // SQLite 3.40 resolves no qualified column in the WHERE of an aliased view, nor the view's name in SET.
        "UPDATE v AS x SET b = 1 WHERE x.a = 1",
        "DELETE FROM v AS x WHERE x.a = 1",
        "UPDATE v AS x SET b = 1 WHERE v.a = 1",
        "DELETE FROM v AS x WHERE v.a = 1",
        "DELETE FROM v AS x WHERE a = 1 AND v.a = 1",
        "UPDATE v AS x SET b = 1 WHERE (SELECT x.a) = 1",
        "DELETE FROM v AS x WHERE EXISTS (SELECT 1 FROM u WHERE u.a = v.a)",
        "UPDATE v AS x SET b = v.b",
        "UPDATE v AS x SET b = 1 RETURNING x.a",
        // RETURNING does not see the alias.
        "UPDATE t AS x SET b = 1 RETURNING x.a",
        "DELETE FROM t AS x WHERE x.id = 1 RETURNING x.a",
        "UPDATE t AS x SET b = 1 RETURNING (SELECT count(*) FROM u WHERE u.a = x.a)",
        // The alias needs AS, and the assigned column takes no qualifier.
        "UPDATE t x SET b = 1",
        "DELETE FROM t x WHERE x.a = 1",
        "DELETE FROM t x INDEXED BY t_a WHERE x.a = 1",
        "UPDATE t AS x SET x.b = 1",
        "UPDATE t INDEXED BY t_a AS x SET b = 1",
        "UPDATE t AS x INDEXED BY nosuch SET b = 1",
        // Trigger bodies take no alias on an UPDATE or DELETE target, with a schema qualifier or without.
        "CREATE TRIGGER tr AFTER INSERT ON u BEGIN UPDATE t AS x SET b = 1; END",
        "CREATE TRIGGER tr AFTER INSERT ON u BEGIN DELETE FROM t AS x WHERE x.a = new.a; END",
        "CREATE TRIGGER tr AFTER INSERT ON u BEGIN DELETE FROM main.t AS x WHERE x.a = new.a; END",
        "CREATE TEMP TRIGGER tr AFTER INSERT ON u BEGIN UPDATE t AS x INDEXED BY t_a SET b = 1; END",
    ]

    func testErrorsMatchSQLiteWordForWord() throws {
        var mismatches: [String] = []
        for sql in Self.failures {
            let (oracle, db) = try Oracle.enginesHolding(Self.schema)
            guard case .failure(let expected) = SelectDifferentialTests.sqlite(oracle, sql) else {
                mismatches.append("\(sql): SQLite did not fail")
                continue
            }
            let actual = TriggerDifferentialTests.withoutLocation(SelectDifferentialTests.granite(db, sql))
            guard case .failure(let message) = actual else {
                mismatches.append("\(sql): Granite did not fail (SQLite: \(expected))")
                continue
            }
            if message != expected { mismatches.append("\(sql): sqlite '\(expected)', granite '\(message)'") }
        }
        XCTAssert(mismatches.isEmpty, mismatches.joined(separator: "\n"))
    }

    /// `EXPLAIN QUERY PLAN` names the target by its alias.
    static let plannedWrites = [
        "UPDATE t AS x SET b = 1 WHERE x.a = 1",
        "UPDATE t AS x INDEXED BY t_a SET b = 1 WHERE x.a > 1",
        "UPDATE t AS x NOT INDEXED SET b = 1 WHERE x.a = 1",
        "UPDATE t AS x SET b = 1",
        "UPDATE t AS x SET b = (SELECT c FROM u WHERE u.k = x.id) WHERE x.a IN (1, 2)",
        "UPDATE t AS x SET (a, b) = (SELECT a, c FROM u WHERE u.k = x.id) WHERE x.a > 2",
        "DELETE FROM t AS x WHERE x.id = 3",
        "DELETE FROM t AS x WHERE x.rowid = 3",
        "DELETE FROM t AS x WHERE x.a = (SELECT max(a) FROM u WHERE u.k = x.id)",
        "DELETE FROM t AS x RETURNING a",
        "DELETE FROM w AS x WHERE x.k = 'k2'",
    ]

    /// Writes whose plans differ only in that SQLite, collecting the rowids (or keys) first, reads the index as
    /// covering, where Granite reads each changed row whole.
    static let coveringOnlyInSQLite = [
        "UPDATE t AS x SET b = u.c FROM u WHERE u.a = x.a",
        "UPDATE w AS x SET b = 1 WHERE x.a = 2",
        "DELETE FROM w AS x WHERE x.a = 1",
    ]

    func testPlansNameTheAlias() throws {
        let (oracle, db) = try Oracle.enginesHolding(Self.schema)
        func details(_ result: SelectDifferentialTests.Result) -> [String] {
            guard case .rows(_, let rows) = result else { return ["\(result)"] }
            return rows.map { row in
                guard case .text(let detail)? = row.last else { return "\(row)" }
                return detail
            }
        }
        for sql in Self.plannedWrites + Self.coveringOnlyInSQLite {
            let plan = "EXPLAIN QUERY PLAN " + sql
            var expected = details(SelectDifferentialTests.sqlite(oracle, plan))
            XCTAssert(expected.contains { $0.contains(" x") }, "SQLite's plan names the alias: \(expected)")
            if Self.coveringOnlyInSQLite.contains(sql) {
                XCTAssert(expected.contains { $0.contains("COVERING INDEX") }, "\(sql): \(expected)")
                expected = expected.map { $0.replacingOccurrences(of: "COVERING INDEX", with: "INDEX") }
            }
            XCTAssertEqual(details(SelectDifferentialTests.granite(db, plan)), expected, sql)
        }
        // Emptying a table reads no row, so there is no plan; a trigger on deletes makes it read every row.
        let emptying = "EXPLAIN QUERY PLAN DELETE FROM t AS x"
        XCTAssertEqual(details(SelectDifferentialTests.sqlite(oracle, emptying)), [])
        XCTAssertEqual(details(SelectDifferentialTests.granite(db, emptying)), [])
        let trigger = "CREATE TRIGGER td AFTER DELETE ON t BEGIN SELECT 1; END"
        oracle.execute(trigger)
        try db.execute(trigger)
        XCTAssertEqual(details(SelectDifferentialTests.sqlite(oracle, emptying)), ["SCAN x"])
        XCTAssertEqual(details(SelectDifferentialTests.granite(db, emptying)), ["SCAN x"])
    }

    /// Random aliased writes of ``IndexedByDifferentialTests``'s workload, conditions naming the alias, with each
    /// index hint: the tables after each must be SQLite's.
    func testRandomAliasedWritesMatchSQLite() throws {
        let seed = testSeed()
        var workload = IndexedByDifferentialTests.Workload(src: ValueSource(seed: seed))
        var failures: [String] = []
        var writes = 0
        for _ in 0..<(2 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var setup = IndexedByDifferentialTests.schema
            for id in 1...workload.src.int(15...40) { setup.append(workload.insert(id)) }
            for sql in setup {
                oracle.execute(sql)
                try db.execute(IndexedByDifferentialTests.forGranite(sql))
            }
            for _ in 0..<40 {
                let hint = workload.src.pick(IndexedByDifferentialTests.hints)
                let condition = workload.condition("x")
                let sql =
                    workload.src.bool()
                    ? "UPDATE t AS x\(hint) SET b = \(workload.src.pick(["'a'", "x.b || 'z'", "NULL"])), "
                        + "a = x.a + 1 WHERE \(condition) RETURNING id, a, b"
                    : "DELETE FROM t AS x\(hint) WHERE \(condition) RETURNING id"
                writes += 1
                for check in [sql, "SELECT * FROM t ORDER BY id"] {
                    let expected = SelectDifferentialTests.sqlite(oracle, check)
                    let actual = SelectDifferentialTests.granite(db, IndexedByDifferentialTests.forGranite(check))
                    if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: false) {
                        failures.append("\(check) (after \(sql)): \(why)")
                    }
                }
                if failures.count >= 10 { break }
            }
        }
        print("aliased writes: \(writes) compared, seed \(seed)")
        XCTAssert(failures.isEmpty, "(GRANITE_SEED=\(seed))\n" + failures.joined(separator: "\n"))
    }
}
