import Foundation
import Granite
import XCTest

final class CGFloatValueTests: XCTestCase {
    func testRoundTrip() throws {
        XCTAssertEqual(CGFloat(1.5).databaseValue.storage, .double(1.5))
        XCTAssertEqual(CGFloat.fromDatabaseValue(2.databaseValue), 2)
        XCTAssertNil(CGFloat.fromDatabaseValue("1.5".databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertEqual(try CGFloat.fetchOne(db, sql: "SELECT ?", arguments: [CGFloat(0.25)]), 0.25)
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT 3 AS x"))
            XCTAssertEqual(row["x"] as CGFloat, 3)
            XCTAssertThrowsError(try CGFloat.fetchOne(db, sql: "SELECT 'foo'")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
        }
    }
}
