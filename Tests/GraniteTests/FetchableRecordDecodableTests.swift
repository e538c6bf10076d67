import Foundation
import Granite
import XCTest

private enum Status: String, Codable { case active, banned }

private struct Player: Decodable, FetchableRecord {
    var id: Int64
    var name: String
    var score: Int?
    var status: Status
    var tags: [String]?
    var bonus: Double?
}

/// A record with a non-optional nested value.
private struct Team: Decodable, FetchableRecord {
    var name: String
    var members: [String]
}

/// A value that is DatabaseValueConvertible and Decodable: it decodes natively, not from JSON.
private struct Meters: Decodable, DatabaseValueConvertible, Equatable {
    var value: Double
    init(value: Double) { self.value = value }
    init(from decoder: Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: ""))
    }
    var databaseValue: DatabaseValue { value.databaseValue }
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Meters? {
        Double.fromDatabaseValue(dbValue).map(Meters.init(value:))
    }
}

private struct Run: Decodable, FetchableRecord {
    var distance: Meters
}

/// A record that decodes another record from the whole row.
private struct PlayerInfo: Decodable, FetchableRecord {
    var player: Player
}

/// A record decoded as a single value.
private struct Wrapper: Decodable, FetchableRecord {
    var value: Int
    init(from decoder: Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int.self)
    }
}

final class FetchableRecordDecodableTests: XCTestCase {
    private func fetch<T: FetchableRecord>(_ type: T.Type, _ sql: String) throws -> T? {
        try DatabaseQueue().read { db in try T.fetchOne(db, sql: sql) }
    }

    func testDecodesColumnsByName() throws {
        let player = try XCTUnwrap(
            fetch(Player.self, "SELECT 'banned' AS status, 3 AS score, 'Arthur' AS name, 1 AS id, '[\"a\"]' AS tags"))
        XCTAssertEqual(player.id, 1)
        XCTAssertEqual(player.name, "Arthur")
        XCTAssertEqual(player.score, 3)
        XCTAssertEqual(player.status, .banned)
        XCTAssertEqual(player.tags, ["a"])
        XCTAssertNil(player.bonus)
    }

    func testNullAndMissingOptionalsAreNil() throws {
        let player = try XCTUnwrap(
            fetch(Player.self, "SELECT 1 AS id, 'A' AS name, NULL AS score, 'active' AS status, NULL AS tags"))
        XCTAssertNil(player.score)
        XCTAssertNil(player.tags)
        XCTAssertNil(player.bonus)
    }

    func testMissingColumnThrowsRowDecodingError() throws {
        XCTAssertThrowsError(try fetch(Player.self, "SELECT 1 AS id, 'active' AS status")) { error in
            XCTAssertTrue(error is RowDecodingError, "\(error)")
            XCTAssertTrue("\(error)".contains("column not found: \"name\""), "\(error)")
            XCTAssertTrue("\(error)".contains("row: [id:1 status:\"active\"]"), "\(error)")
        }
    }

    func testNullInNonOptionalThrows() throws {
        XCTAssertThrowsError(try fetch(Player.self, "SELECT 1 AS id, NULL AS name, 'active' AS status")) { error in
            XCTAssertTrue(error is RowDecodingError, "\(error)")
            XCTAssertTrue("\(error)".contains("could not decode String from database value NULL"), "\(error)")
            XCTAssertTrue("\(error)".contains("column: \"name\""), "\(error)")
        }
        XCTAssertThrowsError(try fetch(Team.self, "SELECT 'a' AS name, NULL AS members")) { error in
            guard case DecodingError.valueNotFound = error else { return XCTFail("\(error)") }
        }
    }

    func testValueMismatchNamesColumnAndRow() throws {
        // Statement rows convert like SQLite (as GRDB's sqlite3_column_int64): 'x' is 0.
        XCTAssertEqual(try fetch(Player.self, "SELECT 'x' AS id, 'A' AS name, 'active' AS status")?.id, 0)
        // Copied rows are strict, and the error names the column and the row.
        XCTAssertThrowsError(try Player(row: ["id": "x", "name": "A", "status": "active"])) { error in
            XCTAssertTrue(error is RowDecodingError, "\(error)")
            XCTAssertTrue("\(error)".contains("could not decode Int64 from database value \"x\""), "\(error)")
            XCTAssertTrue("\(error)".contains("column: \"id\""), "\(error)")
            XCTAssertTrue("\(error)".contains("row: [id:\"x\""), "\(error)")
        }
        XCTAssertThrowsError(try fetch(Player.self, "SELECT 1 AS id, 'A' AS name, 'unknown' AS status")) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["status"])
        }
    }

    func testMissingNonOptionalValues() throws {
        XCTAssertThrowsError(try fetch(Team.self, "SELECT 'Reds' AS name")) { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key.stringValue, "members")
        }
        struct Event: Decodable, FetchableRecord { var date: Date }
        XCTAssertThrowsError(try fetch(Event.self, "SELECT 1 AS other")) { error in
            XCTAssertTrue(error is RowDecodingError, "\(error)")
            XCTAssertTrue("\(error)".contains("column not found: \"date\""), "\(error)")
        }
    }

    func testNestedJSONArray() throws {
        let team = try XCTUnwrap(fetch(Team.self, #"SELECT 'Reds' AS name, '["a","b"]' AS members"#))
        XCTAssertEqual(team.members, ["a", "b"])
    }

    func testDatabaseValueConvertibleDecodesNatively() throws {
        XCTAssertEqual(try fetch(Run.self, "SELECT 12.5 AS distance")?.distance, Meters(value: 12.5))
    }

    func testNestedRecordDecodesFromWholeRow() throws {
        let info = try XCTUnwrap(fetch(PlayerInfo.self, "SELECT 1 AS id, 'A' AS name, 'active' AS status"))
        XCTAssertEqual(info.player.name, "A")
    }

    func testSingleValueRecord() throws {
        XCTAssertEqual(try fetch(Wrapper.self, "SELECT 42")?.value, 42)
    }

    func testFetchableRecordDecoder() throws {
        let row: Row = ["name": "Reds", "members": "[]"]
        let team = try FetchableRecordDecoder().decode(Team.self, from: row)
        XCTAssertEqual(team.name, "Reds")
        XCTAssertEqual(team.members, [])
        XCTAssertThrowsError(try Team(row: ["name": "Reds"])) { error in
            XCTAssertTrue(error is DecodingError || error is RowDecodingError, "\(error)")
        }
    }

    func testCursorOfDecodableRecords() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT, status TEXT, tags TEXT);
                    INSERT INTO player VALUES (1, 'A', 1, 'active', NULL), (2, 'B', NULL, 'banned', '["x"]');
                    """)
            let players = try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
            XCTAssertEqual(players.map(\.name), ["A", "B"])
            XCTAssertEqual(players.map(\.score), [1, nil])
            XCTAssertEqual(players.map(\.tags), [nil, ["x"]])
            let cursor = try Player.fetchCursor(db, sql: "SELECT * FROM player ORDER BY id DESC")
            XCTAssertEqual(try cursor.next()?.status, .banned)
        }
    }
}
