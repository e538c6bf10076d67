import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Triggers, run on SQLite and Granite statement by statement: each statement's result rows or error, then the
/// connection's changes(), total_changes() and last_insert_rowid(), and the tables' final contents.
final class TriggerDifferentialTests: XCTestCase {
    /// Runs `statements` on a fresh SQLite and a fresh Granite (foreign keys on in both), returning the mismatches.
    static func mismatches(_ statements: [String]) throws -> [String] {
        let oracle = Oracle()
        oracle.execute("PRAGMA foreign_keys = ON")
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        for sql in statements {
            failures += compare(sql, oracle, db)
        }
        failures += compareContents(oracle, db)
        return failures
    }

    /// Compares one statement's outcome and the change counters after it.
    static func compare(_ sql: String, _ oracle: Oracle, _ db: SQLConnection) -> [String] {
        let expected = SelectDifferentialTests.sqlite(oracle, sql)
        let actual = withoutLocation(SelectDifferentialTests.granite(db, sql))
        var failures: [String] = []
        if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
            failures.append("\(sql): \(why)")
        }
        let counters = (
            Int(sqlite3_changes(oracle.db)), Int(sqlite3_total_changes(oracle.db)),
            sqlite3_last_insert_rowid(oracle.db)
        )
        if counters != (db.changes, db.totalChanges, db.lastInsertedRowid) {
            failures.append(
                "\(sql): changes/total/rowid sqlite \(counters), "
                    + "granite \((db.changes, db.totalChanges, db.lastInsertedRowid))")
        }
        return failures
    }

    /// `result` with a syntax error's position (which SQLite's message does not give) removed.
    static func withoutLocation(_ result: SelectDifferentialTests.Result) -> SelectDifferentialTests.Result {
        guard case .failure(let message) = result, let open = message.range(of: " (line ")
        else { return result }
        return .failure(String(message[..<open.lowerBound]))
    }

    /// Compares the contents of every table (in rowid order) and the trigger rows of the schema.
    static func compareContents(_ oracle: Oracle, _ db: SQLConnection) -> [String] {
        var failures: [String] = []
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type IN ('table', 'trigger') "
            + "AND name NOT LIKE 'sqlite%' ORDER BY type, name"
        let listed = SelectDifferentialTests.sqlite(oracle, schema)
        if let why = SelectDifferentialTests.mismatch(listed, SelectDifferentialTests.granite(db, schema), ordered: true) {
            failures.append("schema: \(why)")
        }
        guard case .rows(_, let rows) = listed else { return failures }
        for row in rows where row[0] == .text("table") {
            guard case .text(let name) = row[1] else { continue }
            let sql = "SELECT rowid, * FROM \"\(name)\" ORDER BY rowid"
            if let why = SelectDifferentialTests.mismatch(
                SelectDifferentialTests.sqlite(oracle, sql), SelectDifferentialTests.granite(db, sql), ordered: true)
            {
                failures.append("contents of \(name): \(why)")
            }
        }
        return failures
    }

    func check(_ statements: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let failures = try Self.mismatches(statements)
        XCTAssert(failures.isEmpty, failures.prefix(20).joined(separator: "\n"), file: file, line: line)
    }

    // MARK: Hand-written cases

    func testBeforeAndAfterInsertSeeNewRow() throws {
        try check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT COLLATE NOCASE, b)",
            "CREATE TABLE log(x)",
            "CREATE TRIGGER tb BEFORE INSERT ON t BEGIN INSERT INTO log VALUES('bi ' || quote(new.id) || ' ' || quote(new.rowid) || ' ' || quote(new.a)); END",
            "CREATE TRIGGER ta AFTER INSERT ON t BEGIN INSERT INTO log VALUES('ai ' || new.id || ' ' || new.a || ' ' || typeof(new.a)); END",
            "INSERT INTO t(a, b) VALUES('5', 1)",
            "INSERT INTO t VALUES(10, 'x', 2), (NULL, 7, 3)",
            "INSERT INTO t SELECT id + 100, a, b FROM t",
            "SELECT * FROM log",
            "CREATE TABLE u(a, b)",
            "CREATE TRIGGER ub BEFORE INSERT ON u BEGIN INSERT INTO log VALUES(quote(new.rowid)); END",
            "INSERT INTO u VALUES(1, 2)",
            "INSERT INTO u(rowid, a) VALUES(42, 2)",
            "SELECT * FROM log",
        ])
    }

    func testUpdateAndDeleteTriggersSeeOldAndNew() throws {
        try check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT COLLATE NOCASE)",
            "CREATE TABLE log(x)",
            "INSERT INTO t VALUES(1, 1, 'X'), (2, 2, 'y'), (3, 3, 'Z')",
            "CREATE TRIGGER bu BEFORE UPDATE ON t BEGIN INSERT INTO log VALUES('bu ' || old.a || '>' || new.a); END",
            "CREATE TRIGGER au AFTER UPDATE ON t BEGIN INSERT INTO log VALUES('au ' || old.b || '>' || new.b || ' ' || (new.b = 'x')); END",
            "CREATE TRIGGER bd BEFORE DELETE ON t BEGIN INSERT INTO log VALUES('bd ' || old.id); END",
            "CREATE TRIGGER ad AFTER DELETE ON t BEGIN INSERT INTO log VALUES('ad ' || old.id || ' ' || old.rowid); END",
            "UPDATE t SET a = a * 10 WHERE id >= 2",
            "UPDATE t SET b = lower(b)",
            "DELETE FROM t WHERE id = 2",
            "DELETE FROM t",
            "SELECT * FROM log",
            "SELECT count(*) FROM t",
        ])
    }

    func testWhenClauseAndUpdateOf() throws {
        try check([
            "CREATE TABLE t(a, b, c)",
            "CREATE TABLE log(x)",
            "CREATE TRIGGER w AFTER UPDATE OF b, c ON t WHEN new.b > 5 BEGIN INSERT INTO log VALUES('w ' || new.b); END",
            "CREATE TRIGGER x AFTER UPDATE OF a ON t FOR EACH ROW BEGIN INSERT INTO log VALUES('x ' || new.a); END",
            "CREATE TRIGGER y AFTER INSERT ON t WHEN EXISTS (SELECT 1 FROM log WHERE x LIKE 'w%') BEGIN INSERT INTO log VALUES('y'); END",
            "INSERT INTO t VALUES(1, 2, 3), (4, 8, 9)",
            "UPDATE t SET b = b + 1",
            "UPDATE t SET a = a",
            "UPDATE t SET c = 0 WHERE a = 4",
            "INSERT INTO t VALUES(0, 0, 0)",
            "SELECT * FROM log",
        ])
    }

    func testBodiesWithSubqueriesWithClausesUpsertAndSelect() throws {
        try check([
            "CREATE TABLE t(k INTEGER PRIMARY KEY, v)",
            "CREATE TABLE totals(name TEXT PRIMARY KEY, n)",
            "CREATE TRIGGER s AFTER INSERT ON t BEGIN "
                + "INSERT INTO totals VALUES('all', 1) ON CONFLICT(name) DO UPDATE SET n = n + 1; "
                + "INSERT INTO totals WITH c(x) AS (SELECT new.v * 2) SELECT 'k' || new.k, x FROM c; "
                + "UPDATE totals SET n = (SELECT count(*) FROM t) WHERE name = 'count'; "
                + "WITH c(x) AS (SELECT 1) SELECT x FROM c; END",
            "CREATE TRIGGER w AFTER DELETE ON t BEGIN WITH c(x) AS (SELECT 1) DELETE FROM totals; END",
            "INSERT INTO totals VALUES('count', 0)",
            "INSERT INTO t(v) VALUES(5), (6)",
            "INSERT INTO t(v) SELECT v + 1 FROM t",
            "SELECT * FROM totals ORDER BY name",
        ])
    }

    func testRaise() throws {
        try check([
            "CREATE TABLE t(a)",
            "CREATE TABLE log(x)",
            "CREATE TRIGGER i BEFORE INSERT ON t WHEN new.a < 0 BEGIN SELECT RAISE(IGNORE); END",
            "CREATE TRIGGER f BEFORE INSERT ON t WHEN new.a = 100 BEGIN SELECT RAISE(FAIL, 'hundred'); END",
            "CREATE TRIGGER b BEFORE INSERT ON t WHEN new.a = 200 BEGIN SELECT RAISE(ABORT, 'two hundred'); END",
            "CREATE TRIGGER r BEFORE INSERT ON t WHEN new.a = 300 BEGIN SELECT RAISE(ROLLBACK, 'three hundred'); END",
            "CREATE TRIGGER l AFTER INSERT ON t BEGIN INSERT INTO log VALUES(new.a); END",
            "INSERT INTO t VALUES(1), (-1), (2)",
            "INSERT INTO t VALUES(3), (100), (4)",
            "INSERT INTO t VALUES(5), (200), (6)",
            "BEGIN",
            "INSERT INTO t VALUES(7)",
            "INSERT INTO t VALUES(8), (300)",
            "SELECT * FROM t",
            "BEGIN",
            "INSERT INTO t VALUES(9)",
            "INSERT INTO t VALUES(10), (200)",
            "COMMIT",
            "SELECT * FROM t",
            "SELECT * FROM log",
            "CREATE TRIGGER d BEFORE DELETE ON t WHEN old.a = 2 BEGIN SELECT RAISE(IGNORE); END",
            "CREATE TRIGGER u BEFORE UPDATE ON t WHEN old.a = 3 BEGIN SELECT RAISE(IGNORE); END",
            "UPDATE t SET a = a + 1000",
            "DELETE FROM t WHERE a > 1000 OR a = 2",
            "SELECT * FROM t",
            "SELECT RAISE(IGNORE)",
            "SELECT RAISE(ABORT, 'x')",
        ])
    }

    func testSchemaErrorsAndStoredRows() throws {
        try check([
            "CREATE TABLE t(a, b)",
            "CREATE VIEW v AS SELECT a, b FROM t",
            "CREATE TRIGGER  if not exists main.x after insert on t begin select 1; end",
            "CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 2; END",
            "CREATE TRIGGER IF NOT EXISTS x AFTER INSERT ON t BEGIN SELECT 2; END",
            "CREATE TRIGGER y AFTER INSERT ON nosuch BEGIN SELECT 1; END",
            "CREATE TRIGGER y BEFORE INSERT ON v BEGIN SELECT 1; END",
            "CREATE TRIGGER y AFTER DELETE ON v BEGIN SELECT 1; END",
            "CREATE TRIGGER y INSTEAD OF INSERT ON t BEGIN SELECT 1; END",
            "CREATE TRIGGER y AFTER INSERT ON sqlite_master BEGIN SELECT 1; END",
            "CREATE TRIGGER sqlite_y AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE TRIGGER t AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE TRIGGER y AFTER INSERT ON t BEGIN SELECT ?; END",
            "CREATE TRIGGER y AFTER INSERT ON t BEGIN INSERT INTO main.t VALUES(1, 2); END",
            "CREATE TRIGGER y AFTER INSERT ON t BEGIN END",
            "CREATE TRIGGER y AFTER INSERT ON t BEGIN SELECT RAISE(ABORT, 'a' || 'b'); END",
            "CREATE TRIGGER z AFTER INSERT ON t BEGIN SELECT new.nosuch; END",
            "INSERT INTO t VALUES(1, 2)",
            "DROP TRIGGER z",
            "CREATE TRIGGER z AFTER INSERT ON t BEGIN SELECT old.a; END",
            "INSERT INTO t VALUES(1, 2)",
            "DROP TRIGGER z",
            "CREATE TRIGGER z AFTER DELETE ON t BEGIN SELECT new.a; END",
            "DELETE FROM t",
            "DROP TRIGGER z",
            "CREATE TRIGGER z AFTER INSERT ON t BEGIN SELECT nosuch FROM t; END",
            "INSERT INTO t VALUES(1, 2)",
            "DROP TRIGGER z",
            "DROP TRIGGER nosuch",
            "DROP TRIGGER IF EXISTS nosuch",
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name",
            "DROP TABLE t",
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name",
        ])
    }

    func testInsteadOfTriggersOnViews() throws {
        try check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)",
            "CREATE TABLE log(x)",
            "CREATE VIEW v AS SELECT id, a, b FROM t",
            "INSERT INTO v VALUES(1, 2, 3)",
            "CREATE TRIGGER vi INSTEAD OF INSERT ON v BEGIN INSERT INTO t(a, b) VALUES(new.a, new.b); END",
            "INSERT INTO v(a, b) VALUES(7, 8), (9, 10)",
            "INSERT INTO v SELECT NULL, a + 1, b FROM t",
            "INSERT INTO v(a, zz) VALUES(1, 2)",
            "INSERT INTO v VALUES(1, 2)",
            "INSERT INTO v(a) VALUES(1, 2)",
            "UPDATE v SET a = 1",
            "DELETE FROM v",
            "CREATE TRIGGER vu INSTEAD OF UPDATE OF a ON v BEGIN UPDATE t SET a = new.a, b = old.b || '>' || new.b WHERE id = old.id; END",
            "CREATE TRIGGER vd INSTEAD OF DELETE ON v FOR EACH ROW WHEN old.a > 8 BEGIN DELETE FROM t WHERE id = old.id; INSERT INTO log VALUES('vd ' || old.id); END",
            "UPDATE v SET a = a + 100, b = 'q' WHERE id > 1",
            "UPDATE v SET b = 'only b'",
            "UPDATE v SET zz = 1",
            "DELETE FROM v WHERE id < 3",
            "DELETE FROM v",
            "SELECT * FROM t",
            "SELECT * FROM log",
            "DROP VIEW v",
            "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name",
        ])
    }

    func testRecursionAndNesting() throws {
        try check([
            "CREATE TABLE a(x)",
            "CREATE TABLE b(x)",
            "CREATE TABLE c(x)",
            "CREATE TRIGGER ta AFTER INSERT ON a BEGIN INSERT INTO a VALUES(new.x + 1); INSERT INTO b VALUES(new.x * 10); END",
            "CREATE TRIGGER tb AFTER INSERT ON b BEGIN INSERT INTO c VALUES(new.x + 1); INSERT INTO a VALUES(new.x + 5); END",
            "CREATE TRIGGER tc AFTER INSERT ON c WHEN new.x < 1000 BEGIN INSERT INTO b VALUES(new.x * 2); END",
            "INSERT INTO a VALUES(1)",
            "SELECT * FROM a",
            "SELECT * FROM b",
            "SELECT * FROM c",
            "CREATE TRIGGER ud AFTER UPDATE ON a BEGIN UPDATE a SET x = x + 1; END",
            "UPDATE a SET x = 0 WHERE rowid = 1",
            "SELECT * FROM a",
        ])
    }

    func testForeignKeyActionsReplaceAndUpsertFireTriggers() throws {
        try check([
            "CREATE TABLE p(id INTEGER PRIMARY KEY)",
            "CREATE TABLE c(pid REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE, x)",
            "CREATE TABLE n(pid REFERENCES p ON DELETE SET NULL, x)",
            "CREATE TABLE log(x)",
            "CREATE TRIGGER cd AFTER DELETE ON c BEGIN INSERT INTO log VALUES('cdel ' || old.pid || old.x); END",
            "CREATE TRIGGER cu AFTER UPDATE OF pid ON c BEGIN INSERT INTO log VALUES('cupd ' || old.pid || '>' || new.pid); END",
            "CREATE TRIGGER nu AFTER UPDATE ON n BEGIN INSERT INTO log VALUES('nupd ' || quote(new.pid)); END",
            "INSERT INTO p VALUES(1), (2)",
            "INSERT INTO c VALUES(1, 'a'), (1, 'b'), (2, 'c')",
            "INSERT INTO n VALUES(1, 'z')",
            "UPDATE p SET id = 3 WHERE id = 2",
            "DELETE FROM p WHERE id = 1",
            "SELECT * FROM log",
            "CREATE TABLE u(k UNIQUE, v)",
            "CREATE TRIGGER ud AFTER DELETE ON u BEGIN INSERT INTO log VALUES('udel ' || old.k); END",
            "CREATE TRIGGER ui AFTER INSERT ON u BEGIN INSERT INTO log VALUES('uins ' || new.k || new.v); END",
            "CREATE TRIGGER ub BEFORE INSERT ON u BEGIN INSERT INTO log VALUES('ubins ' || new.k || new.v); END",
            "CREATE TRIGGER uu AFTER UPDATE ON u BEGIN INSERT INTO log VALUES('uupd ' || old.v || '>' || new.v); END",
            "INSERT INTO u VALUES(1, 1)",
            "INSERT OR REPLACE INTO u VALUES(1, 2)",
            "REPLACE INTO u VALUES(1, 3)",
            "INSERT INTO u VALUES(1, 4) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
            "INSERT INTO u VALUES(1, 5) ON CONFLICT DO NOTHING",
            "INSERT OR IGNORE INTO u VALUES(1, 6)",
            "SELECT * FROM log",
        ])
    }

    func testReturningAndCounters() throws {
        try check([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a)",
            "CREATE TABLE log(id INTEGER PRIMARY KEY, x)",
            "CREATE TRIGGER ta AFTER INSERT ON t BEGIN INSERT INTO log(x) VALUES(new.a); INSERT INTO log(x) VALUES(new.a); END",
            "CREATE TRIGGER tu BEFORE UPDATE ON t BEGIN UPDATE log SET x = x || '!' WHERE x = old.a; END",
            "INSERT INTO log(id, x) VALUES(100, 'seed')",
            "INSERT INTO t(a) VALUES('p'), ('q') RETURNING id, a",
            "UPDATE t SET a = a || a RETURNING *",
            "DELETE FROM t WHERE id = 1 RETURNING a",
            "SELECT * FROM log",
        ])
    }

    func testTriggersSurviveReopen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("granite-trigger-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.granite").path
        do {
            let db = try SQLConnection(engine: try StorageEngine(path: path))
            try db.execute("CREATE TABLE t(a); CREATE TABLE log(x)")
            try db.execute("CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES(new.a * 2); END")
        }
        let db = try SQLConnection(engine: try StorageEngine(path: path))
        try db.execute("INSERT INTO t VALUES(21)")
        XCTAssertEqual(try db.query("SELECT x FROM log").rows, [[.integer(42)]])
        XCTAssertEqual(
            try db.query("SELECT type, name, tbl_name FROM sqlite_master WHERE type = 'trigger'").rows,
            [[.text("trigger"), .text("tr"), .text("t")]])
    }

    // MARK: Random schemas with triggers and write workloads

    /// Generates tables with random triggers, and statements that fire them.
    struct Generator {
        var src: ValueSource
        var triggerCount = 0

        static let schema = [
            "CREATE TABLE t1(a INTEGER PRIMARY KEY, b INT, c TEXT COLLATE NOCASE)",
            "CREATE TABLE t2(k INT UNIQUE, v, w DEFAULT 0)",
            "CREATE TABLE t3(p INTEGER REFERENCES t1(a) ON DELETE CASCADE ON UPDATE CASCADE, q)",
            "CREATE TABLE log(id INTEGER PRIMARY KEY, tag TEXT, x, y)",
            "CREATE VIEW v AS SELECT a, b, c FROM t1",
        ]

        /// Columns of each table a trigger may be on.
        static let columns = ["t1": ["a", "b", "c"], "t2": ["k", "v", "w"], "t3": ["p", "q"]]

        mutating func value() -> String {
            src.pick(["NULL", "\(src.int(-2...9))", "'\(src.pick(["x", "X", "y", "7", ""]))'", "\(src.int(0...4)).5"])
        }

        mutating func rows() -> [String] {
            (0..<src.int(0...5)).map { _ in "INSERT INTO t1(b, c) VALUES (\(value()), \(value()))" }
                + (0..<src.int(0...4)).map { _ in "INSERT OR IGNORE INTO t2 VALUES (\(value()), \(value()), 1)" }
                + (0..<src.int(0...3)).map { _ in "INSERT INTO t3 VALUES (\(src.int(1...4)), \(value()))" }
        }

        /// A reference to a column of the row a trigger sees (`NEW` or `OLD`, as the event has it).
        mutating func rowColumn(_ table: String, _ event: String) -> String {
            let row: String
            switch event {
            case "INSERT": row = "new"
            case "DELETE": row = "old"
            default: row = src.pick(["new", "old", "NEW", "Old"])
            }
            return "\(row).\(src.pick(Self.columns[table]! + (table == "t1" ? [] : ["rowid"])))"
        }

        /// One statement of a trigger body on `table`; `before` body statements do not write `table` (SQLite leaves
        /// the result undefined when a BEFORE trigger changes the row being changed).
        mutating func bodyStatement(_ name: String, _ table: String, _ event: String, before: Bool) -> String {
            let column = rowColumn(table, event)
            let other = rowColumn(table, event)
            switch src.int(0...10) {
            case 0, 1, 2:
                return "INSERT INTO log(tag, x, y) VALUES('\(name)', \(column), \(other))"
            case 3:
                return "INSERT INTO log(tag, x) SELECT '\(name) count', count(*) FROM \(table)"
            case 4:
                return "UPDATE t2 SET w = w + 1 WHERE k = \(column) OR v = \(other)"
            case 5:
                return "DELETE FROM t2 WHERE k = \(column)"
            case 6:
                return "INSERT INTO t2(k, v) VALUES(\(column), '\(name)') ON CONFLICT(k) DO UPDATE SET w = w + 10"
            case 7:
                return "SELECT CASE WHEN \(column) = \(value()) THEN RAISE(\(src.pick(["ABORT", "FAIL"])), '\(name) says no') END"
            case 8:
                return "SELECT RAISE(IGNORE) WHERE \(column) IS \(value())"
            case 9 where !before && table != "t1":
                return "UPDATE t1 SET b = coalesce(b, 0) + 1 WHERE a = (SELECT max(a) FROM t1)"
            case 10 where !before:
                return "INSERT OR REPLACE INTO t2(k, v) VALUES(\(src.int(0...3)), (SELECT count(*) FROM log))"
            default:
                return "INSERT INTO log(tag, x) VALUES('\(name)', (SELECT count(*) FROM t2 WHERE k = \(column)))"
            }
        }

        /// A `CREATE TRIGGER` on a table (sometimes INSTEAD OF on the view).
        mutating func createTrigger() -> String {
            triggerCount += 1
            let name = "tr\(triggerCount)"
            if src.int(0...5) == 0 {
                let event = src.pick(["INSERT", "UPDATE", "DELETE"])
                let column = rowColumn("t1", event).replacingOccurrences(of: ".rowid", with: ".a")
                let body: String
                switch event {
                case "INSERT": body = "INSERT INTO t1(b, c) VALUES(\(column), 'via v')"
                case "UPDATE": body = "UPDATE t1 SET b = new.b, c = new.c WHERE a = old.a"
                default: body = "DELETE FROM t1 WHERE a = old.a"
                }
                return "CREATE TRIGGER \(name) INSTEAD OF \(event) ON v BEGIN \(body); "
                    + "INSERT INTO log(tag, x) VALUES('\(name)', \(column)); END"
            }
            let table = src.pick(["t1", "t1", "t2", "t3"])
            let timing = src.pick(["BEFORE", "AFTER", "AFTER", ""])
            var event = src.pick(["INSERT", "UPDATE", "DELETE"])
            let eventSQL: String
            if event == "UPDATE", src.bool() {
                eventSQL = "UPDATE OF \(src.pick(Self.columns[table]!))"
            } else {
                eventSQL = event
            }
            if eventSQL.hasPrefix("UPDATE") { event = "UPDATE" }
            var sql = "CREATE TRIGGER \(name) \(timing) \(eventSQL) ON \(table)"
            if src.bool() { sql += " FOR EACH ROW" }
            if src.int(0...2) == 0 {
                sql += " WHEN \(rowColumn(table, event)) \(src.pick(["=", ">", "<", "IS NOT"])) \(value())"
            }
            sql += " BEGIN"
            for _ in 0..<src.int(1...3) {
                sql += " " + bodyStatement(name, table, event, before: timing != "AFTER") + ";"
            }
            return sql + " END"
        }

        /// A statement writing the tables or the view.
        mutating func write() -> String {
            let returning = src.int(0...5) == 0 ? " RETURNING *" : ""
            switch src.int(0...13) {
            case 0: return "INSERT INTO t1(b, c) VALUES (\(value()), \(value())), (\(value()), \(value()))" + returning
            case 1: return "INSERT INTO t1 SELECT NULL, k, v FROM t2 WHERE k > \(src.int(0...5))" + returning
            case 2: return "INSERT OR REPLACE INTO t2(k, v) VALUES (\(src.int(0...4)), \(value()))" + returning
            case 3:
                return "INSERT INTO t2(k, v) VALUES (\(src.int(0...4)), \(value())) "
                    + "ON CONFLICT(k) DO UPDATE SET v = excluded.v, w = w + 1" + returning
            case 4: return "UPDATE t1 SET b = b + 1 WHERE a % 2 = \(src.int(0...1))" + returning
            case 5: return "UPDATE t1 SET a = a + 100 WHERE a = \(src.int(1...4))" + returning
            case 6: return "UPDATE t2 SET v = \(value()), k = k + 1 WHERE k < \(src.int(0...6))" + returning
            case 7: return "DELETE FROM t1 WHERE b > \(value())" + returning
            case 8: return "DELETE FROM t2 WHERE k = \(src.int(0...5))" + returning
            case 9: return "UPDATE t3 SET q = \(value()) WHERE p = \(src.int(1...4))"
            case 10: return "INSERT INTO v(b, c) VALUES (\(value()), \(value()))"
            case 11: return "UPDATE v SET b = \(value()) WHERE a < \(src.int(1...6))"
            case 12: return "DELETE FROM v WHERE a = \(src.int(1...6))"
            default: return "INSERT OR IGNORE INTO t2 VALUES (\(src.int(0...5)), \(value()), 0)" + returning
            }
        }
    }

    func testRandomTriggersMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var cases = 0
        for _ in 0..<(100 * stressFactor) {
            generator.triggerCount = 0
            let oracle = Oracle()
            oracle.execute("PRAGMA foreign_keys = ON")
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = Generator.schema + generator.rows()
            for _ in 0..<generator.src.int(1...5) { statements.append(generator.createTrigger()) }
            for _ in 0..<generator.src.int(6...12) { statements.append(generator.write()) }
            if generator.src.int(0...4) == 0 { statements.append("DROP TRIGGER tr1") }
            if generator.src.int(0...4) == 0 { statements.append("DROP TABLE t3") }
            statements.append(generator.write())
            var scenario: [String] = []
            for sql in statements {
                cases += 1
                let found = Self.compare(sql, oracle, db)
                scenario.append(sql)
                if !found.isEmpty {
                    failures.append(found.joined(separator: "\n") + "\n  after: " + scenario.joined(separator: ";\n    "))
                    break
                }
            }
            let contents = Self.compareContents(oracle, db)
            if !contents.isEmpty { failures.append(contents.joined(separator: "\n") + "\n  after: " + scenario.joined(separator: ";\n    ")) }
        }
        XCTAssertGreaterThanOrEqual(cases, 1000 * stressFactor)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches in \(cases) cases (GRANITE_SEED=\(seed)):\n"
                + failures.prefix(5).joined(separator: "\n"))
    }
}
