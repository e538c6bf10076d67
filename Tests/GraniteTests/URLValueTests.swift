import Foundation
import Granite
import XCTest

final class URLValueTests: XCTestCase {
    func testStoredAsAbsoluteString() throws {
        let url = URL(string: "https://example.com/path?query=1#fragment")!
        XCTAssertEqual(url.databaseValue, "https://example.com/path?query=1#fragment".databaseValue)
        let relative = URL(string: "b/c", relativeTo: URL(string: "https://example.com/a/")!)!
        XCTAssertEqual(relative.databaseValue, "https://example.com/a/b/c".databaseValue)
        // A path that names no directory (for a directory, Foundation appends a slash).
        XCTAssertEqual(
            URL(fileURLWithPath: "/granite-no-such-dir/x").databaseValue, "file:///granite-no-such-dir/x".databaseValue)
    }

    func testRoundTrip() throws {
        let url = URL(string: "https://example.com/path?query=1")!
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (u)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [url])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(u) FROM t"), "text")
            XCTAssertEqual(try URL.fetchOne(db, sql: "SELECT u FROM t"), url)
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT u FROM t"))
            XCTAssertEqual(row["u"] as URL, url)
            XCTAssertNil(try URL.fetchOne(db, sql: "SELECT NULL"))
        }
    }

    func testDecodingRejectsNonText() throws {
        XCTAssertNil(URL.fromDatabaseValue(Data("https://example.com".utf8).databaseValue))
        XCTAssertNil(URL.fromDatabaseValue(1.databaseValue))
        XCTAssertNil(URL.fromDatabaseValue("".databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertThrowsError(try URL.fetchOne(db, sql: "SELECT 12")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
        }
    }

    func testNSURL() throws {
        let nsURL = NSURL(string: "https://example.com/a")!
        XCTAssertEqual(nsURL.databaseValue, "https://example.com/a".databaseValue)
        XCTAssertEqual(
            NSURL.fromDatabaseValue("https://example.com/a".databaseValue)?.absoluteString, "https://example.com/a")
        XCTAssertNil(NSURL.fromDatabaseValue(1.databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertEqual(
                try NSURL.fetchOne(db, sql: "SELECT ?", arguments: [nsURL])?.absoluteString, "https://example.com/a")
        }
    }
}
