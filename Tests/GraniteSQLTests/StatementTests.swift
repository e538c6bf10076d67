import GraniteSQL
import XCTest

final class StatementTests: XCTestCase {
    func testSelect() {
        assertCanonical("select * from t", "SELECT * FROM t")
        assertCanonical("SELECT DISTINCT a, t.*, b AS x, c y FROM t", "SELECT DISTINCT a, t.*, b AS x, c AS y FROM t")
        assertCanonical("SELECT ALL a FROM main.t AS u WHERE a > 1", "SELECT a FROM main.t AS u WHERE (a > 1)")
        assertCanonical("SELECT 1", "SELECT 1")
        assertCanonical(
            "SELECT a, count(*) FROM t GROUP BY a, b HAVING count(*) > 1",
            "SELECT a, count(*) FROM t GROUP BY a, b HAVING (count(*) > 1)")
        assertCanonical(
            "SELECT a FROM t ORDER BY a COLLATE nocase DESC NULLS LAST, b ASC, c NULLS FIRST LIMIT 10 OFFSET 5",
            "SELECT a FROM t ORDER BY (a COLLATE nocase) DESC NULLS LAST, b ASC, c NULLS FIRST LIMIT 10 OFFSET 5")
        assertCanonical("SELECT a FROM t LIMIT 5, 10", "SELECT a FROM t LIMIT 10 OFFSET 5")
        assertCanonical("SELECT \"select\" FROM \"from\"", "SELECT \"select\" FROM \"from\"")
        assertCanonical("SELECT a AS 'x y' FROM t", "SELECT a AS \"x y\" FROM t")
    }

    func testCommonTableExpressions() {
        assertCanonical(
            "with recursive c(n) as (select 1 union all select n + 1 from c where n < 10), d as materialized "
                + "(values (1)) select * from c, d",
            "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT (n + 1) FROM c WHERE (n < 10)), d AS MATERIALIZED "
                + "(VALUES (1)) SELECT * FROM c, d")
        assertCanonical(
            "SELECT (WITH x AS NOT MATERIALIZED (SELECT 1) SELECT * FROM x)",
            "SELECT (WITH x AS NOT MATERIALIZED (SELECT 1) SELECT * FROM x)")
        assertCanonical(
            "INSERT INTO t WITH x AS (SELECT 1) SELECT * FROM x", "INSERT INTO t WITH x AS (SELECT 1) SELECT * FROM x")
    }

    func testJoins() {
        assertCanonical("SELECT * FROM a, b", "SELECT * FROM a, b")
        assertCanonical(
            "SELECT * FROM a JOIN b ON a.id = b.id INNER JOIN c USING (id, x)",
            "SELECT * FROM a JOIN b ON (a.id = b.id) JOIN c USING (id, x)")
        assertCanonical(
            "SELECT * FROM a LEFT OUTER JOIN b ON 1 LEFT JOIN c CROSS JOIN d",
            "SELECT * FROM a LEFT JOIN b ON 1 LEFT JOIN c CROSS JOIN d")
        assertCanonical(
            "SELECT * FROM a NATURAL JOIN b NATURAL LEFT OUTER JOIN c",
            "SELECT * FROM a NATURAL JOIN b NATURAL LEFT JOIN c")
        assertCanonical(
            "SELECT x.a FROM (SELECT a FROM t) x JOIN (VALUES (1)) AS v",
            "SELECT x.a FROM (SELECT a FROM t) AS x JOIN (VALUES (1)) AS v")
    }

    func testCompoundAndValues() {
        assertCanonical(
            "SELECT a FROM t UNION SELECT b FROM u UNION ALL SELECT 1 INTERSECT SELECT 2 EXCEPT SELECT 3 ORDER BY 1",
            "SELECT a FROM t UNION SELECT b FROM u UNION ALL SELECT 1 INTERSECT SELECT 2 EXCEPT SELECT 3 ORDER BY 1")
        assertCanonical("VALUES (1, 'a'), (2, 'b')", "VALUES (1, 'a'), (2, 'b')")
        assertCanonical("VALUES (1) UNION SELECT 2 LIMIT 1", "VALUES (1) UNION SELECT 2 LIMIT 1")
    }

    func testInsert() {
        assertCanonical("INSERT INTO t VALUES (1, 2), (3, 4)", "INSERT INTO t VALUES (1, 2), (3, 4)")
        assertCanonical("insert into t(a, b) values (?, :b)", "INSERT INTO t (a, b) VALUES (?, :b)")
        assertCanonical("INSERT OR IGNORE INTO s.t SELECT * FROM u", "INSERT OR IGNORE INTO s.t SELECT * FROM u")
        assertCanonical("REPLACE INTO t VALUES (1)", "INSERT OR REPLACE INTO t VALUES (1)")
        assertCanonical("INSERT OR ROLLBACK INTO t DEFAULT VALUES", "INSERT OR ROLLBACK INTO t DEFAULT VALUES")
        assertCanonical(
            "INSERT INTO t (a, b) VALUES (1, 2) ON CONFLICT (a) WHERE a > 0 DO UPDATE SET b = excluded.b, "
                + "(c, d) = (1, 2) WHERE b < 3 RETURNING *, a AS x",
            "INSERT INTO t (a, b) VALUES (1, 2) ON CONFLICT (a) WHERE (a > 0) DO UPDATE SET b = excluded.b, "
                + "(c, d) = (1, 2) WHERE (b < 3) RETURNING *, a AS x")
        assertCanonical(
            "INSERT INTO t VALUES (1) ON CONFLICT (a COLLATE nocase, b DESC) DO NOTHING ON CONFLICT DO NOTHING",
            "INSERT INTO t VALUES (1) ON CONFLICT (a COLLATE nocase, b DESC) DO NOTHING ON CONFLICT DO NOTHING")
        assertCanonical(
            "INSERT INTO t SELECT * FROM u ON CONFLICT DO NOTHING",
            "INSERT INTO t SELECT * FROM u ON CONFLICT DO NOTHING")
    }

    func testUpdateDelete() {
        assertCanonical(
            "UPDATE OR FAIL t SET a = a + 1, b = 'x' WHERE id = ? RETURNING a",
            "UPDATE OR FAIL t SET a = (a + 1), b = 'x' WHERE (id = ?) RETURNING a")
        assertCanonical("UPDATE t SET (a, b) = (SELECT 1, 2)", "UPDATE t SET (a, b) = (SELECT 1, 2)")
        assertCanonical("DELETE FROM t", "DELETE FROM t")
        assertCanonical(
            "delete from main.t where a in (1,2) returning *", "DELETE FROM main.t WHERE (a IN (1, 2)) RETURNING *")
    }

    func testCreateTable() {
        assertCanonical(
            "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY AUTOINCREMENT, name text not null, "
                + "price DECIMAL(10, 2) DEFAULT 0, n INT DEFAULT -1, at TEXT DEFAULT CURRENT_TIMESTAMP, "
                + "c DEFAULT (1 + 2) CHECK (c > 0) UNIQUE COLLATE NOCASE, "
                + "p INTEGER CONSTRAINT fk REFERENCES parent (id) ON DELETE CASCADE ON UPDATE SET NULL "
                + "DEFERRABLE INITIALLY DEFERRED, big UNSIGNED BIG INT DEFAULT 'x')",
            "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY AUTOINCREMENT, name text NOT NULL, "
                + "price DECIMAL(10, 2) DEFAULT 0, n INT DEFAULT (-1), at TEXT DEFAULT CURRENT_TIMESTAMP, "
                + "c DEFAULT (1 + 2) CHECK (c > 0) UNIQUE COLLATE NOCASE, "
                + "p INTEGER CONSTRAINT fk REFERENCES parent (id) ON DELETE CASCADE ON UPDATE SET NULL "
                + "DEFERRABLE INITIALLY DEFERRED, big UNSIGNED BIG INT DEFAULT 'x')")
        assertCanonical(
            "create table t (a, b, c, primary key (a, b desc), unique (c) on conflict replace, check (a <> b), "
                + "constraint f foreign key (c) references u (x) on delete set default on update restrict)",
            "CREATE TABLE t (a, b, c, PRIMARY KEY (a, b DESC), UNIQUE (c) ON CONFLICT REPLACE, CHECK (a != b), "
                + "CONSTRAINT f FOREIGN KEY (c) REFERENCES u (x) ON DELETE SET DEFAULT ON UPDATE RESTRICT)")
        assertCanonical(
            "CREATE TABLE t (a INTEGER PRIMARY KEY DESC ON CONFLICT IGNORE, b REFERENCES u ON DELETE NO ACTION "
                + "NOT DEFERRABLE, c BLOB DEFAULT x'00' NOT NULL ON CONFLICT ABORT, d REAL DEFAULT +1.5)",
            "CREATE TABLE t (a INTEGER PRIMARY KEY DESC ON CONFLICT IGNORE, b REFERENCES u ON DELETE NO ACTION "
                + "NOT DEFERRABLE, c BLOB DEFAULT X'00' NOT NULL ON CONFLICT ABORT, d REAL DEFAULT (+1.5))")
    }

    func testCreateTableOptions() throws {
        assertCanonical(
            "create table t (k text primary key, v) without rowid",
            "CREATE TABLE t (k text PRIMARY KEY, v) WITHOUT ROWID")
        assertCanonical(
            "CREATE TABLE t (a INT, b TEXT, PRIMARY KEY (b DESC, a)) without RowID , strict",
            "CREATE TABLE t (a INT, b TEXT, PRIMARY KEY (b DESC, a)) STRICT, WITHOUT ROWID")
        assertCanonical(
            "CREATE TABLE t (a INT PRIMARY KEY) STRICT, WITHOUT ROWID, WITHOUT ROWID",
            "CREATE TABLE t (a INT PRIMARY KEY) STRICT, WITHOUT ROWID")
        let statement = try Parser.parseStatement("CREATE TABLE t (a PRIMARY KEY) WITHOUT ROWID")
        guard case .createTable(let create) = statement.kind else { return XCTFail("not a CREATE TABLE") }
        XCTAssertTrue(create.withoutRowid)
        XCTAssertFalse(create.strict)
        assertSyntaxError("CREATE TABLE t (a PRIMARY KEY) WITHOUT", "incomplete input", at: (1, 39))
        assertSyntaxError(
            "CREATE TABLE t (a PRIMARY KEY) WITHOUT ROWID STRICT", "near \"STRICT\": syntax error", at: (1, 46))
    }

    func testCreateTableKeepsSourceText() throws {
        let sql = "  CREATE TABLE t (a  INT);  SELECT 1"
        let statements = try Parser.parseScript(sql)
        XCTAssertEqual(statements.count, 2)
        XCTAssertEqual(statements[0].sourceText, "CREATE TABLE t (a  INT)")
        XCTAssertEqual(statements[1].sourceText, "SELECT 1")
        XCTAssertEqual(statements[1].range.start.column, 29)
    }

    func testIndexesAndDrops() {
        assertCanonical(
            "CREATE UNIQUE INDEX IF NOT EXISTS i ON t (a COLLATE nocase DESC, lower(b), c ASC) WHERE a IS NOT NULL",
            "CREATE UNIQUE INDEX IF NOT EXISTS i ON t (a COLLATE nocase DESC, lower(b), c ASC) "
                + "WHERE (a IS NOT NULL)")
        assertCanonical("create index main.i on t(a)", "CREATE INDEX main.i ON t (a)")
        assertCanonical("DROP TABLE IF EXISTS main.t", "DROP TABLE IF EXISTS main.t")
        assertCanonical("drop index i", "DROP INDEX i")
    }

    func testAlterTable() {
        assertCanonical("ALTER TABLE t RENAME TO u", "ALTER TABLE t RENAME TO u")
        assertCanonical("ALTER TABLE t RENAME a TO b", "ALTER TABLE t RENAME COLUMN a TO b")
        assertCanonical("ALTER TABLE t RENAME COLUMN a TO b", "ALTER TABLE t RENAME COLUMN a TO b")
        assertCanonical("ALTER TABLE t ADD c TEXT DEFAULT 'x'", "ALTER TABLE t ADD COLUMN c TEXT DEFAULT 'x'")
        assertCanonical("ALTER TABLE s.t ADD COLUMN c", "ALTER TABLE s.t ADD COLUMN c")
        assertCanonical("ALTER TABLE t DROP COLUMN c", "ALTER TABLE t DROP COLUMN c")
    }

    func testTransactions() {
        assertCanonical("BEGIN", "BEGIN")
        assertCanonical("begin immediate transaction", "BEGIN IMMEDIATE")
        assertCanonical("BEGIN DEFERRED", "BEGIN DEFERRED")
        assertCanonical("BEGIN EXCLUSIVE TRANSACTION", "BEGIN EXCLUSIVE")
        assertCanonical("COMMIT TRANSACTION", "COMMIT")
        assertCanonical("END", "COMMIT")
        assertCanonical("ROLLBACK", "ROLLBACK")
        assertCanonical("ROLLBACK TRANSACTION TO SAVEPOINT sp", "ROLLBACK TO SAVEPOINT sp")
        assertCanonical("ROLLBACK TO sp", "ROLLBACK TO SAVEPOINT sp")
        assertCanonical("SAVEPOINT sp", "SAVEPOINT sp")
        assertCanonical("RELEASE sp", "RELEASE SAVEPOINT sp")
        assertCanonical("RELEASE SAVEPOINT sp", "RELEASE SAVEPOINT sp")
    }

    func testPragmaAndExplain() {
        assertCanonical("PRAGMA user_version", "PRAGMA user_version")
        assertCanonical("PRAGMA main.cache_size = -2000", "PRAGMA main.cache_size = -2000")
        assertCanonical("PRAGMA journal_mode=WAL", "PRAGMA journal_mode = WAL")
        assertCanonical("PRAGMA journal_mode = delete", "PRAGMA journal_mode = \"delete\"")
        assertCanonical("PRAGMA table_info('t')", "PRAGMA table_info('t')")
        assertCanonical("PRAGMA foreign_keys(ON)", "PRAGMA foreign_keys(\"ON\")")
        assertCanonical("EXPLAIN SELECT 1", "EXPLAIN SELECT 1")
        assertCanonical(
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE a = 1", "EXPLAIN QUERY PLAN SELECT * FROM t WHERE (a = 1)")
    }

    func testScripts() throws {
        let statements = try Parser.parseScript(
            """
            -- leading comment
            CREATE TABLE t (a); /* block
            comment */ INSERT INTO t VALUES (1);;
            SELECT * FROM t; ;
            """)
        XCTAssertEqual(
            statements.map(\.description),
            [
                "CREATE TABLE t (a)", "INSERT INTO t VALUES (1)", "SELECT * FROM t",
            ])
        XCTAssertEqual(statements[1].range.start.line, 3)
        XCTAssertEqual(try Parser.parseScript("  ;; -- nothing"), [])
        XCTAssertEqual(try Parser.parseStatement("SELECT 1;;").description, "SELECT 1")
    }

    func testRoundTripCorpus() throws {
        for sql in FuzzCorpus.validStatements {
            let first = try Parser.parseStatement(sql)
            let second = try Parser.parseStatement(first.description)
            XCTAssertEqual(first, second, "round trip: \(sql)\n  printed: \(first.description)")
            XCTAssertEqual(first.description, second.description)
        }
    }
}
