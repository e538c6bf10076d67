import Foundation
import Granite
import XCTest

private enum Status: String, Codable { case active, banned }

private struct Address: Codable, Equatable {
    var city: String
    var zip: String?
}

private struct Player: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    var score: Int?
    var status: Status
    var address: Address?
    var ratings: [String: Int]
    var createdAt: Date
    var token: UUID
    var avatar: Data?

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A record whose encoding is not a keyed container.
private struct Scalar: Encodable, PersistableRecord {
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(1)
    }
}

/// A record that encodes another record as a single value.
private struct Forwarding: Encodable, PersistableRecord {
    var inner: Inner
    struct Inner: Encodable, EncodableRecord { var x: Int }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(inner)
    }
}

final class EncodableRecordEncodableTests: XCTestCase {
    private let date = Date(timeIntervalSince1970: 0)
    private let token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    private func makePlayer() -> Player {
        Player(
            id: nil, name: "Arthur", score: nil, status: .active, address: Address(city: "Paris", zip: nil),
            ratings: ["b": 2, "a": 1], createdAt: date, token: token, avatar: nil)
    }

    func testEncodedValues() throws {
        let dictionary = try makePlayer().databaseDictionary
        XCTAssertEqual(dictionary["id"], .null)
        XCTAssertEqual(dictionary["name"], "Arthur".databaseValue)
        XCTAssertEqual(dictionary["score"], .null)
        XCTAssertEqual(dictionary["status"], "active".databaseValue)
        XCTAssertEqual(dictionary["address"], #"{"city":"Paris"}"#.databaseValue)
        XCTAssertEqual(dictionary["ratings"], #"{"a":1,"b":2}"#.databaseValue)
        XCTAssertEqual(dictionary["createdAt"], "1970-01-01 00:00:00.000".databaseValue)
        XCTAssertEqual(dictionary["token"], token.databaseValue)
        XCTAssertEqual(dictionary["avatar"], .null)
    }

    func testRoundTrip() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT, status TEXT, address TEXT,
                    ratings TEXT, createdAt DATETIME, token BLOB, avatar BLOB)
                    """)
            var player = makePlayer()
            player.avatar = Data([1, 2])
            try player.insert(db)
            XCTAssertEqual(player.id, 1)
            let fetched = try XCTUnwrap(Player.fetchOne(db, key: 1))
            XCTAssertEqual(fetched.name, "Arthur")
            XCTAssertNil(fetched.score)
            XCTAssertEqual(fetched.status, .active)
            XCTAssertEqual(fetched.address, Address(city: "Paris", zip: nil))
            XCTAssertEqual(fetched.ratings, ["a": 1, "b": 2])
            XCTAssertEqual(fetched.createdAt, date)
            XCTAssertEqual(fetched.token, token)
            XCTAssertEqual(fetched.avatar, Data([1, 2]))

            var changed = fetched
            changed.address = nil
            changed.score = 5
            XCTAssertEqual(try changed.databaseChanges(from: fetched).keys.sorted(), ["address", "score"])
            try changed.update(db)
            XCTAssertEqual(try Player.fetchOne(db, key: 1)?.score, 5)
            XCTAssertNil(try Player.fetchOne(db, key: 1)?.address)
            XCTAssertTrue(changed.databaseEquals(try XCTUnwrap(Player.fetchOne(db, key: 1))))
        }
    }

    func testSingleValueRecordThrows() {
        XCTAssertThrowsError(try Scalar().databaseDictionary) { error in
            XCTAssertTrue(error is EncodingError, "\(error)")
        }
    }

    func testRecordEncodedAsSingleValueRecord() throws {
        XCTAssertEqual(try Forwarding(inner: .init(x: 3)).databaseDictionary, ["x": 3.databaseValue])
    }
}
