import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// TEXT of bytes that are not valid UTF-8, through SQL: kept exactly across writes, indexes and a reopened file.
final class ByteTextTests: XCTestCase {
    func testInvalidTextSurvivesAFileReopenWithItsIndexes() throws {
        let path = try makeTemporaryDatabasePath()
        let long = [UInt8](repeating: 0xE5, count: 300) + [0x61]
        let longHex = long.map { String($0, radix: 16) }.joined()
        do {
            let db = try SQLConnection(engine: try StorageEngine(path: path))
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT UNIQUE, b TEXT COLLATE NOCASE)")
            try db.execute("CREATE INDEX tb ON t(b)")
            try db.execute("INSERT INTO t VALUES (1, CAST(x'e5' AS TEXT), CAST(x'41e5' AS TEXT))")
            try db.execute("INSERT INTO t VALUES (2, CAST(x'\(longHex)' AS TEXT), 'é')")
            try db.execute("INSERT INTO t VALUES (3, 'é', x'c3' || '')")
        }
        let db = try SQLConnection(engine: try StorageEngine(path: path))
        XCTAssertEqual(
            try db.query("SELECT a, b FROM t ORDER BY id").rows,
            [
                [.invalidUTF8Text([0xE5]), .invalidUTF8Text([0x41, 0xE5])],
                [.invalidUTF8Text(long), .text("é")],
                [.text("é"), .invalidUTF8Text([0xC3])],
            ])
        // The index finds the bytes, the NOCASE index folds their ASCII only.
        XCTAssertEqual(try db.query("SELECT id FROM t WHERE a = CAST(x'e5' AS TEXT)").rows, [[.integer(1)]])
        XCTAssertEqual(try db.query("SELECT id FROM t WHERE b = CAST(x'61e5' AS TEXT)").rows, [[.integer(1)]])
        XCTAssertEqual(
            try db.query("SELECT id FROM t WHERE b > 'a' ORDER BY b").rows,
            [[.integer(1)], [.integer(3)], [.integer(2)]])
        // UNIQUE compares bytes: the same bytes are refused, other bytes accepted.
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (4, CAST(x'e5' AS TEXT), NULL)"))
        XCTAssertNoThrow(try db.execute("INSERT INTO t VALUES (4, CAST(x'e6' AS TEXT), NULL)"))
        XCTAssertEqual(
            try db.query("SELECT length(a), hex(substr(a, 300)) FROM t WHERE id = 2").rows,
            [[.integer(301), .text("E561")]])
        XCTAssertEqual(try db.query("PRAGMA integrity_check").rows, [[.text("ok")]])
    }

    func testCastToBlobGivesTheBytesBack() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        XCTAssertEqual(
            try db.query("SELECT CAST(CAST(x'00e5ff' AS TEXT) AS BLOB), typeof(CAST(x'e5' AS TEXT))").rows,
            [[.blob([0x00, 0xE5, 0xFF]), .text("text")]])
        // A parameter carries the bytes in both directions.
        XCTAssertEqual(
            try db.query("SELECT ?1, hex(?1), length(?1)", arguments: [.invalidUTF8Text([0x61, 0xC3])]).rows,
            [[.invalidUTF8Text([0x61, 0xC3]), .text("61C3"), .integer(2)]])
    }
}
