import Granite
import XCTest

private struct Item: FetchableRecord {
    var id: Int64
    init(row: Row) { id = row["id"] }
}

/// GRDB's cursor members beyond the generic combinators: statement information on database cursors, forEach
/// on cursor adapters, and the argument-less dropFirst() and dropLast().
final class CursorLeftoversTests: XCTestCase {
    private func ints(_ values: [Int]) -> AnyCursor<Int> { AnyCursor(values) }

    func testDropFirstAndDropLastWithAndWithoutCount() throws {
        XCTAssertEqual(try Array(ints([1, 2, 3]).dropFirst()), [2, 3])
        XCTAssertEqual(try Array(ints([1, 2, 3]).dropFirst(2)), [3])
        XCTAssertEqual(try Array(ints([1]).dropFirst()), [])
        XCTAssertEqual(try ints([1, 2, 3]).dropLast(), [1, 2])
        XCTAssertEqual(try ints([1, 2, 3]).dropLast(2), [1])
        XCTAssertEqual(try ints([]).dropLast(), [])
    }

    func testForEachOnCursorAdapters() throws {
        var pairs: [String] = []
        try ints([7, 8]).enumerated().forEach { offset, element in pairs.append("\(offset):\(element)") }
        XCTAssertEqual(pairs, ["0:7", "1:8"])

        var even: [Int] = []
        try ints([1, 2, 3, 4]).filter { $0 % 2 == 0 }.forEach { even.append($0) }
        XCTAssertEqual(even, [2, 4])

        var doubled: [Int] = []
        try ints([1, 2]).map { $0 * 2 }.forEach { doubled.append($0) }
        XCTAssertEqual(doubled, [2, 4])

        // An error thrown by the body stops the iteration and reaches the caller.
        struct Stop: Error {}
        var visited: [Int] = []
        XCTAssertThrowsError(
            try ints([1, 2, 3]).map { $0 }.forEach {
                visited.append($0)
                if $0 == 2 { throw Stop() }
            }
        ) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(visited, [1, 2])
    }

    func testDatabaseCursorStatementInformation() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'a'), (2, 'b')"
            )
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM item WHERE id >= ?", arguments: [1])
            XCTAssertEqual(rows.sql, "SELECT id, name FROM item WHERE id >= ?")
            XCTAssertEqual(rows.arguments, [1])
            XCTAssertEqual(rows.columnCount, 2)
            XCTAssertEqual(rows.columnNames, ["id", "name"])
            var names: [String] = []
            try rows.forEach { names.append($0["name"]) }
            XCTAssertEqual(names, ["a", "b"])
            XCTAssertNil(try rows.next())

            let values = try String.fetchCursor(db, sql: "SELECT name FROM item ORDER BY id")
            XCTAssertEqual(values.columnNames, ["name"])
            let first: String? = try values.next()
            XCTAssertEqual(first, "a")

            let slowValues = try DatabaseValue.fetchCursor(db, sql: "SELECT name, id FROM item ORDER BY id")
            XCTAssertEqual(slowValues.columnCount, 2)
            var collected: [DatabaseValue] = []
            try slowValues.forEach { collected.append($0) }
            XCTAssertEqual(collected, ["a".databaseValue, "b".databaseValue])

            let items = try Item.fetchCursor(db, sql: "SELECT id FROM item ORDER BY id")
            XCTAssertEqual(items.sql, "SELECT id FROM item ORDER BY id")
            XCTAssertEqual(try items.next()?.id, 1)
        }
    }

    func testCursorElementTypes() throws {
        // The element type names GRDB declares: usable in generic code and signatures.
        XCTAssertTrue(RowCursor.Element.self == Row.self)
        XCTAssertTrue(DatabaseValueCursor<DatabaseValue>.Element.self == DatabaseValue.self)
        XCTAssertTrue(FastDatabaseValueCursor<Int>.Element.self == Int.self)
        XCTAssertTrue(RecordCursor<Item>.Element.self == Item.self)
    }
}
