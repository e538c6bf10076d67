import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

extension Oracle {
    /// Runs `sql` and returns its column names and every row.
    func all(_ sql: String) -> (columns: [String], rows: [[Value]]) {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        precondition(rc == SQLITE_OK, "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        defer { sqlite3_finalize(stmt) }
        let n = sqlite3_column_count(stmt)
        let columns = (0..<n).map { String(cString: sqlite3_column_name(stmt, $0)) }
        var rows: [[Value]] = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            rows.append((0..<n).map { column(stmt!, $0) })
        }
        return (columns, rows)
    }
}

/// Compares the schema pragmas with SQLite's on a variety of tables.
final class PragmaDifferentialTests: XCTestCase {
    /// Table schemas (`parent` exists for the foreign keys).
    static let schemas: [String] = [
        "CREATE TABLE t(a, b, c)",
        "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL DEFAULT 0.5)",
        "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, x UNIQUE, y UNIQUE, UNIQUE(x, y))",
        "CREATE TABLE t(a TEXT PRIMARY KEY, b INT DEFAULT (1+2), c DEFAULT 'it''s', d DEFAULT -7, e DEFAULT NULL)",
        "CREATE TABLE t(a, b, c, PRIMARY KEY(c, a), UNIQUE(b COLLATE NOCASE), UNIQUE(a, b))",
        "CREATE TABLE t(a INTEGER PRIMARY KEY DESC, b)",
        "CREATE TABLE t(a INT PRIMARY KEY, b BLOB DEFAULT x'00ff', c DEFAULT CURRENT_TIMESTAMP, d DEFAULT TRUE)",
        "CREATE TABLE t(a VARCHAR(10) NOT NULL, b DECIMAL(10,2), c UNIQUE ON CONFLICT REPLACE, PRIMARY KEY(a, b))",
        "CREATE TABLE t(a PRIMARY KEY UNIQUE, b UNIQUE, c, UNIQUE(b))",
        """
        CREATE TABLE t(a INTEGER PRIMARY KEY, p REFERENCES parent(id) ON DELETE CASCADE,
            q, r, FOREIGN KEY(q, r) REFERENCES parent(x, y) ON UPDATE SET NULL ON DELETE SET DEFAULT,
            FOREIGN KEY(r) REFERENCES parent ON DELETE RESTRICT)
        """,
        "CREATE TABLE t(x REFERENCES parent, y REFERENCES parent(id) ON UPDATE CASCADE ON UPDATE NO ACTION)",
        "CREATE TABLE t(a varchar( 10 ) , b unsigned  big int, d numeric (1 ,-2) NOT NULL, e)",
        "CREATE TABLE t(a UNIQUE, b UNIQUE ON CONFLICT REPLACE, c UNIQUE, d PRIMARY KEY ON CONFLICT REPLACE)",
        "CREATE TABLE t(\"odd name\" TEXT DEFAULT (lower('X')), [b] INT, `c` DEFAULT (abs(-1) + 2))",
    ]

    /// Extra `CREATE INDEX` statements run after each schema (those that fail in SQLite are skipped).
    static let indexes: [String] = [
        "CREATE INDEX i1 ON t(b)",
        "CREATE UNIQUE INDEX i2 ON t(c DESC, a)",
        "CREATE INDEX i3 ON t(b) WHERE b > 0",
        "CREATE INDEX i4 ON t(a + 1, c COLLATE NOCASE)",
    ]

    private static func normalized(_ value: Value) -> Value {
        if case .text(let text) = value, text.hasPrefix("sqlite_autoindex_") {
            return .text("granite_autoindex_" + text.dropFirst("sqlite_autoindex_".count))
        }
        return value
    }

    func testSchemaPragmasMatchSQLite() throws {
        var checks = 0
        for schema in Self.schemas {
            let oracle = Oracle()
            oracle.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY, x, y, UNIQUE(x, y))")
            oracle.execute(schema)
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            try db.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY, x, y, UNIQUE(x, y))")
            try db.execute(schema)
            for index in Self.indexes where sqlite3_exec(oracle.db, index, nil, nil, nil) == SQLITE_OK {
                try db.execute(index)
            }
            let reloaded = try SQLConnection(engine: db.engine)
            var pragmas = ["table_info(t)", "table_xinfo(t)", "index_list(t)", "foreign_key_list(t)"]
            pragmas += oracle.all("PRAGMA index_list(t)").rows.flatMap { row -> [String] in
                guard case .text(let name) = Self.normalized(row[1]) else { return [] }
                return ["index_info(\(name))", "index_xinfo(\(name))"]
            }
            for pragma in pragmas {
                let expected = oracle.all("PRAGMA " + pragma.replacingOccurrences(of: "granite_", with: "sqlite_"))
                let actual = try db.query("PRAGMA " + pragma)
                XCTAssertEqual(actual.columns, expected.columns, "\(schema)\nPRAGMA \(pragma)")
                XCTAssertEqual(
                    actual.rows, expected.rows.map { $0.map(Self.normalized) }, "\(schema)\nPRAGMA \(pragma)")
                // The same after re-reading the schema from the file.
                XCTAssertEqual(try reloaded.query("PRAGMA " + pragma).rows, actual.rows, "reloaded: PRAGMA \(pragma)")
                checks += 1
            }
        }
        XCTAssertGreaterThan(checks, 50)
    }

    /// `PRAGMA foreign_key_check` over rows written while foreign keys were off: each child row whose parent row is
    /// missing (or whose parent table is), per table and foreign key, and SQLite's errors.
    func testForeignKeyCheckMatchesSQLite() throws {
        let statements = [
            "PRAGMA foreign_keys = OFF",
            "CREATE TABLE p(id INTEGER PRIMARY KEY, u UNIQUE, t TEXT COLLATE NOCASE UNIQUE)",
            "CREATE TABLE c(pid REFERENCES p, x, pu REFERENCES p(u), pt REFERENCES p(t))",
            "CREATE TABLE d(a REFERENCES nosuch, b, FOREIGN KEY (a, b) REFERENCES q(x, y))",
            "CREATE TABLE q(x, y, PRIMARY KEY (x, y))",
            "INSERT INTO p VALUES (1, 'a', 'Abc'), (2, 5, NULL)",
            "INSERT INTO c VALUES (1, 'ok', 'a', 'ABC'), (3, 'orphan', 'b', 'abc'), (NULL, 'null', NULL, 'x'), "
                + "('1', 'text key', '5', 'abc'), (2.0, 'real key', 5.0, NULL)",
            "INSERT INTO d VALUES (1, 2), (NULL, 3), (4, NULL)",
            "INSERT INTO q VALUES (1, 2)",
            "PRAGMA foreign_key_check(c)", "PRAGMA foreign_key_check(d)", "PRAGMA foreign_key_check(p)",
            "PRAGMA foreign_key_check(C)", "PRAGMA main.foreign_key_check(c)", "PRAGMA foreign_key_check(nosuch)",
            "PRAGMA foreign_key_check(sqlite_master)",
            "SELECT *, arg, schema FROM pragma_foreign_key_check('c')",
            "SELECT \"table\", count(*) FROM pragma_foreign_key_check GROUP BY 1 ORDER BY 1",
            "PRAGMA foreign_keys = ON", "PRAGMA foreign_key_check(c)",
            "CREATE TABLE m(z REFERENCES p(nope))", "INSERT INTO m VALUES (1)", "PRAGMA foreign_key_check(m)",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        SelectDifferentialTests.compareInOrder(statements, oracle, db)
        // Without an argument SQLite goes through the tables in the order of its hash table: compared as sets.
        let e = SelectDifferentialTests.sqlite(oracle, "PRAGMA foreign_key_check")
        let a = SelectDifferentialTests.granite(db, "PRAGMA foreign_key_check")
        XCTAssertNil(SelectDifferentialTests.mismatch(e, a, ordered: false))
    }

    /// `PRAGMA table_info` of a view: a column's type is its source column's declared type as written (spacing
    /// and all), a rowid's is INTEGER; a plain column is named after its declared name, a rowid after its alias
    /// column (else `rowid`).
    func testTableInfoOfViewsKeepsDeclaredTypes() throws {
        let statements = [
            "CREATE TABLE t(a DECIMAL(10,2), b VARCHAR( 20 ), c INTEGER PRIMARY KEY, d \"weird type\"  , "
                + "e  double precision, f NUMERIC ( 5 , -3 ), g int)",
            "CREATE TABLE u(x)",
            "CREATE VIEW v AS SELECT t.rowid, a, b, c, d, e, f, g, u.rowid AS ur, u.oid, t._rowid_ FROM t, u",
            "PRAGMA table_info(v)", "PRAGMA table_xinfo(v)", "PRAGMA table_info(t)",
            "CREATE VIEW w AS SELECT rowid, * FROM u", "PRAGMA table_info(w)",
            "CREATE VIEW x AS SELECT * FROM (SELECT rowid AS r, a, oid FROM t)", "PRAGMA table_info(x)",
            "SELECT name, type FROM pragma_table_info('v')",
            "CREATE VIEW y AS SELECT A, T.C, rowid, G FROM t", "PRAGMA table_info(y)", "SELECT * FROM y",
            "INSERT INTO t VALUES (1.5, 'x', 7, 'd', 2, 3, 4)", "INSERT INTO u VALUES (8)", "SELECT * FROM v",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        SelectDifferentialTests.compareInOrder(statements, oracle, db)
    }
}
