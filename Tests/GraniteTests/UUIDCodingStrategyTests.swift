import Foundation
import Granite
import XCTest

private enum UUIDSeed {
    struct Player: Codable, FetchableRecord, PersistableRecord, Identifiable {
        // UUIDs are stored as strings
        static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
            .uppercaseString
        }

        var id: UUID
        var name: String

        enum Columns {
            static let id = Column(CodingKeys.id)
            static let name = Column(CodingKeys.name)
        }
    }
}

/// A record whose UUID strategy is switched by the tests.
private struct Item: Codable, FetchableRecord, PersistableRecord, Identifiable {
    var id: UUID
    var other: UUID?
    nonisolated(unsafe) static var encoding: DatabaseUUIDEncodingStrategy = .deferredToUUID
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { encoding }
}

final class UUIDCodingStrategyTests: XCTestCase {
    let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    override func tearDown() { Item.encoding = .deferredToUUID }

    private func encoded(_ strategy: DatabaseUUIDEncodingStrategy) throws -> DatabaseValue? {
        Item.encoding = strategy
        return try Item(id: uuid).databaseDictionary["id"]
    }

    func testEncodeDeferredToUUIDIsSixteenByteBlob() throws {
        let value = try encoded(.deferredToUUID)
        let data = try XCTUnwrap(value.flatMap(Data.fromDatabaseValue))
        XCTAssertEqual(data.count, 16)
        XCTAssertEqual(data, withUnsafeBytes(of: uuid.uuid) { Data($0) })
    }

    func testEncodeUppercaseString() throws {
        XCTAssertEqual(try encoded(.uppercaseString), "E621E1F8-C36C-495A-93FC-0C247A3E6E5F".databaseValue)
    }

    func testEncodeLowercaseString() throws {
        XCTAssertEqual(try encoded(.lowercaseString), "e621e1f8-c36c-495a-93fc-0c247a3e6e5f".databaseValue)
    }

    func testNilUUIDEncodesNull() throws {
        XCTAssertEqual(try Item(id: uuid).databaseDictionary["other"], .null)
    }

    func testDecodeBlobsAndStringsOfEitherCase() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            for sqlValue in [
                "'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'", "'e621e1f8-c36c-495a-93fc-0c247a3e6e5f'",
                "x'E621E1F8C36C495A93FC0C247A3E6E5F'",
            ] {
                let item = try Item.fetchOne(db, sql: "SELECT \(sqlValue) AS id, NULL AS other")
                XCTAssertEqual(item?.id, uuid, sqlValue)
                XCTAssertNil(item?.other)
            }
            XCTAssertThrowsError(try Item.fetchOne(db, sql: "SELECT 'not a uuid' AS id")) { error in
                XCTAssertTrue(error is RowDecodingError, "\(error)")
                XCTAssertTrue("\(error)".contains("could not decode UUID"), "\(error)")
            }
        }
    }

    func testSeedStringUUIDExample() throws {
        typealias Player = UUIDSeed.Player
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE player (id PRIMARY KEY, name TEXT)") }
        let results = ResultBox()
        try dbQueue.write { db in
            let uuid = UUID()
            let player = Player(id: uuid, name: "Arthur")

            // OK: inserts a player in the database, with a string uuid
            try player.insert(db)

            // OK: performs a string-based query, finds the inserted player
            results.values.append(try Player.filter(id: uuid).fetchOne(db))

            // NOT OK: performs a blob-based query, fails to find the inserted player
            results.values.append(try Player.filter { $0.id == uuid }.fetchOne(db))

            // OK: performs a string-based query, finds the inserted player
            results.values.append(try Player.filter { $0.id == uuid.uuidString }.fetchOne(db))

            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT id FROM player"), uuid.uuidString)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(id) FROM player"), "text")
        }
        XCTAssertNotNil(results.values[0])
        XCTAssertNil(results.values[1])
        XCTAssertNotNil(results.values[2])
    }

    func testStrategyAppliesToKeyRequests() throws {
        typealias Player = UUIDSeed.Player
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id PRIMARY KEY, name TEXT)")
            let ids = [UUID(), UUID(), UUID()]
            for (index, id) in ids.enumerated() { try Player(id: id, name: "p\(index)").insert(db) }
            XCTAssertEqual(try Player.fetchOne(db, id: ids[0])?.name, "p0")
            XCTAssertEqual(try Player.fetchOne(db, key: ids[1])?.name, "p1")
            XCTAssertEqual(try Player.find(db, id: ids[2]).name, "p2")
            XCTAssertEqual(try Player.fetchAll(db, ids: ids).count, 3)
            XCTAssertEqual(try Player.filter(ids: ids.prefix(2)).fetchCount(db), 2)
            XCTAssertEqual(try Player.filter(key: ids[0]).fetchCount(db), 1)
            XCTAssertTrue(try Player.exists(db, id: ids[0]))
            XCTAssertEqual(try Player.fetchAll(db, keys: [ids[0], nil] as [UUID?]).count, 1)
            // Persistence methods find the row by its string key.
            var player = try Player.find(db, id: ids[0])
            player.name = "renamed"
            try player.update(db)
            XCTAssertEqual(try Player.fetchOne(db, id: ids[0])?.name, "renamed")
            XCTAssertTrue(try player.exists(db))
            XCTAssertTrue(try player.delete(db))
            XCTAssertEqual(try Player.deleteAll(db, keys: [ids[1]]), 1)
            XCTAssertEqual(try Player.deleteAll(db, ids: [ids[2]]), 1)
            XCTAssertEqual(try Player.fetchCount(db), 0)
        }
    }

    func testStrategiesDoNotApplyToOtherRequests() throws {
        Item.encoding = .lowercaseString
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item (id PRIMARY KEY, other)")
            try Item(id: uuid, other: uuid).insert(db)
            XCTAssertEqual(try Item.filter(Column("other") == uuid).fetchCount(db), 0)
            XCTAssertEqual(try Item.filter(Column("other") == uuid.uuidString.lowercased()).fetchCount(db), 1)
            XCTAssertEqual(try Item.fetchOne(db, sql: "SELECT * FROM item WHERE id = ?", arguments: [uuid])?.id, nil)
            XCTAssertEqual(try Item.fetchOne(db, id: uuid)?.other, uuid)
        }
    }
}

/// Collects values out of a database closure.
private final class ResultBox: @unchecked Sendable {
    var values: [UUIDSeed.Player?] = []
}
