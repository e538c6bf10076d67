import Foundation
import Granite
import XCTest

/// Snake-case columns.
private struct Team: Codable, FetchableRecord, PersistableRecord {
    var teamId: Int64
    var displayName: String
    var homeURL: String?
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
}

/// `teamID` is converted to `team_id`, which converts back to `teamId`: the key can't be decoded.
private struct Divergent: Decodable, FetchableRecord {
    var teamID: Int64
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
}

/// Custom columns: `c_<key>`.
private struct Prefixed: Codable, FetchableRecord, PersistableRecord {
    var name: String
    var score: Int
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.custom { column in
        AnyKey(stringValue: String(column.dropFirst(2)))
    }
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.custom { key in
        "c_" + key.stringValue
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Default keys.
private struct Plain: Codable, FetchableRecord, PersistableRecord {
    var teamID: Int64
}

final class ColumnCodingStrategyTests: XCTestCase {
    func testUseDefaultKeys() throws {
        XCTAssertEqual(try Plain(teamID: 1).databaseDictionary, ["teamID": 1.databaseValue])
        let plain = try DatabaseQueue().read { db in try Plain.fetchOne(db, sql: "SELECT 3 AS teamid") }
        XCTAssertEqual(plain?.teamID, 3)
    }

    func testConvertToSnakeCase() throws {
        let dictionary = try Team(teamId: 1, displayName: "A", homeURL: nil).databaseDictionary
        XCTAssertEqual(Set(dictionary.keys), ["team_id", "display_name", "home_url"])
    }

    func testConvertFromSnakeCaseRoundTrip() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE team (team_id INTEGER PRIMARY KEY, display_name TEXT, home_url TEXT)")
            try Team(teamId: 1, displayName: "Reds", homeURL: "https://example.com").insert(db)
            let team = try XCTUnwrap(Team.fetchOne(db, key: 1))
            XCTAssertEqual(team.displayName, "Reds")
            // homeURL → home_url → homeUrl: not the same key, and the property is optional.
            XCTAssertNil(team.homeURL)
        }
    }

    func testConvertFromSnakeCaseMissingColumnError() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            XCTAssertThrowsError(try Team.fetchOne(db, sql: "SELECT 1 AS team_id")) { error in
                XCTAssertTrue(error is RowDecodingError, "\(error)")
                XCTAssertTrue("\(error)".contains("key not found"), "\(error)")
                XCTAssertTrue("\(error)".contains("converted to display_name"), "\(error)")
            }
            // teamID → team_id → teamId: the key can't be found by name.
            XCTAssertThrowsError(try Divergent.fetchOne(db, sql: "SELECT 1 AS team_id")) { error in
                XCTAssertTrue(
                    "\(error)".contains("with divergent representation teamId, converted to team_id"), "\(error)")
            }
            // A column without underscore converts to itself.
            XCTAssertEqual(try Divergent.fetchOne(db, sql: "SELECT 2 AS teamID")?.teamID, 2)
        }
    }

    func testCustom() throws {
        XCTAssertEqual(
            try Prefixed(name: "a", score: 1).databaseDictionary,
            ["c_name": "a".databaseValue, "c_score": 1.databaseValue])
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE prefixed (c_name TEXT, c_score INT)")
            try Prefixed(name: "Arthur", score: 10).insert(db)
            let fetched = try XCTUnwrap(Prefixed.fetchOne(db))
            XCTAssertEqual(fetched.name, "Arthur")
            XCTAssertEqual(fetched.score, 10)
        }
    }
}

/// Keys whose snake case conversion follows Foundation's JSON encoder, as GRDB's does.
private struct SnakeKeys: Encodable, EncodableRecord {
    var myURLProperty = 1
    var property1Name = 2
    var aB = 3
    var simple = 4
    var URLValue = 5
    var _private = 6
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
}

final class SnakeCaseConversionTests: XCTestCase {
    func testConversions() throws {
        XCTAssertEqual(
            Set(try SnakeKeys().databaseDictionary.keys),
            ["my_url_property", "property1_name", "a_b", "simple", "u_rl_value", "_private"])
    }
}

/// Per-column strategies receive the column name, after the column strategy.
private struct Stamp: Codable, FetchableRecord, PersistableRecord {
    var createdAt: Date
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        column == "created_at" ? .secondsSince1970 : .deferredToDate
    }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        column == "created_at" ? .timeIntervalSince1970 : .deferredToDate
    }
}

final class ColumnStrategyWithValueStrategyTests: XCTestCase {
    func testValueStrategiesSeeConvertedColumnNames() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE stamp (created_at)")
            try Stamp(createdAt: Date(timeIntervalSince1970: 60)).insert(db)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT created_at FROM stamp"), 60)
            XCTAssertEqual(try Stamp.fetchOne(db)?.createdAt, Date(timeIntervalSince1970: 60))
        }
    }
}
