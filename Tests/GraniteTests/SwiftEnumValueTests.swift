import Foundation
import Granite
import XCTest

private enum Color: Int, DatabaseValueConvertible {
    case red, white, rose
}

private enum Grape: String, DatabaseValueConvertible {
    case chardonnay, merlot, riesling
}

final class SwiftEnumValueTests: XCTestCase {
    func testEnumsAreStoredAsTheirRawValues() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE wine (grape TEXT, color INTEGER)")
            try db.execute(sql: "INSERT INTO wine VALUES (?, ?)", arguments: [Grape.merlot, Color.red])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT grape || color FROM wine"), "merlot0")
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT * FROM wine"))
            XCTAssertEqual(row["grape"] as Grape, .merlot)
            XCTAssertEqual(row["color"] as Color, .red)
            XCTAssertEqual(try Grape.fetchOne(db, sql: "SELECT grape FROM wine"), .merlot)
        }
    }

    func testUnknownRawValuesFailToDecode() throws {
        XCTAssertNil(Grape.fromDatabaseValue("syrah".databaseValue))
        XCTAssertNil(Color.fromDatabaseValue(7.databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertThrowsError(try Grape.fetchOne(db, sql: "SELECT 'syrah'")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
        }
    }
}
