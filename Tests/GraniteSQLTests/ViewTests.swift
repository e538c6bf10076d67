import GraniteSQL
import GraniteStorage
import XCTest

/// SQL views: their stored rows, their persistence across connections, the errors of statements that misuse them,
/// and what queries and pragmas see of them. (Differential tests against SQLite: ViewDifferentialTests.)
final class ViewTests: XCTestCase {
    private func connection(_ setup: String = "") throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE t(a INTEGER, b TEXT COLLATE NOCASE, c);
            INSERT INTO t VALUES (1, 'x', 10), (2, 'Y', 20), (3, 'z', 30);
            """ + setup)
        return db
    }

    private func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as SQLExecutionError {
            return error.message
        } catch let error as SchemaError {
            return error.message
        } catch let error as SQLSyntaxError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    private func assertError(
        _ db: SQLConnection, _ sql: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(message { _ = try db.query(sql) }, expected, sql, file: file, line: line)
    }

    func testSchemaRowIsStoredAsSQLiteStoresIt() throws {
        let db = try connection("create view if not exists main.v(p, q) as select a, b from t")
        let rows = try db.query("SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE type = 'view'")
        XCTAssertEqual(
            rows.rows,
            [[.text("view"), .text("v"), .text("v"), .integer(0), .text("CREATE VIEW v(p, q) as select a, b from t")]])
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_master WHERE name = 'v'").rows, [[.integer(1)]])
    }

    func testViewSurvivesReopenAndIsSeenByOtherConnections() throws {
        let db = try connection("CREATE VIEW v AS SELECT a, b || '!' AS e FROM t WHERE a > 1")
        let reopened = try SQLConnection(engine: db.engine)
        let result = try reopened.query("SELECT * FROM v ORDER BY a")
        XCTAssertEqual(result.columns, ["a", "e"])
        XCTAssertEqual(result.rows, [[.integer(2), .text("Y!")], [.integer(3), .text("z!")]])
        let other = try SQLConnection(engine: try StorageEngine(sharing: db.engine))
        try db.execute("DROP VIEW v")
        assertError(other, "SELECT * FROM v", "no such table: v")
        assertError(try SQLConnection(engine: db.engine), "SELECT * FROM v", "no such table: v")
    }

    func testRolledBackCreateLeavesNoView() throws {
        let db = try connection()
        try db.execute("BEGIN; CREATE VIEW v AS SELECT 1; ROLLBACK")
        assertError(db, "SELECT * FROM v", "no such table: v")
        try db.execute("CREATE VIEW v AS SELECT 2 AS two")
        XCTAssertEqual(try db.query("SELECT two FROM v").rows, [[.integer(2)]])
    }

    func testNamesAreSharedWithTablesAndIndexes() throws {
        let db = try connection("CREATE INDEX i ON t(a); CREATE VIEW v AS SELECT * FROM t")
        assertError(db, "CREATE VIEW V AS SELECT 1", "view V already exists")
        assertError(db, "CREATE VIEW t AS SELECT 1", "table t already exists")
        assertError(db, "CREATE VIEW i AS SELECT 1", "there is already an index named i")
        assertError(db, "CREATE TABLE v(x)", "view v already exists")
        assertError(db, "CREATE INDEX v ON t(a)", "there is already a table named v")
        assertError(db, "CREATE INDEX j ON v(a)", "views may not be indexed")
        assertError(db, "ALTER TABLE t RENAME TO v", "there is already another table or index with this name: v")
        assertError(db, "CREATE VIEW granite_v AS SELECT 1", "object name reserved for internal use: granite_v")
        assertError(db, "CREATE VIEW other.w AS SELECT 1", "unknown database other")
        XCTAssertNil(message { try db.execute("CREATE VIEW IF NOT EXISTS v AS SELECT 1") })
        XCTAssertNil(message { try db.execute("CREATE VIEW IF NOT EXISTS t AS SELECT 1") })
        XCTAssertNil(message { try db.execute("CREATE TABLE IF NOT EXISTS v(x)") })
    }

    func testDropErrors() throws {
        let db = try connection("CREATE INDEX i ON t(a); CREATE VIEW v AS SELECT * FROM t")
        assertError(db, "DROP TABLE v", "use DROP VIEW to delete view v")
        assertError(db, "DROP TABLE IF EXISTS v", "use DROP VIEW to delete view v")
        assertError(db, "DROP VIEW t", "use DROP TABLE to delete table t")
        assertError(db, "DROP VIEW i", "no such view: i")
        assertError(db, "DROP VIEW nosuch", "no such view: nosuch")
        assertError(db, "DROP INDEX v", "no such index: v")
        XCTAssertNil(message { try db.execute("DROP VIEW IF EXISTS nosuch") })
        XCTAssertNil(message { try db.execute("DROP VIEW V") })
        assertError(db, "SELECT * FROM v", "no such table: v")
    }

    func testWritesAndAlterationsOfAViewFail() throws {
        let db = try connection("CREATE VIEW v AS SELECT * FROM t")
        let refused = "cannot modify v because it is a view"
        assertError(db, "INSERT INTO v VALUES (1, 2, 3)", refused)
        assertError(db, "UPDATE v SET a = 1", refused)
        assertError(db, "DELETE FROM v WHERE a = 1", refused)
        assertError(db, "ALTER TABLE v RENAME TO w", "view v may not be altered")
        assertError(db, "ALTER TABLE v RENAME COLUMN a TO aa", "cannot rename columns of view \"v\"")
        assertError(db, "ALTER TABLE v ADD COLUMN d", "Cannot add a column to a view")
        XCTAssertEqual(try db.query("SELECT count(*) FROM t").rows, [[.integer(3)]])
    }

    func testErrorsWhenAViewIsRead() throws {
        let db = try connection(
            """
            ;CREATE VIEW missing AS SELECT * FROM nosuch;
            CREATE VIEW inner_missing AS SELECT a FROM t WHERE a IN (SELECT x FROM gone);
            CREATE VIEW loop1 AS SELECT * FROM loop2;
            CREATE VIEW loop2 AS SELECT * FROM loop1;
            CREATE VIEW counted(p, q) AS SELECT a FROM t;
            CREATE VIEW compound AS SELECT 1 UNION SELECT 2;
            """)
        assertError(db, "SELECT * FROM missing", "no such table: main.nosuch")
        assertError(db, "SELECT * FROM inner_missing", "no such table: main.gone")
        assertError(db, "SELECT * FROM loop1", "view loop1 is circularly defined")
        assertError(db, "SELECT * FROM counted", "expected 2 columns for 'counted' but got 1")
        assertError(db, "PRAGMA table_info(missing)", "no such table: main.nosuch")
        XCTAssertEqual(
            message { _ = try db.query("SELECT * FROM compound") },
            message { _ = try db.query("SELECT 1 UNION SELECT 2") })
        XCTAssertEqual(
            message { try db.execute("CREATE VIEW p AS SELECT ?") },
            "parameters are not allowed in views")
        XCTAssertEqual(
            message { try db.execute("CREATE TEMP VIEW tv AS SELECT ?") },
            "parameters are not allowed in views")
    }

    func testTableInfoOfAView() throws {
        let db = try connection(
            """
            ;CREATE TABLE u(k VARCHAR(10), n REAL);
            CREATE VIEW v AS SELECT a, b, a + 1, t.c AS cc, u.k, n AS m FROM t, u;
            CREATE VIEW w(x, y) AS SELECT k, cc FROM v;
            """)
        func info(_ name: String, _ pragma: String = "table_info") throws -> [[Value]] {
            try db.query("PRAGMA \(pragma)(\(name))").rows
        }
        func row(_ cid: Int, _ name: String, _ type: String) -> [Value] {
            [.integer(Int64(cid)), .text(name), .text(type), .integer(0), .null, .integer(0)]
        }
        XCTAssertEqual(
            try info("v"),
            [
                row(0, "a", "INTEGER"), row(1, "b", "TEXT"), row(2, "a + 1", ""), row(3, "cc", ""),
                row(4, "k", "VARCHAR(10)"), row(5, "m", "REAL"),
            ])
        XCTAssertEqual(try info("w"), [row(0, "x", "VARCHAR(10)"), row(1, "y", "")])
        XCTAssertEqual(
            try info("W", "table_xinfo"), [row(0, "x", "VARCHAR(10)") + [.integer(0)], row(1, "y", "") + [.integer(0)]])
    }

    func testTableListShowsViews() throws {
        let db = try connection("CREATE VIEW v AS SELECT a, b FROM t; CREATE VIEW broken AS SELECT * FROM gone")
        XCTAssertEqual(
            try db.query("PRAGMA table_list").rows.filter { $0[2] == .text("view") },
            [
                [.text("main"), .text("v"), .text("view"), .integer(2), .integer(0), .integer(0)],
                [.text("main"), .text("broken"), .text("view"), .integer(0), .integer(0), .integer(0)],
            ])
        XCTAssertEqual(try db.query("PRAGMA table_list(V)").rows.map { $0[1] }, [.text("v")])
    }

    func testAffinityAndCollationComeFromTheUnderlyingColumns() throws {
        let db = try connection("CREATE VIEW v AS SELECT a, b, c, a + 0 AS e FROM t")
        // b keeps NOCASE; a keeps INTEGER affinity (so '2' compares as 2); e has none.
        XCTAssertEqual(try db.query("SELECT a FROM v WHERE b = 'y'").rows, [[.integer(2)]])
        XCTAssertEqual(try db.query("SELECT a FROM v WHERE a = '2'").rows, [[.integer(2)]])
        XCTAssertEqual(try db.query("SELECT a FROM v WHERE e = '2'").rows, [])
        XCTAssertEqual(
            try db.query("SELECT b FROM v ORDER BY b DESC").rows, [[.text("z")], [.text("Y")], [.text("x")]])
    }

    func testViewsInJoinsSubqueriesAndOtherViews() throws {
        let db = try connection(
            """
            ;CREATE VIEW big AS SELECT a, b FROM t WHERE a >= 2;
            CREATE VIEW bigger AS SELECT a * 10 AS ten FROM big;
            """)
        XCTAssertEqual(
            try db.query("SELECT t.a, q.b FROM t JOIN big AS q ON q.a = t.a ORDER BY 1").rows,
            [[.integer(2), .text("Y")], [.integer(3), .text("z")]])
        XCTAssertEqual(
            try db.query("SELECT a FROM t WHERE a NOT IN (SELECT a FROM big)").rows, [[.integer(1)]])
        XCTAssertEqual(
            try db.query("SELECT (SELECT max(ten) FROM bigger), count(*) FROM big").rows,
            [[.integer(30), .integer(2)]])
        let star = try db.query("SELECT * FROM big, bigger ORDER BY ten LIMIT 1")
        XCTAssertEqual(star.columns, ["a", "b", "ten"])
        XCTAssertEqual(star.rows, [[.integer(2), .text("Y"), .integer(20)]])
    }

    func testRenamingATableRewritesTheViewsThatNameIt() throws {
        let db = try connection(
            """
            ;CREATE TABLE other(z);
            CREATE VIEW v AS SELECT t.a, b||'' FROM main.t WHERE a IN (SELECT a FROM t AS x WHERE x.a > 1);
            CREATE VIEW untouched AS SELECT z FROM other;
            """)
        try db.execute("ALTER TABLE t RENAME TO t2")
        XCTAssertEqual(
            try db.query("SELECT sql FROM sqlite_schema WHERE type = 'view' ORDER BY name").rows,
            [
                [.text("CREATE VIEW untouched AS SELECT z FROM other")],
                [
                    .text(
                        #"CREATE VIEW v AS SELECT "t2".a, b||'' FROM main."t2" WHERE a IN (SELECT a FROM "t2" AS x WHERE x.a > 1)"#
                    )
                ],
            ])
        let result = try db.query("SELECT * FROM v ORDER BY 1")
        XCTAssertEqual(result.columns, ["a", "b||''"])
        XCTAssertEqual(result.rows, [[.integer(2), .text("Y")], [.integer(3), .text("z")]])
        // The rewritten text is what a new connection loads.
        XCTAssertEqual(try SQLConnection(engine: db.engine).query("SELECT count(*) FROM v").rows, [[.integer(2)]])
    }

    func testRenameIsRefusedWhileAViewDoesNotCompile() throws {
        let db = try connection(
            ";CREATE VIEW broken AS SELECT * FROM gone; CREATE VIEW later AS SELECT 1 UNION SELECT 2")
        assertError(db, "ALTER TABLE t RENAME TO t2", "error in view broken: no such table: main.gone")
        // The rename's own errors come first.
        assertError(db, "ALTER TABLE nosuch RENAME TO t2", "no such table: nosuch")
        try db.execute("DROP VIEW broken")
        // A view Granite cannot run yet (a compound query) does not block a rename, as SQLite would not.
        XCTAssertNil(message { try db.execute("ALTER TABLE t RENAME TO t2") })
        try db.execute("CREATE VIEW loop1 AS SELECT * FROM loop2; CREATE VIEW loop2 AS SELECT * FROM loop1")
        assertError(db, "ALTER TABLE t2 RENAME TO t3", "error in view loop1: view loop2 is circularly defined")
    }

    func testRenamesAViewCannotFollowAreRefused() throws {
        // The table's name is also a column's in the view: the text is not rewritten, and the rename refused.
        let db = try connection("CREATE TABLE u(u); CREATE VIEW v AS SELECT u FROM u")
        assertError(
            db, "ALTER TABLE u RENAME TO u2",
            "cannot rename: view v uses table u (drop the view first, then create it again)")
        XCTAssertEqual(try db.query("SELECT count(*) FROM u").rows, [[.integer(0)]])
        // A view reading the column through another view is not rewritten.
        try db.execute("CREATE VIEW w AS SELECT a FROM t; CREATE VIEW ww AS SELECT a FROM w")
        assertError(
            db, "ALTER TABLE t RENAME COLUMN a TO aa",
            "cannot rename: view ww uses column a (drop the view first, then create it again)")
        // A rename no view is concerned with goes through.
        XCTAssertNil(message { try db.execute("ALTER TABLE t RENAME COLUMN c TO cc") })
        XCTAssertEqual(try db.query("SELECT count(*) FROM w").rows, [[.integer(3)]])
    }

    func testRenamingAColumnRewritesTheViewsThatNameIt() throws {
        let db = try connection(
            """
            ;CREATE TABLE u(x, y);
            CREATE VIEW v AS SELECT a AS a, t.a, a + 1, u.x AS ux FROM t JOIN u ON u.x = t.a WHERE "a" > 0;
            CREATE VIEW s AS SELECT b FROM t WHERE a IN (SELECT x FROM u WHERE u.x = t.a);
            """)
        try db.execute("INSERT INTO u VALUES (2, 'two')")
        try db.execute("ALTER TABLE t RENAME COLUMN a TO aa")
        XCTAssertEqual(
            try db.query("SELECT sql FROM sqlite_schema WHERE type = 'view' ORDER BY name").rows,
            [
                [.text("CREATE VIEW s AS SELECT b FROM t WHERE aa IN (SELECT x FROM u WHERE u.x = t.aa)")],
                [
                    .text(
                        #"CREATE VIEW v AS SELECT aa AS a, t.aa, aa + 1, u.x AS ux FROM t JOIN u ON u.x = t.aa WHERE "aa" > 0"#
                    )
                ],
            ])
        let result = try db.query("SELECT * FROM v")
        XCTAssertEqual(result.columns, ["a", "aa", "aa + 1", "ux"])
        XCTAssertEqual(result.rows, [[.integer(2), .integer(2), .integer(3), .integer(2)]])
        XCTAssertEqual(try db.query("SELECT * FROM s").rows, [[.text("Y")]])
        // Another table's column of the same name in the view: Granite does not tell the tokens apart, and
        // refuses.
        try db.execute("CREATE TABLE other(aa); CREATE VIEW both AS SELECT t.aa, other.aa FROM t, other")
        assertError(
            db, "ALTER TABLE t RENAME COLUMN aa TO a2",
            "cannot rename: view both uses column aa (drop the view first, then create it again)")
    }

    func testReExecutedStatementReadsTheViewAfresh() throws {
        let db = try connection("CREATE VIEW v AS SELECT a FROM t")
        XCTAssertEqual(try db.cachedStatement("SELECT count(*) FROM v").all(), [[.integer(3)]])
        try db.execute("INSERT INTO t VALUES (4, 'w', 40)")
        XCTAssertEqual(try db.cachedStatement("SELECT count(*) FROM v").all(), [[.integer(4)]])
        // The same holds for a FROM subquery, whose parameters may change between executions.
        let sql = "SELECT * FROM (SELECT a FROM t WHERE a = ?)"
        let first = try db.cachedStatement(sql)
        try first.bind([.integer(1)])
        XCTAssertEqual(try first.all(), [[.integer(1)]])
        let second = try db.cachedStatement(sql)
        try second.bind([.integer(2)])
        XCTAssertEqual(try second.all(), [[.integer(2)]])
    }

    func testFiltersOnAViewReachItsTablesIndexes() throws {
        let db = try connection(
            "CREATE INDEX ta ON t(a); CREATE VIEW v AS SELECT a, b, a + 1 AS e FROM t; CREATE VIEW w(p) AS SELECT a FROM v"
        )
        func plan(_ sql: String) throws -> [String] {
            try db.query("EXPLAIN QUERY PLAN " + sql).rows.compactMap { row in
                if case .text(let detail) = row[3] { return detail }
                return nil
            }
        }
        XCTAssertEqual(try plan("SELECT * FROM v WHERE a = 2"), ["SCAN v", "SEARCH t USING INDEX ta (a=?)"])
        XCTAssertEqual(try db.query("SELECT b FROM v WHERE a = 2").rows, [[.text("Y")]])
        // Through a view of a view, and with a parameter.
        XCTAssertEqual(
            try plan("SELECT * FROM w WHERE p > ?"), ["SCAN w", "SCAN v", "SEARCH t USING INDEX ta (a>?)"])
        XCTAssertEqual(try db.query("SELECT * FROM w WHERE p > ?", arguments: [.integer(1)]).rows.count, 2)
        // An expression column cannot take the filter; an aggregate view neither.
        XCTAssertEqual(try plan("SELECT * FROM v WHERE e = 3"), ["SCAN v", "SCAN t"])
        XCTAssertEqual(try db.query("SELECT a FROM v WHERE e = 3").rows, [[.integer(2)]])
        try db.execute("CREATE VIEW g AS SELECT a, count(*) AS n FROM t GROUP BY a")
        XCTAssertEqual(try db.query("SELECT n FROM g WHERE a = 3").rows, [[.integer(1)]])
        // On the right of a LEFT JOIN the outer filter must see the NULL row: nothing is pushed.
        XCTAssertEqual(
            try db.query("SELECT t.a, v.a FROM t LEFT JOIN v ON v.a = t.a + 5 WHERE v.a IS NULL ORDER BY 1").rows,
            [[.integer(1), .null], [.integer(2), .null], [.integer(3), .null]])
    }

    func testCreateAndDropViewBumpTheSchemaCookie() throws {
        let db = try connection()
        let before = try db.query("PRAGMA schema_version").rows
        try db.execute("CREATE VIEW v AS SELECT 1")
        let created = try db.query("PRAGMA schema_version").rows
        try db.execute("CREATE VIEW IF NOT EXISTS v AS SELECT 1")
        XCTAssertEqual(try db.query("PRAGMA schema_version").rows, created)
        try db.execute("DROP VIEW v")
        let dropped = try db.query("PRAGMA schema_version").rows
        XCTAssertNotEqual(before, created)
        XCTAssertNotEqual(created, dropped)
    }
}
