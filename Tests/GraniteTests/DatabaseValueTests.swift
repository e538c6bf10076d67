import Foundation
import Granite
import XCTest

final class DatabaseValueTests: XCTestCase {
    func testStorageAndIsNull() {
        XCTAssertTrue(DatabaseValue.null.isNull)
        XCTAssertEqual(DatabaseValue(value: 42)?.storage, .int64(42))
        XCTAssertEqual(DatabaseValue(value: 1.5)?.storage, .double(1.5))
        XCTAssertEqual(DatabaseValue(value: "a")?.storage, .string("a"))
        XCTAssertEqual(DatabaseValue(value: Data([1, 2]))?.storage, .blob(Data([1, 2])))
        XCTAssertNil(DatabaseValue(value: NSObject()))
        XCTAssertFalse(DatabaseValue(value: 0)!.isNull)
    }

    func testLiterals() {
        let values: [DatabaseValue] = [nil, 1, 2.5, "x", true]
        XCTAssertEqual(values.map(\.storage), [.null, .int64(1), .double(2.5), .string("x"), .int64(1)])
    }

    func testNumericEqualityAndHashing() {
        XCTAssertEqual(DatabaseValue(value: 1)!, DatabaseValue(value: 1.0)!)
        XCTAssertNotEqual(DatabaseValue(value: 1)!, DatabaseValue(value: 1.5)!)
        XCTAssertNotEqual(DatabaseValue(value: 1)!, DatabaseValue(value: "1")!)
        XCTAssertEqual(Set([DatabaseValue(value: 1)!, DatabaseValue(value: 1.0)!]).count, 1)
        XCTAssertNotEqual(DatabaseValue.Storage.int64(1), DatabaseValue.Storage.double(1))
    }

    func testDescription() {
        XCTAssertEqual(DatabaseValue.null.description, "NULL")
        XCTAssertEqual(DatabaseValue(value: 12)!.description, "12")
        XCTAssertEqual(DatabaseValue(value: "a\"b")!.description, "\"a\\\"b\"")
        XCTAssertEqual(DatabaseValue(value: Data([1, 2, 3]))!.description, "Data(3 bytes)")
    }

    func testStorageValue() {
        XCTAssertNil(DatabaseValue.null.storage.value)
        XCTAssertEqual(DatabaseValue(value: 3)!.storage.value as? Int64, 3)
        XCTAssertEqual(DatabaseValue(value: "s")!.storage.value as? String, "s")
    }

    func testStandardLibraryConversions() throws {
        XCTAssertEqual(Int.fromDatabaseValue(.init(value: 3.0)!), 3)
        XCTAssertEqual(Int.fromDatabaseValue(.init(value: 3.5)!), 3)  // truncated toward zero, as GRDB does
        XCTAssertNil(Int8.fromDatabaseValue(.init(value: 300)!))
        XCTAssertEqual(UInt8.fromDatabaseValue(.init(value: 255)!), 255)
        XCTAssertNil(UInt.fromDatabaseValue(.init(value: -1)!))
        XCTAssertEqual(Double.fromDatabaseValue(.init(value: 2)!), 2.0)
        XCTAssertEqual(Float.fromDatabaseValue(.init(value: 0.5)!), 0.5)
        XCTAssertNil(String.fromDatabaseValue(.init(value: 1)!))
        XCTAssertEqual(Bool.fromDatabaseValue(.init(value: 2)!), true)
        XCTAssertEqual(Bool.fromDatabaseValue(.init(value: 0)!), false)
        XCTAssertNil(Bool.fromDatabaseValue(.null))
        XCTAssertEqual(Int?.fromDatabaseValue(.null), .some(nil))
        XCTAssertEqual(Int?.fromDatabaseValue(.init(value: "x")!), nil)
        XCTAssertEqual(Data.fromDatabaseValue(.init(value: "ab")!), Data("ab".utf8))
    }

    enum Color: String, DatabaseValueConvertible { case red, green }
    enum Level: Int, DatabaseValueConvertible {
        case low = 1
        case high = 2
    }

    func testRawRepresentableEnums() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            XCTAssertEqual(try Color.fetchOne(db, sql: "SELECT 'green'"), .green)
            XCTAssertEqual(try Level.fetchOne(db, sql: "SELECT 2"), .high)
            XCTAssertThrowsError(try Color.fetchOne(db, sql: "SELECT 'blue'")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
            XCTAssertNil(try Color.fetchOne(db, sql: "SELECT NULL"))
        }
        XCTAssertEqual(Color.red.databaseValue, "red")
        XCTAssertEqual(Level.low.databaseValue, 1)
    }

    func testRoundTripsThroughDatabase() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b, c, d, e, f)")
            try db.execute(
                sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [Int64.max, -1.25, "héllo", Data([0, 255]), true, nil])
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM t"))
            XCTAssertEqual(row["a"] as Int64, .max)
            XCTAssertEqual(row["b"] as Double, -1.25)
            XCTAssertEqual(row["c"] as String, "héllo")
            XCTAssertEqual(row["d"] as Data, Data([0, 255]))
            XCTAssertEqual(row["e"] as Bool, true)
            XCTAssertNil(row["f"] as Int?)
            XCTAssertEqual(row["A"] as Int64, .max, "column lookup is case-insensitive")
        }
    }

    func testFastPathConversionsFollowSQLite() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            // The StatementColumnConvertible path converts as sqlite3_column_* does.
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT 12"), "12")
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT 1.5"), "1.5")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT '42abc'"), 42)
            XCTAssertEqual(try Double.fetchOne(db, sql: "SELECT '2.5'"), 2.5)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT 2.9"), 2)
            XCTAssertNil(try Int.fetchOne(db, sql: "SELECT NULL"))
            XCTAssertThrowsError(try Int8.fetchOne(db, sql: "SELECT 1000"))
        }
    }
}
