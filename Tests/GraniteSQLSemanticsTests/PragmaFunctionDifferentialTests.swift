import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

/// The table-valued pragma functions (`pragma_table_info('t')`, …) run on SQLite and Granite: each over the
/// schemas of ``PragmaDifferentialTests`` (indexes, foreign keys) plus generated columns and a view, with their
/// hidden `arg` and `schema` columns, joined with `sqlite_schema` and with each other (correlated), and the errors
/// SQLite gives for unknown functions, too many arguments and unknown schemas.
final class PragmaFunctionDifferentialTests: XCTestCase {
    static let schemas =
        PragmaDifferentialTests.schemas + [
            "CREATE TABLE t(a INT, b AS (a * 2), c TEXT GENERATED ALWAYS AS (upper(a)) STORED, d integer NOT NULL)",
            "CREATE TABLE t(a Int, b any, c blob, d real, e float, f  integer , g text UNIQUE)",
        ]

    /// The statements compared on each schema; automatic index names are rewritten to Granite's.
    static let queries = [
        "SELECT * FROM pragma_table_info('t')",
        "SELECT *, arg, schema FROM pragma_table_xinfo('t', 'main')",
        "SELECT * FROM pragma_table_info('v')", "SELECT * FROM pragma_table_xinfo('v')",
        "SELECT m.name, p.* FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS p "
            + "WHERE m.type IN ('table', 'view') AND m.name NOT LIKE '%sequence' ORDER BY m.name, p.cid",
        "SELECT m.name, p.* FROM sqlite_schema AS m, pragma_table_xinfo(m.name) AS p "
            + "WHERE m.type = 'table' AND m.name NOT LIKE '%sequence' ORDER BY m.name, p.cid",
        "SELECT seq, replace(name, 'sqlite_', 'granite_'), \"unique\", origin, partial, arg, schema "
            + "FROM pragma_index_list('t')",
        "SELECT l.seq, replace(l.name, 'sqlite_', 'granite_'), i.* FROM pragma_index_list('t') AS l "
            + "JOIN pragma_index_info(l.name) AS i ORDER BY l.seq, i.seqno",
        "SELECT l.seq, i.*, i.arg IS l.name FROM pragma_index_list('t') AS l "
            + "JOIN pragma_index_xinfo(l.name, 'main') AS i ORDER BY l.seq, i.seqno",
        "SELECT *, arg, schema FROM pragma_foreign_key_list('t')",
        "SELECT p.\"table\", p.\"from\", count(*) FROM pragma_foreign_key_list('t') AS p GROUP BY 1, 2 ORDER BY 1, 2",
        "SELECT name FROM pragma_table_info('t') WHERE pk > 0 ORDER BY pk",
        "SELECT m.name, (SELECT count(*) FROM pragma_table_xinfo(m.name)) FROM sqlite_schema AS m "
            + "WHERE m.type <> 'index' AND m.name NOT LIKE '%sequence' ORDER BY m.name",
        "SELECT name FROM pragma_table_info('t') WHERE name IN (SELECT name FROM pragma_table_info('parent'))",
    ]

    func testPragmaFunctionsMatchSQLite() throws {
        var compared = 0
        var failures: [String] = []
        for schema in Self.schemas {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in ["CREATE TABLE parent(id INTEGER PRIMARY KEY, x, y, UNIQUE(x, y))", schema] {
                oracle.execute(sql)
                try db.execute(sql)
            }
            for sql in PragmaDifferentialTests.indexes + ["CREATE VIEW v AS SELECT p.*, 1 + 1 AS two, p.x || t.rowid AS s FROM parent AS p, t"]
            where sqlite3_exec(oracle.db, sql, nil, nil, nil) == SQLITE_OK {
                try db.execute(sql)
            }
            for sql in Self.queries {
                let e = SelectDifferentialTests.sqlite(oracle, sql)
                let a = SelectDifferentialTests.granite(db, sql)
                compared += 1
                if let why = SelectDifferentialTests.mismatch(e, a, ordered: true) {
                    failures.append("\(schema)\n  \(sql): \(why)")
                }
            }
        }
        print("pragma functions: \(compared) statements compared")
        XCTAssertEqual(compared, Self.schemas.count * Self.queries.count)
        XCTAssert(failures.isEmpty, "\(failures.count) mismatches:\n" + failures.prefix(20).joined(separator: "\n"))
    }

    func testArgumentsAndErrorsMatchSQLite() throws {
        let statements = [
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x', c REFERENCES t)",
            "CREATE INDEX ti ON t(b, c)",
            "SELECT * FROM pragma_nope", "SELECT * FROM pragma_nope('t')", "SELECT * FROM pragma_('t')",
            "SELECT * FROM pragma_table_info('t', 'main', 'x')", "SELECT * FROM pragma_index_info('ti', 1, 2)",
            "SELECT * FROM pragma_user_version(1)", "SELECT * FROM pragma_foreign_keys(1)",
            "SELECT * FROM pragma_table_list(1, 2)",
            "SELECT * FROM pragma_table_info", "SELECT * FROM pragma_table_info()",
            "SELECT * FROM pragma_table_info(NULL)", "SELECT * FROM pragma_table_info(5)",
            "SELECT * FROM pragma_table_info('t', 'nope')", "SELECT * FROM pragma_table_info('t', 'MAIN')",
            "SELECT * FROM pragma_table_info('t', 'temp')", "SELECT * FROM pragma_table_info('t', NULL)",
            "SELECT * FROM pragma_table_info('nope')", "SELECT * FROM PRAGMA_TABLE_INFO('T')",
            "SELECT * FROM main.pragma_table_info('t')", "SELECT * FROM nope.pragma_table_info('t')",
            "SELECT cid, arg, schema FROM pragma_table_info('t') AS p WHERE p.arg = 't'",
            "SELECT p.name, q.name FROM pragma_table_info('t') AS p, pragma_table_info('t') AS q "
                + "WHERE p.cid = q.cid + 1",
            "SELECT * FROM pragma_index_info('ti')", "SELECT * FROM pragma_index_xinfo('ti')",
            "SELECT * FROM pragma_index_list('t') WHERE name LIKE '%ti%'",
            "SELECT * FROM pragma_foreign_key_list('t')",
            "PRAGMA foreign_keys = ON", "SELECT * FROM pragma_foreign_keys", "SELECT * FROM pragma_recursive_triggers",
            "SELECT * FROM pragma_user_version", "SELECT * FROM pragma_encoding",
            "SELECT * FROM pragma_integrity_check", "SELECT * FROM pragma_quick_check('t')",
            "SELECT * FROM pragma_integrity_check(NULL, 'main')",
            "WITH pragma_table_info AS (SELECT 1) SELECT * FROM pragma_table_info('t')",
            "SELECT json_each.* FROM json_each", "SELECT count(*) FROM pragma_table_info('t') JOIN t",
            "SELECT b FROM t WHERE b IN (SELECT name FROM pragma_table_info('t'))",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        SelectDifferentialTests.compareInOrder(statements, oracle, db)
        for sql in [
            "SELECT * FROM pragma_table_info('t', 'main')", "SELECT * FROM pragma_foreign_keys",
            "SELECT * FROM sqlite_schema AS m JOIN pragma_index_list(m.name)",
        ] {
            guard case .rows(let rows) = oracle.all("EXPLAIN QUERY PLAN " + sql, []) else {
                XCTFail("SQLite could not explain \(sql)")
                continue
            }
            let actual = try db.query("EXPLAIN QUERY PLAN " + sql).rows.map { "\($0[3])" }
            XCTAssertEqual(actual, rows.map { "\($0[3])" }, sql)
        }
    }

    /// A `WHERE`/`ON` term on a hidden column the call leaves unbound: an equality, an `IN` list or an `OR` of
    /// equalities on the first unbound one (then the next) binds it, as SQLite's xBestIndex takes it, when its
    /// value reads sources before the function; other forms, and a term on the `schema` column alone, filter the
    /// rows as they stand (the column being NULL).
    func testConstraintsOnUnboundHiddenColumnsMatchSQLite() throws {
        let statements = [
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x', c REFERENCES t)",
            "CREATE TABLE u(x UNIQUE, y)", "CREATE INDEX ti ON t(b, c)", "INSERT INTO u VALUES ('t', 'u'), ('u', 'q')",
            "SELECT *, arg, schema FROM pragma_table_info WHERE arg = 't'",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE 'u' = arg",
            "SELECT cid, arg, schema FROM pragma_table_info AS p WHERE p.arg = 'T' AND p.schema = 'main'",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE schema = 'main'",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg IS 't'",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg IN ('u', 't', 'u')",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg IN ('t')",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg = NULL",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg LIKE 't'",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg = 't' AND arg = 'u'",
            "SELECT cid, arg, schema FROM pragma_table_info('t') WHERE schema = 'main'",
            "SELECT cid, arg, schema FROM pragma_table_info('t') WHERE arg = 'u'",
            "SELECT m.name, p.seq, replace(p.name, 'sqlite_', 'granite_'), p.\"unique\", p.arg "
                + "FROM sqlite_schema AS m JOIN pragma_index_list AS p ON p.arg = m.name",
            "SELECT m.name, p.name FROM sqlite_schema AS m, pragma_table_info AS p WHERE p.arg = m.name "
                + "AND m.type = 'table'",
            "SELECT * FROM pragma_page_size WHERE schema = 'main'",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg = 't' AND schema = 'nope'",
            "SELECT cid, arg, typeof(arg) FROM pragma_table_info WHERE arg = 5",
            "SELECT cid, arg FROM pragma_table_info WHERE arg = 'u' OR arg = 't'",
            "SELECT cid, arg FROM pragma_table_info WHERE arg = 'u' OR 't' = arg OR arg = 'u'",
            "SELECT cid, arg FROM pragma_table_info WHERE +arg = 't'",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg = 't' COLLATE NOCASE",
            "SELECT cid, arg FROM pragma_table_info WHERE arg COLLATE NOCASE = 't'",
            "SELECT replace(m.name, 'sqlite_', 'granite_'), replace(p.name, 'sqlite_', 'granite_') "
                + "FROM sqlite_schema AS m LEFT JOIN pragma_index_list AS p ON p.arg = m.name",
            "SELECT cid, arg FROM pragma_table_info WHERE arg = (SELECT 't')",
            "SELECT cid, arg FROM pragma_table_info WHERE arg = 't' AND cid > 0",
            "SELECT *, arg FROM pragma_integrity_check WHERE arg = 1",
            "SELECT *, arg FROM pragma_integrity_check WHERE arg = NULL",
            "SELECT *, arg FROM pragma_integrity_check WHERE arg IN (NULL)",
            "SELECT *, arg FROM pragma_integrity_check WHERE arg IN (NULL, 't')",
            "SELECT *, arg FROM pragma_integrity_check WHERE arg IN (3, 2, 2.5, 2)",
            "SELECT cid, arg FROM pragma_table_info AS p WHERE p.arg = p.name",
            "SELECT cid, arg, schema FROM pragma_table_info WHERE arg IN ('u', 't') AND schema IN ('main', 'temp')",
            "SELECT cid, arg FROM pragma_table_info WHERE (arg = 'u' OR arg = 't') AND cid = 1",
            "SELECT cid, arg FROM pragma_table_info WHERE arg = 'u' OR cid = 1",
            "SELECT cid, arg FROM pragma_table_info WHERE arg NOT IN ('u')",
            "SELECT u.x, p.name FROM u JOIN pragma_table_info AS p ON p.arg = 'u' OR p.arg = 't' ORDER BY 1, 2",
            "SELECT u.x, p.name FROM u JOIN pragma_table_info AS p ON p.arg IN (u.x, u.y) ORDER BY 1, 2",
            "SELECT u.x, (SELECT group_concat(name) FROM pragma_table_info WHERE arg = u.x) FROM u",
            "SELECT u.x, p.seqno FROM u, pragma_index_info AS p WHERE p.arg = 'ti' AND p.schema = 'main'",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        SelectDifferentialTests.compareInOrder(statements, oracle, db)
        // SQLite places the function after the source its constraint reads, where Granite keeps a function in place;
        // it may run an OR reading other sources as one scan per equality.
        for sql in [
            "SELECT m.name, p.name FROM pragma_index_list AS p, sqlite_schema AS m WHERE p.arg = m.name",
            "SELECT m.name, p.name FROM pragma_index_list AS p, sqlite_schema AS m WHERE p.arg = (SELECT m.name)",
            "SELECT m.name, p.name FROM sqlite_schema AS m LEFT JOIN pragma_index_list AS p WHERE p.arg = m.name",
            "SELECT u.x, p.name FROM u JOIN pragma_table_info AS p ON p.arg = u.x OR p.arg = u.y",
        ] {
            XCTAssertThrowsError(try db.query(sql), sql) {
                XCTAssertEqual(
                    "\($0)",
                    "this constraint on a hidden column a pragma function's call leaves unbound is not supported yet")
            }
        }
    }
}
