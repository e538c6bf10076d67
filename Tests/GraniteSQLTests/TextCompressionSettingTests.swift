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
}
