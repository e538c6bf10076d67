import Foundation
import Granite
import XCTest

final class RowTests: XCTestCase {
    enum Level: Int, DatabaseValueConvertible { case low }

    func testStatementRowsConvertLikeSQLiteCopiedRowsDoNot() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES ('12x')") }
        try dbQueue.read { db in
            let cursor = try Row.fetchCursor(db, sql: "SELECT a FROM t")
            let row = try XCTUnwrap(cursor.next())
            XCTAssertEqual(try row.decode(Int.self, atIndex: 0), 12)
            XCTAssertThrowsError(try row.copy().decode(Int.self, atIndex: 0))
        }
    }

    func testDictionaryLiteralAndSubscripts() {
        let row: Row = ["id": 1, "name": "Arthur", "score": nil]
        XCTAssertEqual(row.count, 3)
        XCTAssertEqual(Array(row.columnNames), ["id", "name", "score"])
        XCTAssertEqual(row.databaseValues, [1, "Arthur", nil])
        XCTAssertEqual(row[0] as Int, 1)
        XCTAssertEqual(row["name"] as String, "Arthur")
        XCTAssertEqual(row["NAME"] as String, "Arthur")
        XCTAssertEqual(row[Column("id")] as Int64, 1)
        XCTAssertNil(row["score"] as Int?)
        XCTAssertNil(row["missing"] as Int?)
        XCTAssertNil(row["missing"])
        XCTAssertEqual(row["id"] as? Int64, 1)
        XCTAssertTrue(row.hasNull(atIndex: 2))
        XCTAssertFalse(row.hasNull(atIndex: 0))
        XCTAssertTrue(row.hasColumn("Score"))
        XCTAssertFalse(row.hasColumn("other"))
        XCTAssertTrue(row.containsNonNullValue)
        XCTAssertEqual(row.description, "[id:1 name:\"Arthur\" score:NULL]")
    }

    func testEqualityHashingAndCopy() {
        let a: Row = ["a": 1, "b": "x"]
        let b: Row = ["a": 1.0, "b": "x"]
        let c: Row = ["b": "x", "a": 1]
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertEqual(Set([a, b]).count, 1)
        XCTAssertEqual(a.copy(), a)
        XCTAssertEqual(Row(), Row())
        XCTAssertNotNil(Row(["a": 1] as [AnyHashable: Any]))
        XCTAssertNil(Row([1: 1] as [AnyHashable: Any]))
    }

    func testLeftmostColumnWins() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS A"))
            XCTAssertEqual(row["a"] as Int, 1)
            XCTAssertEqual(row.index(forColumn: "A"), 0)
            // Exact spellings are looked up first only when no two names differ by case alone.
            let cursorRow = try XCTUnwrap(Row.fetchCursor(db, sql: "SELECT 1 AS b, 2 AS X, 3 AS B").next())
            XCTAssertEqual(cursorRow["B"] as Int, 1)
            XCTAssertEqual(cursorRow["x"] as Int, 2)
            let distinct = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS id, 2 AS Name, 3 AS name2"))
            XCTAssertEqual(distinct["Name"] as Int, 2)
            XCTAssertEqual(distinct["NAME"] as Int, 2)
            XCTAssertEqual(distinct["name2"] as Int, 3)
            XCTAssertEqual(distinct.index(forColumn: "ID"), 0)
            XCTAssertNil(distinct.index(forColumn: "nam"))
        }
    }

    func testDecodingErrors() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, score)")
            try db.execute(sql: "INSERT INTO player VALUES (1, 'foo')")
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM player WHERE id = ?", arguments: [1]))
            XCTAssertThrowsError(try row.decode(Int.self, forColumn: "score")) { error in
                XCTAssertTrue(error is RowDecodingError)
                XCTAssertEqual(
                    "\(error)",
                    "could not decode Int from database value \"foo\" - column: \"score\", column index: 1, "
                        + "row: [id:1 score:\"foo\"]")
            }
            XCTAssertThrowsError(try row.decode(Int.self, forColumn: "missing")) { error in
                XCTAssertEqual("\(error)", "column not found: \"missing\" - row: [id:1 score:\"foo\"]")
            }
            XCTAssertNil(try row.decode(Int?.self, forColumn: "missing"))
            // Errors raised while a statement runs name its SQL and arguments.
            XCTAssertThrowsError(try Level.fetchAll(db, sql: "SELECT score FROM player WHERE id = ?", arguments: [1])) {
                error in
                XCTAssertEqual(
                    "\(error)",
                    "could not decode Level from database value \"foo\" - column: \"score\", column index: 0, "
                        + "row: [score:\"foo\"], sql: `SELECT score FROM player WHERE id = ?`, arguments: [1]")
            }
        }
    }

    func testCursorReusesOneRow() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE numbers (value); INSERT INTO numbers VALUES (1), (2)")
        }
        try dbQueue.read { db in
            let cursor = try Row.fetchCursor(db, sql: "SELECT value FROM numbers ORDER BY value")
            let first = try XCTUnwrap(cursor.next())
            let copy = first.copy()
            let second = try XCTUnwrap(cursor.next())
            XCTAssertTrue(first === second)
            XCTAssertEqual(copy[0] as Int, 1)
            XCTAssertEqual(second[0] as Int, 2)
            XCTAssertNil(try cursor.next())
            XCTAssertNil(try cursor.next())
        }
    }

    func testCursorRowOutlivingItsCursorOrExecution() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1), (2)") }
        try dbQueue.read { db in
            // The cursor goes away: the row keeps what it showed.
            let kept = try XCTUnwrap(Row.fetchCursor(db, sql: "SELECT a FROM t ORDER BY a").next())
            XCTAssertEqual(kept["a"] as Int, 1)
            // The cursor is exhausted: the reused row reads as NULL rather than trapping.
            let cursor = try Row.fetchCursor(db, sql: "SELECT a FROM t ORDER BY a")
            var last: Row?
            while let row = try cursor.next() { last = row }
            XCTAssertNil(last?["a"] as Int?)
        }
    }

    func testFetchMethods() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a)")
            for a in [1, 2, 2, 3] { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [a]) }
            XCTAssertEqual(try Row.fetchAll(db, sql: "SELECT a FROM t ORDER BY a").map { $0[0] as Int }, [1, 2, 2, 3])
            XCTAssertEqual(try Row.fetchSet(db, sql: "SELECT a FROM t").count, 3)
            XCTAssertEqual(try Row.fetchOne(db, sql: "SELECT a FROM t WHERE a > ?", arguments: [2]), ["a": 3])
            XCTAssertNil(try Row.fetchOne(db, sql: "SELECT a FROM t WHERE a > 5"))
            XCTAssertEqual(try Int.fetchSet(db, sql: "SELECT a FROM t"), [1, 2, 3])
            XCTAssertEqual(
                try Int?.fetchAll(db, sql: "SELECT CASE WHEN a = 1 THEN NULL ELSE a END FROM t WHERE a < 3 ORDER BY a"),
                [nil, 2, 2])
            XCTAssertEqual(try DatabaseValue.fetchAll(db, sql: "SELECT 'x'"), ["x"])
            let statement = try db.makeStatement(sql: "SELECT a FROM t WHERE a >= ? ORDER BY a")
            XCTAssertEqual(try Int.fetchAll(statement, arguments: [2]), [2, 2, 3])
            XCTAssertEqual(try Int.fetchOne(statement, arguments: [3]), 3)
            XCTAssertEqual(try Row.fetchAll(statement, arguments: [3]).count, 1)
        }
    }
}
