import Granite
import XCTest

private struct Item: FetchableRecord, Hashable {
    var name: String
    var price: Double?

    init(row: Row) throws {
        name = try row.decode(String.self, forColumn: "name")
        price = row["price"]
    }
}

private struct Strict: FetchableRecord {
    var value: Int
    init(row: Row) throws {
        value = try row.decode(forColumn: "missing")
    }
}

final class FetchableRecordTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE item (name TEXT NOT NULL, price REAL);
                    INSERT INTO item VALUES ('apple', 1.5), ('pear', NULL), ('apple', 1.5);
                    """)
        }
        return dbQueue
    }

    func testFetchingFromSQL() throws {
        try makeDatabase().read { db in
            let all = try Item.fetchAll(db, sql: "SELECT * FROM item ORDER BY rowid")
            XCTAssertEqual(all.map(\.name), ["apple", "pear", "apple"])
            XCTAssertEqual(all[0].price, 1.5)
            XCTAssertNil(all[1].price)
            XCTAssertEqual(try Item.fetchSet(db, sql: "SELECT * FROM item").count, 2)
            XCTAssertEqual(
                try Item.fetchOne(db, sql: "SELECT * FROM item WHERE name = ?", arguments: ["pear"])?.name, "pear")
            XCTAssertNil(try Item.fetchOne(db, sql: "SELECT * FROM item WHERE name = ?", arguments: ["kiwi"]))
            let cursor = try Item.fetchCursor(db, sql: "SELECT * FROM item WHERE price > ?", arguments: [1])
            XCTAssertEqual(cursor.statement.sql, "SELECT * FROM item WHERE price > ?")
            XCTAssertEqual(try cursor.next()?.name, "apple")
            XCTAssertEqual(try cursor.next()?.name, "apple")
            XCTAssertNil(try cursor.next())
            XCTAssertNil(try cursor.next())
            let name = "pear"
            XCTAssertEqual(try Item.fetchAll(db, literal: "SELECT * FROM item WHERE name = \(name)").count, 1)
            XCTAssertEqual(try Item.fetchOne(db, literal: "SELECT * FROM item WHERE name = \(name)")?.name, "pear")
            XCTAssertEqual(try Item.fetchSet(db, literal: "SELECT * FROM item").count, 2)
        }
    }

    func testFetchingFromStatement() throws {
        try makeDatabase().read { db in
            let statement = try db.makeStatement(sql: "SELECT * FROM item WHERE name = ?")
            XCTAssertEqual(try Item.fetchAll(statement, arguments: ["apple"]).count, 2)
            XCTAssertEqual(try Item.fetchOne(statement, arguments: ["pear"])?.name, "pear")
            XCTAssertEqual(try Item.fetchSet(statement, arguments: ["apple"]).count, 1)
            XCTAssertEqual(try Array(Item.fetchCursor(statement, arguments: ["apple"])).count, 2)
        }
    }

    func testFetchingFromRequest() throws {
        try makeDatabase().read { db in
            let request = SQLRequest<Item>(sql: "SELECT * FROM item WHERE price IS NULL")
            XCTAssertEqual(try Item.fetchAll(db, request).map(\.name), ["pear"])
            XCTAssertEqual(try request.fetchOne(db)?.name, "pear")
            XCTAssertEqual(try Item.fetchSet(db, SQLRequest<Row>(sql: "SELECT * FROM item")).count, 2)
            XCTAssertEqual(try Item.fetchCursor(db, request).next()?.name, "pear")
        }
    }

    func testDecodingErrorsAreThrown() throws {
        try makeDatabase().read { db in
            XCTAssertThrowsError(try Strict.fetchAll(db, sql: "SELECT * FROM item")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
            XCTAssertThrowsError(try Item.fetchAll(db, sql: "SELECT price FROM item")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
            XCTAssertThrowsError(try Item.fetchAll(db, sql: "SELECT * FROM nope")) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
            }
        }
    }
}
