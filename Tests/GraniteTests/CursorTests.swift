import Granite
import XCTest

final class CursorTests: XCTestCase {
    private func ints(_ values: [Int]) -> AnyCursor<Int> { AnyCursor(values) }

    func testCombinators() throws {
        XCTAssertEqual(try Array(ints([1, 2, 3]).map { $0 * 2 }), [2, 4, 6])
        XCTAssertEqual(try Array(ints([1, 2, 3, 4]).filter { $0 % 2 == 0 }), [2, 4])
        XCTAssertEqual(try Array(ints([1, 2, 3]).compactMap { $0 == 2 ? nil : $0 }), [1, 3])
        XCTAssertEqual(try ints([1, 2, 3]).reduce(0, +), 6)
        XCTAssertEqual(try ints([1, 2, 3]).reduce(into: [Int]()) { $0.insert($1, at: 0) }, [3, 2, 1])
        XCTAssertEqual(try ints([1, 2, 3]).first { $0 > 1 }, 2)
        XCTAssertTrue(try ints([1, 2, 3]).contains(3))
        XCTAssertFalse(try ints([1, 2, 3]).contains { $0 > 5 })
        XCTAssertEqual(try Array(ints([5, 6]).enumerated()).map { $0.0 * 10 + $0.1 }, [5, 16])
        XCTAssertEqual(try Array(AnyCursor([ints([1]), ints([2, 3])]).joined()), [1, 2, 3])
        XCTAssertEqual(try Array(AnyCursor([[1], [2, 3]]).joined()), [1, 2, 3])
        XCTAssertEqual(try AnyCursor(["a", "b"]).joined(separator: ","), "a,b")
        XCTAssertEqual(try Array(ints([1, 2, 3]).dropFirst()), [2, 3])
        XCTAssertEqual(try Array(ints([1, 2, 3, 1]).drop { $0 < 2 }), [2, 3, 1])
        XCTAssertEqual(try Array(ints([1, 2, 3]).prefix(2)), [1, 2])
        XCTAssertEqual(try Array(ints([1, 2, 3, 1]).prefix { $0 < 3 }), [1, 2])
        XCTAssertEqual(try ints([3, 1, 2]).max(), 3)
        XCTAssertEqual(try ints([3, 1, 2]).min(), 1)
        XCTAssertEqual(try ints([1, 2, 3]).dropLast(), [1, 2])
        XCTAssertEqual(try ints([1, 2, 3]).suffix(2), [2, 3])
        XCTAssertTrue(try ints([]).isEmpty)
        XCTAssertEqual(try Array(ints([1, 2]).flatMap { [$0, $0] }), [1, 1, 2, 2])
        var seen: [Int] = []
        try ints([1, 2]).forEach { seen.append($0) }
        XCTAssertEqual(seen, [1, 2])
        XCTAssertEqual(try Set(ints([1, 1, 2])), [1, 2])
        XCTAssertEqual(try Dictionary(grouping: ints([1, 2, 3]), by: { $0 % 2 }), [0: [2], 1: [1, 3]])
    }

    func testDatabaseCursorsAndErrors() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a)")
            try db.execute(sql: "INSERT INTO t VALUES (1), (2), ('x')")
            let cursor = try Int.fetchCursor(db, sql: "SELECT a FROM t ORDER BY rowid")
            XCTAssertEqual(try cursor.next(), 1)
            XCTAssertEqual(try cursor.next(), 2)
            XCTAssertEqual(try cursor.next(), 0, "the fast path converts text as sqlite3_column_int64 does")
            XCTAssertNil(try cursor.next())
            let strict = try DatabaseValueCursorProbe.fetch(db)
            XCTAssertThrowsError(try Array(strict))
            // A cursor abandoned midway releases its statement for the next fetch.
            let partial = try Row.fetchCursor(db, sql: "SELECT a FROM t")
            _ = try partial.next()
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t"), 3)
            try db.execute(sql: "INSERT INTO t VALUES (4)")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t"), 4)
        }
    }
}

/// A value type without the fast path, to exercise `DatabaseValueCursor`.
private struct Strict: DatabaseValueConvertible {
    var value: Int64
    var databaseValue: DatabaseValue { value.databaseValue }
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Strict? {
        if case .int64(let v) = dbValue.storage { return Strict(value: v) }
        return nil
    }
}

private enum DatabaseValueCursorProbe {
    static func fetch(_ db: Database) throws -> DatabaseValueCursor<Strict> {
        try Strict.fetchCursor(db, sql: "SELECT a FROM t ORDER BY rowid")
    }
}
