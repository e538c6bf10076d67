import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// The temporary schema (`temp`), run on SQLite and Granite: temporary tables, indexes, views and triggers that
/// shadow main objects of the same names, qualified and unqualified names, writes, transactions and savepoints,
/// compared statement by statement (rows, errors, `sqlite_temp_master` and `sqlite_master`).
final class TempSchemaDifferentialTests: XCTestCase {
    /// The rows of both schema tables, without root pages (which differ between the engines) and automatic
    /// indexes (which Granite names `granite_autoindex_…`).
    static let schemaQueries = [
        "SELECT type, name, tbl_name, sql FROM sqlite_temp_master WHERE name NOT LIKE '%autoindex%' ORDER BY type, name",
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE '%autoindex%' ORDER BY type, name",
    ]

    /// Runs `statements` on SQLite and Granite, returning the mismatches.
    static func compare(_ statements: [(sql: String, ordered: Bool)], oracle: Oracle, db: SQLConnection) -> [String] {
        var failures: [String] = []
        for (sql, ordered) in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: ordered) {
                failures.append("\(sql): \(why)")
            }
        }
        return failures
    }

    /// Random statements over tables, views, indexes and triggers of both schemas that share a few names.
    struct Generator {
        var src: ValueSource
        var views = 0

        static let tables = ["t1", "t2", "t3"]

        mutating func value() -> String {
            src.pick(["NULL", "\(src.int(-2...9))", "'\(src.pick(["x", "y", "Z", ""]))'", "\(src.int(0...3)).5"])
        }

        /// A table name, as written: unqualified, `main.` or `temp.`.
        mutating func table() -> String {
            src.pick(["", "", "main.", "temp."]) + src.pick(Self.tables)
        }

        mutating func condition() -> String {
            switch src.int(0...3) {
            case 0: return "a > \(value())"
            case 1: return "b IS NOT NULL"
            case 2: return "a IN (\(value()), \(value()))"
            default: return "b = \(value())"
            }
        }

        /// The next statement, and whether its rows come in a defined order.
        mutating func statement() -> (sql: String, ordered: Bool) {
            switch src.int(0...29) {
            case 0, 1:
                let temporary = src.pick(["CREATE TEMP TABLE ", "CREATE TEMPORARY TABLE ", "CREATE TABLE temp."])
                let name = src.pick(Self.tables)
                let extra = src.pick(["", " UNIQUE", " PRIMARY KEY"])
                return (temporary + name + "(a INTEGER\(extra), b)", true)
            case 2:
                return ("CREATE TABLE \(src.pick(["", "main."]))\(src.pick(Self.tables))(a, b)", true)
            case 3:
                return ("DROP TABLE \(src.pick(["", "IF EXISTS "]))\(table())", true)
            case 4:
                views += 1
                let kind = src.pick(["CREATE TEMP VIEW ", "CREATE VIEW ", "CREATE VIEW temp."])
                return ("\(kind)v\(views) AS SELECT a, b FROM \(table()) WHERE \(condition())", true)
            case 5:
                let qualifier = src.pick(["", "IF EXISTS ", "temp.", "main."])
                return ("DROP VIEW \(qualifier)v\(src.int(1...max(views, 1)))", true)
            case 6:
                let name = src.pick(["", "temp.", "main."]) + "i\(src.int(1...4))"
                return ("CREATE INDEX \(name) ON \(src.pick(Self.tables))(\(src.pick(["a", "b", "b, a"])))", true)
            case 7:
                return ("DROP INDEX \(src.pick(["", "IF EXISTS ", "temp.", "main."]))i\(src.int(1...4))", true)
            case 8:
                let target = src.pick(["", "main."]) + src.pick(Self.tables)
                let event = src.pick(["INSERT", "DELETE", "UPDATE"])
                let row = event == "DELETE" ? "old" : "new"
                return (
                    "CREATE TEMP TRIGGER tr\(src.int(1...3)) AFTER \(event) ON \(target) "
                        + "BEGIN INSERT INTO log VALUES ('\(target) \(event)', \(row).a); END", true
                )
            case 9:
                return ("DROP TRIGGER \(src.pick(["", "IF EXISTS ", "temp."]))tr\(src.int(1...3))", true)
            case 10, 11, 12:
                let rows = (0..<src.int(1...3)).map { _ in "(\(value()), \(value()))" }
                // Not OR REPLACE: a multi-row OR REPLACE failing on a later row (datatype mismatch) keeps its earlier
                // rows in SQLite (it runs without a statement journal), a quirk unrelated to the temporary schema.
                let verb = src.pick(["INSERT", "INSERT", "INSERT OR IGNORE"])
                return ("\(verb) INTO \(table()) VALUES \(rows.joined(separator: ", "))", true)
            case 13:
                return ("UPDATE \(table()) SET b = \(value()) WHERE \(condition())", true)
            case 14:
                return ("DELETE FROM \(table()) WHERE \(condition())", true)
            case 15, 16, 17:
                return ("SELECT * FROM \(table()) WHERE \(condition())", false)
            case 18:
                let name = src.pick(Self.tables)
                return ("SELECT m.a, t.b FROM main.\(name) AS m JOIN temp.\(name) AS t ON m.a = t.a", false)
            case 19:
                return ("SELECT * FROM v\(src.int(1...max(views, 1)))", false)
            case 20:
                return ("SELECT count(*), sum(a) FROM \(table()) WHERE a IN (SELECT a FROM \(table()))", true)
            case 21:
                return ("SELECT * FROM log", false)
            case 22:
                return (src.pick(["BEGIN", "BEGIN", "COMMIT", "ROLLBACK", "END"]), true)
            case 23:
                return ("SAVEPOINT s\(src.int(1...2))", true)
            case 24:
                return ("ROLLBACK TO s\(src.int(1...2))", true)
            case 25:
                return ("RELEASE s\(src.int(1...2))", true)
            case 26:
                return ("PRAGMA \(src.pick(["", "temp.", "main."]))table_info(\(src.pick(Self.tables)))", true)
            case 27:
                let schemaTable = src.pick(["temp.sqlite_master", "sqlite_temp_schema"])
                return ("SELECT name FROM \(schemaTable) WHERE type = 'table'", false)
            default:
                // A failing statement inside a transaction leaves the temporary changes before it.
                return ("INSERT INTO \(table()) SELECT a, b FROM \(table()) WHERE a > 7 UNION ALL SELECT 1/0, 2", true)
            }
        }
    }

    func testRandomStatementsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var statements = 0
        for _ in 0..<(40 * stressFactor) {
            generator.views = 0
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            let setup = [
                "CREATE TABLE t1(a, b)", "CREATE TABLE t2(a INTEGER PRIMARY KEY, b)", "CREATE TEMP TABLE log(what, a)",
                "INSERT INTO t1 VALUES (1, 'x'), (2, 'y')", "INSERT INTO t2 VALUES (1, 'm'), (5, 'n')",
            ]
            for sql in setup {
                oracle.execute(sql)
                try db.execute(sql)
            }
            var history: [String] = []
            for _ in 0..<25 {
                let (sql, ordered) = generator.statement()
                history.append(sql)
                statements += 1
                var found = Self.compare([(sql, ordered)], oracle: oracle, db: db)
                found += Self.compare(Self.schemaQueries.map { ($0, true) }, oracle: oracle, db: db)
                if !found.isEmpty {
                    let context = history.suffix(25).joined(separator: "; ")
                    failures.append(found.joined(separator: "\n") + "\n  after: " + context)
                    break
                }
            }
            // Whatever transaction is open ends; the temporary tables' rows are compared at the end.
            for sql in ["ROLLBACK", "SELECT * FROM temp.t1", "SELECT * FROM temp.t2", "SELECT * FROM log"] {
                failures += Self.compare([(sql, false)], oracle: oracle, db: db)
                    .map { $0 + "\n  after: " + history.suffix(12).joined(separator: "; ") }
            }
        }
        XCTAssertGreaterThanOrEqual(statements, 800 * stressFactor)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches in \(statements) statements (GRANITE_SEED=\(seed)):\n"
                + failures.prefix(10).joined(separator: "\n"))
    }

    func testFixedStatementsMatchSQLite() throws {
        let statements = [
            "CREATE TABLE t(a, b)",
            "INSERT INTO t VALUES (1, 'main')",
            "CREATE TEMP TABLE t(a, c)",
            "CREATE TEMPORARY TABLE u(x INTEGER PRIMARY KEY, y TEXT UNIQUE)",
            "CREATE TABLE temp.w(p)",
            "CREATE TEMP TABLE temp.w2(p)",
            "CREATE TEMP TABLE main.w3(p)",
            "CREATE TEMP TABLE other.w3(p)",
            "CREATE TABLE temp.w(p)",
            "CREATE TABLE IF NOT EXISTS temp.w(p)",
            "CREATE TABLE other.w(p)",
            "INSERT INTO t VALUES (2, 'temp')",
            "SELECT * FROM t",
            "SELECT * FROM main.t",
            "SELECT * FROM temp.t",
            "SELECT * FROM other.t",
            "SELECT t.a, main.t.b FROM main.t",
            "SELECT temp.t.c FROM temp.t",
            "SELECT * FROM main.t AS m JOIN temp.t AS x ON m.a < x.a + 5",
            "INSERT INTO main.t VALUES (3, 'main again')",
            "INSERT INTO temp.t VALUES (4, 'temp again')",
            "SELECT * FROM main.t ORDER BY a",
            "SELECT * FROM t ORDER BY a",
            "INSERT INTO main.t VALUES (10, 'r') RETURNING *",
            "INSERT INTO t VALUES (11, 'r') RETURNING *",
            "UPDATE main.t SET b = b || '?' WHERE a = 10 RETURNING *",
            "DELETE FROM t WHERE a = 11 RETURNING *",
            "SELECT * FROM (SELECT * FROM main.t) WHERE a = 10",
            "SELECT x.* FROM (SELECT * FROM temp.t) AS x ORDER BY 1",
            "UPDATE t SET c = c || '!' WHERE a = 4",
            "UPDATE main.t SET b = upper(b)",
            "DELETE FROM temp.t WHERE a = 2",
            "SELECT * FROM main.t ORDER BY a",
            "SELECT * FROM t ORDER BY a",
            "INSERT INTO u(y) VALUES ('one'), ('two')",
            "INSERT INTO u(y) VALUES ('one')",
            "INSERT OR REPLACE INTO u(x, y) VALUES (7, 'one')",
            "SELECT * FROM u ORDER BY x",
            "CREATE INDEX ui ON u(y)",
            "CREATE INDEX temp.ti ON t(c)",
            "CREATE INDEX temp.ti2 ON t(b)",
            "CREATE INDEX main.mi ON u(y)",
            "CREATE INDEX mi ON t(a)",
            "CREATE UNIQUE INDEX temp.tu ON w(p)",
            "INSERT INTO w VALUES (1), (1)",
            "SELECT * FROM w",
            "SELECT c FROM t WHERE c > 'a' ORDER BY c",
            "SELECT * FROM u WHERE y = 'two'",
            "CREATE VIEW mv AS SELECT * FROM t",
            "CREATE TEMP VIEW tv AS SELECT a, c FROM t",
            "CREATE VIEW temp.tv2 AS SELECT * FROM main.t",
            "CREATE TEMP VIEW main.tv3 AS SELECT 1",
            "SELECT * FROM tv ORDER BY a",
            "SELECT * FROM temp.tv2 ORDER BY a",
            "SELECT * FROM main.tv",
            "SELECT * FROM mv ORDER BY a",
            "CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO w VALUES (new.a * 10); END",
            "INSERT INTO t VALUES (5, 'five')",
            "SELECT * FROM w ORDER BY p",
            "CREATE TRIGGER tr2 AFTER INSERT ON u BEGIN INSERT INTO w VALUES (new.x + 100); END",
            "INSERT INTO u(y) VALUES ('three')",
            "SELECT * FROM w ORDER BY p",
            "DROP TRIGGER tr",
            "DROP TRIGGER temp.tr2",
            "PRAGMA table_info(t)",
            "PRAGMA temp.table_info(t)",
            "PRAGMA table_info(u)",
            "SELECT * FROM sqlite_temp_master WHERE 0",
            "SELECT name FROM temp.sqlite_master WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "SELECT name FROM temp.sqlite_schema WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "SELECT name FROM sqlite_temp_schema WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "SELECT name FROM main.sqlite_temp_master",
            "SELECT schema, name, type, ncol FROM pragma_table_list WHERE name NOT LIKE 'sqlite%' "
                + "AND name NOT LIKE 'granite%' ORDER BY schema, name",
            "SELECT schema, name FROM pragma_table_list WHERE name = 'sqlite_temp_schema'",
            "DROP INDEX ui",
            "DROP INDEX temp.ti",
            "DROP INDEX main.ti2",
            "DROP VIEW tv",
            "DROP VIEW temp.tv2",
            "DROP VIEW main.mv",
            "DROP TABLE t",
            "SELECT * FROM t ORDER BY a",
            "DROP TABLE t",
            "SELECT * FROM t",
            "DROP TABLE IF EXISTS temp.t",
            "DROP TABLE temp.nosuch",
            "DROP TABLE u",
            "SELECT * FROM u",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        for sql in statements {
            failures += Self.compare([(sql, true)], oracle: oracle, db: db)
            // The schema tables after each statement (the first difference only: it would repeat).
            let schemaFailures = Self.compare(Self.schemaQueries.map { ($0, true) }, oracle: oracle, db: db)
            if !schemaFailures.isEmpty {
                failures += schemaFailures.map { "after \(sql): \($0)" }
                break
            }
        }
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// Fixed statements: transactions, savepoints and failing statements over both schemas, temporary triggers on
    /// main tables, main views and triggers bound to the main schema, foreign keys inside the temporary schema.
    func testTransactionsTriggersAndBindingMatchSQLite() throws {
        let statements = [
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
            "INSERT INTO t VALUES (1, 'one')",
            "BEGIN",
            "CREATE TEMP TABLE s(a UNIQUE, b)",
            "INSERT INTO s VALUES (1, 'x')",
            "INSERT INTO t VALUES (2, 'two')",
            "ROLLBACK",
            "SELECT * FROM s",
            "SELECT * FROM t",
            "CREATE TEMP TABLE s(a UNIQUE, b)",
            "BEGIN",
            "INSERT INTO s VALUES (1, 'x')",
            "SAVEPOINT p",
            "INSERT INTO s VALUES (2, 'y')",
            "CREATE TEMP VIEW sv AS SELECT count(*) AS n FROM s",
            "SELECT * FROM sv",
            "ROLLBACK TO p",
            "SELECT * FROM sv",
            "SELECT * FROM s",
            "INSERT INTO s VALUES (3, 'z'), (1, 'dup')",
            "SELECT * FROM s",
            "RELEASE p",
            "COMMIT",
            "SELECT * FROM s",
            "INSERT INTO s VALUES (4, 'w'), (1, 'dup')",
            "SELECT * FROM s",
            "SAVEPOINT q",
            "DROP TABLE s",
            "SELECT * FROM s",
            "ROLLBACK TO q",
            "SELECT * FROM s",
            "RELEASE q",
            "CREATE TEMP TABLE log(x)",
            "CREATE TEMP TRIGGER tt AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.b); END",
            "CREATE TEMP TRIGGER tu AFTER UPDATE ON main.t BEGIN INSERT INTO log VALUES ('u' || new.a); END",
            "INSERT INTO t VALUES (3, 'three')",
            "UPDATE t SET b = 'THREE' WHERE a = 3",
            "SELECT * FROM log",
            "CREATE TEMP TABLE t(a, b)",
            "INSERT INTO t VALUES (9, 'temp nine')",
            "INSERT INTO main.t VALUES (4, 'four')",
            "SELECT * FROM log",
            "DROP TABLE t",
            "SELECT type, name FROM sqlite_temp_master WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "DROP TABLE t",
            "SELECT type, name FROM sqlite_temp_master WHERE name NOT LIKE '%autoindex%' ORDER BY name",
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
            "CREATE TABLE m(a)",
            "INSERT INTO m VALUES ('main m')",
            "CREATE TEMP TABLE m(a)",
            "INSERT INTO m VALUES ('temp m')",
            "CREATE VIEW mv AS SELECT * FROM m",
            "CREATE TEMP VIEW tv AS SELECT * FROM m",
            "SELECT * FROM mv",
            "SELECT * FROM tv",
            "CREATE VIEW bad AS SELECT * FROM temp.m",
            "CREATE VIEW bad2 AS SELECT * FROM main.m JOIN temp.m",
            "CREATE TEMP TABLE parent(id INTEGER PRIMARY KEY)",
            "CREATE TEMP TABLE child(p REFERENCES parent(id))",
            "INSERT INTO parent VALUES (1)",
            "INSERT INTO child VALUES (1)",
            "INSERT INTO child VALUES (2)",
            "DELETE FROM parent",
            "SELECT * FROM child",
            "PRAGMA temp.table_info(m)",
            "PRAGMA main.table_info(m)",
            "PRAGMA table_info(m)",
            "PRAGMA temp.table_info(mv)",
            "CREATE INDEX logx ON log(x)",
            "PRAGMA temp.index_list(log)",
            "PRAGMA main.index_list(log)",
            "PRAGMA index_list(log)",
            "SELECT * FROM pragma_table_info('m', 'temp')",
            "SELECT * FROM pragma_table_info('m', 'main')",
        ]
        let oracle = Oracle()
        oracle.execute("PRAGMA foreign_keys = ON")
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        for sql in statements {
            failures += Self.compare([(sql, true)], oracle: oracle, db: db)
            let schemaFailures = Self.compare(Self.schemaQueries.map { ($0, true) }, oracle: oracle, db: db)
            if !schemaFailures.isEmpty {
                failures += schemaFailures.map { "after \(sql): \($0)" }
                break
            }
        }
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// AUTOINCREMENT on temporary tables: their sequences live in the temporary schema's own `sqlite_sequence`,
    /// which the unqualified name finds first, apart from the main one, and go with transactions and DROP TABLE.
    func testTemporaryAutoincrementMatchesSQLite() throws {
        let statements = [
            "CREATE TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, b)",
            "INSERT INTO t(b) VALUES (1), (2)",
            "CREATE TEMP TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, b)",
            "INSERT INTO t(b) VALUES (10)",
            "INSERT INTO t VALUES (50, 11)",
            "DELETE FROM t WHERE a = 50",
            "INSERT INTO t(b) VALUES (12)",
            "INSERT INTO main.t(b) VALUES (3)",
            "CREATE TEMP TABLE u(a INTEGER PRIMARY KEY AUTOINCREMENT, b)",
            "INSERT INTO u(b) VALUES (1)",
            "BEGIN",
            "INSERT INTO temp.u(b) VALUES (2), (3)",
            "SELECT * FROM temp.sqlite_sequence ORDER BY name",
            "ROLLBACK",
            "INSERT INTO u(b) VALUES (4)",
            "SELECT last_insert_rowid()",
            "SELECT * FROM sqlite_sequence ORDER BY name",
            "SELECT * FROM main.sqlite_sequence ORDER BY name",
            "SELECT * FROM temp.sqlite_sequence ORDER BY name",
            "SELECT * FROM temp.t",
            "SELECT * FROM main.t",
            "SELECT * FROM u",
            "UPDATE temp.sqlite_sequence SET seq = 100 WHERE name = 'u'",
            "INSERT INTO u(b) VALUES (5)",
            "SELECT * FROM u",
            "DROP TABLE temp.t",
            "SELECT * FROM sqlite_sequence ORDER BY name",
            "INSERT INTO t(b) VALUES (6)",
            "SELECT * FROM t",
            "DROP TABLE u",
            "SELECT * FROM temp.sqlite_sequence ORDER BY name",
            "SELECT * FROM sqlite_sequence ORDER BY name",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let failures = Self.compare(statements.map { ($0, true) }, oracle: oracle, db: db)
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.joined(separator: "\n"))
    }

    /// ALTER TABLE on temporary tables: renames (followed by their indexes, triggers and views), added columns
    /// (generated ones computed for the rows there), dropped columns (rows rewritten), their errors, and that
    /// `main.` does not find them. The stored SQL of tables and indexes is not compared (Granite regenerates it in
    /// its own spacing, as for main tables), nor the sequence table's name (`granite_sequence` in Granite).
    func testAlterTemporaryTableMatchesSQLite() throws {
        let listing =
            "SELECT type, name, tbl_name, CASE WHEN type IN ('view', 'trigger') THEN sql END FROM sqlite_temp_master "
            + "WHERE name NOT LIKE '%autoindex%' AND name NOT LIKE '%_sequence' ORDER BY type, name"
        let statements = [
            "CREATE TABLE m(a, b)",
            "INSERT INTO m VALUES (1, 2)",
            "CREATE TEMP TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, b, c UNIQUE)",
            "INSERT INTO t(b, c) VALUES ('x', 1), ('y', 2)",
            "CREATE INDEX temp.ti ON t(b)",
            "CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO m VALUES (new.a, new.c); END",
            "ALTER TABLE t RENAME COLUMN b TO bb",
            "ALTER TABLE t ADD COLUMN d DEFAULT 7",
            "INSERT INTO t(bb, c) VALUES ('z', 3)",
            "SELECT * FROM t",
            "ALTER TABLE t ADD COLUMN e AS (c * 10)",
            "ALTER TABLE t ADD COLUMN f AS (c) STORED",
            "SELECT * FROM t",
            "ALTER TABLE t DROP COLUMN d",
            "SELECT * FROM t",
            "CREATE TEMP VIEW tv AS SELECT bb, c FROM t",
            "ALTER TABLE temp.t RENAME TO u",
            "SELECT * FROM u",
            "SELECT * FROM tv",
            "SELECT name, seq FROM sqlite_sequence",
            listing,
            "ALTER TABLE u DROP COLUMN c",
            "ALTER TABLE u DROP COLUMN e",
            "ALTER TABLE u DROP COLUMN nosuch",
            "ALTER TABLE u RENAME COLUMN nosuch TO x",
            "ALTER TABLE u RENAME TO m",
            "ALTER TABLE main.u RENAME TO w",
            "ALTER TABLE tv ADD COLUMN z",
            "INSERT INTO u(bb, c) VALUES ('w', 4)",
            "SELECT * FROM u",
            "SELECT * FROM m",
            "CREATE TABLE v(k)",
            "CREATE TEMP TABLE v(k, l)",
            "ALTER TABLE v ADD COLUMN n DEFAULT 'temp'",
            "INSERT INTO main.v VALUES (1)",
            "INSERT INTO v VALUES (1, 2, 3)",
            "SELECT * FROM main.v",
            "SELECT * FROM temp.v",
            "BEGIN",
            "ALTER TABLE v RENAME TO vv",
            "SELECT * FROM vv",
            "ROLLBACK",
            "SELECT * FROM v",
            listing,
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let failures = Self.compare(statements.map { ($0, true) }, oracle: oracle, db: db)
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.joined(separator: "\n"))
    }

    /// Temporary INSTEAD OF triggers on a view of the main schema fire, and go when the view is dropped.
    func testTemporaryTriggersOnMainViewMatchSQLite() throws {
        let statements = [
            "CREATE TABLE log(x)",
            "CREATE VIEW mv AS SELECT 1 AS a",
            "CREATE TEMP TRIGGER tt INSTEAD OF INSERT ON mv BEGIN INSERT INTO log VALUES (new.a); END",
            "CREATE TEMP TRIGGER tu INSTEAD OF UPDATE ON main.mv BEGIN INSERT INTO log VALUES (old.a || new.a); END",
            "CREATE TEMP TRIGGER td INSTEAD OF DELETE ON mv BEGIN INSERT INTO log VALUES (-old.a); END",
            "CREATE TRIGGER md INSTEAD OF DELETE ON mv BEGIN INSERT INTO log VALUES ('main ' || old.a); END",
            "INSERT INTO mv VALUES (5)",
            "UPDATE mv SET a = 7",
            "DELETE FROM mv",
            "INSERT INTO main.mv VALUES (6)",
            "SELECT * FROM log",
            "SELECT changes()",
            "SELECT name FROM sqlite_temp_master ORDER BY name",
            "DROP VIEW mv",
            "SELECT name FROM sqlite_temp_master ORDER BY name",
            "SELECT name FROM sqlite_master ORDER BY name",
            "CREATE VIEW mv AS SELECT 2 AS a",
            "INSERT INTO mv VALUES (8)",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let failures = Self.compare(statements.map { ($0, true) }, oracle: oracle, db: db)
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.joined(separator: "\n"))
    }

    /// A main trigger's program names the main schema's tables and views only, even where a temporary object
    /// shadows them (a missing one is `main.x`); a temporary trigger's looks in the temporary schema first. The
    /// temporary triggers on a main table still fire on the main trigger's writes.
    func testMainTriggerBodyBindsToMainSchemaMatchesSQLite() throws {
        let statements = [
            "CREATE TABLE t(a)",
            "CREATE TABLE log(x)",
            "CREATE TABLE src(v)",
            "CREATE VIEW sv AS SELECT 'main view' AS v",
            "INSERT INTO src VALUES ('main src')",
            """
            CREATE TRIGGER tr AFTER INSERT ON t BEGIN
              INSERT INTO log SELECT v FROM src;
              INSERT INTO log SELECT (SELECT group_concat(v) FROM src) || new.a;
              INSERT INTO log SELECT v FROM sv WHERE EXISTS (SELECT 1 FROM src);
              UPDATE src SET v = v || '+' WHERE new.a = 3;
            END
            """,
            "CREATE TEMP TABLE log(x)",
            "CREATE TEMP TABLE src(v)",
            "CREATE TEMP VIEW sv AS SELECT 'temp view' AS v",
            "INSERT INTO src VALUES ('temp src')",
            "INSERT INTO t VALUES (1)",
            "SELECT * FROM main.log",
            "SELECT * FROM temp.log",
            "CREATE TEMP TRIGGER tt AFTER INSERT ON main.log BEGIN INSERT INTO log SELECT new.x || ' ' || v FROM src; END",
            "INSERT INTO t VALUES (2)",
            "INSERT INTO t VALUES (3)",
            "SELECT * FROM main.log",
            "SELECT * FROM temp.log",
            "SELECT * FROM main.src",
            "SELECT * FROM temp.src",
            "CREATE TEMP TABLE onlytemp(z)",
            "CREATE TRIGGER td AFTER DELETE ON t BEGIN INSERT INTO onlytemp VALUES (old.a); END",
            "DELETE FROM t WHERE a = 1",
            "DROP TRIGGER td",
            "CREATE TRIGGER tu AFTER UPDATE ON t BEGIN SELECT * FROM onlytemp; END",
            "UPDATE t SET a = 4 WHERE a = 2",
            "DROP TRIGGER tu",
            "CREATE TRIGGER tw AFTER UPDATE ON t WHEN (SELECT count(*) FROM src) = 1 BEGIN DELETE FROM src; END",
            "UPDATE t SET a = 5 WHERE a = 3",
            "SELECT * FROM main.src",
            "SELECT * FROM temp.src",
            "CREATE TEMP TRIGGER ttd AFTER DELETE ON t BEGIN INSERT INTO log SELECT 'temp trigger ' || v FROM src; END",
            "DELETE FROM t",
            "SELECT * FROM main.log",
            "SELECT * FROM temp.log",
            "CREATE TEMP TRIGGER ttm AFTER INSERT ON t BEGIN DELETE FROM nowhere; END",
            "INSERT INTO t VALUES (6)",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let failures = Self.compare(statements.map { ($0, true) }, oracle: oracle, db: db)
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.joined(separator: "\n"))
    }
}
