import Foundation
import Granite
import XCTest

/// NSString, NSData and NSNull.
final class FoundationObjectValueTests: XCTestCase {
    func testNSString() throws {
        XCTAssertEqual(NSString(string: "héllo").databaseValue, "héllo".databaseValue)
        XCTAssertEqual(NSMutableString(string: "abc").databaseValue, "abc".databaseValue)
        XCTAssertEqual(NSString.fromDatabaseValue("foo".databaseValue), "foo")
        XCTAssertNil(NSString.fromDatabaseValue(1.databaseValue))
        XCTAssertNil(NSString.fromDatabaseValue(Data("foo".utf8).databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertEqual(try NSString.fetchOne(db, sql: "SELECT ?", arguments: [NSString(string: "bar")]), "bar")
            XCTAssertThrowsError(try NSString.fetchOne(db, sql: "SELECT 1")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
        }
    }

    func testNSData() throws {
        let bytes = Data([0, 1, 2, 255])
        XCTAssertEqual(NSData(data: bytes).databaseValue, bytes.databaseValue)
        XCTAssertEqual(NSData.fromDatabaseValue(bytes.databaseValue).map { Data(referencing: $0) }, bytes)
        XCTAssertEqual(NSData.fromDatabaseValue("ab".databaseValue)?.length, 2)
        XCTAssertNil(NSData.fromDatabaseValue(1.databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            let fetched = try NSData.fetchOne(db, sql: "SELECT ?", arguments: [NSData(data: bytes)])
            XCTAssertEqual(fetched.map { Data(referencing: $0) }, bytes)
        }
    }

    func testNSNull() throws {
        XCTAssertTrue(NSNull().databaseValue.isNull)
        XCTAssertNil(NSNull.fromDatabaseValue(.null))
        XCTAssertNil(NSNull.fromDatabaseValue(1.databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(?)", arguments: [NSNull()]), "null")
        }
    }
}
