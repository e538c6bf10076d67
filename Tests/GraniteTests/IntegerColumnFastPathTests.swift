import Granite
import XCTest

/// The integer fast path (`Int.fetchAll`, `row[i] as Int`, `Int?`) reads an INTEGER in place and every other
/// storage class through SQLite's conversions; these tests pin both for each way a statement holds its current
/// row: a table column, a computed column, and the buffered rows of a statement that is not a SELECT.
final class IntegerColumnFastPathTests: XCTestCase {
    /// One stored value per row, in rowid order, with what `sqlite3_column_int64` makes of it.
    private static let stored: [(sql: String, int64: Int64)] = [
        ("42", 42), ("-7", -7), ("9223372036854775807", Int64.max), ("2.9", 2), ("-2.9", -2), ("'12'", 12),
        ("'x'", 0), ("x'3132'", 12), ("300", 300),
    ]

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a)")
            for value in Self.stored { try db.execute(sql: "INSERT INTO t VALUES (\(value.sql))") }
            try db.execute(sql: "INSERT INTO t VALUES (NULL)")
        }
        return dbQueue
    }

    func testFetchAllConvertsEveryStorageClass() throws {
        let dbQueue = try makeDatabase()
        let expected = Self.stored.map(\.int64)
        try dbQueue.read { db in
            for sql in ["SELECT a FROM t WHERE a IS NOT NULL ORDER BY rowid",
                "SELECT +a FROM t WHERE a IS NOT NULL ORDER BY rowid"]
            {
                XCTAssertEqual(try Int64.fetchAll(db, sql: sql), expected, sql)
                XCTAssertEqual(try Int.fetchAll(db, sql: sql), expected.map { Int($0) }, sql)
            }
            XCTAssertEqual(
                try Int?.fetchAll(db, sql: "SELECT a FROM t ORDER BY rowid"), expected.map { Int($0) } + [nil])
        }
    }

    func testRowSubscriptsOnCursorRows() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT a, a * 1 AS b FROM t ORDER BY rowid")
            var index = 0
            while let row = try rows.next() {
                if index < Self.stored.count {
                    let expected = Self.stored[index].int64
                    XCTAssertEqual(row[0] as Int64, expected, "row \(index)")
                    XCTAssertEqual(row[0] as Int64?, expected, "row \(index)")
                    XCTAssertFalse(row.hasNull(atIndex: 0))
                } else {
                    XCTAssertNil(row[0] as Int?)
                    XCTAssertNil(row["b"] as Int64?)
                    XCTAssertTrue(row.hasNull(atIndex: 0))
                }
                index += 1
            }
            XCTAssertEqual(index, Self.stored.count + 1)
        }
    }

    func testNarrowIntegersFailWhenTheValueDoesNotFit() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            XCTAssertEqual(try Int16.fetchOne(db, sql: "SELECT a FROM t WHERE a = 300"), 300)
            XCTAssertThrowsError(try Int8.fetchOne(db, sql: "SELECT a FROM t WHERE a = 300"))
            XCTAssertThrowsError(try Int32.fetchOne(db, sql: "SELECT 9223372036854775807"))
        }
    }

    func testBufferedRowsOfAStatementThatIsNotASelect() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a)")
            let ids = try Int.fetchAll(db, sql: "INSERT INTO t (a) VALUES ('5'), (NULL), (2.5) RETURNING id")
            XCTAssertEqual(ids, [1, 2, 3])
            let values = try Int?.fetchAll(db, sql: "UPDATE t SET a = a RETURNING a")
            XCTAssertEqual(values, [5, nil, 2])
        }
    }
}
