import GraniteSQL
import GraniteStorage
import XCTest

final class PragmaTests: XCTestCase {
    private func connection() throws -> SQLConnection {
        try SQLConnection(engine: try StorageEngine.inMemory())
    }

    private func assertPragma(
        _ db: SQLConnection, _ sql: String, _ columns: [String], _ rows: [[Value]], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        do {
            let result = try db.query(sql)
            XCTAssertEqual(result.columns, columns, sql, file: file, line: line)
            XCTAssertEqual(result.rows, rows, sql, file: file, line: line)
        } catch {
            XCTFail("\(sql): \(error)", file: file, line: line)
        }
    }

    private static let tableInfoColumns = ["cid", "name", "type", "notnull", "dflt_value", "pk"]

    func testTableInfo() throws {
        let db = try connection()
        try db.execute(
            """
            CREATE TABLE t(x VARCHAR(10) NOT NULL DEFAULT 'abc', y INT DEFAULT (1 + 2), z DEFAULT -5,
                w REAL DEFAULT CURRENT_TIMESTAMP, v, PRIMARY KEY(v, x))
            """)
        let expected: [[Value]] = [
            [.integer(0), .text("x"), .text("VARCHAR(10)"), .integer(1), .text("'abc'"), .integer(2)],
            [.integer(1), .text("y"), .text("INT"), .integer(0), .text("1 + 2"), .integer(0)],
            [.integer(2), .text("z"), .text(""), .integer(0), .text("-5"), .integer(0)],
            [.integer(3), .text("w"), .text("REAL"), .integer(0), .text("CURRENT_TIMESTAMP"), .integer(0)],
            [.integer(4), .text("v"), .text(""), .integer(0), .null, .integer(1)],
        ]
        assertPragma(db, "PRAGMA table_info(t)", Self.tableInfoColumns, expected)
        assertPragma(db, "PRAGMA table_info = T", Self.tableInfoColumns, expected)
        assertPragma(db, "pragma main.TABLE_INFO('t')", Self.tableInfoColumns, expected)
        assertPragma(
            db, "PRAGMA table_xinfo(t)", Self.tableInfoColumns + ["hidden"], expected.map { $0 + [.integer(0)] })
        assertPragma(db, "PRAGMA table_info(nosuch)", Self.tableInfoColumns, [])
        assertPragma(db, "PRAGMA table_info", Self.tableInfoColumns, [])
    }

    func testTableInfoRowidAlias() throws {
        let db = try connection()
        try db.execute("CREATE TABLE p(a INTEGER PRIMARY KEY, b TEXT UNIQUE)")
        assertPragma(
            db, "PRAGMA table_info(p)", Self.tableInfoColumns,
            [
                [.integer(0), .text("a"), .text("INTEGER"), .integer(0), .null, .integer(1)],
                [.integer(1), .text("b"), .text("TEXT"), .integer(0), .null, .integer(0)],
            ])
    }

    func testTableInfoAfterReload() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t(a DEFAULT ( 'x' || 'y' ))")
        let reopened = try SQLConnection(engine: db.engine)
        assertPragma(
            reopened, "PRAGMA table_info(t)", Self.tableInfoColumns,
            [[.integer(0), .text("a"), .text(""), .integer(0), .text(" 'x' || 'y' "), .integer(0)]])
    }

    func testTableList() throws {
        let db = try connection()
        try db.execute("CREATE TABLE a(x, y); CREATE TABLE b(z)")
        let columns = ["schema", "name", "type", "ncol", "wr", "strict"]
        assertPragma(
            db, "PRAGMA table_list", columns,
            [
                [.text("main"), .text("a"), .text("table"), .integer(2), .integer(0), .integer(0)],
                [.text("main"), .text("b"), .text("table"), .integer(1), .integer(0), .integer(0)],
                [.text("main"), .text("granite_schema"), .text("table"), .integer(5), .integer(0), .integer(0)],
            ])
        assertPragma(
            db, "PRAGMA table_list(B)", columns,
            [[.text("main"), .text("b"), .text("table"), .integer(1), .integer(0), .integer(0)]])
    }

    func testIndexListAndInfo() throws {
        let db = try connection()
        try db.execute(
            """
            CREATE TABLE t(x, y, z COLLATE NOCASE, w, PRIMARY KEY(w, x), UNIQUE(y), UNIQUE(z, w));
            CREATE INDEX ti ON t(w DESC, z) WHERE w > 0;
            CREATE UNIQUE INDEX te ON t(x + 1, y);
            """)
        let listColumns = ["seq", "name", "unique", "origin", "partial"]
        assertPragma(
            db, "PRAGMA index_list(t)", listColumns,
            [
                [.integer(0), .text("te"), .integer(1), .text("c"), .integer(0)],
                [.integer(1), .text("ti"), .integer(0), .text("c"), .integer(1)],
                [.integer(2), .text("granite_autoindex_t_3"), .integer(1), .text("u"), .integer(0)],
                [.integer(3), .text("granite_autoindex_t_2"), .integer(1), .text("u"), .integer(0)],
                [.integer(4), .text("granite_autoindex_t_1"), .integer(1), .text("pk"), .integer(0)],
            ])
        assertPragma(db, "PRAGMA index_list(nosuch)", listColumns, [])
        let infoColumns = ["seqno", "cid", "name"]
        assertPragma(
            db, "PRAGMA index_info(ti)", infoColumns,
            [[.integer(0), .integer(3), .text("w")], [.integer(1), .integer(2), .text("z")]])
        assertPragma(
            db, "PRAGMA index_info(te)", infoColumns,
            [[.integer(0), .integer(-2), .null], [.integer(1), .integer(1), .text("y")]])
        assertPragma(db, "PRAGMA index_info(nosuch)", infoColumns, [])
        assertPragma(
            db, "PRAGMA index_xinfo(granite_autoindex_t_3)", infoColumns + ["desc", "coll", "key"],
            [
                [.integer(0), .integer(2), .text("z"), .integer(0), .text("NOCASE"), .integer(1)],
                [.integer(1), .integer(3), .text("w"), .integer(0), .text("BINARY"), .integer(1)],
                [.integer(2), .integer(-1), .null, .integer(0), .text("BINARY"), .integer(0)],
            ])
        assertPragma(
            db, "PRAGMA index_xinfo(ti)", infoColumns + ["desc", "coll", "key"],
            [
                [.integer(0), .integer(3), .text("w"), .integer(1), .text("BINARY"), .integer(1)],
                [.integer(1), .integer(2), .text("z"), .integer(0), .text("NOCASE"), .integer(1)],
                [.integer(2), .integer(-1), .null, .integer(0), .text("BINARY"), .integer(0)],
            ])
    }

    func testForeignKeyList() throws {
        let db = try connection()
        try db.execute(
            """
            CREATE TABLE p(a INTEGER PRIMARY KEY, b, c, UNIQUE(b, c));
            CREATE TABLE t(x REFERENCES p(a) ON DELETE CASCADE ON UPDATE SET NULL, y, z,
                FOREIGN KEY(y, z) REFERENCES p(b, c), FOREIGN KEY(z) REFERENCES p);
            """)
        let columns = ["id", "seq", "table", "from", "to", "on_update", "on_delete", "match"]
        assertPragma(
            db, "PRAGMA foreign_key_list(t)", columns,
            [
                [
                    .integer(0), .integer(0), .text("p"), .text("z"), .null, .text("NO ACTION"), .text("NO ACTION"),
                    .text("NONE"),
                ],
                [
                    .integer(1), .integer(0), .text("p"), .text("y"), .text("b"), .text("NO ACTION"),
                    .text("NO ACTION"),
                    .text("NONE"),
                ],
                [
                    .integer(1), .integer(1), .text("p"), .text("z"), .text("c"), .text("NO ACTION"),
                    .text("NO ACTION"),
                    .text("NONE"),
                ],
                [
                    .integer(2), .integer(0), .text("p"), .text("x"), .text("a"), .text("SET NULL"), .text("CASCADE"),
                    .text("NONE"),
                ],
            ])
        assertPragma(db, "PRAGMA foreign_key_list(p)", columns, [])
        assertPragma(db, "PRAGMA foreign_key_list(nosuch)", columns, [])
    }

    func testFileHeaderPragmas() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        let pageSize = try db.query("PRAGMA page_size")
        XCTAssertEqual(pageSize.columns, ["page_size"])
        XCTAssertEqual(pageSize.rows, [[.integer(Int64(PageLayout.defaultPageSize))]])
        let pageCount = try db.query("PRAGMA page_count")
        XCTAssertEqual(pageCount.columns, ["page_count"])
        guard case .integer(let pages) = pageCount.rows.first?.first else { return XCTFail("\(pageCount)") }
        XCTAssertGreaterThan(pages, 1)
        assertPragma(db, "PRAGMA page_count = 99", ["page_count"], [[.integer(pages)]])
        assertPragma(db, "PRAGMA page_size = 8192", [], [])
        assertPragma(db, "PRAGMA freelist_count", ["freelist_count"], [[.integer(0)]])
        try db.execute("CREATE TABLE big(b)")
        for _ in 0..<20 { try db.execute("INSERT INTO big VALUES ('\(String(repeating: "x", count: 1000))')") }
        try db.execute("DROP TABLE big")
        let freelist = try db.query("PRAGMA freelist_count")
        XCTAssertEqual(freelist.columns, ["freelist_count"])
        guard case .integer(let free) = freelist.rows.first?.first else { return XCTFail("\(freelist)") }
        XCTAssertGreaterThan(free, 0)
    }

    func testHeaderPragmasSeeTheOpenTransaction() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t(a)")
        guard case .integer(let before) = try db.query("PRAGMA page_count").rows.first?.first else { return XCTFail() }
        try db.execute("BEGIN; CREATE TABLE u(b); CREATE INDEX ub ON u(b)")
        guard case .integer(let during) = try db.query("PRAGMA page_count").rows.first?.first else { return XCTFail() }
        XCTAssertGreaterThan(during, before)
        assertPragma(db, "PRAGMA integrity_check", ["integrity_check"], [[.text("ok")]])
        try db.execute("ROLLBACK")
        assertPragma(db, "PRAGMA page_count", ["page_count"], [[.integer(before)]])
    }

    func testUserVersion() throws {
        let db = try connection()
        assertPragma(db, "PRAGMA user_version", ["user_version"], [[.integer(0)]])
        assertPragma(db, "PRAGMA user_version = 7", [], [])
        assertPragma(db, "PRAGMA user_version", ["user_version"], [[.integer(7)]])
        try db.execute("PRAGMA user_version = -3")
        assertPragma(db, "PRAGMA user_version", ["user_version"], [[.integer(-3)]])
        try db.execute("PRAGMA user_version('12abc')")
        assertPragma(db, "PRAGMA user_version", ["user_version"], [[.integer(12)]])
        // Inside a transaction the change is rolled back with it.
        try db.execute("BEGIN; PRAGMA user_version = 42")
        assertPragma(db, "PRAGMA user_version", ["user_version"], [[.integer(42)]])
        try db.execute("ROLLBACK")
        assertPragma(db, "PRAGMA user_version", ["user_version"], [[.integer(12)]])
        // Persisted in the file header: another connection sees it.
        let other = try SQLConnection(engine: try StorageEngine(sharing: db.engine))
        assertPragma(other, "PRAGMA user_version", ["user_version"], [[.integer(12)]])
    }

    func testForeignKeys() throws {
        let db = try connection()
        assertPragma(db, "PRAGMA foreign_keys", ["foreign_keys"], [[.integer(1)]])
        for (text, expected) in [
            ("OFF", false), ("on", true), ("0", false), ("1", true), ("false", false), ("TRUE", true),
            ("no", false), ("yes", true), ("'off'", false), ("banana", false),
        ] {
            try db.execute("PRAGMA foreign_keys = \(text)")
            XCTAssertEqual(db.foreignKeysEnabled, expected, text)
            assertPragma(db, "PRAGMA foreign_keys", ["foreign_keys"], [[.integer(expected ? 1 : 0)]])
        }
        // A no-op inside a transaction, as in SQLite.
        try db.execute("BEGIN; PRAGMA foreign_keys = ON")
        assertPragma(db, "PRAGMA foreign_keys", ["foreign_keys"], [[.integer(0)]])
        try db.execute("COMMIT")
    }

    func testIntegrityCheck() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t(a UNIQUE, b); CREATE INDEX tb ON t(b); INSERT INTO t VALUES (1, 2), (3, 4)")
        assertPragma(db, "PRAGMA integrity_check", ["integrity_check"], [[.text("ok")]])
        assertPragma(db, "PRAGMA integrity_check(5)", ["integrity_check"], [[.text("ok")]])
        assertPragma(db, "PRAGMA quick_check", ["quick_check"], [[.text("ok")]])
        // An index entry removed behind the SQL layer's back is reported.
        let index = try XCTUnwrap(db.catalog.index(named: "tb"))
        try db.engine.beginWrite()
        let tree = try db.engine.index(named: index.storageName)
        let cursor = try tree.makeCursor()
        XCTAssertTrue(try cursor.first())
        let key = cursor.key
        XCTAssertTrue(try tree.delete(key: key))
        try db.engine.commit()
        assertPragma(
            db, "PRAGMA integrity_check", ["integrity_check"],
            [[.text("row 1 missing from index tb")], [.text("wrong # of entries in index tb")]])
        // As in SQLite, a quick check does not compare indexes with their tables.
        assertPragma(db, "PRAGMA quick_check(1)", ["quick_check"], [[.text("ok")]])
        // An extra entry (pointing at no row) is reported and counted.
        try db.engine.beginWrite()
        try tree.insert(key: key)
        try tree.insert(key: key.dropLast() + [0x7F])
        try db.engine.commit()
        assertPragma(
            db, "PRAGMA integrity_check", ["integrity_check"],
            [
                [.text("entry for row 127 in index tb does not match a row of t")],
                [.text("wrong # of entries in index tb")],
            ])
    }

    func testIntegrityCheckOfPartialAndExpressionIndexes() throws {
        let db = try connection()
        try db.execute(
            """
            CREATE TABLE t(a, b COLLATE NOCASE);
            CREATE INDEX tp ON t(a) WHERE a > 2;
            CREATE INDEX tx ON t(a + 1, b);
            CREATE UNIQUE INDEX tb ON t(b);
            INSERT INTO t VALUES (1, 'x'), (2, 'Y'), (3, NULL), (4, 'z');
            ALTER TABLE t ADD COLUMN c DEFAULT 5;
            CREATE INDEX tc ON t(c);
            """)
        assertPragma(db, "PRAGMA integrity_check", ["integrity_check"], [[.text("ok")]])
    }

    func testMiscellaneous() throws {
        let db = try connection()
        assertPragma(db, "PRAGMA journal_mode", ["journal_mode"], [[.text("wal")]])
        assertPragma(db, "PRAGMA journal_mode = DELETE", ["journal_mode"], [[.text("wal")]])
        assertPragma(db, "PRAGMA encoding", ["encoding"], [[.text("UTF-8")]])
        assertPragma(db, "PRAGMA synchronous", ["synchronous"], [[.integer(2)]])
        assertPragma(db, "PRAGMA synchronous = OFF", [], [])
        var options = StorageOptions()
        options.durability = .normal
        let normal = try SQLConnection(engine: try StorageEngine.inMemory(options: options))
        assertPragma(normal, "PRAGMA synchronous", ["synchronous"], [[.integer(1)]])
        assertPragma(db, "PRAGMA no_such_pragma", [], [])
        assertPragma(db, "PRAGMA no_such_pragma = 3", [], [])
        XCTAssertThrowsError(try db.query("PRAGMA other.page_size")) { error in
            XCTAssertEqual((error as? SQLExecutionError)?.message, "unknown database other")
        }
    }

    /// SQLite's readings of the argument: milliseconds, a fraction dropped, a negative number or a word as 0.
    func testBusyTimeoutReadsAndSetsTheConnectionsWaitForOtherProcesses() throws {
        var options = StorageOptions()
        options.busyTimeout = 2.5
        let db = try SQLConnection(engine: try StorageEngine.inMemory(options: options))
        assertPragma(db, "PRAGMA busy_timeout", ["timeout"], [[.integer(2500)]])
        assertPragma(db, "PRAGMA busy_timeout = 250", ["timeout"], [[.integer(250)]])
        XCTAssertEqual(db.engine.processBusyTimeout, 0.25)
        assertPragma(db, "PRAGMA busy_timeout = 1.7", ["timeout"], [[.integer(1)]])
        assertPragma(db, "PRAGMA busy_timeout = -5", ["timeout"], [[.integer(0)]])
        assertPragma(db, "PRAGMA busy_timeout = 'abc'", ["timeout"], [[.integer(0)]])
        assertPragma(db, "PRAGMA busy_timeout", ["timeout"], [[.integer(0)]])
        options.crossProcessBusyTimeout = 0
        let immediate = try SQLConnection(engine: try StorageEngine.inMemory(options: options))
        assertPragma(immediate, "PRAGMA busy_timeout", ["timeout"], [[.integer(0)]])
    }

    func testSchemaVersionChangesWithTheSchema() throws {
        let db = try connection()
        let before = try db.query("PRAGMA schema_version")
        XCTAssertEqual(before.columns, ["schema_version"])
        try db.execute("CREATE TABLE t(a)")
        let after = try db.query("PRAGMA schema_version")
        XCTAssertNotEqual(before.rows, after.rows)
    }
}
