import Foundation
import Granite
import XCTest

/// What the GRDB API reads from a TEXT whose bytes are not valid UTF-8, as GRDB 7.10 reads it from SQLite: a
/// `String` (or a `DatabaseValue`) through `String(cString:)` (up to the first NUL, invalid sequences repaired to
/// U+FFFD), `Data` as the exact bytes.
final class ByteTextFetchTests: XCTestCase {
    func testStringRepairsDataKeepsTheBytes() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let sql = "SELECT CAST(x'61e562' AS TEXT)"
            XCTAssertEqual(try String.fetchOne(db, sql: sql), "a\u{FFFD}b")
            XCTAssertEqual(try Data.fetchOne(db, sql: sql), Data([0x61, 0xE5, 0x62]))
            XCTAssertEqual(try DatabaseValue.fetchOne(db, sql: sql)?.storage, .string("a\u{FFFD}b"))
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: sql))
            XCTAssertEqual(row[0] as String, "a\u{FFFD}b")
            // A NUL ends the string as `String(cString:)` does; the data keeps every byte.
            let withNUL = "SELECT CAST(x'61e50062' AS TEXT)"
            XCTAssertEqual(try String.fetchOne(db, sql: withNUL), "a\u{FFFD}")
            XCTAssertEqual(try Data.fetchOne(db, sql: withNUL), Data([0x61, 0xE5, 0x00, 0x62]))
            XCTAssertEqual(try DatabaseValue.fetchOne(db, sql: withNUL)?.storage, .string("a\u{FFFD}"))
        }
    }

    func testStoredBytesComeBackExactly() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(x TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES (CAST(x'ffc3' AS TEXT))")
            XCTAssertEqual(try Data.fetchOne(db, sql: "SELECT x FROM t"), Data([0xFF, 0xC3]))
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(x) || length(x) FROM t"), "text2")
            // Written back from the API as a Swift string, the repaired text is valid UTF-8.
            let repaired = try XCTUnwrap(try String.fetchOne(db, sql: "SELECT x FROM t"))
            try db.execute(sql: "UPDATE t SET x = ?", arguments: [repaired])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT hex(x) FROM t"), "EFBFBDEFBFBD")
        }
    }
}
