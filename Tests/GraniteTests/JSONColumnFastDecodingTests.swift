// JSON columns through the record API with the fast JSON decoder: compressed and plain text, blobs, user info,
// and the configurations that must take Foundation's path (a JSONDecoder subclass, non-default strategies).
import Foundation
import XCTest

@testable import Granite

/// A thread-safe counter (for the subclass's calls).
final class JSONColumnCounter: @unchecked Sendable {
    /// The lock of `count`.
    private let lock = NSLock()
    /// The count.
    private var value = 0
    /// Adds one.
    func increment() { lock.withLock { value += 1 } }
    /// The count.
    var count: Int { lock.withLock { value } }
}

/// A JSONDecoder subclass that counts its decodes (Granite must call it, never decode in its place).
final class JSONColumnCountingDecoder: JSONDecoder, @unchecked Sendable {
    /// The calls of `decode`.
    static let calls = JSONColumnCounter()
    /// Counts, then decodes.
    override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        Self.calls.increment()
        return try super.decode(type, from: data)
    }
}

/// The key of the user info the tests pass.
let jsonColumnInfoKey = CodingUserInfoKey(rawValue: "jsonColumnInfo")!

/// An event stored in a JSON column; it records the user info it was decoded with.
struct JSONColumnEvent: Codable, Equatable {
    var kind: String
    var at: Date
    var payload: Data
    var score: Double?
    var seenInfo: String?

    enum CodingKeys: String, CodingKey { case kind, at, payload, score }

    init(kind: String, at: Date, payload: Data, score: Double?) {
        self.kind = kind
        self.at = at
        self.payload = payload
        self.score = score
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        at = try container.decode(Date.self, forKey: .at)
        payload = try container.decode(Data.self, forKey: .payload)
        score = try container.decodeIfPresent(Double.self, forKey: .score)
        seenInfo = decoder.userInfo[jsonColumnInfoKey] as? String
    }

    /// Equal without the recorded user info.
    func sameContent(_ other: JSONColumnEvent) -> Bool {
        kind == other.kind && at == other.at && payload == other.payload && score == other.score
    }
}

/// A record with a JSON column, decoded with GRDB's JSON decoder and a user info.
struct JSONColumnHistory: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "history"
    var id: Int64
    var events: [JSONColumnEvent]
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [jsonColumnInfoKey: "from granite"] }
}

/// The same table decoded by a JSONDecoder subclass.
struct JSONColumnSubclassHistory: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "history"
    var id: Int64
    var events: [JSONColumnEvent]
    static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONColumnCountingDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}

/// The same table decoded with a custom date strategy (which the fast path does not reproduce).
struct JSONColumnCustomDateHistory: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "history"
    var id: Int64
    var events: [JSONColumnEvent]
    static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .custom { _ in Date(timeIntervalSince1970: 42) }
        return decoder
    }
}

/// A record whose JSON column has snake-case keys, decoded with `.convertFromSnakeCase`.
struct JSONColumnSnake: Codable, FetchableRecord, PersistableRecord {
    struct Name: Codable, Equatable {
        var firstName: String
    }
    static let databaseTableName = "snake"
    var id: Int64
    var name: Name
    static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

final class JSONColumnFastDecodingTests: XCTestCase {
    /// Histories with enough events to be compressed (over the 128-byte threshold) or not.
    func makeHistories() -> [JSONColumnHistory] {
        (1...40).map { id in
            JSONColumnHistory(id: Int64(id), events: (0..<(id % 7)).map { n in makeEvent(id: id, n: n) })
        }
    }

    /// Event `n` of history `id`.
    func makeEvent(id: Int, n: Int) -> JSONColumnEvent {
        let at = Date(timeIntervalSince1970: Double(id * 1000 + n) / 7)
        let payload = Data((0..<n).map { UInt8($0 * 37 % 256) })
        let score: Double? = n % 2 == 0 ? Double(n) / 3 : nil
        return JSONColumnEvent(kind: "kind \(n) é \"q\" / \\", at: at, payload: payload, score: score)
    }

    /// A queue with the history table, filled, with `threshold` as the JSON compression threshold.
    func makeQueue(threshold: Int?) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.jsonCompressionThreshold = threshold
        let queue = try DatabaseQueue(configuration: configuration)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE history (id INTEGER PRIMARY KEY, events TEXT)")
            for history in makeHistories() { try history.insert(db) }
        }
        return queue
    }

    func testFetchCompressedAndPlainJSONColumns() throws {
        for threshold in [128, nil] as [Int?] {
            let queue = try makeQueue(threshold: threshold)
            let fetched = try queue.read { db in try JSONColumnHistory.fetchAll(db, sql: "SELECT * FROM history") }
            let expected = makeHistories()
            XCTAssertEqual(fetched.count, expected.count)
            for (record, original) in zip(fetched, expected) {
                XCTAssertEqual(record.id, original.id)
                XCTAssertEqual(record.events.count, original.events.count)
                for (event, originalEvent) in zip(record.events, original.events) {
                    XCTAssertTrue(event.sameContent(originalEvent), "\(event) \(originalEvent)")
                    XCTAssertEqual(event.seenInfo, "from granite", "the user info reaches the JSON decoder")
                }
            }
        }
    }

    func testRecordsDecoderTakesTheFastPath() throws {
        // The fast path reproduces the decoder of a record's JSON column (with its user info).
        let decoder = JSONColumnHistory.databaseJSONDecoder(for: "events")
        let text = Array(#"[{"kind":"k","at":1500,"payload":"AQI=","score":null}]"#.utf8)
        let events = try XCTUnwrap(
            text.withUnsafeBytes { JSONFastDecoding.fastDecode([JSONColumnEvent].self, from: $0, with: decoder) })
        XCTAssertEqual(events.first?.seenInfo, "from granite")
        XCTAssertEqual(events.first?.at, Date(timeIntervalSince1970: 1.5))
        XCTAssertEqual(events.first?.payload, Data([1, 2]))
    }

    func testBlobJSONColumn() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE history (id INTEGER PRIMARY KEY, events BLOB)")
            let json = Data(#"[{"kind":"blob","at":2000,"payload":""}]"#.utf8)
            try db.execute(sql: "INSERT INTO history VALUES (1, ?)", arguments: [json])
            let record = try XCTUnwrap(JSONColumnHistory.fetchOne(db, sql: "SELECT * FROM history"))
            XCTAssertEqual(record.events.first?.kind, "blob")
            XCTAssertEqual(record.events.first?.at, Date(timeIntervalSince1970: 2))
            XCTAssertEqual(record.events.first?.seenInfo, "from granite")
        }
    }

    func testErrorsAreFoundations() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE history (id INTEGER PRIMARY KEY, events TEXT)")
            try db.execute(sql: #"INSERT INTO history VALUES (1, '[{"kind":"k","at":"soon","payload":""}]')"#)
            let decoder = JSONColumnHistory.databaseJSONDecoder(for: "events")
            var expected = ""
            do {
                _ = try decoder.decode(
                    [JSONColumnEvent].self, from: Data(#"[{"kind":"k","at":"soon","payload":""}]"#.utf8))
            } catch {
                expected = String(describing: error)
            }
            XCTAssertThrowsError(try JSONColumnHistory.fetchOne(db, sql: "SELECT * FROM history")) { error in
                XCTAssertEqual(String(describing: error), expected)
            }
        }
    }

    func testSubclassTakesFoundationsPath() throws {
        let queue = try makeQueue(threshold: 128)
        let before = JSONColumnCountingDecoder.calls.count
        let fetched = try queue.read { db in
            try JSONColumnSubclassHistory.fetchAll(db, sql: "SELECT * FROM history")
        }
        XCTAssertEqual(fetched.count, 40)
        XCTAssertGreaterThanOrEqual(JSONColumnCountingDecoder.calls.count - before, 40)
        XCTAssertNil(
            Array("[]".utf8).withUnsafeBytes {
                JSONFastDecoding.fastDecode(
                    [JSONColumnEvent].self, from: $0, with: JSONColumnSubclassHistory.databaseJSONDecoder(for: "events")
                )
            })
    }

    func testNonDefaultStrategiesTakeFoundationsPath() throws {
        let queue = try makeQueue(threshold: 128)
        let fetched = try queue.read { db in
            try JSONColumnCustomDateHistory.fetchAll(db, sql: "SELECT * FROM history WHERE id = 6")
        }
        XCTAssertEqual(fetched.first?.events.count, 6)
        XCTAssertEqual(fetched.first?.events.map(\.at), Array(repeating: Date(timeIntervalSince1970: 42), count: 6))

        try queue.write { db in
            try db.execute(sql: "CREATE TABLE snake (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: #"INSERT INTO snake VALUES (1, '{"first_name":"Ada"}')"#)
            let snake = try XCTUnwrap(JSONColumnSnake.fetchOne(db, sql: "SELECT * FROM snake"))
            XCTAssertEqual(snake.name.firstName, "Ada")
        }

        var options: [JSONDecoder] = []
        for configure in [
            { (d: JSONDecoder) in d.keyDecodingStrategy = .convertFromSnakeCase },
            { (d: JSONDecoder) in d.allowsJSON5 = true },
            { (d: JSONDecoder) in d.assumesTopLevelDictionary = true },
            { (d: JSONDecoder) in
                d.nonConformingFloatDecodingStrategy = .convertFromString(
                    positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            },
            { (d: JSONDecoder) in d.dateDecodingStrategy = .iso8601 },
            { (d: JSONDecoder) in d.dataDecodingStrategy = .custom { _ in Data() } },
        ] as [(JSONDecoder) -> Void] {
            let decoder = JSONDecoder()
            configure(decoder)
            options.append(decoder)
        }
        for decoder in options {
            XCTAssertNil(
                Array("[1]".utf8).withUnsafeBytes { JSONFastDecoding.fastDecode([Int].self, from: $0, with: decoder) })
        }
        XCTAssertNotNil(
            Array("[1]".utf8).withUnsafeBytes { JSONFastDecoding.fastDecode([Int].self, from: $0, with: JSONDecoder()) }
        )
    }
}
