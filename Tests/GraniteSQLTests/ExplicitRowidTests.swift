import GraniteSQL
import GraniteStorage
import XCTest

/// `rowid`, `oid` and `_rowid_` in INSERT column lists, UPDATE and upsert `SET` lists (expected values checked
/// against SQLite 3.45).
final class ExplicitRowidTests: XCTestCase {
    func open(_ schema: String) throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(schema)
        return db
    }

    func rows(_ db: SQLConnection, _ sql: String) throws -> [[Value]] { try db.query(sql).rows }

    func expectError(
        _ message: String, code: Int32, _ body: () throws -> Void, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        do {
            try body()
            XCTFail("expected error '\(message)'", file: file, line: line)
        } catch let error as SQLExecutionError {
            XCTAssertEqual(error.message, message, file: file, line: line)
            XCTAssertEqual(error.extendedResultCode, code, file: file, line: line)
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
    }

    func testInsertWithHiddenRowid() throws {
        let db = try open("CREATE TABLE t(a TEXT)")
        try db.execute("INSERT INTO t(rowid, a) VALUES (5, 'x')")
        XCTAssertEqual(db.lastInsertedRowid, 5)
        try db.execute("INSERT INTO t(OID, a) VALUES (NULL, 'y')")
        XCTAssertEqual(db.lastInsertedRowid, 6)
        try db.execute("INSERT INTO t(a, _ROWID_) VALUES ('z', '10'), ('w', 7.0), ('v', ' 12 ')")
        try db.execute("INSERT INTO t(a) VALUES ('u')")
        XCTAssertEqual(
            try rows(db, "SELECT rowid, a FROM t"),
            [
                [.integer(5), .text("x")], [.integer(6), .text("y")], [.integer(7), .text("w")],
                [.integer(10), .text("z")], [.integer(12), .text("v")], [.integer(13), .text("u")],
            ])
        expectError("datatype mismatch", code: 20) { try db.execute("INSERT INTO t(rowid, a) VALUES ('abc', 'q')") }
        expectError("datatype mismatch", code: 20) { try db.execute("INSERT INTO t(rowid, a) VALUES (7.5, 'q')") }
        expectError("UNIQUE constraint failed: t.rowid", code: 2579) {
            try db.execute("INSERT INTO t(rowid, a) VALUES (5, 'dup')")
        }
        // A failing multi-row statement keeps nothing.
        expectError("UNIQUE constraint failed: t.rowid", code: 2579) {
            try db.execute("INSERT INTO t(rowid, a) VALUES (20, 'p'), (5, 'dup')")
        }
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM t"), [[.integer(6)]])
    }

    func testPreparedInsertReusesExplicitRowid() throws {
        let db = try open("CREATE TABLE t(a TEXT)")
        let statement = try db.prepare("INSERT INTO t(rowid, a) VALUES (?, ?)")
        for (rowid, text) in [(Value.integer(3), "c"), (.null, "d"), (.integer(1), "a")] {
            try statement.bind([rowid, .text(text)])
            try statement.execute()
        }
        XCTAssertEqual(
            try rows(db, "SELECT rowid, a FROM t"),
            [[.integer(1), .text("a")], [.integer(3), .text("c")], [.integer(4), .text("d")]])
        try statement.bind([.integer(3), .text("again")])
        expectError("UNIQUE constraint failed: t.rowid", code: 2579) { try statement.execute() }
    }

    func testConflictResolutionOnHiddenRowid() throws {
        let db = try open("CREATE TABLE t(a TEXT UNIQUE)")
        try db.execute("INSERT INTO t(rowid, a) VALUES (5, 'x'), (6, 'y')")
        try db.execute("INSERT OR IGNORE INTO t(rowid, a) VALUES (5, 'q')")
        XCTAssertEqual(db.changes, 0)
        try db.execute("INSERT OR REPLACE INTO t(rowid, a) VALUES (5, 'y')")
        // REPLACE removed both the row of rowid 5 and the row holding 'y'.
        XCTAssertEqual(try rows(db, "SELECT rowid, a FROM t"), [[.integer(5), .text("y")]])
        XCTAssertEqual(
            try rows(
                db,
                "INSERT INTO t(rowid, a) VALUES (5, 'r') ON CONFLICT DO UPDATE SET a = excluded.a || excluded.rowid RETURNING rowid, a"
            ),
            [[.integer(5), .text("r5")]])
        XCTAssertEqual(
            try rows(
                db,
                "INSERT INTO t(rowid, a) VALUES (5, 'k') ON CONFLICT(rowid) DO UPDATE SET a = 'k' || excluded.rowid RETURNING rowid, a"
            ),
            [[.integer(5), .text("k5")]])
        XCTAssertEqual(
            try rows(
                db,
                "INSERT INTO t(rowid, a) VALUES (9, 'k5') ON CONFLICT(a) DO UPDATE SET rowid = excluded.rowid + 1 RETURNING rowid, a"
            ),
            [[.integer(10), .text("k5")]])
        // Without an explicit rowid, excluded.rowid is the rowid the row would have received.
        XCTAssertEqual(
            try rows(
                db,
                "INSERT INTO t(a) VALUES ('k5') ON CONFLICT(a) DO UPDATE SET a = 'e' || excluded.rowid RETURNING rowid, a"
            ),
            [[.integer(10), .text("e11")]])
    }

    func testInsertSelectWithRowid() throws {
        let db = try open("CREATE TABLE t(a TEXT); CREATE TABLE u(a TEXT)")
        try db.execute("INSERT INTO t(rowid, a) VALUES (1, 'a'), (4, 'b')")
        XCTAssertEqual(
            try rows(db, "INSERT INTO u(rowid, a) SELECT rowid * 10, a FROM t RETURNING rowid, a"),
            [[.integer(10), .text("a")], [.integer(40), .text("b")]])
        expectError("UNIQUE constraint failed: u.rowid", code: 2579) {
            try db.execute("INSERT INTO u(rowid, a) SELECT 10, 'x'")
        }
    }

    func testUpdateMovesRow() throws {
        let db = try open("CREATE TABLE q(a TEXT, b UNIQUE); CREATE INDEX qa ON q(a)")
        try db.execute("INSERT INTO q(rowid, a, b) VALUES (1, 'a', 1), (2, 'b', 2)")
        XCTAssertEqual(
            try rows(db, "UPDATE q SET rowid = rowid + 10 RETURNING rowid"), [[.integer(11)], [.integer(12)]])
        // The index entries moved with the rows (the lookups go through qa).
        XCTAssertEqual(try rows(db, "SELECT rowid FROM q WHERE a = 'a'"), [[.integer(11)]])
        XCTAssertEqual(try rows(db, "SELECT rowid FROM q WHERE a = 'b'"), [[.integer(12)]])
        XCTAssertEqual(try rows(db, "SELECT rowid FROM q WHERE b = 2"), [[.integer(12)]])
        expectError("UNIQUE constraint failed: q.rowid", code: 2579) {
            try db.execute("UPDATE q SET rowid = 12 WHERE rowid = 11")
        }
        expectError("UNIQUE constraint failed: q.rowid", code: 2579) {
            try db.execute("UPDATE q SET rowid = rowid + 1")
        }
        expectError("datatype mismatch", code: 20) { try db.execute("UPDATE q SET rowid = NULL") }
        expectError("datatype mismatch", code: 20) { try db.execute("UPDATE q SET oid = 'x'") }
        // UNIQUE still holds when the row moves.
        expectError("UNIQUE constraint failed: q.b", code: 2067) {
            try db.execute("UPDATE q SET rowid = 30, b = 2 WHERE rowid = 11")
        }
        try db.execute("UPDATE OR IGNORE q SET rowid = 12 WHERE rowid = 11")
        XCTAssertEqual(db.changes, 0)
        try db.execute("UPDATE OR REPLACE q SET _rowid_ = 20")
        XCTAssertEqual(try rows(db, "SELECT rowid, a, b FROM q"), [[.integer(20), .text("b"), .integer(2)]])
        XCTAssertEqual(try rows(db, "SELECT rowid FROM q WHERE a = 'b'"), [[.integer(20)]])
        XCTAssertEqual(try rows(db, "SELECT rowid FROM q WHERE a = 'a'"), [])
        try db.execute("UPDATE q SET rowid = '7' WHERE b = 2")
        XCTAssertEqual(try rows(db, "SELECT rowid, typeof(rowid) FROM q"), [[.integer(7), .text("integer")]])
    }

    func testForeignKeysFollowMovedRow() throws {
        let db = try open(
            "PRAGMA foreign_keys = ON; CREATE TABLE p(k TEXT UNIQUE); CREATE TABLE c(pk REFERENCES p(k))")
        try db.execute("INSERT INTO p(rowid, k) VALUES (1, 'a'); INSERT INTO c VALUES ('a')")
        // Moving the parent keeps its key: the child still finds it.
        try db.execute("UPDATE p SET rowid = 9")
        XCTAssertEqual(try rows(db, "SELECT rowid, k FROM p"), [[.integer(9), .text("a")]])
        expectError("FOREIGN KEY constraint failed", code: 787) { try db.execute("UPDATE p SET rowid = 3, k = 'b'") }
        XCTAssertEqual(try rows(db, "SELECT rowid, k FROM p"), [[.integer(9), .text("a")]])
    }

    func testShadowingAndAliases() throws {
        let db = try open("CREATE TABLE u(rowid TEXT, a); CREATE TABLE p(id INTEGER PRIMARY KEY, a)")
        // A declared column named rowid is that column.
        try db.execute("INSERT INTO u(rowid, a) VALUES ('r', 'a')")
        XCTAssertEqual(try rows(db, "SELECT _rowid_, rowid, a FROM u"), [[.integer(1), .text("r"), .text("a")]])
        try db.execute("UPDATE u SET rowid = 's'")
        XCTAssertEqual(try rows(db, "SELECT oid, rowid FROM u"), [[.integer(1), .text("s")]])
        // With an INTEGER PRIMARY KEY, rowid names it.
        try db.execute("INSERT INTO p(rowid, a) VALUES (3, 'a')")
        expectError("UNIQUE constraint failed: p.id", code: 1555) {
            try db.execute("INSERT INTO p(oid, a) VALUES (3, 'a')")
        }
        try db.execute("UPDATE p SET _rowid_ = 4")
        XCTAssertEqual(try rows(db, "SELECT id, a FROM p"), [[.integer(4), .text("a")]])
    }
}
