import GraniteSQL
import GraniteStorage
import XCTest

/// `SQLConnection.textCompressionThreshold`: which TEXT values table writes store compressed.
final class TextCompressionSettingTests: XCTestCase {
    /// Whether each row's column `column` of `table` is stored compressed, by rowid.
    func compressedColumns(_ db: SQLConnection, table: String, column: Int) throws -> [Int64: Bool] {
        let name = try XCTUnwrap(db.catalog.table(named: table)).storageName
        try db.engine.beginRead()
        defer { try? db.engine.endRead() }
        let cursor = try db.engine.table(named: name).makeCursor()
        var result: [Int64: Bool] = [:]
        var found = try cursor.first()
        while found {
            let payload = try cursor.payload()
            result[cursor.rowid] = try payload.withUnsafeBytes { try RowDecoder($0).isCompressed(at: column) }
            found = try cursor.next()
        }
        return result
    }

    func testThresholdAppliesToLaterWritesIncludingCachedStatements() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        XCTAssertEqual(db.textCompressionThreshold, 128)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT)")
        let text = String(repeating: "granite ", count: 40)  // 320 bytes, compressible
        let insert = try db.cachedStatement("INSERT INTO t VALUES (?, ?)")
        func insertRow(_ id: Int64) throws {
            try insert.bind([.integer(id), .text(text)])
            try insert.execute()
            insert.reset()
        }
        try insertRow(1)
        db.textCompressionThreshold = nil
        try insertRow(2)
        try db.execute("INSERT INTO t VALUES (3, ?)", arguments: [.text(text)])
        db.textCompressionThreshold = 1_000
        try insertRow(4)
        db.textCompressionThreshold = 300
        try insertRow(5)
        // UPDATE rewrites the row with the current threshold.
        try db.execute("UPDATE t SET doc = doc WHERE id = 2")
        XCTAssertEqual(
            try compressedColumns(db, table: "t", column: 1), [1: true, 2: true, 3: false, 4: false, 5: true])
        let rows = try db.query("SELECT count(*) FROM t WHERE doc = ? AND length(doc) = 320", arguments: [.text(text)])
        XCTAssertEqual(rows.rows, [[.integer(5)]])
    }

    /// A table's writer learns across statements which columns' short texts fail to compress, and skips attempts
    /// there (FORMAT.md § "When a writer compresses"); long texts and other columns are tried whatever happened.
    func testWriterSkipsShortTextsOfAColumnThatKeepsFailing() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT, other TEXT)")
        // 150 bytes without a repeated 4-byte substring: never shorter compressed.
        let plainShort = String((0..<150).map { Character(Unicode.Scalar(UInt8(33 + ($0 * 37) % 90))) })
        let compressibleShort = String(repeating: "granite ", count: 20)
        let compressibleLong = String(repeating: "granite ", count: 40)
        for id in 1...Int64(CompressionBackoff.failuresBeforeSkipping) {
            try db.execute("INSERT INTO t VALUES (?, ?, NULL)", arguments: [.integer(id), .text(plainShort)])
        }
        // The next short text of `doc` is skipped, the one after it tried; `other` and long texts are tried.
        try db.execute("INSERT INTO t VALUES (101, ?, ?)", arguments: [.text(compressibleShort), .text(compressibleShort)])
        try db.execute("INSERT INTO t VALUES (102, ?, NULL)", arguments: [.text(compressibleShort)])
        for id in 103...105 as ClosedRange<Int64> {
            try db.execute("INSERT INTO t VALUES (?, ?, NULL)", arguments: [.integer(id), .text(plainShort)])
        }
        try db.execute("INSERT INTO t VALUES (106, ?, NULL)", arguments: [.text(compressibleLong)])
        let doc = try compressedColumns(db, table: "t", column: 1)
        XCTAssertEqual(doc[101], false)
        XCTAssertEqual(doc[102], true)
        XCTAssertEqual(doc[106], true)
        XCTAssertEqual(try compressedColumns(db, table: "t", column: 2)[101], true)
        // Setting the threshold starts the writers' history afresh: the next short text is tried.
        for id in 201...Int64(200 + CompressionBackoff.failuresBeforeSkipping) {
            try db.execute("INSERT INTO t VALUES (?, ?, NULL)", arguments: [.integer(id), .text(plainShort)])
        }
        db.textCompressionThreshold = 128
        try db.execute("INSERT INTO t VALUES (301, ?, NULL)", arguments: [.text(compressibleShort)])
        XCTAssertEqual(try compressedColumns(db, table: "t", column: 1)[301], true)
        let rows = try db.query("SELECT count(*) FROM t WHERE doc = ?", arguments: [.text(compressibleShort)])
        XCTAssertEqual(rows.rows, [[.integer(3)]])
    }
}
