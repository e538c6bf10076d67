import Foundation
import Granite
import XCTest

/// Row members GRDB declares beside adapters: index equality and data access by column expression.
final class RowLeftoversTests: XCTestCase {
    func testIndexEquality() throws {
        let row: Row = ["a": 1, "b": 2]
        XCTAssertEqual(row.startIndex, row.startIndex)
        XCTAssertNotEqual(row.startIndex, row.endIndex)
        XCTAssertEqual(row.index(after: row.startIndex).advanced(by: 1), row.endIndex)
        XCTAssertEqual(row.firstIndex { $0.0 == "b" }, row.index(after: row.startIndex))
    }

    func testWithUnsafeDataAtColumn() throws {
        try DatabaseQueue().read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT x'0102' AS blob, 'ab' AS text, NULL AS nothing"))
            XCTAssertEqual(try row.withUnsafeData(at: Column("blob")) { $0 }, Data([1, 2]))
            XCTAssertEqual(try row.withUnsafeData(at: Column("TEXT")) { $0 }, Data("ab".utf8))
            XCTAssertNil(try row.withUnsafeData(at: Column("nothing")) { $0 })
            XCTAssertNil(try row.withUnsafeData(at: Column("missing")) { $0 })
        }
    }
}
