import Foundation
import Granite
import XCTest

final class DecimalValueTests: XCTestCase {
    func testStoredAsText() throws {
        XCTAssertEqual(Decimal(string: "12.345")!.databaseValue, "12.345".databaseValue)
        XCTAssertEqual(Decimal(-42).databaseValue, "-42".databaseValue)
        XCTAssertEqual(Decimal(string: "0.1")!.databaseValue, "0.1".databaseValue)
    }

    func testRoundTripKeepsEveryDigit() throws {
        let values = ["0.1", "12.99", "-0.003", "123456789012345678901234567890", "3.14159265358979323846264338327"]
            .map { Decimal(string: $0)! }
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, d TEXT)")
            for value in values { try db.execute(sql: "INSERT INTO t (d) VALUES (?)", arguments: [value]) }
            XCTAssertEqual(try Decimal.fetchAll(db, sql: "SELECT d FROM t ORDER BY id"), values)
            let rows = try Row.fetchAll(db, sql: "SELECT d FROM t ORDER BY id")
            XCTAssertEqual(rows.map { $0["d"] as Decimal }, values)
            XCTAssertEqual(rows.map { Decimal.fromDatabaseValue($0["d"] as DatabaseValue) }, values)
        }
        XCTAssertEqual(
            Decimal.fromDatabaseValue("0.1".databaseValue)! + Decimal.fromDatabaseValue("0.2".databaseValue)!,
            Decimal(string: "0.3"))
    }

    func testDecodesIntegersAndDoubles() throws {
        XCTAssertEqual(Decimal.fromDatabaseValue(Int64.max.databaseValue), Decimal(Int64.max))
        XCTAssertEqual(Decimal.fromDatabaseValue(1.5.databaseValue), Decimal(1.5))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertEqual(try Decimal.fetchOne(db, sql: "SELECT 42"), Decimal(42))
            XCTAssertEqual(try Decimal.fetchOne(db, sql: "SELECT 2.5"), Decimal(2.5))
            XCTAssertEqual(try Decimal.fetchOne(db, sql: "SELECT '1e3'"), Decimal(1000))
            XCTAssertNil(try Decimal.fetchOne(db, sql: "SELECT NULL"))
        }
    }

    func testRejectsBlobsAndUnparsableText() throws {
        XCTAssertNil(Decimal.fromDatabaseValue("foo".databaseValue))
        XCTAssertNil(Decimal.fromDatabaseValue("".databaseValue))
        XCTAssertNil(Decimal.fromDatabaseValue(Data("1".utf8).databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertThrowsError(try Decimal.fetchOne(db, sql: "SELECT 'foo'")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
            XCTAssertThrowsError(try Decimal.fetchOne(db, sql: "SELECT ?", arguments: [Data("1".utf8)]))
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT 'foo' AS d"))
            XCTAssertThrowsError(try row.decode(Decimal.self, forColumn: "d"))
        }
    }
}
