import GraniteSQL
import GraniteStorage
import XCTest

/// Statements prepared from the same `SELECT` text share its parsed and compiled form while the schema is
/// unchanged: they still run independently, and see schema changes made between preparations.
final class SelectCacheTests: XCTestCase {
    func makeDatabase() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);
            INSERT INTO t(a) VALUES ('x'), ('y'), ('z');
            """)
        return db
    }

    func testStatementsOfTheSameTextRunInterleaved() throws {
        let db = try makeDatabase()
        let first = try db.prepare("SELECT a FROM t WHERE id >= ? ORDER BY id")
        let second = try db.prepare("SELECT a FROM t WHERE id >= ? ORDER BY id")
        try first.bind([.integer(1)])
        try second.bind([.integer(2)])
        XCTAssertEqual(try first.step(), [.text("x")])
        XCTAssertEqual(try second.step(), [.text("y")])
        XCTAssertEqual(try first.step(), [.text("y")])
        XCTAssertEqual(try second.step(), [.text("z")])
        XCTAssertEqual(try second.step(), nil)
        XCTAssertEqual(try first.step(), [.text("z")])
        XCTAssertEqual(try first.step(), nil)
    }

    func testSchemaChangesBetweenPreparations() throws {
        let db = try makeDatabase()
        let before = try db.prepare("SELECT * FROM t")
        XCTAssertEqual(before.columnNames, ["id", "a"])
        try db.execute("ALTER TABLE t ADD COLUMN b INTEGER DEFAULT 5")
        let after = try db.prepare("SELECT * FROM t")
        XCTAssertEqual(after.columnNames, ["id", "a", "b"])
        XCTAssertEqual(try after.all().first, [.integer(1), .text("x"), .integer(5)])
        try db.execute("DROP TABLE t")
        XCTAssertThrowsError(try db.prepare("SELECT * FROM t")) { error in
            XCTAssertEqual((error as? SQLExecutionError)?.message, "no such table: t")
        }
        try db.execute("CREATE TABLE t(c TEXT); INSERT INTO t VALUES ('new')")
        let recreated = try db.prepare("SELECT * FROM t")
        XCTAssertEqual(recreated.columnNames, ["c"])
        XCTAssertEqual(try recreated.all(), [[.text("new")]])
    }

    func testClearingTheCacheKeepsStatementsWorking() throws {
        let db = try makeDatabase()
        let kept = try db.prepare("SELECT count(*) FROM t")
        db.clearStatementCache()
        let fresh = try db.prepare("SELECT count(*) FROM t")
        XCTAssertEqual(try kept.all(), [[.integer(3)]])
        XCTAssertEqual(try fresh.all(), [[.integer(3)]])
    }
}
