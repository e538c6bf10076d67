import Foundation
import Granite
import XCTest

/// A record whose date strategies are picked by column: `enc_<case>` columns encode, `dec_<case>` columns
/// decode with the named strategy.
private struct Event: Codable, FetchableRecord, PersistableRecord {
    var date: Date
    var optionalDate: Date?

    nonisolated(unsafe) static var encoding: DatabaseDateEncodingStrategy = .deferredToDate
    nonisolated(unsafe) static var decoding: DatabaseDateDecodingStrategy = .deferredToDate

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { encoding }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { decoding }
}

/// Per-column strategies.
private struct Span: Codable, FetchableRecord, PersistableRecord {
    var start: Date
    var end: Date
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        column == "start" ? .timeIntervalSince1970 : .iso8601
    }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        column == "start" ? .timeIntervalSince1970 : .iso8601
    }
}

final class DateCodingStrategyTests: XCTestCase {
    // 2001-09-09 01:46:40.123 UTC
    let date = Date(timeIntervalSince1970: 1_000_000_000.123)

    private func encoded(_ strategy: DatabaseDateEncodingStrategy) throws -> DatabaseValue? {
        Event.encoding = strategy
        defer { Event.encoding = .deferredToDate }
        return try Event(date: date).databaseDictionary["date"]
    }

    private func decoded(_ strategy: DatabaseDateDecodingStrategy, _ sqlValue: String) throws -> Date {
        Event.decoding = strategy
        defer { Event.decoding = .deferredToDate }
        let dbQueue = try DatabaseQueue()
        let event = try dbQueue.read { db in
            try Event.fetchOne(db, sql: "SELECT \(sqlValue) AS date, NULL AS optionalDate")
        }
        return try XCTUnwrap(event).date
    }

    private var utcFormatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd/MM/yyyy HH:mm"
        return formatter
    }

    func testDefaultEncodingIsUTCText() throws {
        XCTAssertEqual(try encoded(.deferredToDate), "2001-09-09 01:46:40.123".databaseValue)
    }

    func testEncodeTimeIntervalSinceReferenceDate() throws {
        XCTAssertEqual(try encoded(.timeIntervalSinceReferenceDate), date.timeIntervalSinceReferenceDate.databaseValue)
    }

    func testEncodeTimeIntervalSince1970() throws {
        XCTAssertEqual(try encoded(.timeIntervalSince1970), 1_000_000_000.123.databaseValue)
    }

    func testEncodeSecondsSince1970() throws {
        XCTAssertEqual(try encoded(.secondsSince1970), 1_000_000_000.databaseValue)
        Event.encoding = .secondsSince1970
        defer { Event.encoding = .deferredToDate }
        XCTAssertEqual(
            try Event(date: Date(timeIntervalSince1970: -1.5)).databaseDictionary["date"], (-2).databaseValue)
    }

    func testEncodeMillisecondsSince1970() throws {
        XCTAssertEqual(try encoded(.millisecondsSince1970), 1_000_000_000_123.databaseValue)
    }

    func testEncodeISO8601() throws {
        XCTAssertEqual(try encoded(.iso8601), "2001-09-09T01:46:40Z".databaseValue)
    }

    func testEncodeFormatted() throws {
        XCTAssertEqual(try encoded(.formatted(utcFormatter)), "09/09/2001 01:46".databaseValue)
    }

    func testEncodeCustom() throws {
        XCTAssertEqual(try encoded(.custom { _ in "custom" }), "custom".databaseValue)
        XCTAssertEqual(try encoded(.custom { _ in nil }), .null)
    }

    func testNilDateEncodesNull() throws {
        Event.encoding = .iso8601
        defer { Event.encoding = .deferredToDate }
        XCTAssertEqual(try Event(date: date).databaseDictionary["optionalDate"], .null)
    }

    func testDecodeDeferredToDateFromForeignFormats() throws {
        let expectations: [(String, Date)] = [
            ("'2001-09-09 01:46:40.123'", date),
            ("'2001-09-09T01:46:40.123'", date),
            ("'2001-09-09 01:46:40'", Date(timeIntervalSince1970: 1_000_000_000)),
            ("'2001-09-09 01:46'", Date(timeIntervalSince1970: 999_999_960)),
            ("'2001-09-09'", Date(timeIntervalSince1970: 999_993_600)),
            ("1000000000", Date(timeIntervalSince1970: 1_000_000_000)),
            ("1000000000.5", Date(timeIntervalSince1970: 1_000_000_000.5)),
        ]
        for (sql, expected) in expectations {
            let decoded = try decoded(.deferredToDate, sql)
            XCTAssertEqual(decoded.timeIntervalSince1970, expected.timeIntervalSince1970, accuracy: 0.001, sql)
        }
    }

    func testDecodeTimeIntervalSinceReferenceDate() throws {
        XCTAssertEqual(try decoded(.timeIntervalSinceReferenceDate, "10.5"), Date(timeIntervalSinceReferenceDate: 10.5))
    }

    func testDecodeTimeIntervalSince1970() throws {
        XCTAssertEqual(try decoded(.timeIntervalSince1970, "1000000000"), Date(timeIntervalSince1970: 1_000_000_000))
    }

    func testDecodeMillisecondsSince1970() throws {
        XCTAssertEqual(
            try decoded(.millisecondsSince1970, "1000000000123").timeIntervalSince1970, 1_000_000_000.123,
            accuracy: 0.0001)
    }

    func testDecodeISO8601() throws {
        XCTAssertEqual(
            try decoded(.iso8601, "'2001-09-09T01:46:40Z'"), Date(timeIntervalSince1970: 1_000_000_000))
        XCTAssertThrowsError(try decoded(.iso8601, "'yesterday'")) { error in
            XCTAssertTrue(error is RowDecodingError, "\(error)")
            XCTAssertTrue("\(error)".contains("could not decode Date"), "\(error)")
            XCTAssertTrue("\(error)".contains("column: \"date\""), "\(error)")
        }
    }

    func testDecodeFormatted() throws {
        XCTAssertEqual(
            try decoded(.formatted(utcFormatter), "'09/09/2001 01:46'"), Date(timeIntervalSince1970: 999_999_960))
        XCTAssertThrowsError(try decoded(.formatted(utcFormatter), "'2001'"))
    }

    func testDecodeCustom() throws {
        let strategy = DatabaseDateDecodingStrategy.custom { dbValue in
            String.fromDatabaseValue(dbValue) == "epoch" ? Date(timeIntervalSince1970: 0) : nil
        }
        XCTAssertEqual(try decoded(strategy, "'epoch'"), Date(timeIntervalSince1970: 0))
        XCTAssertThrowsError(try decoded(strategy, "'other'")) { error in
            XCTAssertTrue(error is RowDecodingError, "\(error)")
        }
    }

    func testNullDecodesNilOrThrows() throws {
        Event.decoding = .iso8601
        defer { Event.decoding = .deferredToDate }
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let event = try Event.fetchOne(db, sql: "SELECT '2001-09-09T01:46:40Z' AS date, NULL AS optionalDate")
            XCTAssertNil(event?.optionalDate)
            XCTAssertThrowsError(try Event.fetchOne(db, sql: "SELECT NULL AS date")) { error in
                XCTAssertTrue(error is RowDecodingError, "\(error)")
            }
        }
    }

    func testPerColumnStrategiesRoundTrip() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE span (start, \"end\")")
            let span = Span(start: Date(timeIntervalSince1970: 10), end: Date(timeIntervalSince1970: 20))
            try span.insert(db)
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM span"))
            XCTAssertEqual(row["start"]?.databaseValue, 10.0.databaseValue)
            XCTAssertEqual(row["end"]?.databaseValue, "1970-01-01T00:00:20Z".databaseValue)
            let fetched = try XCTUnwrap(Span.fetchOne(db))
            XCTAssertEqual(fetched.start, span.start)
            XCTAssertEqual(fetched.end, span.end)
        }
    }

    func testDateStrategyAppliesToDatePrimaryKey() throws {
        struct Day: Codable, FetchableRecord, PersistableRecord, Identifiable {
            var id: Date
            var note: String
            static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
                .secondsSince1970
            }
            static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
                .timeIntervalSince1970
            }
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE day (id INTEGER PRIMARY KEY, note TEXT)")
            let day = Date(timeIntervalSince1970: 86400)
            try Day(id: day, note: "one").insert(db)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT id FROM day"), 86400)
            XCTAssertEqual(try Day.fetchOne(db, id: day)?.note, "one")
            XCTAssertEqual(try Day.fetchAll(db, ids: [day]).count, 1)
            XCTAssertTrue(try Day.exists(db, id: day))
            XCTAssertEqual(try Day.deleteAll(db, ids: [day]), 1)
        }
    }
}
