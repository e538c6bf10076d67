import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

/// Focused cases of compound selects and VALUES lists, each compared with SQLite: every operator, row order
/// without ORDER BY, ORDER BY by position, alias and expression, column names, collations, affinities, the
/// contexts a compound may appear in, `EXPLAIN QUERY PLAN`, and every error.
final class CompoundSelectTests: XCTestCase {
    static let setup = [
        "CREATE TABLE t(a INTEGER, b TEXT COLLATE NOCASE, c)",
        "INSERT INTO t VALUES (1, 'a', 1), (2, 'A', '2'), (1.0, 'b', NULL), (NULL, 'B', 3), (3, 'c', 2.5)",
        "CREATE TABLE u(x REAL, y TEXT)",
        "INSERT INTO u VALUES (1, 'a'), (2.5, 'x'), (NULL, NULL), (3, 'C')",
        "CREATE TABLE sink(p, q)",
    ]

    private func makeDatabases() throws -> (Oracle, SQLConnection) {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in Self.setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        return (oracle, db)
    }

    /// Runs each statement on both and compares names, rows in order (and their types) or the error message.
    private func assertSameAsSQLite(_ statements: [String], file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let (oracle, db) = try makeDatabases()
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = CompoundSelectDifferentialTests.granite(db, sql)
            if let why = CompoundSelectDifferentialTests.strictMismatch(expected, actual, ordered: true) {
                XCTFail("\(sql): \(why)", file: file, line: line)
            }
        }
    }

    func testOperatorsAndUnorderedRowOrder() throws {
        try assertSameAsSQLite([
            "SELECT a FROM t UNION SELECT x FROM u",
            "SELECT a FROM t UNION ALL SELECT x FROM u",
            "SELECT a FROM t INTERSECT SELECT x FROM u",
            "SELECT a FROM t EXCEPT SELECT x FROM u",
            "SELECT 3 UNION SELECT 1 UNION ALL SELECT 2",
            "SELECT 2 UNION ALL SELECT 1 UNION SELECT 0",
            "SELECT a, b FROM t UNION ALL SELECT x, y FROM u EXCEPT SELECT 1, 'A'",
            // NULLs are equal, 1 and 1.0 are equal, text compares in the leftmost collation.
            "SELECT NULL UNION SELECT NULL",
            "SELECT 1 UNION SELECT 1.0",
            "SELECT b FROM t UNION SELECT 'x'",
            "SELECT 'x' UNION SELECT b FROM t",
            "SELECT y FROM u UNION SELECT b FROM t",
            "SELECT 'a' COLLATE NOCASE UNION SELECT 'A'",
            "SELECT b FROM t INTERSECT SELECT 'a'",
            "SELECT b FROM t EXCEPT SELECT 'a'",
            "SELECT 1, 'x' UNION SELECT 1, 'x' UNION SELECT 2, NULL",
        ])
    }

    func testOrderByLimitAndOffset() throws {
        try assertSameAsSQLite([
            "SELECT a FROM t UNION SELECT x FROM u ORDER BY 1 DESC",
            "SELECT a AS k FROM t UNION ALL SELECT x FROM u ORDER BY k NULLS LAST",
            "SELECT a FROM t UNION SELECT b AS y FROM t ORDER BY y",
            "SELECT a FROM t UNION SELECT x FROM u ORDER BY t.a",
            "SELECT a + 1 FROM t UNION SELECT x FROM u ORDER BY a + 1",
            "SELECT a, b FROM t UNION SELECT x, y FROM u ORDER BY 2, 1 DESC",
            "SELECT a, b FROM t UNION ALL SELECT x, y FROM u ORDER BY 1, 2 LIMIT 3 OFFSET 2",
            "SELECT a FROM t UNION ALL SELECT x FROM u LIMIT 4",
            "SELECT a FROM t UNION SELECT x FROM u LIMIT 2 OFFSET 1",
            "SELECT a FROM t UNION SELECT x FROM u LIMIT (SELECT count(*) FROM u)",
            "SELECT count(*) FROM t UNION SELECT 5 ORDER BY count(*)",
            "SELECT * FROM t UNION ALL SELECT x, y, 0 FROM u ORDER BY b, a",
            "SELECT b FROM t UNION SELECT 'zzz' ORDER BY 1",
            "SELECT 'a' UNION SELECT b FROM t ORDER BY 1",
            "SELECT b FROM t UNION ALL SELECT 'zzz' ORDER BY 1 DESC",
        ])
    }

    /// An ORDER BY collation of its own orders the rows, while the compound's collations still decide which
    /// rows are the same.
    func testOrderByCollationOfItsOwn() throws {
        try assertSameAsSQLite([
            "CREATE TABLE l(v TEXT COLLATE NOCASE)", "INSERT INTO l VALUES ('b')",
            "CREATE TABLE r(v TEXT)", "INSERT INTO r VALUES ('B')", "CREATE TABLE lb(v TEXT)",
            "INSERT INTO lb VALUES ('b')",
            "SELECT v FROM l INTERSECT SELECT v FROM r ORDER BY 1 COLLATE BINARY",
            "SELECT v FROM l UNION SELECT v FROM r ORDER BY 1 COLLATE BINARY",
            "SELECT v FROM l EXCEPT SELECT v FROM r ORDER BY 1 COLLATE BINARY",
            "SELECT v FROM lb UNION SELECT v FROM r ORDER BY 1 COLLATE NOCASE",
            "SELECT v FROM lb INTERSECT SELECT v FROM r ORDER BY 1 COLLATE NOCASE",
            "SELECT v FROM lb EXCEPT SELECT v FROM r ORDER BY 1 COLLATE NOCASE",
            "SELECT 'a' UNION SELECT 'B' ORDER BY 1 COLLATE NOCASE",
            "SELECT 'b' UNION SELECT 'B' ORDER BY 1 COLLATE NOCASE",
            "SELECT b, a FROM t UNION SELECT y, x FROM u ORDER BY 1 COLLATE BINARY",
            "SELECT a, b FROM t UNION ALL SELECT x, y FROM u ORDER BY 2 COLLATE NOCASE DESC, 1",
        ])
    }

    func testValuesLists() throws {
        try assertSameAsSQLite([
            "VALUES (1, 'x'), (2, NULL), (1, 'x')",
            "VALUES (1)",
            "SELECT * FROM (VALUES (1, 'x'), (2, 'y')) WHERE column1 = 2",
            "SELECT a FROM t WHERE a IN (VALUES (1), (3))",
            "SELECT 1 UNION VALUES (1), (1)",
            "VALUES (1), (1) UNION ALL SELECT 1",
            "VALUES (2), (1) UNION SELECT 0",
            "SELECT 1 AS k UNION ALL VALUES (2) ORDER BY k",
            "VALUES (max(1))",
            "VALUES (1), (count(*))",
            "SELECT 1 UNION VALUES (2), (sum(3))",
            "SELECT (VALUES (a)) FROM t",
            "SELECT * FROM t WHERE a IN (VALUES (1), (a))",
            "VALUES (nosuch)",
        ])
    }

    func testContexts() throws {
        try assertSameAsSQLite([
            "SELECT * FROM (SELECT a FROM t UNION SELECT x FROM u) AS s WHERE a > 1",
            "SELECT * FROM (SELECT x AS r FROM u UNION ALL SELECT a FROM t)",
            "SELECT * FROM (SELECT c COLLATE NOCASE, c FROM t UNION SELECT 1, 2)",
            "SELECT a, a IN (SELECT x FROM u UNION SELECT 3) FROM t",
            "SELECT 5 IN (SELECT '5' UNION ALL SELECT c FROM t), 5 IN (SELECT c FROM t UNION ALL SELECT '5')",
            "SELECT (SELECT '5' UNION SELECT 3 ORDER BY 1) = 5",
            "SELECT a, (SELECT x FROM u WHERE x > t.a UNION SELECT 9 ORDER BY 1 LIMIT 1) FROM t",
            "SELECT a, EXISTS (SELECT 1 FROM u WHERE x = t.a EXCEPT SELECT 2) FROM t",
            "SELECT b FROM t WHERE NOT EXISTS (SELECT y FROM u WHERE y = t.b INTERSECT SELECT 'a')",
        ])
    }

    func testInsertSelectOfACompound() throws {
        try assertSameAsSQLite([
            "INSERT INTO sink SELECT a, b FROM t UNION SELECT x, y FROM u ORDER BY 1 LIMIT 5",
            "INSERT INTO sink VALUES (1, 2) ",
            "INSERT INTO sink SELECT * FROM (VALUES (7, 8), (9, 10))",
            "SELECT p, q FROM sink ORDER BY rowid",
        ])
    }

    func testErrors() throws {
        try assertSameAsSQLite([
            "SELECT 1 UNION SELECT 2, 3",
            "SELECT 1 UNION ALL SELECT 2 INTERSECT SELECT 3, 4",
            "SELECT 1, 2 UNION VALUES (3)",
            "SELECT 1 UNION VALUES (1, 2), (3, 4)",
            "VALUES (1, 2), (3)",
            "SELECT 1 UNION SELECT 2 ORDER BY 3",
            "SELECT 1 UNION SELECT 2 ORDER BY 0",
            "SELECT a FROM t UNION SELECT x FROM u ORDER BY b",
            "SELECT a FROM t UNION SELECT x FROM u ORDER BY 1, a + 1",
            "SELECT 1 AS k UNION SELECT 2 ORDER BY k + 0",
            "VALUES (1), (2) UNION SELECT 3 ORDER BY column1",
            "SELECT 1 ORDER BY 1 UNION SELECT 2",
            "SELECT 1 LIMIT 1 UNION ALL SELECT 2",
            "SELECT 1 UNION SELECT 2 ORDER BY 1 UNION SELECT 3",
            "VALUES (1) ORDER BY 1",
            "VALUES (1) UNION VALUES (2) LIMIT 1",
            "SELECT 1 UNION SELECT 2 ORDER BY 1 COLLATE nosuch",
            "SELECT nosuch FROM t UNION SELECT 1",
            "SELECT 1 UNION SELECT nosuch FROM t",
        ])
    }

    func testExplainQueryPlan() throws {
        let (oracle, db) = try makeDatabases()
        for sql in [
            "SELECT a FROM t UNION SELECT x FROM u",
            "SELECT a FROM t UNION ALL SELECT x FROM u",
            "SELECT a FROM t EXCEPT SELECT x FROM u",
            "SELECT a FROM t INTERSECT SELECT x FROM u LIMIT 2",
            "SELECT 1 UNION SELECT 2 UNION ALL SELECT 3",
            "VALUES (1), (2)",
            "VALUES (1)",
            "VALUES (1), (2) UNION ALL SELECT 3",
            "SELECT 1 UNION SELECT 2 ORDER BY 1",
            "SELECT a FROM t UNION SELECT x FROM u ORDER BY 1 LIMIT 3",
            "SELECT a FROM t UNION SELECT b FROM t UNION ALL SELECT c FROM t ORDER BY 1",
        ] {
            let expected = oracle.all("EXPLAIN QUERY PLAN " + sql, [])
            guard case .rows(let rows) = expected else {
                XCTFail("SQLite could not explain \(sql)")
                continue
            }
            let expectedLines = rows.map { row in "\(row[3])" }
            let actualLines = try db.query("EXPLAIN QUERY PLAN " + sql).rows.map { "\($0[3])" }
            XCTAssertEqual(actualLines, expectedLines, sql)
        }
    }
}
