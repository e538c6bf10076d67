import Foundation
import Granite
import XCTest

final class NSNumberValueTests: XCTestCase {
    func testEncodingFollowsTheNumberType() {
        XCTAssertEqual(NSNumber(value: Int8(-3)).databaseValue.storage, .int64(-3))
        XCTAssertEqual(NSNumber(value: UInt32.max).databaseValue.storage, .int64(Int64(UInt32.max)))
        XCTAssertEqual(NSNumber(value: Int64.min).databaseValue.storage, .int64(.min))
        XCTAssertEqual(NSNumber(value: UInt64(Int64.max)).databaseValue.storage, .int64(.max))
        XCTAssertEqual(NSNumber(value: true).databaseValue.storage, .int64(1))
        XCTAssertEqual(NSNumber(value: 1.5).databaseValue.storage, .double(1.5))
        XCTAssertEqual(NSNumber(value: Float(0.5)).databaseValue.storage, .double(0.5))
    }

    func testDecimalNumberEncoding() {
        XCTAssertEqual(NSDecimalNumber(string: "12").databaseValue.storage, .int64(12))
        XCTAssertEqual(NSDecimalNumber(string: "-9223372036854775808").databaseValue.storage, .int64(.min))
        XCTAssertEqual(NSDecimalNumber(string: "12.5").databaseValue.storage, .double(12.5))
        XCTAssertEqual(NSDecimalNumber(string: "1e20").databaseValue.storage, .double(1e20))
    }

    func testDecoding() throws {
        XCTAssertEqual(NSNumber.fromDatabaseValue(42.databaseValue)?.int64Value, 42)
        XCTAssertEqual(NSNumber.fromDatabaseValue(1.5.databaseValue)?.doubleValue, 1.5)
        // Text decodes as a decimal number.
        let fromText = try XCTUnwrap(NSNumber.fromDatabaseValue("12.25".databaseValue))
        XCTAssertTrue(fromText is NSDecimalNumber)
        XCTAssertEqual(fromText.doubleValue, 12.25)
        XCTAssertNil(NSNumber.fromDatabaseValue("foo".databaseValue))
        XCTAssertNil(NSNumber.fromDatabaseValue(Data([1]).databaseValue))
        XCTAssertNil(NSNumber.fromDatabaseValue(.null))

        let decimal = try XCTUnwrap(NSDecimalNumber.fromDatabaseValue(42.databaseValue))
        XCTAssertEqual(decimal, NSDecimalNumber(value: 42))
        XCTAssertEqual(NSDecimalNumber.fromDatabaseValue(2.5.databaseValue), NSDecimalNumber(value: 2.5))
        XCTAssertEqual(NSDecimalNumber.fromDatabaseValue("0.1".databaseValue)?.decimalValue, Decimal(string: "0.1"))
    }

    func testReadmeExamples() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertEqual(try NSNumber.fetchOne(db, sql: "SELECT 10")?.intValue, 10)
            XCTAssertEqual(try NSDecimalNumber.fetchOne(db, sql: "SELECT 1.23"), NSDecimalNumber(value: 1.23))
            XCTAssertTrue(try NSNumber.fetchOne(db, sql: "SELECT '10'") is NSDecimalNumber)
            XCTAssertEqual(try NSDecimalNumber.fetchOne(db, sql: "SELECT '1.23'"), NSDecimalNumber(string: "1.23"))
            try db.execute(sql: "CREATE TABLE transfer (amount)")
            for number in [
                NSNumber(value: 10), NSNumber(value: 10.0), NSDecimalNumber(string: "10.0"),
                NSDecimalNumber(string: "10.5"),
            ] {
                try db.execute(sql: "INSERT INTO transfer VALUES (?)", arguments: [number])
            }
            XCTAssertEqual(
                try String.fetchAll(db, sql: "SELECT typeof(amount) FROM transfer ORDER BY rowid"),
                ["integer", "real", "integer", "real"])
        }
    }

    func testRoundTrip() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (a, b, c)")
            try db.execute(
                sql: "INSERT INTO t VALUES (?, ?, ?)",
                arguments: [NSNumber(value: 7), NSNumber(value: 0.25), NSDecimalNumber(string: "3")])
            XCTAssertEqual(
                try String.fetchAll(db, sql: "SELECT typeof(a) || typeof(b) || typeof(c) FROM t"),
                ["integerrealinteger"])
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT a, b, c FROM t"))
            XCTAssertEqual((row["a"] as NSNumber).intValue, 7)
            XCTAssertEqual((row["b"] as NSNumber).doubleValue, 0.25)
            XCTAssertEqual(row["c"] as NSDecimalNumber, NSDecimalNumber(value: 3))
            XCTAssertEqual(try NSNumber.fetchOne(db, sql: "SELECT b FROM t")?.doubleValue, 0.25)
            XCTAssertThrowsError(try NSNumber.fetchOne(db, sql: "SELECT 'foo'")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
        }
    }
}
