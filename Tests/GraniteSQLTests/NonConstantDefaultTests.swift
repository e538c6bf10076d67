import GraniteSQL
import GraniteStorage
import XCTest

/// A column DEFAULT that is not a constant (`random()`, the clock, the counter functions) is evaluated for each
/// row that needs it, also by a cached statement run again and by statements sharing the table's writer.
final class NonConstantDefaultTests: XCTestCase {
    private func connection() throws -> SQLConnection {
        try SQLConnection(engine: try StorageEngine.inMemory())
    }

    func testRandomDefaultDiffersFromRowToRow() throws {
        let db = try connection()
        try db.execute(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, r DEFAULT (random()), small DEFAULT (abs(random()) % 10))")
        try db.execute("INSERT INTO t(id) VALUES (1), (2), (3), (4), (5), (6), (7), (8)")
        let insert = try db.prepare("INSERT INTO t(id) VALUES (NULL)")
        for _ in 0..<8 {
            _ = try insert.all()
            insert.reset()
        }
        try db.execute("INSERT INTO t(id) SELECT id + 100 FROM t")
        let summary = try db.query(
            "SELECT count(*), count(DISTINCT r), min(small) >= 0 AND max(small) <= 9, count(DISTINCT small) > 1 FROM t")
        XCTAssertEqual(summary.rows, [[.integer(32), .integer(32), .integer(1), .integer(1)]])
    }

    func testConstantDefaultsKeepTheirAffinity() throws {
        let db = try connection()
        try db.execute(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER DEFAULT ('7'), b TEXT DEFAULT (1 + 2), c DEFAULT (-(5)))")
        try db.execute("INSERT INTO t(id) VALUES (1)")
        XCTAssertEqual(
            try db.query("SELECT a, typeof(a), b, typeof(b), c FROM t").rows,
            [[.integer(7), .text("integer"), .text("3"), .text("text"), .integer(-5)]])
    }

    func testClockDefaultsAreEvaluatedWhenTheRowIsInserted() throws {
        let db = try connection()
        try db.execute(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, at DEFAULT CURRENT_TIMESTAMP, y TEXT DEFAULT (strftime('%Y', 'now')))"
        )
        try db.execute("INSERT INTO t(id) VALUES (1)")
        XCTAssertEqual(
            try db.query(
                "SELECT at BETWEEN datetime('now', '-1 hour') AND datetime('now'), length(at), y = strftime('%Y', 'now') FROM t"
            ).rows,
            [[.integer(1), .integer(19), .integer(1)]])
    }

    func testSetDefaultActionAndReplaceEvaluateTheDefaultPerRow() throws {
        let db = try connection()
        try db.execute("PRAGMA foreign_keys = ON")
        try db.execute("CREATE TABLE p(id INTEGER PRIMARY KEY)")
        try db.execute(
            "CREATE TABLE c(id INTEGER PRIMARY KEY, p REFERENCES p ON DELETE SET DEFAULT DEFAULT (last_insert_rowid()), "
                + "n NOT NULL ON CONFLICT REPLACE DEFAULT (total_changes()))")
        try db.execute("INSERT INTO p VALUES (1), (2), (3)")
        try db.execute("INSERT INTO c VALUES (10, 1, NULL), (11, 2, NULL)")
        XCTAssertEqual(
            try db.query("SELECT id, n FROM c ORDER BY id").rows,
            [
                [.integer(10), .integer(3)], [.integer(11), .integer(3)],
            ])
        try db.execute("INSERT INTO p VALUES (20)")
        try db.execute("DELETE FROM p WHERE id = 1")
        XCTAssertEqual(
            try db.query("SELECT id, p FROM c ORDER BY id").rows,
            [
                [.integer(10), .integer(20)], [.integer(11), .integer(2)],
            ])
    }
}
