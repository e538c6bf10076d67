import Foundation
import Granite
import XCTest

final class DatabaseDateComponentsValueTests: XCTestCase {
    private let full = DateComponents(
        year: 1973, month: 9, day: 18, hour: 10, minute: 11, second: 12, nanosecond: 123_456_789)

    func testEncodingOfEveryFormat() {
        let expected: [(DatabaseDateComponents.Format, String)] = [
            (.YMD, "1973-09-18"),
            (.YMD_HM, "1973-09-18 10:11"),
            (.YMD_HMS, "1973-09-18 10:11:12"),
            (.YMD_HMSS, "1973-09-18 10:11:12.123"),
            (.HM, "10:11"),
            (.HMS, "10:11:12"),
            (.HMSS, "10:11:12.123"),
        ]
        for (format, text) in expected {
            XCTAssertEqual(DatabaseDateComponents(full, format: format).databaseValue, text.databaseValue)
        }
    }

    func testEncodingDefaultsAndRounding() {
        XCTAssertEqual(
            DatabaseDateComponents(DateComponents(), format: .YMD_HMSS).databaseValue,
            "0000-01-01 00:00:00.000".databaseValue)
        XCTAssertEqual(
            DatabaseDateComponents(DateComponents(hour: 7), format: .HMS).databaseValue, "07:00:00".databaseValue)
        // Nanoseconds are rounded to the nearest millisecond.
        let components = DateComponents(hour: 1, minute: 2, second: 3, nanosecond: 123_500_000)
        XCTAssertEqual(DatabaseDateComponents(components, format: .HMSS).databaseValue, "01:02:03.124".databaseValue)
    }

    func testFormatRawValues() {
        XCTAssertEqual(DatabaseDateComponents.Format.YMD_HMSS.rawValue, "yyyy-MM-dd HH:mm:ss.SSS")
        XCTAssertEqual(DatabaseDateComponents.Format(rawValue: "HH:mm"), .HM)
    }

    private func decode(_ text: String) -> DatabaseDateComponents? {
        DatabaseDateComponents.fromDatabaseValue(text.databaseValue)
    }

    func testDecodingOfEveryFormat() throws {
        var c = try XCTUnwrap(decode("2015-07-22"))
        XCTAssertEqual(c.format, .YMD)
        XCTAssertEqual(c.dateComponents, DateComponents(year: 2015, month: 7, day: 22))

        c = try XCTUnwrap(decode("2015-07-22 01:02"))
        XCTAssertEqual(c.format, .YMD_HM)
        XCTAssertEqual(c.dateComponents, DateComponents(year: 2015, month: 7, day: 22, hour: 1, minute: 2))

        c = try XCTUnwrap(decode("2015-07-22T01:02:03"))
        XCTAssertEqual(c.format, .YMD_HMS)
        XCTAssertEqual(c.dateComponents, DateComponents(year: 2015, month: 7, day: 22, hour: 1, minute: 2, second: 3))

        c = try XCTUnwrap(decode("2015-07-22 01:02:03.45"))
        XCTAssertEqual(c.format, .YMD_HMSS)
        XCTAssertEqual(
            c.dateComponents,
            DateComponents(year: 2015, month: 7, day: 22, hour: 1, minute: 2, second: 3, nanosecond: 450_000_000))

        c = try XCTUnwrap(decode("01:02"))
        XCTAssertEqual(c.format, .HM)
        XCTAssertEqual(c.dateComponents, DateComponents(hour: 1, minute: 2))

        c = try XCTUnwrap(decode("01:02:03"))
        XCTAssertEqual(c.format, .HMS)
        XCTAssertEqual(c.dateComponents, DateComponents(hour: 1, minute: 2, second: 3))

        c = try XCTUnwrap(decode("01:02:03.00456"))
        XCTAssertEqual(c.format, .HMSS)
        XCTAssertEqual(c.dateComponents, DateComponents(hour: 1, minute: 2, second: 3, nanosecond: 4_000_000))
    }

    func testDecodingTimeZones() throws {
        var c = try XCTUnwrap(decode("2015-07-22 01:02:03+01:15"))
        XCTAssertEqual(c.format, .YMD_HMS)
        XCTAssertEqual(c.dateComponents.timeZone, TimeZone(secondsFromGMT: 4500))
        c = try XCTUnwrap(decode("01:02-05:00"))
        XCTAssertEqual(c.format, .HM)
        XCTAssertEqual(c.dateComponents.timeZone, TimeZone(secondsFromGMT: -18000))
        c = try XCTUnwrap(decode("01:02:03.4Z"))
        XCTAssertEqual(c.format, .HMSS)
        XCTAssertEqual(c.dateComponents.timeZone, TimeZone(secondsFromGMT: 0))
        XCTAssertNil(try XCTUnwrap(decode("01:02")).dateComponents.timeZone)
    }

    func testDecodingRejectsMalformedText() {
        for text in [
            "", "foo", "1:02", "01:2", "01-02", "01:02:", "01:02:03.", "01:02 ", "2015-07-22 ", "2015-07-22T1:02",
            "01:02:03.1+01", "01:02:03.12x",
        ] {
            XCTAssertNil(decode(text), text)
        }
        XCTAssertNil(DatabaseDateComponents.fromDatabaseValue(1.databaseValue))
        XCTAssertNil(DatabaseDateComponents.fromDatabaseValue(.null))
    }

    func testTruncatedTimeZoneAfterThreeFractionDigitsIsIgnoredAsInGRDB() throws {
        let c = try XCTUnwrap(decode("01:02:03.123+01"))
        XCTAssertEqual(c.format, .HMSS)
        XCTAssertNil(c.dateComponents.timeZone)
    }

    func testRoundTripThroughDatabase() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, c TEXT)")
            let formats: [DatabaseDateComponents.Format] = [.YMD, .YMD_HM, .YMD_HMS, .YMD_HMSS, .HM, .HMS, .HMSS]
            for format in formats {
                try db.execute(
                    sql: "INSERT INTO t (c) VALUES (?)", arguments: [DatabaseDateComponents(full, format: format)])
            }
            let fetched = try DatabaseDateComponents.fetchAll(db, sql: "SELECT c FROM t ORDER BY id")
            XCTAssertEqual(fetched.map(\.format), formats)
            XCTAssertEqual(fetched[3].dateComponents.nanosecond, 123_000_000)
            XCTAssertEqual(fetched[6].dateComponents.hour, 10)
            XCTAssertNil(fetched[6].dateComponents.year)
            let rows = try Row.fetchAll(db, sql: "SELECT c FROM t ORDER BY id")
            XCTAssertEqual(rows.map { ($0["c"] as DatabaseDateComponents).format }, formats)
            XCTAssertEqual(
                rows.map { DatabaseDateComponents.fromDatabaseValue($0["c"] as DatabaseValue)?.format }, formats)

            XCTAssertThrowsError(try DatabaseDateComponents.fetchOne(db, sql: "SELECT 'noon'")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT 'noon' AS c"))
            XCTAssertThrowsError(try row.decode(DatabaseDateComponents.self, forColumn: "c"))
        }
    }

    func testDateDecodesFromComponentsWithDate() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            let components = DatabaseDateComponents(DateComponents(year: 2015, month: 7, day: 22), format: .YMD)
            let date = try XCTUnwrap(try Date.fetchOne(db, sql: "SELECT ?", arguments: [components]))
            XCTAssertEqual(date.timeIntervalSince1970, 1_437_523_200)
        }
    }

    func testCodable() throws {
        let components = DatabaseDateComponents(full, format: .YMD_HMS)
        let json = try JSONEncoder().encode([components])
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"["1973-09-18 10:11:12"]"#)
        let decoded = try JSONDecoder().decode([DatabaseDateComponents].self, from: json)
        XCTAssertEqual(decoded[0].format, .YMD_HMS)
        XCTAssertEqual(decoded[0].dateComponents.second, 12)
        let invalid = Data(#"["nope"]"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode([DatabaseDateComponents].self, from: invalid)) { error in
            guard case .dataCorrupted(let context) = error as? DecodingError else {
                return XCTFail("unexpected error: \(error)")
            }
            XCTAssertEqual(context.debugDescription, "Unable to initialise databaseDateComponent")
        }
    }

    func testComponentsInQueriesAndBindings() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE alarm (id INTEGER PRIMARY KEY, time TEXT)")
            let statement = try db.makeStatement(sql: "INSERT INTO alarm (time) VALUES (?)")
            for hour in [7, 12, 22] {
                let time = DatabaseDateComponents(DateComponents(hour: hour, minute: 30), format: .HM)
                XCTAssertEqual(time.bind(to: statement.sqliteStatement, at: 1), ResultCode.SQLITE_OK.rawValue)
                try statement.execute()
            }
            let noon = DatabaseDateComponents(DateComponents(hour: 12, minute: 0), format: .HM)
            let request = Table<Row>("alarm").select(Column("time")).filter(Column("time") > noon).order(Column("time"))
            XCTAssertEqual(try String.fetchAll(db, request), ["12:30", "22:30"])
            let (sql, arguments) = try SQL("SELECT time FROM alarm WHERE time < \(noon)").build(db)
            XCTAssertEqual(sql, "SELECT time FROM alarm WHERE time < ?")
            XCTAssertEqual(arguments, ["12:00"])
            XCTAssertEqual(try String.fetchAll(db, sql: sql, arguments: arguments), ["07:30"])
        }
    }
}
