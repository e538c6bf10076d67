import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `INDEXED BY` and `NOT INDEXED` change only how a table is read: each random query and write runs plain, with
/// `NOT INDEXED` and with `INDEXED BY` each index of the table, and must give SQLite's rows (or SQLite's error,
/// `no query solution` for a partial index the query is not confined to), while Granite's `EXPLAIN QUERY PLAN`
/// shows the access path the clause asks for. Fixed cases check the errors of names that resolve to no index
/// and the clause in views and trigger bodies.
final class IndexedByDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL, d, e UNIQUE)",
        "CREATE INDEX t_a ON t(a)",
        "CREATE INDEX t_ab ON t(a, b)",
        "CREATE INDEX t_b ON t(b COLLATE NOCASE)",
        "CREATE INDEX t_c ON t(c DESC)",
        "CREATE INDEX t_dp ON t(d) WHERE d > 0",
        "CREATE INDEX t_dn ON t(d) WHERE d IS NOT NULL",
        "CREATE INDEX t_ac ON t(a + c)",
        "CREATE INDEX t_ar ON t(a) WHERE a = 1 OR a = 2",
        "CREATE TABLE u(id INTEGER PRIMARY KEY, a INTEGER, b TEXT)",
        "CREATE INDEX u_a ON u(a)",
        "CREATE VIEW v AS SELECT id, a FROM u",
        "CREATE TABLE w(k TEXT PRIMARY KEY, a INTEGER, b) WITHOUT ROWID",
        "CREATE INDEX w_a ON w(a)",
        "CREATE INDEX w_b ON w(b) WHERE b IS NOT NULL",
    ]

    /// The indexes of `t` an `INDEXED BY` names, by SQLite's names (see ``forGranite(_:)``).
    static let indexes = ["t_a", "t_ab", "t_b", "t_c", "t_dp", "t_dn", "t_ac", "t_ar", "sqlite_autoindex_t_1"]

    static let hints = ["", " NOT INDEXED"] + indexes.map { " INDEXED BY \($0)" }

    /// The hints for `w`, whose primary key index is the table itself.
    static let withoutRowidHints =
        ["", " NOT INDEXED"]
        + ["w_a", "w_b", "sqlite_autoindex_w_1"].map { " INDEXED BY \($0)" }

    /// `sql` with SQLite's names of automatic indexes written as Granite names them.
    static func forGranite(_ sql: String) -> String {
        sql.replacingOccurrences(of: "sqlite_autoindex_", with: "granite_autoindex_")
    }

    struct Workload {
        var src: ValueSource

        mutating func literal() -> String {
            src.pick(["NULL", "-2", "0", "1", "2", "3", "5", "1.5", "'a'", "'B'", "'1'", "x'61'"])
        }

        mutating func small() -> String { src.pick(["-1", "0", "1", "2", "3", "4"]) }

        mutating func insert(_ id: Int) -> String {
            let e = src.int(0...3) == 0 ? "NULL" : "\(id * 7 % 50)"
            return
                "INSERT INTO t VALUES (\(id), \(literal()), \(src.pick(["NULL", "'a'", "'A'", "'b'", "'B'", "'1'"])), "
                + "\(src.pick(["NULL", "0.5", "1.0", "2", "-1.5", "'x'"])), \(literal()), \(e))"
        }

        /// A condition on table `t`, referred to as `name`.
        mutating func condition(_ name: String) -> String {
            let t = name
            switch src.int(0...18) {
            case 0: return "\(t).a = \(literal())"
            case 1: return "\(t).a > \(small())"
            case 2: return "\(t).a BETWEEN \(small()) AND \(small())"
            case 3: return "\(t).a IN (\(literal()), \(literal()))"
            case 4: return "\(t).a = \(small()) AND \(t).b = \(src.pick(["'a'", "'b'", "'1'"]))"
            case 5: return "\(t).b = \(src.pick(["'a'", "'B'"])) COLLATE NOCASE"
            case 6: return "\(t).c < \(src.pick(["0", "1", "2.5"]))"
            case 7: return "\(t).id = \(small())"
            case 8: return "\(t).id > \(small())"
            case 9: return "\(t).e = \(src.int(0...49))"
            case 10: return "\(t).d > 0"
            case 11: return "\(t).d > 0 AND \(t).a = \(small())"
            case 12: return "\(t).d IS NOT NULL"
            case 13: return "\(t).d = \(literal())"
            case 14: return "\(t).d > \(small())"
            case 15: return "\(t).a + \(t).c > \(small())"
            case 16:
                return "\(t).d \(src.pick(["LIKE", "GLOB", "NOT LIKE"])) \(src.pick(["'a'", "'a%'", "'1'", "'%'"]))"
            case 17: return "NOT \(t).d \(src.pick(["<", "=", "IS"])) \(small())"
            default: return "1"
            }
        }

        /// A query reading `t` through `hint`, and whether its row order is defined.
        mutating func query(hint: String, shape: Int, condition: String, aliased: Bool, order: String) -> (
            sql: String, ordered: Bool
        ) {
            let source = aliased ? "t AS x\(hint)" : "t\(hint)"
            let t = aliased ? "x" : "t"
            switch shape {
            case 0:
                return (
                    "SELECT \(t).id, \(t).a, \(t).b, \(t).c FROM \(source) WHERE \(condition)\(order)", !order.isEmpty
                )
            case 1:
                return ("SELECT \(t).id, u.id FROM \(source) JOIN u ON u.a = \(t).a WHERE \(condition)", false)
            case 2:
                return (
                    "SELECT u.id, (SELECT count(*) FROM \(source) WHERE \(t).a = u.a AND \(condition)) FROM u", false
                )
            case 3:
                return ("SELECT count(*), sum(\(t).id), max(\(t).b) FROM \(source) WHERE \(condition)", false)
            case 4:
                return ("SELECT \(t).a, count(*) FROM \(source) WHERE \(condition) GROUP BY \(t).a", false)
            default:
                return ("SELECT u.id, \(t).id FROM u LEFT JOIN \(source) ON \(t).a = u.a AND \(condition)", false)
            }
        }

        mutating func write(hint: String) -> String {
            let condition = condition("t")
            if src.bool() {
                return "UPDATE t\(hint) SET b = \(src.pick(["'a'", "'B'", "NULL"])), a = a + 1 WHERE \(condition)"
            }
            return "DELETE FROM t\(hint) WHERE \(condition)"
        }
    }

    /// The outcome of `sql` on SQLite (rows, or the error message).
    private func sqlite(_ oracle: Oracle, _ sql: String, ordered: Bool) -> StatementOutcome {
        let outcome = oracle.all(sql, [])
        return ordered ? outcome : outcome.sortedRows
    }

    private func granite(_ db: SQLConnection, _ sql: String, ordered: Bool) -> StatementOutcome {
        let outcome = granite(db, sql)
        return ordered ? outcome : outcome.sortedRows
    }

    /// The outcome of `sql` on Granite, a syntax error by its message alone (without its location), as SQLite
    /// reports it.
    private func granite(_ db: SQLConnection, _ sql: String) -> StatementOutcome {
        do {
            return .rows(try db.query(Self.forGranite(sql)).rows)
        } catch let error as SQLSyntaxError {
            return .failure(error.message)
        } catch {
            return .failure(graniteMessage(error))
        }
    }

    /// Why the outcomes differ (rows, or error messages, which must be SQLite's), or nil.
    private func difference(_ expected: StatementOutcome, _ actual: StatementOutcome, _ sql: String) -> String? {
        if case .failure(let e) = expected, case .failure(let a) = actual {
            return e == a ? nil : "\(sql): sqlite error '\(e)', granite error '\(a)'"
        }
        return StatementOutcome.mismatch(sqlite: expected, granite: actual, what: sql)
    }

    /// Why Granite's plan for `sql` does not read `name` as `hint` asks, or nil; counts the reads checked.
    private func planProblem(
        _ db: SQLConnection, _ sql: String, hint: String, name: String, checked: inout Int
    ) throws -> String? {
        let hint = Self.forGranite(hint)
        let lines = try db.query("EXPLAIN QUERY PLAN " + Self.forGranite(sql)).rows.compactMap { row -> String? in
            guard case .text(let detail)? = row.last else { return nil }
            return detail
        }
        let reads = lines.filter { $0.hasPrefix("SCAN \(name)") || $0.hasPrefix("SEARCH \(name)") }.filter {
            let rest = $0.drop(while: { $0 != " " }).dropFirst().dropFirst(name.count)
            return rest.isEmpty || rest.first == " "
        }
        checked += reads.count
        for line in reads {
            if hint == " NOT INDEXED", line.contains("INDEX ") {
                return "\(sql): NOT INDEXED read through an index: \(line)"
            }
            if hint.hasPrefix(" INDEXED BY "), !line.contains("INDEX \(hint.dropFirst(12))") {
                return "\(sql): \(hint) not read through it: \(line)"
            }
        }
        return nil
    }

    private func makeDatabases(_ workload: inout Workload) throws -> (Oracle, SQLConnection) {
        let (oracle, db) = try Oracle.enginesHolding(Self.schema)
        for id in 1...workload.src.int(15...40) {
            let sql = workload.insert(id)
            oracle.execute(sql)
            try db.execute(sql)
        }
        for id in 1...12 {
            let u = "INSERT INTO u VALUES (\(id), \(workload.small()), 'u\(id)')"
            let w = "INSERT INTO w VALUES ('k\(id)', \(workload.small()), \(workload.src.pick(["NULL", "'x'", "1"])))"
            for sql in [u, w] {
                oracle.execute(sql)
                try db.execute(sql)
            }
        }
        return (oracle, db)
    }

    func testHintedQueriesMatchSQLite() throws {
        let seed = testSeed()
        var workload = Workload(src: ValueSource(seed: seed))
        var failures: [String] = []
        var compared = 0
        var unusable = 0
        var planReads = 0
        for _ in 0..<(2 * stressFactor) {
            let (oracle, db) = try makeDatabases(&workload)
            for _ in 0..<60 {
                let shape = workload.src.int(0...5)
                let aliased = workload.src.int(0...3) == 0
                let name = aliased ? "x" : "t"
                let condition = workload.condition(name)
                let order =
                    shape == 0
                    ? workload.src.pick([
                        "", " ORDER BY \(name).a, \(name).id", " ORDER BY \(name).c DESC, \(name).id",
                        " ORDER BY \(name).id DESC",
                    ]) : ""
                for hint in Self.hints {
                    let (sql, ordered) = workload.query(
                        hint: hint, shape: shape, condition: condition, aliased: aliased, order: order)
                    let expected = sqlite(oracle, sql, ordered: ordered)
                    let actual = granite(db, sql, ordered: ordered)
                    compared += 1
                    if case .failure(let message) = expected, message == "no query solution" { unusable += 1 }
                    if let failure = difference(expected, actual, sql) { failures.append(failure) }
                    if case .rows = actual,
                        let problem = try planProblem(db, sql, hint: hint, name: name, checked: &planReads)
                    {
                        failures.append(problem)
                    }
                }
                if failures.count >= 10 { break }
            }
        }
        print(
            "INDEXED BY queries: \(compared) compared, \(unusable) without a query solution, \(planReads) plan lines "
                + "checked, seed \(seed)")
        XCTAssertGreaterThan(unusable, 0)
        XCTAssertGreaterThan(planReads, compared / 2)
        if !failures.isEmpty {
            XCTFail("INDEXED BY differs from SQLite (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n"))
        }
    }

    func testHintedWritesMatchSQLite() throws {
        let seed = testSeed()
        var workload = Workload(src: ValueSource(seed: seed))
        var failures: [String] = []
        var writes = 0
        for _ in 0..<(2 * stressFactor) {
            let (oracle, db) = try makeDatabases(&workload)
            for _ in 0..<40 {
                let sql = workload.write(hint: workload.src.pick(Self.hints))
                writes += 1
                if let failure = difference(oracle.all(sql, []), granite(db, sql), sql) {
                    failures.append(failure)
                    break
                }
                let table = "SELECT * FROM t ORDER BY id"
                if let failure = difference(
                    oracle.all(table, []), granite(db, table), "after \(sql)")
                {
                    failures.append(failure)
                    break
                }
            }
        }
        print("INDEXED BY writes: \(writes) compared, seed \(seed)")
        if !failures.isEmpty {
            XCTFail("INDEXED BY writes differ from SQLite (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n"))
        }
    }

    func testWithoutRowidHintsMatchSQLite() throws {
        let seed = testSeed()
        var workload = Workload(src: ValueSource(seed: seed))
        let (oracle, db) = try makeDatabases(&workload)
        var failures: [String] = []
        var compared = 0
        for _ in 0..<(60 * stressFactor) {
            let condition = workload.src.pick([
                "k = 'k3'", "k > 'k5'", "k BETWEEN 'k2' AND 'k4'", "a = \(workload.small())", "a > \(workload.small())",
                "b IS NOT NULL", "b = 'x'", "b IS NOT NULL AND a = 1", "1",
            ])
            let order = workload.src.pick(["", " ORDER BY k", " ORDER BY a, k", " ORDER BY k DESC"])
            for hint in Self.withoutRowidHints {
                let sql = "SELECT k, a, b FROM w\(hint) WHERE \(condition)\(order)"
                compared += 1
                let ordered = !order.isEmpty
                if let failure = difference(
                    sqlite(oracle, sql, ordered: ordered), granite(db, sql, ordered: ordered), sql)
                {
                    failures.append(failure)
                }
            }
            if failures.count >= 10 { break }
        }
        print("INDEXED BY on WITHOUT ROWID: \(compared) compared, seed \(seed)")
        if !failures.isEmpty {
            XCTFail(
                "WITHOUT ROWID hints differ from SQLite (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n"))
        }
    }

    /// Statements run in order on both engines: each must give SQLite's rows or SQLite's error message.
    static let script = [
        "INSERT INTO t VALUES (1, 1, 'a', 0.5, 4, 10), (2, 2, 'b', 1.5, -1, 20), (3, NULL, 'A', NULL, NULL, NULL)",
        "INSERT INTO u VALUES (1, 1, 'x'), (2, 3, 'y')",
        // Names that resolve to no index of the table.
        "SELECT * FROM t INDEXED BY nosuch",
        "SELECT * FROM t INDEXED BY u_a",
        "SELECT * FROM u INDEXED BY t_a WHERE a = 1",
        "SELECT * FROM t INDEXED BY T_A WHERE a = 1",
        "SELECT * FROM nosuch INDEXED BY t_a",
        "SELECT * FROM v INDEXED BY t_a",
        "SELECT * FROM v NOT INDEXED ORDER BY id",
        "WITH c AS (SELECT 1) SELECT * FROM c INDEXED BY t_a",
        "WITH c AS (SELECT 1) SELECT * FROM c NOT INDEXED",
        "UPDATE t INDEXED BY nosuch SET b = 'z'",
        "DELETE FROM t INDEXED BY nosuch WHERE a = 1",
        "DELETE FROM u INDEXED BY nosuch",
        // Partial indexes: usable only when the query implies their WHERE.
        "SELECT id FROM t INDEXED BY t_dp WHERE d > 0",
        "SELECT id FROM t INDEXED BY t_dp WHERE d > 0 AND a = 1",
        "SELECT id FROM t INDEXED BY t_dp WHERE d = 4",
        "SELECT id FROM t INDEXED BY t_dp",
        "SELECT id FROM t INDEXED BY t_dn WHERE d = 4",
        "SELECT id FROM t INDEXED BY t_dn WHERE d BETWEEN 0 AND 9",
        "SELECT id FROM t INDEXED BY t_dn WHERE d IS NOT NULL",
        "SELECT id FROM t INDEXED BY t_dn WHERE d NOTNULL",
        "SELECT id FROM t INDEXED BY t_dn WHERE a = 1",
        "SELECT id FROM t INDEXED BY t_dp WHERE 0 < d",
        "SELECT id FROM t INDEXED BY t_dp WHERE d > 0.0",
        "SELECT id FROM t INDEXED BY t_dp WHERE +d > 0",
        "SELECT id FROM t INDEXED BY t_dp WHERE d > 0 OR a = 1",
        "SELECT id FROM t AS x INDEXED BY t_dp WHERE x.D > 0",
        "SELECT id FROM t INDEXED BY t_dn WHERE d + 1 > 0 AND NOT d < -5",
        "SELECT id FROM t INDEXED BY t_dn WHERE d NOT BETWEEN 1 AND 2",
        "SELECT id FROM t INDEXED BY t_dn WHERE 1 BETWEEN d AND 2",
        "SELECT id FROM t INDEXED BY t_dn WHERE d IS 4",
        "SELECT id FROM t INDEXED BY t_dn WHERE d LIKE '4'",
        "SELECT id FROM t INDEXED BY t_dn WHERE d LIKE 'a%'",
        "SELECT id FROM t INDEXED BY t_dn WHERE d GLOB 'a*'",
        "SELECT id FROM t INDEXED BY t_dn WHERE d LIKE '%a'",
        "SELECT id FROM t INDEXED BY t_dn WHERE d LIKE 'a!%' ESCAPE '!'",
        "SELECT id FROM t INDEXED BY t_dn WHERE d NOT LIKE 'a'",
        "SELECT id FROM t INDEXED BY t_dn WHERE d IN (SELECT 4)",
        "SELECT id FROM t INDEXED BY t_dn WHERE d > 0 OR d < -1",
        "SELECT id FROM t INDEXED BY t_dn WHERE coalesce(d, 1) = 1",
        "SELECT id FROM t INDEXED BY t_ar WHERE a = 2",
        "SELECT id FROM t INDEXED BY t_ar WHERE a IN (1, 2)",
        "SELECT u.id, t.id FROM u LEFT JOIN t INDEXED BY t_dp ON t.a = u.a WHERE t.d > 0",
        "SELECT u.id, t.id FROM u LEFT JOIN t INDEXED BY t_dp ON t.a = u.a AND t.d > 0 ORDER BY u.id",
        "UPDATE t INDEXED BY t_dp SET b = 'z' WHERE a = 1",
        "DELETE FROM t INDEXED BY t_dp WHERE a = 1",
        "UPDATE t INDEXED BY t_dp SET b = 'p' WHERE d > 0",
        "SELECT * FROM t ORDER BY id",
        // A rowid term does not stop INDEXED BY from reading the index, nor NOT INDEXED from using the rowid.
        "SELECT * FROM t INDEXED BY t_a WHERE id = 2",
        "SELECT * FROM t NOT INDEXED WHERE id = 2",
        "SELECT * FROM t NOT INDEXED WHERE e = 20",
        // Trigger bodies: refused on UPDATE and DELETE, taken in queries; the name is checked when the trigger runs.
        "CREATE TRIGGER tr1 AFTER INSERT ON u BEGIN UPDATE t INDEXED BY t_a SET b = 'z'; END",
        "CREATE TRIGGER tr1 AFTER INSERT ON u BEGIN DELETE FROM t NOT INDEXED WHERE a = new.a; END",
        "CREATE TRIGGER tr2 AFTER INSERT ON u BEGIN SELECT * FROM t INDEXED BY nosuch; END",
        "INSERT INTO u VALUES (3, 1, 'z')",
        "DROP TRIGGER tr2",
        "CREATE TRIGGER tr3 AFTER INSERT ON u BEGIN "
            + "UPDATE t SET b = 'trig' WHERE id IN (SELECT id FROM t INDEXED BY t_a WHERE a = new.a); END",
        "INSERT INTO u VALUES (4, 2, 'w')",
        "SELECT * FROM t ORDER BY id",
        // Views keep the clause through ALTER TABLE RENAME, and report a missing index when read or checked.
        "CREATE VIEW vi AS SELECT id, a FROM t INDEXED BY t_a WHERE a > 0",
        "SELECT * FROM vi ORDER BY id",
        "ALTER TABLE t RENAME TO t2",
        "SELECT * FROM vi ORDER BY id",
        // The trigger's query was rewritten with the clause kept.
        "INSERT INTO u VALUES (5, 1, 'v')",
        "SELECT * FROM t2 ORDER BY id",
        "SELECT sql LIKE '%\"t2\" INDEXED BY t_a%' FROM sqlite_schema WHERE name = 'tr3'",
        "SELECT sql LIKE '%indexed by t_a%' FROM sqlite_schema WHERE name = 'vi'",
        "CREATE VIEW vbad AS SELECT * FROM t2 INDEXED BY nosuch",
        "SELECT * FROM vbad",
        "ALTER TABLE u RENAME TO u2",
        // Deleting every row reads no index: a partial one is no obstacle.
        "DELETE FROM t2 INDEXED BY t_dp",
        "SELECT count(*) FROM t2",
    ]

    func testErrorsAndSchemaObjectsMatchSQLite() throws {
        let (oracle, db) = try Oracle.enginesHolding(Self.schema)
        var failures: [String] = []
        for sql in Self.script {
            let expected = oracle.all(sql, [])
            let actual = granite(db, sql)
            if let failure = difference(expected, actual, sql) { failures.append(failure) }
        }
        if !failures.isEmpty { XCTFail(failures.joined(separator: "\n")) }
    }

    /// `EXPLAIN QUERY PLAN` shows the access path the clause asks for, in SQLite's words.
    static let plannedQueries = [
        "SELECT * FROM t INDEXED BY t_a WHERE a = 1",
        "SELECT * FROM t INDEXED BY t_a WHERE a > 1",
        "SELECT * FROM t INDEXED BY t_a WHERE a IN (1, 2)",
        "SELECT * FROM t INDEXED BY t_a",
        "SELECT * FROM t INDEXED BY t_a WHERE id = 1",
        "SELECT * FROM t INDEXED BY t_b WHERE a = 1",
        "SELECT * FROM t AS x INDEXED BY t_ab WHERE x.a = 1 AND x.b > 'a'",
        "SELECT * FROM t INDEXED BY t_dp WHERE d > 0",
        "SELECT * FROM t NOT INDEXED WHERE id = 1",
        "SELECT * FROM t NOT INDEXED WHERE id > 1",
        "SELECT * FROM t NOT INDEXED WHERE a = 1",
        "SELECT * FROM t NOT INDEXED WHERE e = 1",
        "SELECT * FROM t NOT INDEXED ORDER BY a",
        "SELECT t.id, u.b FROM t NOT INDEXED, u INDEXED BY u_a WHERE t.a = u.a",
        "SELECT u.b, t.b FROM u LEFT JOIN t INDEXED BY t_a ON t.a = u.a",
        "SELECT * FROM w NOT INDEXED WHERE k = 'k1'",
        "SELECT * FROM w NOT INDEXED WHERE a = 1",
    ]

    func testPlansMatchSQLite() throws {
        let (oracle, db) = try Oracle.enginesHolding(Self.schema)
        func details(_ outcome: StatementOutcome) -> [String] {
            guard case .rows(let rows) = outcome else { return ["\(outcome)"] }
            return rows.map { "\($0.last ?? .null)" }
        }
        for sql in Self.plannedQueries {
            let plan = "EXPLAIN QUERY PLAN " + sql
            XCTAssertEqual(details(granite(db, plan)), details(oracle.all(plan, [])), sql)
        }
    }

    /// SQLite's messages, spelled out, so that a change of the oracle's wording shows here.
    func testMessages() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema { try db.execute(sql) }
        let cases: [(String, String)] = [
            ("SELECT * FROM t INDEXED BY nosuch", "no such index: nosuch"),
            ("SELECT * FROM t INDEXED BY t_dp WHERE d = 1", "no query solution"),
            ("WITH c AS (SELECT 1) SELECT * FROM c INDEXED BY t_a", "no such index: \"t_a\""),
            ("DELETE FROM t INDEXED BY u_a WHERE a = 1", "no such index: u_a"),
        ]
        for (sql, message) in cases {
            XCTAssertEqual(graniteOutcome(db, sql), message, sql)
        }
    }
}
