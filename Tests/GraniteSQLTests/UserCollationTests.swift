import GraniteSQL
import GraniteStorage
import XCTest

/// Collations an application registers on a connection, in every position SQLite accepts a collation name, and
/// the index keys that cannot keep their order.
final class UserCollationTests: XCTestCase {
    /// Orders texts by length, then binary: "b" < "aa", and texts of one length are distinct.
    private static let byLength = SQLCustomCollation(name: "byLength") { a, b in
        if a.utf8.count != b.utf8.count { return a.utf8.count < b.utf8.count ? -1 : 1 }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// Texts equal when their first characters are: "apple" = "avocado".
    private static func byInitial() -> SQLCustomCollation {
        SQLCustomCollation(name: "byInitial") { a, b in
            let x = a.first.map(String.init) ?? ""
            let y = b.first.map(String.init) ?? ""
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    private func connection() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        db.addCollation(Self.byLength)
        db.addCollation(Self.byInitial())
        try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES ('aa'), ('b'), ('ccc'), ('avocado'), ('apple')")
        return db
    }

    private func texts(_ db: SQLConnection, _ sql: String) throws -> [String] {
        try db.query(sql).rows.map { row in
            switch row[0] {
            case .text(let s): return s
            case .integer(let i): return String(i)
            default: return "\(row[0])"
            }
        }
    }

    func testOrderByCollate() throws {
        let db = try connection()
        XCTAssertEqual(
            try texts(db, "SELECT a FROM t ORDER BY a COLLATE byLength"),
            ["b", "aa", "ccc", "apple", "avocado"])
        XCTAssertEqual(
            try texts(db, "SELECT a FROM t ORDER BY a COLLATE BYLENGTH DESC"),
            ["avocado", "apple", "ccc", "aa", "b"])
    }

    func testComparisonsUnderCollate() throws {
        let db = try connection()
        XCTAssertEqual(
            try db.query("SELECT 'b' < 'aa' COLLATE byLength, 'b' < 'aa'").rows, [[.integer(1), .integer(0)]])
        XCTAssertEqual(
            try texts(db, "SELECT a FROM t WHERE a = 'axe' COLLATE byInitial ORDER BY a"), ["aa", "apple", "avocado"])
        XCTAssertEqual(
            try texts(db, "SELECT a FROM t WHERE a COLLATE byInitial IN ('a') ORDER BY a"), ["aa", "apple", "avocado"])
    }

    func testDeclaredColumnCollation() throws {
        let db = try connection()
        try db.execute("CREATE TABLE d(x TEXT COLLATE byLength); INSERT INTO d SELECT a FROM t")
        XCTAssertEqual(try texts(db, "SELECT x FROM d ORDER BY x"), ["b", "aa", "ccc", "apple", "avocado"])
        XCTAssertEqual(try texts(db, "SELECT x FROM d WHERE x < 'zz' ORDER BY x"), ["b", "aa"])
        XCTAssertEqual(try texts(db, "SELECT min(x) FROM d"), ["b"])
        XCTAssertEqual(try texts(db, "SELECT max(x) FROM d"), ["avocado"])
        XCTAssertEqual(try texts(db, "SELECT max(x, 'zzzzzzzzz') FROM d WHERE x = 'b'"), ["zzzzzzzzz"])
    }

    func testGroupByAndDistinctUnderCollation() throws {
        let db = try connection()
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM t GROUP BY a COLLATE byInitial ORDER BY 1").rows,
            [[.integer(1)], [.integer(1)], [.integer(3)]])
        XCTAssertEqual(try texts(db, "SELECT count(DISTINCT a COLLATE byInitial) FROM t"), ["3"])
        XCTAssertEqual(
            try texts(db, "SELECT DISTINCT a COLLATE byInitial FROM t ORDER BY 1"), ["aa", "b", "ccc"])
    }

    func testUnknownCollation() throws {
        let db = try connection()
        XCTAssertThrowsError(try db.query("SELECT a FROM t ORDER BY a COLLATE nope")) { error in
            XCTAssertEqual("\(error)", "no such collation sequence: nope")
        }
        XCTAssertThrowsError(try db.query("SELECT 'a' = 'b' COLLATE nope")) { error in
            XCTAssertEqual("\(error)", "no such collation sequence: nope")
        }
        XCTAssertThrowsError(try db.execute("CREATE TABLE u(x COLLATE nope)")) { error in
            XCTAssertEqual("\(error)", "no such collation sequence: nope")
        }
    }

    func testRemovedCollationIsUnknownAgain() throws {
        let db = try connection()
        db.removeCollation(named: "BYLENGTH")
        XCTAssertThrowsError(try db.query("SELECT a FROM t ORDER BY a COLLATE byLength")) { error in
            XCTAssertEqual("\(error)", "no such collation sequence: byLength")
        }
    }

    func testCollationReplacedWhileAStatementRuns() throws {
        let db = try connection()
        let statement = try db.prepare("SELECT a FROM t ORDER BY a COLLATE byLength")
        XCTAssertTrue(try statement.stepRow())
        XCTAssertEqual(statement.column(at: 0), .text("b"))
        // The running statement keeps the collation it was compiled with; the next run uses the new one.
        db.addCollation(SQLCustomCollation(name: "byLength") { a, b in a == b ? 0 : (a < b ? 1 : -1) })
        var rest: [Value] = []
        while try statement.stepRow() { rest.append(statement.column(at: 0)) }
        XCTAssertEqual(rest, [.text("aa"), .text("ccc"), .text("apple"), .text("avocado")])
        XCTAssertEqual(
            try statement.all(), [[.text("ccc")], [.text("b")], [.text("avocado")], [.text("apple")], [.text("aa")]])
    }

    func testIndexesCannotUseApplicationCollations() throws {
        let db = try connection()
        let refusal =
            "cannot index with collation byLength: an index can only use the BINARY, NOCASE and RTRIM collations"
        XCTAssertThrowsError(try db.execute("CREATE INDEX i ON t(a COLLATE byLength)")) { error in
            XCTAssertEqual("\(error)", refusal)
        }
        try db.execute("CREATE TABLE d(x TEXT COLLATE byLength, y TEXT)")
        XCTAssertThrowsError(try db.execute("CREATE INDEX i ON d(x)")) { error in
            XCTAssertEqual("\(error)", refusal)
        }
        XCTAssertThrowsError(try db.execute("CREATE TABLE u(x TEXT COLLATE byLength UNIQUE)")) { error in
            XCTAssertEqual("\(error)", refusal)
        }
        XCTAssertThrowsError(try db.execute("CREATE TABLE u(x TEXT, PRIMARY KEY (x COLLATE byLength))")) { error in
            XCTAssertEqual("\(error)", refusal)
        }
        // An index under a built-in collation of such a column is fine, and is not used for the column's order.
        try db.execute("CREATE INDEX j ON d(x COLLATE BINARY); INSERT INTO d(x) VALUES ('aa'), ('b')")
        XCTAssertEqual(try texts(db, "SELECT x FROM d WHERE x > 'b'"), ["aa"])
        XCTAssertEqual(try texts(db, "SELECT x FROM d ORDER BY x"), ["b", "aa"])
    }
}

/// `REINDEX`: its argument names a collation, a table or an index.
final class ReindexTests: XCTestCase {
    func testReindexChecksItsArgument() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        db.addCollation(SQLCustomCollation(name: "mine") { a, b in a == b ? 0 : (a < b ? -1 : 1) })
        try db.execute(
            "CREATE TABLE t(a TEXT COLLATE NOCASE); CREATE INDEX i ON t(a); INSERT INTO t VALUES ('B'), ('a')")
        for sql in ["REINDEX", "REINDEX nocase", "REINDEX MINE", "REINDEX t", "REINDEX main.i", "REINDEX i;"] {
            try db.execute(sql)
        }
        XCTAssertEqual(try db.query("SELECT a FROM t WHERE a = 'b'").rows, [[.text("B")]])
        XCTAssertThrowsError(try db.execute("REINDEX nothing")) { error in
            XCTAssertEqual("\(error)", "unable to identify the object to be reindexed")
        }
        XCTAssertThrowsError(try db.execute("REINDEX other.t")) { error in
            XCTAssertEqual("\(error)", "unknown database other")
        }
        XCTAssertEqual(try db.prepare("REINDEX main.i").statement.kind.description, "REINDEX main.i")
    }
}
