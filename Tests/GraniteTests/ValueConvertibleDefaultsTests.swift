import Foundation
import Granite
import XCTest

/// A value with keys: stored as a JSON object.
private struct Address: Codable, Equatable, DatabaseValueConvertible {
    var street: String
    var city: String
}

/// A value that encodes an unkeyed container: stored as a JSON array.
private struct Tags: Codable, Equatable, DatabaseValueConvertible {
    var names: [String]

    init(_ names: [String]) { self.names = names }

    init(from decoder: any Decoder) throws {
        names = try decoder.singleValueContainer().decode([String].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(names)
    }
}

/// A value that encodes a single number: stored as that number.
private struct Meters: Codable, Equatable, DatabaseValueConvertible {
    var value: Double

    init(_ value: Double) { self.value = value }

    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Double.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// A value that encodes a single date: stored as the date's own database value, not as JSON.
private struct Deadline: Codable, Equatable, DatabaseValueConvertible {
    var date: Date

    init(_ date: Date) { self.date = date }

    init(from decoder: any Decoder) throws {
        date = try decoder.singleValueContainer().decode(Date.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(date)
    }
}

/// A JSON object with a date, encoded with the default JSON encoder (milliseconds since 1970).
private struct Event: Codable, Equatable, DatabaseValueConvertible {
    var name: String
    var date: Date
}

/// A JSON object encoded and decoded with custom JSON settings.
private struct Meeting: Codable, Equatable, DatabaseValueConvertible {
    var date: Date

    static func databaseJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func databaseJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// A Codable enum: stored as its raw value, like a plain one.
private enum Grape: String, Codable, DatabaseValueConvertible {
    case chardonnay, merlot
}

/// An enum with the fast decoding path of its raw value.
private enum Level: Int, DatabaseValueConvertible, StatementColumnConvertible {
    case low = 1
    case medium = 2
    case high = 3
}

/// A wrapper of a column: selected, sorted and filtered as the column.
private struct ScoreColumn: RawRepresentable, SQLSpecificExpressible {
    var rawValue: Column
}

/// A wrapper of a string that only binds to statements.
private struct Token: RawRepresentable, StatementBinding {
    var rawValue: String
}

/// A wrapper of an identifier, with its raw value's fast decoding path and query interface expression.
private struct ItemID: RawRepresentable, Equatable, DatabaseValueConvertible, StatementColumnConvertible {
    var rawValue: Int64
}

/// A record with a JSON column: the property's own database value is stored.
private struct Place: Codable, Equatable, FetchableRecord, PersistableRecord {
    var id: Int64
    var address: Address
    var tags: Tags?
}

final class ValueConvertibleDefaultsTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, value)")
        }
        return dbQueue
    }

    func testKeyedValuesAreStoredAsJSONObjects() throws {
        let address = Address(street: "1 Main Street", city: "Paris")
        XCTAssertEqual(address.databaseValue, #"{"city":"Paris","street":"1 Main Street"}"#.databaseValue)
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO item (value) VALUES (?)", arguments: [address])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(value) FROM item"), "text")
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT value FROM item"), #"{"city":"Paris","street":"1 Main Street"}"#)
            XCTAssertEqual(try Address.fetchOne(db, sql: "SELECT value FROM item"), address)
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT value FROM item"))
            XCTAssertEqual(row["value"] as Address, address)
            // Equal values encode to equal JSON, so they can be compared in SQL.
            let request = Table<Row>("item").select(Column("id")).filter(Column("value") == address)
            XCTAssertEqual(try Int.fetchAll(db, request), [1])
        }
    }

    func testJSONDecodesFromTextAndBlob() throws {
        let text = #"{"street":"2 High Street","city":"London"}"#
        let expected = Address(street: "2 High Street", city: "London")
        XCTAssertEqual(Address.fromDatabaseValue(text.databaseValue), expected)
        XCTAssertEqual(Address.fromDatabaseValue(Data(text.utf8).databaseValue), expected)
        XCTAssertNil(Address.fromDatabaseValue(#"{"street":"2 High Street"}"#.databaseValue))
        XCTAssertNil(Address.fromDatabaseValue("not json".databaseValue))
        XCTAssertNil(Address.fromDatabaseValue(42.databaseValue))
        XCTAssertNil(Address.fromDatabaseValue(.null))
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO item (value) VALUES (CAST(? AS BLOB))", arguments: [text])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(value) FROM item"), "blob")
            XCTAssertEqual(try Address.fetchOne(db, sql: "SELECT value FROM item"), expected)
            XCTAssertThrowsError(try Address.fetchOne(db, sql: "SELECT 'not json'")) { error in
                XCTAssertTrue(error is RowDecodingError, "\(error)")
            }
        }
    }

    func testUnkeyedValuesAreStoredAsJSONArrays() throws {
        XCTAssertEqual(Tags(["b", "a"]).databaseValue, #"["b","a"]"#.databaseValue)
        XCTAssertEqual(Tags([]).databaseValue, "[]".databaseValue)
        XCTAssertEqual(Tags.fromDatabaseValue(#"["x"]"#.databaseValue), Tags(["x"]))
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO item (value) VALUES (?), (?)", arguments: [Tags(["a", "b"]), Tags([])])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT value FROM item ORDER BY id"), [#"["a","b"]"#, "[]"])
            XCTAssertEqual(
                try Tags.fetchAll(db, sql: "SELECT value FROM item ORDER BY id"), [Tags(["a", "b"]), Tags([])])
        }
    }

    func testSingleValuesAreStoredAsThemselves() throws {
        XCTAssertEqual(Meters(2.5).databaseValue.storage, .double(2.5))
        XCTAssertEqual(Meters.fromDatabaseValue(3.databaseValue), Meters(3))
        XCTAssertNil(Meters.fromDatabaseValue("3 meters".databaseValue))
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            for length in [Meters(12), Meters(2.5), Meters(7)] {
                try db.execute(sql: "INSERT INTO item (value) VALUES (?)", arguments: [length])
            }
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT DISTINCT typeof(value) FROM item"), "real")
            let value = Column("value")
            let request = Table<Meters>("item").select(value).filter(value > Meters(5)).order(value.desc)
            XCTAssertEqual(try Meters.fetchAll(db, request), [Meters(12), Meters(7)])
            let total = try Meters.fetchOne(db, Table<Meters>("item").select(sum(value)))
            XCTAssertEqual(total, Meters(21.5))
        }
    }

    func testSingleDatabaseValuesKeepTheirDatabaseFormat() throws {
        let date = Date(timeIntervalSince1970: 1_000_000)
        // Not JSON: the date is stored as Date stores itself, text in UTC.
        XCTAssertEqual(Deadline(date).databaseValue, date.databaseValue)
        XCTAssertEqual(Deadline(date).databaseValue, "1970-01-12 13:46:40.000".databaseValue)
        XCTAssertEqual(Deadline.fromDatabaseValue("1970-01-12 13:46:40.000".databaseValue), Deadline(date))
    }

    func testJSONUsesTheDatabaseJSONEncoders() throws {
        let event = Event(name: "launch", date: Date(timeIntervalSince1970: 1.5))
        XCTAssertEqual(event.databaseValue, #"{"date":1500,"name":"launch"}"#.databaseValue)
        XCTAssertEqual(Event.fromDatabaseValue(#"{"date":1500,"name":"launch"}"#.databaseValue), event)
        let meeting = Meeting(date: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(meeting.databaseValue, #"{"date":"1970-01-01T00:00:00Z"}"#.databaseValue)
        XCTAssertEqual(Meeting.fromDatabaseValue(#"{"date":"1970-01-01T00:00:00Z"}"#.databaseValue), meeting)
        XCTAssertNil(Meeting.fromDatabaseValue(#"{"date":0}"#.databaseValue))
    }

    func testOptionalCodableValues() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let missing: Address? = nil
            try db.execute(
                sql: "INSERT INTO item (value) VALUES (?), (?)", arguments: [missing, Address(street: "s", city: "c")])
            let addresses = try Address?.fetchAll(db, sql: "SELECT value FROM item ORDER BY id")
            XCTAssertEqual(addresses, [nil, Address(street: "s", city: "c")])
        }
    }

    func testCodableEnumsAreStoredAsTheirRawValue() throws {
        XCTAssertEqual(Grape.merlot.databaseValue, "merlot".databaseValue)
        XCTAssertEqual(Grape.fromDatabaseValue("chardonnay".databaseValue), .chardonnay)
        XCTAssertNil(Grape.fromDatabaseValue(#""merlot""#.databaseValue))
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(
                sql: "INSERT INTO item (value) VALUES (?), (?)", arguments: [Grape.merlot, Grape.chardonnay])
            let request = Table<Grape>("item").select(Column("value")).filter(Column("value") == Grape.merlot)
            XCTAssertEqual(try Grape.fetchAll(db, request), [.merlot])
            let sorted = Table<Grape>("item").select(Column("value")).order(Column("value"))
            XCTAssertEqual(try Grape.fetchAll(db, sorted), [.chardonnay, .merlot])
        }
    }

    func testRawRepresentableValuesDecodeThroughTheirRawValue() throws {
        XCTAssertEqual(Level.high.databaseValue, 3.databaseValue)
        XCTAssertEqual(Level.fromDatabaseValue(2.databaseValue), .medium)
        XCTAssertNil(Level.fromDatabaseValue(9.databaseValue))
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(
                sql: "INSERT INTO item (value) VALUES (?), (?), (?)", arguments: [Level.low, Level.high, Level.medium])
            let value = Column("value")
            // Fetched through the raw value's column conversion, SQLite's integer conversion of text included.
            XCTAssertEqual(
                try Level.fetchAll(db, sql: "SELECT value FROM item ORDER BY value DESC"), [.high, .medium, .low])
            XCTAssertEqual(try Level.fetchOne(db, sql: "SELECT '2'"), .medium)
            let request = Table<Level>("item").select(value).filter(value >= Level.medium).order(value)
            XCTAssertEqual(try Level.fetchAll(db, request), [.medium, .high])
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 3 AS level"))
            XCTAssertEqual(row["level"] as Level, .high)
            XCTAssertThrowsError(try Level.fetchOne(db, sql: "SELECT 9")) { error in
                XCTAssertTrue(error is RowDecodingError, "\(error)")
            }
        }
    }

    func testRawRepresentableWrappersBehaveAsTheirRawValue() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO item (value) VALUES (?)")
            for token in ["b", "c", "a"] {
                XCTAssertEqual(
                    Token(rawValue: token).bind(to: statement.sqliteStatement, at: 1), ResultCode.SQLITE_OK.rawValue)
                try statement.execute()
            }
            let score = ScoreColumn(rawValue: Column("value"))
            let request = Table<Row>("item").select(score).filter(score != "c").order(score)
            let prepared = try request.makePreparedRequest(db).statement
            XCTAssertEqual(prepared.sql, #"SELECT "value" FROM "item" WHERE "value" <> ? ORDER BY "value""#)
            XCTAssertEqual(try String.fetchAll(db, request), ["a", "b"])
            let id = ItemID(rawValue: 2)
            XCTAssertEqual(id.databaseValue, 2.databaseValue)
            let ids = try ItemID.fetchAll(db, Table<Row>("item").select(Column("id")).filter(Column("id") > id))
            XCTAssertEqual(ids, [ItemID(rawValue: 3)])
        }
    }

    func testRecordsStoreTheDatabaseValueOfTheirProperties() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE place (id INTEGER PRIMARY KEY, address TEXT NOT NULL, tags TEXT)")
            let place = Place(id: 1, address: Address(street: "3 Quay", city: "Lyon"), tags: Tags(["river"]))
            try place.insert(db)
            try Place(id: 2, address: Address(street: "4 Hill", city: "Nice"), tags: nil).insert(db)
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT address, tags FROM place WHERE id = 1"))
            XCTAssertEqual(row["address"] as String, #"{"city":"Lyon","street":"3 Quay"}"#)
            XCTAssertEqual(row["tags"] as String, #"["river"]"#)
            XCTAssertEqual(try Place.fetchOne(db, key: 1), place)
            let nice = try Place.filter(Column("address") == Address(street: "4 Hill", city: "Nice")).fetchAll(db)
            XCTAssertEqual(nice.map(\.id), [2])
            XCTAssertNil(nice.first?.tags)
        }
    }
}
