import Foundation
import Granite
import XCTest

// The code blocks of seed 1 ("Codable Records", "JSON Columns", "Tip: Derive Columns from Coding Keys"),
// each in its own namespace, unchanged.

private enum IdentifiableSeed {
    struct Country: Identifiable, FetchableRecord, PersistableRecord {
        var isoCode: String
        var name: String
        var population: Int

        // Fulfill the Identifiable requirement
        var id: String { isoCode }
    }
}

// The seed's Country gets its record methods from Codable.
extension IdentifiableSeed.Country: Codable {}

private enum CodableSeed {
    // Declare a record...
    struct Player: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var name: String
        var score: Int

        enum Columns {
            static let id = Column(CodingKeys.id)
            static let name = Column(CodingKeys.name)
            static let score = Column(CodingKeys.score)
        }
    }
}

private enum JSONSeed {
    enum AchievementColor: String, Codable {
        case bronze, silver, gold
    }

    struct Achievement: Codable {
        var name: String
        var color: AchievementColor
    }

    struct Player: Codable, FetchableRecord, PersistableRecord {
        var name: String
        var score: Int
        var achievements: [Achievement]  // stored in a JSON column
    }
}

private enum TipSeed {
    struct Player: Codable {
        var id: Int64
        var name: String
        var score: Int
    }
}

extension TipSeed.Player: FetchableRecord, PersistableRecord {
    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let score = Column(CodingKeys.score)
    }
}

/// A record with customized JSON coders (the `databaseJSONDecoder(for:)` and `databaseJSONEncoder(for:)`
/// requirements of the seed).
private struct Profile: Codable, FetchableRecord, PersistableRecord {
    struct Settings: Codable, Equatable {
        var theme: String
        var fontSize: Int
    }
    var id: Int64
    var settings: Settings

    static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

final class CodableRecordTests: XCTestCase {
    private func makeQueue(_ sql: String) throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: sql) }
        return dbQueue
    }

    func testIdentifiableCountry() throws {
        typealias Country = IdentifiableSeed.Country
        let dbQueue = try makeQueue(
            "CREATE TABLE country (isoCode TEXT PRIMARY KEY, name TEXT NOT NULL, population INTEGER NOT NULL)")
        try dbQueue.write { db in
            try Country(isoCode: "FR", name: "France", population: 67_000_000).insert(db)
        }
        let france = try dbQueue.read { db in
            try Country.fetchOne(db, id: "FR")
        }
        XCTAssertEqual(france?.name, "France")
        XCTAssertEqual(france?.population, 67_000_000)
        XCTAssertNil(try dbQueue.read { db in try Country.fetchOne(db, id: "DE") })
    }

    func testCodableRecords() throws {
        typealias Player = CodableSeed.Player
        let dbQueue = try makeQueue(
            "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
        // ...and there you go:
        try dbQueue.write { db in
            try Player(id: 1, name: "Arthur", score: 100).insert(db)
            let players = try Player.order(\.score.desc).fetchAll(db)
            XCTAssertEqual(players.map(\.name), ["Arthur"])
        }
        try dbQueue.write { db in
            try Player(id: 2, name: "Barbara", score: 200).insert(db)
            let players = try Player.order(\.score.desc).fetchAll(db)
            XCTAssertEqual(players.map(\.id), [2, 1])
            XCTAssertEqual(try Player.filter { $0.name == "Arthur" }.fetchOne(db)?.score, 100)
            XCTAssertEqual(Player.Columns.score.name, "score")
        }
    }

    func testJSONColumn() throws {
        typealias Player = JSONSeed.Player
        typealias Achievement = JSONSeed.Achievement
        let dbQueue = try makeQueue(
            "CREATE TABLE player (name TEXT NOT NULL, score INTEGER NOT NULL, achievements TEXT NOT NULL)")
        let log = EventLog()
        try dbQueue.write { db in
            db.trace { log.append($0.expandedDescription, $0.description) }
            // INSERT INTO player (name, score, achievements)
            // VALUES (
            //   'Arthur',
            //   100,
            //   '[{"color":"gold","name":"Use Codable Records"}]')
            let achievement = Achievement(name: "Use Codable Records", color: .gold)
            let player = Player(name: "Arthur", score: 100, achievements: [achievement])
            try player.insert(db)
            db.trace(nil)
        }
        let insert = try XCTUnwrap(log.expanded.first { $0.hasPrefix("INSERT") })
        XCTAssertTrue(insert.contains("'Arthur'"), insert)
        XCTAssertTrue(insert.contains("100"), insert)
        XCTAssertTrue(insert.contains(#"'[{"color":"gold","name":"Use Codable Records"}]'"#), insert)
        try dbQueue.read { db in
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT achievements FROM player"),
                #"[{"color":"gold","name":"Use Codable Records"}]"#)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(achievements) FROM player"), "text")
            let player = try XCTUnwrap(Player.fetchOne(db))
            XCTAssertEqual(player.achievements.map(\.name), ["Use Codable Records"])
            XCTAssertEqual(player.achievements.map(\.color), [.gold])
        }
    }

    func testJSONColumnDecodesFromBlob() throws {
        typealias Player = JSONSeed.Player
        let dbQueue = try makeQueue(
            """
            CREATE TABLE player (name TEXT NOT NULL, score INTEGER NOT NULL, achievements);
            INSERT INTO player VALUES ('Arthur', 1, CAST('[{"color":"silver","name":"a"}]' AS BLOB));
            """)
        let player = try dbQueue.read { db in try Player.fetchOne(db) }
        XCTAssertEqual(player?.achievements.first?.color, .silver)
    }

    func testInvalidJSONThrows() throws {
        typealias Player = JSONSeed.Player
        let dbQueue = try makeQueue(
            """
            CREATE TABLE player (name TEXT NOT NULL, score INTEGER NOT NULL, achievements TEXT);
            INSERT INTO player VALUES ('Arthur', 1, 'not json');
            """)
        XCTAssertThrowsError(try dbQueue.read { db in try Player.fetchOne(db) }) { error in
            XCTAssertTrue(error is DecodingError, "\(error)")
        }
    }

    func testDefaultJSONEncoder() throws {
        struct Payload: Codable {
            var data: Data
            var date: Date
            var z: Int
            var a: Int
            var ratio: Double?
        }
        struct Record: Codable, FetchableRecord, PersistableRecord {
            var payload: Payload
        }
        let payload = Payload(data: Data("hi".utf8), date: Date(timeIntervalSince1970: 1), z: 1, a: 2)
        let dictionary = try Record(payload: payload).databaseDictionary
        XCTAssertEqual(
            dictionary["payload"], #"{"a":2,"data":"aGk=","date":1000,"z":1}"#.databaseValue)
        let nan = Payload(data: Data(), date: Date(), z: 0, a: 0, ratio: .nan)
        XCTAssertThrowsError(try Record(payload: nan).databaseDictionary) { error in
            XCTAssertTrue(error is EncodingError, "\(error)")
        }
        let dbQueue = try makeQueue("CREATE TABLE record (payload TEXT)")
        try dbQueue.write { db in
            try Record(payload: payload).insert(db)
            let fetched = try XCTUnwrap(Record.fetchOne(db))
            XCTAssertEqual(fetched.payload.data, Data("hi".utf8))
            XCTAssertEqual(fetched.payload.date, Date(timeIntervalSince1970: 1))
        }
    }

    func testCustomJSONCoders() throws {
        let dbQueue = try makeQueue("CREATE TABLE profile (id INTEGER PRIMARY KEY, settings TEXT)")
        try dbQueue.write { db in
            try Profile(id: 1, settings: .init(theme: "dark", fontSize: 12)).insert(db)
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT settings FROM profile"), #"{"font_size":12,"theme":"dark"}"#)
            XCTAssertEqual(try Profile.fetchOne(db, key: 1)?.settings, .init(theme: "dark", fontSize: 12))
        }
    }

    func testDeriveColumnsFromCodingKeys() throws {
        typealias Player = TipSeed.Player
        XCTAssertEqual(Player.Columns.id.name, "id")
        XCTAssertEqual(Player.Columns.name.name, "name")
        let dbQueue = try makeQueue(
            "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
        try dbQueue.write { db in
            try Player(id: 1, name: "Arthur", score: 10).insert(db)
            try Player(id: 2, name: "Barbara", score: 20).insert(db)
            let best = try Player.order(Player.Columns.score.desc).fetchOne(db)
            XCTAssertEqual(best?.name, "Barbara")
            XCTAssertEqual(try Player.filter(Player.Columns.name == "Arthur").fetchCount(db), 1)
        }
    }
}
