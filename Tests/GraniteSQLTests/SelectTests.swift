import GraniteSQL
import GraniteStorage
import XCTest

/// Regression tests for SELECT mismatches with SQLite found by the differential test.
final class SelectTests: XCTestCase {
    func makeDatabase() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE b(Yy INTEGER PRIMARY KEY, Ww TEXT);
            CREATE TABLE c(v);
            CREATE TABLE t(a TEXT, e INTEGER);
            INSERT INTO b VALUES (1, '1');
            INSERT INTO c VALUES (1);
            INSERT INTO t VALUES ('0', 0), ('1', 1), ('B', 2), ('a', 3)
            """)
        return db
    }

    func expectError(
        _ db: SQLConnection, _ sql: String, _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            _ = try db.query(sql)
            XCTFail("expected error '\(message)' for \(sql)", file: file, line: line)
        } catch let error as SQLExecutionError {
            XCTAssertEqual(error.message, message, sql, file: file, line: line)
        } catch {
            XCTFail("\(sql): \(error)", file: file, line: line)
        }
    }

    func testOrderByAliasOrPositionWithCollate() throws {
        let db = try makeDatabase()
        let byAlias = try db.query("SELECT a AS x FROM t ORDER BY x COLLATE NOCASE DESC")
        XCTAssertEqual(byAlias.rows, [[.text("B")], [.text("a")], [.text("1")], [.text("0")]])
        let byPosition = try db.query("SELECT a FROM t ORDER BY 1 COLLATE NOCASE")
        XCTAssertEqual(byPosition.rows, [[.text("0")], [.text("1")], [.text("a")], [.text("B")]])
    }

    func testPositionErrors() throws {
        let db = try makeDatabase()
        expectError(db, "SELECT a, e FROM t ORDER BY -1", "1st ORDER BY term out of range - should be between 1 and 2")
        expectError(
            db, "SELECT a, e FROM t ORDER BY 5, 0", "2nd ORDER BY term out of range - should be between 1 and 2")
        expectError(
            db, "SELECT a, count(*) FROM t GROUP BY 1 ORDER BY 3",
            "1st ORDER BY term out of range - should be between 1 and 2")
        expectError(
            db, "SELECT a, count(*) FROM t GROUP BY 2",
            "aggregate functions are not allowed in the GROUP BY clause")
    }

    func testSubqueryColumnAffinity() throws {
        let db = try makeDatabase()
        // A FROM subquery's expression column has no affinity: the TEXT column's affinity applies to it.
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM t, (SELECT max(e) AS m FROM t) AS q WHERE t.a = q.m").rows,
            [[.integer(0)]])
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM t, (SELECT min(e) AS m FROM t) AS q WHERE t.a = q.m").rows,
            [[.integer(1)]])
        // A scalar subquery and IN (SELECT …) carry the affinity of the subquery's column.
        XCTAssertEqual(
            try db.query("SELECT '1' = (SELECT Yy FROM b), '1' IN (SELECT Yy FROM b), 1 IN (SELECT Ww FROM b)").rows,
            [[.integer(1), .integer(1), .integer(1)]])
        XCTAssertEqual(try db.query("SELECT 'b' IN (SELECT a COLLATE NOCASE FROM t)").rows, [[.integer(1)]])
        XCTAssertEqual(try db.query("SELECT 'b' IN (SELECT a FROM t)").rows, [[.integer(0)]])
    }

    func testBlobColumnAgainstIndexedTextColumn() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE t(c BLOB, d TEXT);
            CREATE INDEX t_d ON t(d);
            INSERT INTO t VALUES (3, '1'), (NULL, '4'), (NULL, 'x'), (NULL, NULL)
            """)
        // BLOB against TEXT affinity compares without conversion: 3 is below every text, so the index on d
        // must not be searched with '3'.
        XCTAssertEqual(try db.query("SELECT count(*) FROM t AS x, t AS y WHERE x.c < y.d").rows, [[.integer(3)]])
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM t AS x LEFT JOIN t AS y ON x.c < y.d").rows, [[.integer(6)]])
    }

    func testResultColumnNames() throws {
        let db = try makeDatabase()
        XCTAssertEqual(
            try db.query("SELECT b.rowid, b.OID, c.ROWID, yy, b.ww, c.V FROM b, c").columns,
            ["Yy", "Yy", "rowid", "Yy", "Ww", "v"])
        XCTAssertEqual(
            try db.query("SELECT * FROM (SELECT b.rowid, c.ROWID, yy, v, V FROM b, c)").columns,
            ["rowid", "ROWID:1", "yy", "v", "V:1"])
        XCTAssertEqual(try db.query("SELECT rowid AS r FROM b").columns, ["r"])
        expectError(db, "SELECT _rowid_ FROM b, c", "no such column: _rowid_")
        XCTAssertEqual(try db.query("SELECT rowid FROM c").rows, [[.integer(1)]])
    }
}
