import Foundation
import Granite
import XCTest

// A key that holds a decoder's name
let decoderName = CodingUserInfoKey(rawValue: "decoderName")!

private enum UserInfoSeed {
    struct Player: FetchableRecord, Decodable {
        var name: String
        var seenDecoderName: String?

        init(from decoder: Decoder) throws {
            // Print the decoder name
            let decoderName = decoder.userInfo[decoderName] as? String
            print("Decoded from \(decoderName ?? "unknown decoder")")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            seenDecoderName = decoderName
        }

        enum CodingKeys: String, CodingKey { case name }
    }
}

extension UserInfoSeed.Player {
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] {
        [decoderName: "database row"]
    }
}

private let encoderName = CodingUserInfoKey(rawValue: "encoderName")!

/// A record whose nested JSON value and own encoding read the encoder's user info.
private struct Note: Encodable, FetchableRecord, Decodable, PersistableRecord {
    struct Body: Codable {
        var text: String
        var origin: String?
        init(text: String) { self.text = text }
        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            origin = decoder.userInfo[decoderName] as? String
        }
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
            try container.encodeIfPresent(encoder.userInfo[encoderName] as? String, forKey: .origin)
        }
        enum CodingKeys: String, CodingKey { case text, origin }
    }
    var id: Int64
    var body: Body

    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [encoderName: "database"] }
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [decoderName: "json column"] }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        XCTAssertEqual(encoder.userInfo[encoderName] as? String, "database")
        try container.encode(id, forKey: .id)
        try container.encode(body, forKey: .body)
    }
    enum CodingKeys: String, CodingKey { case id, body }
}

final class CodingUserInfoTests: XCTestCase {
    func testSeedDecoderName() throws {
        typealias Player = UserInfoSeed.Player
        let jsonData = Data(#"{"name":"Arthur"}"#.utf8)
        do {
            // prints "Decoded from JSON"
            let decoder = JSONDecoder()
            decoder.userInfo = [decoderName: "JSON"]
            let player = try decoder.decode(Player.self, from: jsonData)
            XCTAssertEqual(player.seenDecoderName, "JSON")
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            // prints "Decoded from database row"
            let player = try Player.fetchOne(db, sql: "SELECT 'Arthur' AS name")
            XCTAssertEqual(player?.seenDecoderName, "database row")
            XCTAssertEqual(player?.name, "Arthur")
        }
    }

    func testUserInfoReachesEncoderAndJSONCoders() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT)")
            try Note(id: 1, body: .init(text: "hi")).insert(db)
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT body FROM note"), #"{"origin":"database","text":"hi"}"#)
            let note = try XCTUnwrap(Note.fetchOne(db))
            XCTAssertEqual(note.body.origin, "json column")
        }
    }
}
