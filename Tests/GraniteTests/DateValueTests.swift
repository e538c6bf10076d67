import Foundation
import Granite
import XCTest

final class DateValueTests: XCTestCase {
    private var utcCalendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }

    private func utcDate(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0,
        milliseconds: Int = 0
    ) -> Date {
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        let date = utcCalendar.date(from: components)!
        return date.addingTimeInterval(Double(milliseconds) / 1000)
    }

    private func assertSameMillisecond(_ a: Date?, _ b: Date, file: StaticString = #filePath, line: UInt = #line) {
        guard let a else { return XCTFail("nil date", file: file, line: line) }
        XCTAssertEqual(
            a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate, accuracy: 1e-6, file: file, line: line)
    }

    // MARK: Encoding

    func testDateIsStoredAsUTCTextWithMilliseconds() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (d)")
            let date = utcDate(1973, 9, 18, 10, 11, 12, milliseconds: 123)
            try db.execute(sql: "INSERT INTO t (d) VALUES (?)", arguments: [date])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT d FROM t"), "1973-09-18 10:11:12.123")
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(d) FROM t"), "text")
            assertSameMillisecond(try Date.fetchOne(db, sql: "SELECT d FROM t"), date)
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT d FROM t"))
            assertSameMillisecond(row["d"] as Date, date)
            assertSameMillisecond(try row.decode(Date.self, forColumn: "d"), date)
            assertSameMillisecond(Date.fromDatabaseValue(row["d"] as DatabaseValue), date)
        }
    }

    func testEncodingDoesNotDependOnTheCurrentTimeZone() {
        // 23:30 in UTC is another day in most other time zones: the text must stay UTC.
        let date = utcDate(2020, 2, 29, 23, 30)
        XCTAssertEqual(date.databaseValue, "2020-02-29 23:30:00.000".databaseValue)
    }

    func testEveryMillisecondIsEncodedExactly() {
        let base = utcDate(2015, 7, 22, 1, 2, 3).timeIntervalSince1970
        for millisecond in 0..<1000 {
            let date = Date(timeIntervalSince1970: base + Double(millisecond) / 1000)
            let expected = "2015-07-22 01:02:03." + String(format: "%03d", millisecond)
            XCTAssertEqual(date.databaseValue, expected.databaseValue)
            // Decoding gives back the same text.
            XCTAssertEqual(Date.fromDatabaseValue(expected.databaseValue)?.databaseValue, expected.databaseValue)
        }
    }

    func testSubMillisecondsAreTruncated() {
        let base = utcDate(2015, 7, 22, 1, 2, 3).timeIntervalSinceReferenceDate
        XCTAssertEqual(
            Date(timeIntervalSinceReferenceDate: base + 0.1239).databaseValue, "2015-07-22 01:02:03.123".databaseValue)
        XCTAssertEqual(
            Date(timeIntervalSinceReferenceDate: base + 0.9995).databaseValue, "2015-07-22 01:02:03.999".databaseValue)
    }

    func testDatesBefore1970() {
        XCTAssertEqual(Date(timeIntervalSince1970: -0.001).databaseValue, "1969-12-31 23:59:59.999".databaseValue)
        XCTAssertEqual(Date(timeIntervalSince1970: -86400).databaseValue, "1969-12-31 00:00:00.000".databaseValue)
        XCTAssertEqual(Date(timeIntervalSince1970: 0).databaseValue, "1970-01-01 00:00:00.000".databaseValue)
    }

    func testEncodingMatchesDateFormatter() {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        // Whole milliseconds from year 100 to 9999, including Julian-calendar dates before 1582-10-15.
        var generator = SystemRandomNumberGenerator()
        let lower = utcDate(100, 1, 1).timeIntervalSince1970
        let upper = utcDate(9999, 12, 31).timeIntervalSince1970
        for _ in 0..<500 {
            let milliseconds = Int64.random(in: Int64(lower * 1000)...Int64(upper * 1000), using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            guard case .string(let text) = date.databaseValue.storage else { return XCTFail() }
            // Same calendar fields as the formatter, which may lose a millisecond to floating-point
            // truncation where Granite keeps the exact one.
            XCTAssertEqual(text.prefix(19), formatter.string(from: date).prefix(19), "\(milliseconds)")
            let expectedMilliseconds = (milliseconds % 1000 + 1000) % 1000
            XCTAssertEqual(text.suffix(3), String(format: "%03d", Int(expectedMilliseconds)).suffix(3))
        }
    }

    func testGregorianReformAsFoundation() {
        // Foundation's Gregorian calendar is Julian before 1582-10-15, which follows 1582-10-04.
        let lastJulianDay = Date.fromDatabaseValue("1582-10-04".databaseValue)!
        XCTAssertEqual(
            lastJulianDay.addingTimeInterval(86400).databaseValue, "1582-10-15 00:00:00.000".databaseValue)
        assertSameMillisecond(Date.fromDatabaseValue("1000-01-01 12:00".databaseValue), utcDate(1000, 1, 1, 12))
        XCTAssertEqual(utcDate(1000, 1, 1, 12).databaseValue, "1000-01-01 12:00:00.000".databaseValue)
    }

    func testStoredDatesSortChronologically() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER, d TEXT)")
            let now = Date()
            try db.execute(sql: "INSERT INTO t VALUES (1, ?)", arguments: [now.addingTimeInterval(-1)])
            try db.execute(sql: "INSERT INTO t VALUES (2, ?)", arguments: ["2000-01-01 00:00:00"])
            try db.execute(sql: "INSERT INTO t VALUES (3, ?)", arguments: [now.addingTimeInterval(1)])
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT id FROM t ORDER BY d"), [2, 1, 3])
        }
    }

    // MARK: Decoding text

    private func assertDecodes(
        _ text: String, _ expected: Date, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        assertSameMillisecond(Date.fromDatabaseValue(text.databaseValue), expected, file: file, line: line)
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (d TEXT)")
            try db.execute(sql: "INSERT INTO t (d) VALUES (?)", arguments: [text])
            assertSameMillisecond(try Date.fetchOne(db, sql: "SELECT d FROM t"), expected, file: file, line: line)
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT d FROM t"), file: file, line: line)
            assertSameMillisecond(row["d"] as Date, expected, file: file, line: line)
            assertSameMillisecond(row[0] as Date?, expected, file: file, line: line)
        }
    }

    func testDecodesEveryFormat() throws {
        try assertDecodes("2015-07-22", utcDate(2015, 7, 22))
        try assertDecodes("2015-07-22 01:02", utcDate(2015, 7, 22, 1, 2))
        try assertDecodes("2015-07-22 01:02:03", utcDate(2015, 7, 22, 1, 2, 3))
        try assertDecodes("2015-07-22 01:02:03.4", utcDate(2015, 7, 22, 1, 2, 3, milliseconds: 400))
        try assertDecodes("2015-07-22 01:02:03.45", utcDate(2015, 7, 22, 1, 2, 3, milliseconds: 450))
        try assertDecodes("2015-07-22 01:02:03.456", utcDate(2015, 7, 22, 1, 2, 3, milliseconds: 456))
        // Digits after the third are ignored, not rounded.
        try assertDecodes("2015-07-22 01:02:03.00456", utcDate(2015, 7, 22, 1, 2, 3, milliseconds: 4))
        try assertDecodes("2015-07-22 01:02:03.9999999", utcDate(2015, 7, 22, 1, 2, 3, milliseconds: 999))
    }

    func testDecodesISO8601Separator() throws {
        try assertDecodes("2015-07-22T01:02", utcDate(2015, 7, 22, 1, 2))
        try assertDecodes("2015-07-22T01:02:03", utcDate(2015, 7, 22, 1, 2, 3))
        try assertDecodes("2015-07-22T01:02:03.456", utcDate(2015, 7, 22, 1, 2, 3, milliseconds: 456))
    }

    func testDecodesTimeZoneSuffixes() throws {
        try assertDecodes("2015-07-22 01:02Z", utcDate(2015, 7, 22, 1, 2))
        try assertDecodes("2015-07-22T01:02:03Z", utcDate(2015, 7, 22, 1, 2, 3))
        try assertDecodes("2015-07-22T01:02:03.456Z", utcDate(2015, 7, 22, 1, 2, 3, milliseconds: 456))
        // +01:15 is 1h15 ahead of UTC: the UTC time is earlier (the previous day here).
        try assertDecodes("2015-07-22 01:02+01:15", utcDate(2015, 7, 21, 23, 47))
        try assertDecodes("2015-07-22 01:02:03+01:15", utcDate(2015, 7, 21, 23, 47, 3))
        try assertDecodes("2015-07-22 01:02:03.00456+01:15", utcDate(2015, 7, 21, 23, 47, 3, milliseconds: 4))
        try assertDecodes("2015-07-22 01:02:03.4-01:15", utcDate(2015, 7, 22, 2, 17, 3, milliseconds: 400))
        try assertDecodes("2015-07-22T23:50:00.1-05:00", utcDate(2015, 7, 23, 4, 50, 0, milliseconds: 100))
    }

    func testDecodingIsLenientAsFoundationCalendar() throws {
        // GRDB builds dates with Calendar, which carries out-of-range fields over.
        try assertDecodes("2018-13-01", utcDate(2019, 1, 1))
        try assertDecodes("2015-02-30", utcDate(2015, 3, 2))
        try assertDecodes("2015-07-22 24:00", utcDate(2015, 7, 23))
    }

    func testDecodingMatchesFoundationCalendar() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var components = DateComponents()
            components.year = Int.random(in: 1...9999, using: &generator)
            components.month = Int.random(in: 1...12, using: &generator)
            components.day = Int.random(in: 1...28, using: &generator)
            components.hour = Int.random(in: 0...23, using: &generator)
            components.minute = Int.random(in: 0...59, using: &generator)
            components.second = Int.random(in: 0...59, using: &generator)
            let text = String(
                format: "%04d-%02d-%02d %02d:%02d:%02d", components.year!, components.month!, components.day!,
                components.hour!, components.minute!, components.second!)
            assertSameMillisecond(Date.fromDatabaseValue(text.databaseValue), utcCalendar.date(from: components)!)
        }
    }

    // MARK: Decoding numbers

    func testDecodesTimestamps() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (d)")
            try db.execute(sql: "INSERT INTO t (d) VALUES (?), (?)", arguments: [1_437_526_920, 1_437_526_920.25])
            let dates = try Date.fetchAll(db, sql: "SELECT d FROM t ORDER BY rowid")
            XCTAssertEqual(
                dates, [Date(timeIntervalSince1970: 1_437_526_920), Date(timeIntervalSince1970: 1_437_526_920.25)])
            let rows = try Row.fetchAll(db, sql: "SELECT d FROM t ORDER BY rowid")
            XCTAssertEqual(rows.map { Date.fromDatabaseValue($0["d"] as DatabaseValue) }, dates)
            XCTAssertEqual(rows[0]["d"] as Date, utcDate(2015, 7, 22, 1, 2))
        }
        XCTAssertEqual(Date.fromDatabaseValue((-86400).databaseValue), utcDate(1969, 12, 31))
    }

    func testJulianDay() throws {
        // 00:30:00 UT January 1, 2013; SQLite's millisecond truncation gives 00:29:59.971.
        let date = try XCTUnwrap(Date(julianDay: 2_456_293.520833))
        XCTAssertEqual(date.databaseValue, "2013-01-01 00:29:59.971".databaseValue)
        XCTAssertEqual(Date(julianDay: 2_440_587.5), Date(timeIntervalSince1970: 0))
        XCTAssertNil(Date(julianDay: .infinity))
        XCTAssertNil(Date(julianDay: .nan))
    }

    // MARK: Rejection

    func testRejectsMalformedText() throws {
        let malformed = [
            "", "foo", "2015", "2015-07", "2015-7-22", "2015-07-2", "15-07-22", "2015/07/22", "2015-07-22 ",
            "2015-07-22T", "2015-07-22Z", "2015-07-22 1:02", "2015-07-22 01:2", "2015-07-22 01:02:3",
            "2015-07-22 01:02:03.", "2015-07-22 01:02:03.4x", "2015-07-22 01:02:03.456x", "2015-07-22 01:02:03Zx",
            "2015-07-22 01:02+01", "2015-07-22 01:02+0115", "2015-07-22 01:02:03 ", " 2015-07-22", "2015-07-22x01:02",
        ]
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            for text in malformed {
                XCTAssertNil(Date.fromDatabaseValue(text.databaseValue), text)
                XCTAssertThrowsError(try Date.fetchOne(db, sql: "SELECT ?", arguments: [text]), text) { error in
                    XCTAssertTrue(error is RowDecodingError, "\(error)")
                }
                let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT ? AS d", arguments: [text]))
                XCTAssertThrowsError(try row.decode(Date.self, forColumn: "d"), text) { error in
                    XCTAssertTrue(error is RowDecodingError, "\(error)")
                }
            }
        }
    }

    func testRejectsTimesWithoutDate() throws {
        for text in ["01:02", "01:02:03", "01:02:03.00456", "01:02:03Z"] {
            XCTAssertNil(Date.fromDatabaseValue(text.databaseValue), text)
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertThrowsError(try Date.fetchOne(db, sql: "SELECT '01:02:03'")) { error in
                XCTAssertTrue(error is RowDecodingError)
            }
        }
    }

    func testRejectsBlobsAndDecodesNullAsNil() throws {
        XCTAssertNil(Date.fromDatabaseValue(Data("2015-07-22".utf8).databaseValue))
        XCTAssertNil(Date.fromDatabaseValue(.null))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertThrowsError(try Date.fetchOne(db, sql: "SELECT ?", arguments: [Data("2015-07-22".utf8)]))
            XCTAssertNil(try Date.fetchOne(db, sql: "SELECT NULL"))
            XCTAssertEqual(try Optional<Date>.fetchAll(db, sql: "SELECT NULL"), [nil])
        }
    }

    // MARK: NSDate

    func testNSDate() throws {
        let date = utcDate(2015, 7, 22, 1, 2, 3, milliseconds: 456)
        let nsDate = NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        XCTAssertEqual(nsDate.databaseValue, "2015-07-22 01:02:03.456".databaseValue)
        let decoded = try XCTUnwrap(NSDate.fromDatabaseValue("2015-07-22 01:02:03.456".databaseValue))
        XCTAssertEqual(decoded.timeIntervalSinceReferenceDate, date.timeIntervalSinceReferenceDate, accuracy: 1e-6)
        XCTAssertNil(NSDate.fromDatabaseValue("foo".databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            let fetched = try NSDate.fetchOne(db, sql: "SELECT ?", arguments: [nsDate])
            XCTAssertEqual(
                fetched?.timeIntervalSinceReferenceDate ?? 0, date.timeIntervalSinceReferenceDate, accuracy: 1e-6)
        }
    }
}
