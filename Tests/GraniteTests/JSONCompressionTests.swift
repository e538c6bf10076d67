// JSON (TEXT) compression seen from the public API: what `Configuration.jsonCompressionThreshold` makes the
// storage layer store, checked in the file's rows, and that reading compressed text is transparent.
import Foundation
import Granite
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

final class JSONCompressionTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-compression").url
    }

    /// A record whose `items` property, a nested array, is stored in a JSON column.
    struct Bag: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: Int64
        var items: [[String]]
    }

    /// An event of a history (for the large payload).
    struct Event: Codable, Equatable {
        var kind: String
        var place: String
        var timestamp: Int
    }

    /// A record with a nested array of structs.
    struct History: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: Int64
        var events: [Event]
    }

    /// How one TEXT value is stored in the file.
    struct StoredText: Equatable {
        var compressed: Bool
        /// UTF-8 length of the text.
        var plainLength: Int
        /// Length of the stored body (the deflate stream with its length prefix when compressed).
        var storedLength: Int
    }

    func makeQueue(_ name: String = "db", threshold: Int?? = nil) throws -> (DatabaseQueue, String) {
        let path = directory.appendingPathComponent(name).path
        var configuration = Configuration()
        if let threshold { configuration.jsonCompressionThreshold = threshold }
        return (try DatabaseQueue(path: path, configuration: configuration), path)
    }

    /// The stored form of the TEXT values of column `column` (declared position) of `table`, by rowid, read from
    /// the closed database file at `path` with the storage layer (as `granite pages` and `granite demo` do).
    func storedTexts(path: String, table: String, column: Int) throws -> [Int64: StoredText] {
        var options = StorageOptions()
        options.readOnly = true
        options.create = false
        let engine = try StorageEngine(path: path, options: options)
        let storageName = try XCTUnwrap(try SQLConnection(engine: engine).catalog.table(named: table)).storageName
        try engine.beginRead()
        defer { try? engine.endRead() }
        let cursor = try engine.table(named: storageName).makeCursor()
        var result: [Int64: StoredText] = [:]
        var found = try cursor.first()
        while found {
            let payload = try cursor.payload()
            let stored = try payload.withUnsafeBytes { raw -> StoredText? in
                let row = try RowDecoder(raw)
                guard column < row.count, row.type(at: column) == .text else { return nil }
                return StoredText(
                    compressed: row.isCompressed(at: column), plainLength: row.textLength(at: column) ?? -1,
                    storedLength: row.body(at: column).count)
            }
            result[cursor.rowid] = stored
            found = try cursor.next()
        }
        return result
    }

    /// A JSON array `[["aaaa…"]]` of exactly `length` bytes: compressible.
    static func bag(_ id: Int64, jsonLength length: Int) -> Bag {
        Bag(id: id, items: [[String(repeating: "a", count: length - 6)]])
    }

    func testRoundTripAroundTheDefaultThreshold() throws {
        let (dbQueue, path) = try makeQueue()
        let bags = [127, 128, 129].map { Self.bag(Int64($0), jsonLength: $0) }
        try dbQueue.write { db in
            try db.create(table: "bag") { t in
                t.primaryKey("id", .integer)
                t.column("items", .jsonText).notNull()
            }
            for bag in bags { try bag.insert(db) }
        }
        try dbQueue.read { db in
            XCTAssertEqual(try Bag.order(Column("id")).fetchAll(db), bags)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT length(items) FROM bag ORDER BY id"), [127, 128, 129])
        }
        try dbQueue.close()
        let stored = try storedTexts(path: path, table: "bag", column: 1)
        XCTAssertEqual(stored[127], StoredText(compressed: false, plainLength: 127, storedLength: 127))
        for length in [128, 129] {
            let text = try XCTUnwrap(stored[Int64(length)])
            XCTAssertTrue(text.compressed, "\(length) bytes")
            XCTAssertEqual(text.plainLength, length)
            XCTAssertLessThan(text.storedLength, length)
        }
    }

    /// Random base64 of `count` bytes drawn from a seeded generator.
    static func randomBase64(_ count: Int, state: inout UInt64) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        return Data(bytes).base64EncodedString()
    }

    func testIncompressiblePayloadIsStoredPlain() throws {
        let seed: UInt64 = 0x00C0_FFEE
        var state = seed
        // 40 payloads of random base64 just above the threshold: deflate cannot make them smaller.
        let short = (1...40).map { Bag(id: Int64($0), items: [[Self.randomBase64(96, state: &state)]]) }
        // A long one: deflate's Huffman stage does shrink base64 (64 symbols, 6 bits of information per byte),
        // so it is stored compressed, but saves only about a quarter.
        let long = Bag(id: 100, items: [[Self.randomBase64(3_000, state: &state)]])
        let (dbQueue, path) = try makeQueue()
        try dbQueue.write { db in
            try db.create(table: "bag") { t in
                t.primaryKey("id", .integer)
                t.column("items", .jsonText).notNull()
            }
            for bag in short + [long] { try bag.insert(db) }
            XCTAssertEqual(try Bag.order(Column("id")).fetchAll(db), short + [long], "seed \(seed)")
        }
        try dbQueue.close()
        let stored = try storedTexts(path: path, table: "bag", column: 1)
        for bag in short {
            let text = try XCTUnwrap(stored[bag.id])
            XCTAssertGreaterThanOrEqual(text.plainLength, 128)
            XCTAssertFalse(text.compressed, "random base64 \(bag.id) (seed \(seed)) must stay plain")
            XCTAssertEqual(text.storedLength, text.plainLength)
        }
        let text = try XCTUnwrap(stored[100])
        XCTAssertTrue(text.compressed, "seed \(seed)")
        XCTAssertLessThan(text.storedLength, text.plainLength)
        XCTAssertGreaterThan(text.storedLength * 10, text.plainLength * 6, "seed \(seed)")
    }

    func testJSONColumnAboveOneMebibyte() throws {
        let places = ["Paris, France", "Lyon, France", "Berlin, Germany", "Madrid, Spain", "Rome, Italy"]
        let events = (0..<20_000).map { i in
            Event(
                kind: i % 3 == 0 ? "login" : "purchase", place: places[i % places.count], timestamp: 1_700_000_000 + i)
        }
        let history = History(id: 1, events: events)
        let (dbQueue, path) = try makeQueue()
        try dbQueue.write { db in
            try db.create(table: "history") { t in
                t.primaryKey("id", .integer)
                t.column("events", .jsonText).notNull()
            }
            try history.insert(db)
        }
        let length = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT length(events) FROM history") }
        XCTAssertGreaterThan(try XCTUnwrap(length), 1 << 20)
        XCTAssertEqual(try dbQueue.read { db in try History.fetchOne(db, key: 1) }, history)
        try dbQueue.close()
        let text = try XCTUnwrap(try storedTexts(path: path, table: "history", column: 1)[1])
        XCTAssertTrue(text.compressed)
        XCTAssertEqual(text.plainLength, length)
        XCTAssertLessThan(text.storedLength * 10, text.plainLength, "repetitive JSON compresses at least 10×")
        // Reopened, the value still reads back whole.
        let reopened = try DatabaseQueue(path: path)
        XCTAssertEqual(try reopened.read { db in try History.fetchOne(db, key: 1) }, history)
    }

    func testConfigurationChangesTheThresholdOrTurnsCompressionOff() throws {
        func storeBags(threshold: Int??) throws -> [Int64: StoredText] {
            let name = "db-\(UUID().uuidString)"
            let (dbQueue, path) = try makeQueue(name, threshold: threshold)
            try dbQueue.write { db in
                try db.create(table: "bag") { t in
                    t.primaryKey("id", .integer)
                    t.column("items", .jsonText)
                }
                for length in [200, 1_023, 1_024, 5_000] { try Self.bag(Int64(length), jsonLength: length).insert(db) }
                XCTAssertEqual(
                    try Bag.order(Column("id")).fetchAll(db),
                    [200, 1_023, 1_024, 5_000].map { Self.bag(Int64($0), jsonLength: $0) })
            }
            try dbQueue.close()
            return try storedTexts(path: path, table: "bag", column: 1)
        }
        // Default: 128.
        XCTAssertEqual(Configuration().jsonCompressionThreshold, 128)
        var stored = try storeBags(threshold: .none)
        XCTAssertEqual(stored.values.filter(\.compressed).count, 4)
        // 1024.
        stored = try storeBags(threshold: .some(1_024))
        XCTAssertEqual(stored[200]?.compressed, false)
        XCTAssertEqual(stored[1_023]?.compressed, false)
        XCTAssertEqual(stored[1_024]?.compressed, true)
        XCTAssertEqual(stored[5_000]?.compressed, true)
        // Off.
        stored = try storeBags(threshold: .some(nil))
        XCTAssertEqual(stored.count, 4)
        XCTAssertTrue(stored.values.allSatisfy { !$0.compressed && $0.storedLength == $0.plainLength })
    }

    func testNegativeThresholdFailsToOpen() throws {
        var configuration = Configuration()
        configuration.jsonCompressionThreshold = -1
        XCTAssertThrowsError(try DatabaseQueue(configuration: configuration)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
        }
        XCTAssertThrowsError(
            try DatabasePool(path: directory.appendingPathComponent("pool").path, configuration: configuration))
    }

    func testDatabasePoolUsesTheThreshold() throws {
        let path = directory.appendingPathComponent("pool").path
        var configuration = Configuration()
        configuration.jsonCompressionThreshold = nil
        let dbPool = try DatabasePool(path: path, configuration: configuration)
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES (1, ?)", arguments: [String(repeating: "x", count: 1_000)])
        }
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT length(doc) FROM t") }, 1_000)
        try dbPool.close()
        XCTAssertEqual(
            try storedTexts(path: path, table: "t", column: 1)[1],
            StoredText(compressed: false, plainLength: 1_000, storedLength: 1_000))
    }

    /// A compressible document of about 600 bytes that starts with `prefix`.
    static func document(_ prefix: String) -> String {
        prefix + String(repeating: " {\"kind\":\"login\",\"place\":\"Paris\"}", count: 18)
    }

    func testReadingCompressedTextIsTransparent() throws {
        let (dbQueue, path) = try makeQueue()
        let docs = ["delta", "alpha", "charlie", "bravo"].map(Self.document)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT, tag TEXT)")
            for (i, doc) in docs.enumerated() {
                try db.execute(sql: "INSERT INTO t(id, doc, tag) VALUES (?, ?, 'x')", arguments: [i + 1, doc])
            }
        }
        try dbQueue.read { db in
            // Row, String.fetchOne, length().
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT doc FROM t WHERE id = 2"))
            XCTAssertEqual(row["doc"] as String?, docs[1])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT doc FROM t WHERE id = 3"), docs[2])
            XCTAssertEqual(
                try Int.fetchAll(db, sql: "SELECT length(doc) FROM t ORDER BY id"), docs.map(\.utf8.count))
            // Comparisons with bound and literal values, LIKE, functions.
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT id FROM t WHERE doc = ?", arguments: [docs[0]]), 1)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE doc < ?", arguments: [docs[2]]), 2)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT id FROM t WHERE doc LIKE 'bra%'"), 4)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE doc LIKE '%\"Paris\"}'"), 4)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT substr(doc, 1, 5) FROM t WHERE id = 1"), "delta")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t a JOIN t b ON a.doc = b.doc"), 4)
            // ORDER BY.
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT id FROM t ORDER BY doc"), [2, 4, 3, 1])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT doc FROM t ORDER BY doc DESC"), docs.sorted(by: >))
        }
        // An index on the compressed column.
        try dbQueue.write { db in
            try db.execute(sql: "CREATE INDEX t_doc ON t(doc)")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT id FROM t WHERE doc = ?", arguments: [docs[3]]), 4)
            XCTAssertEqual(
                try Int.fetchAll(db, sql: "SELECT id FROM t WHERE doc > ? ORDER BY doc", arguments: [docs[1]]),
                [4, 3, 1])
            XCTAssertEqual(try String.fetchAll(db, sql: "PRAGMA integrity_check"), ["ok"])
            // UPDATE of a compressed value: in place, and through the index.
            try db.execute(sql: "UPDATE t SET doc = doc || ' updated' WHERE id = 1")
            try db.execute(sql: "UPDATE t SET doc = ? WHERE doc = ?", arguments: ["short", docs[2]])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT doc FROM t WHERE id = 1"), docs[0] + " updated")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT id FROM t WHERE doc = 'short'"), 3)
            XCTAssertEqual(
                try Int.fetchOne(db, sql: "SELECT id FROM t WHERE doc = ?", arguments: [docs[0] + " updated"]), 1)
            XCTAssertEqual(try String.fetchAll(db, sql: "PRAGMA integrity_check"), ["ok"])
        }
        try dbQueue.close()
        let stored = try storedTexts(path: path, table: "t", column: 1)
        XCTAssertEqual(stored[1]?.compressed, true)
        XCTAssertEqual(stored[1]?.plainLength, docs[0].utf8.count + 8)
        XCTAssertEqual(stored[2]?.compressed, true)
        XCTAssertEqual(stored[3], StoredText(compressed: false, plainLength: 5, storedLength: 5))
        XCTAssertEqual(stored[4]?.compressed, true)
    }
}
