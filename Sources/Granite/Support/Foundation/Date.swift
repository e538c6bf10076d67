import Foundation

/// Dates are stored as `YYYY-MM-DD HH:MM:SS.SSS` text in UTC, which sorts like SQLite's `CURRENT_TIMESTAMP`.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO event (date) VALUES (?)", arguments: [Date()])
/// let date = try Date.fetchOne(db, sql: "SELECT date FROM event") // "2024-05-01 12:34:56.789"
/// ```
extension Date: DatabaseValueConvertible {
    /// TEXT `YYYY-MM-DD HH:MM:SS.SSS` in UTC (milliseconds are truncated).
    public var databaseValue: DatabaseValue {
        DatabaseValue(storage: .string(sqliteStorageString))
    }

    /// A date decoded from:
    /// - a number: seconds since 00:00:00 UTC on 1 January 1970;
    /// - a text in one of SQLite's date formats that has at least a year, month and day (UTC unless the text
    ///   ends with `Z` or `±HH:MM`; missing time components are zero).
    ///
    /// Other values, including times without a date, give nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Date? {
        switch dbValue.storage {
        case .string(let string):
            return SQLiteDateParser().parse(string).flatMap(Date.init(parsedSQLiteDate:))
        case .int64(let seconds):
            return Date(timeIntervalSince1970: Double(seconds))
        case .double(let seconds):
            return Date(timeIntervalSince1970: seconds)
        default:
            return nil
        }
    }

    /// The date of parsed fields that have a year, month and day; nil for a time alone.
    @usableFromInline
    init?(parsedSQLiteDate parsed: ParsedSQLiteDate) {
        guard parsed.format.hasYMDComponents else { return nil }
        let days = UTCCalendar.days(year: parsed.year, month: parsed.month, day: parsed.day)
        let seconds =
            days * 86_400 + parsed.hour * 3_600 + parsed.minute * 60 + parsed.second
            - (parsed.timeZoneOffset ?? 0)
        self.init(
            timeIntervalSinceReferenceDate: Double(seconds - Self.unixEpochFromReferenceDate)
                + Double(parsed.nanosecond) / 1e9)
    }

    /// Creates a date from a [Julian Day](https://en.wikipedia.org/wiki/Julian_day), truncated to the
    /// millisecond as SQLite does. Nil when the number is not finite or out of range.
    ///
    /// ```swift
    /// let date = Date(julianDay: 2_456_293.520833) // 2013-01-01 00:29:59.971 UTC
    /// ```
    public init?(julianDay: Double) {
        let milliseconds = julianDay * 86_400_000
        guard milliseconds.isFinite, abs(milliseconds) < 9e18 else { return nil }
        // Julian day 2440587.5 is 1970-01-01 00:00:00 UTC.
        let sinceEpoch = Int64(milliseconds) - 210_866_760_000_000
        self.init(timeIntervalSince1970: Double(sinceEpoch) / 1000)
    }

    /// Seconds from 1970-01-01 to 2001-01-01.
    static let unixEpochFromReferenceDate = 978_307_200

    /// `YYYY-MM-DD HH:MM:SS.SSS` in UTC, without `DateFormatter`.
    var sqliteStorageString: String {
        var interval = timeIntervalSinceReferenceDate
        // Keep the integer arithmetic below in range (about ±30 million years).
        if !(interval > -1e15) { interval = -1e15 }
        if !(interval < 1e15) { interval = 1e15 }
        var wholeSeconds = interval.rounded(.down)
        // Truncate to the millisecond, but forgive the representation error of the Double: a date decoded
        // from `.123` (which a Double can't hold exactly) must encode as `.123` again, even far from 2001
        // where a Double only has a few microseconds of precision.
        let tolerance = max(0.0005, interval.ulp * 2_000)
        var milliseconds = Int(((interval - wholeSeconds) * 1000 + tolerance).rounded(.down))
        if milliseconds >= 1000 {
            wholeSeconds += 1
            milliseconds -= 1000
        }
        let seconds = Int(wholeSeconds) + Self.unixEpochFromReferenceDate
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = UTCCalendar.fields(days: days)
        if (0...9_999).contains(year) {
            return Self.storageString(
                year: year, month: month, day: day, secondOfDay: secondOfDay, milliseconds: milliseconds)
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(23)
        bytes.appendDecimal(year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendDecimal(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendDecimal(day, width: 2)
        bytes.append(UInt8(ascii: " "))
        bytes.appendDecimal(secondOfDay / 3_600, width: 2)
        bytes.append(UInt8(ascii: ":"))
        bytes.appendDecimal(secondOfDay / 60 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        bytes.appendDecimal(secondOfDay % 60, width: 2)
        bytes.append(UInt8(ascii: "."))
        bytes.appendDecimal(milliseconds, width: 3)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Date {
    /// `YYYY-MM-DD HH:MM:SS.SSS` for a four-digit year, written digit by digit into a buffer on the stack: the
    /// growing array and the per-field digit loops of the general path cost about five times as much, and every
    /// stored date goes through here.
    private static func storageString(
        year: Int, month: Int, day: Int, secondOfDay: Int, milliseconds: Int
    ) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 23) { bytes in
            @inline(__always) func put(_ value: Int, digits: Int, at end: Int) {
                var rest = value
                for offset in 0..<digits {
                    bytes[end - offset] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            put(year, digits: 4, at: 3)
            bytes[4] = UInt8(ascii: "-")
            put(month, digits: 2, at: 6)
            bytes[7] = UInt8(ascii: "-")
            put(day, digits: 2, at: 9)
            bytes[10] = UInt8(ascii: " ")
            put(secondOfDay / 3_600, digits: 2, at: 12)
            bytes[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, digits: 2, at: 15)
            bytes[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, digits: 2, at: 18)
            bytes[19] = UInt8(ascii: ".")
            put(milliseconds, digits: 3, at: 22)
            return String(decoding: UnsafeBufferPointer(bytes), as: UTF8.self)
        }
    }
}

extension Date: StatementColumnConvertible {
    /// A timestamp from a number, a date from a text, nil otherwise (see ``fromDatabaseValue(_:)``).
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqliteStatement.value(atIndex: index) {
        case .integer(let seconds):
            self.init(timeIntervalSince1970: Double(seconds))
        case .real(let seconds):
            self.init(timeIntervalSince1970: seconds)
        case .text(let string):
            guard let parsed = SQLiteDateParser().parse(string) else { return nil }
            self.init(parsedSQLiteDate: parsed)
        case .invalidUTF8Text:
            guard let parsed = SQLiteDateParser().parse(sqliteStatement.text(atIndex: index)) else { return nil }
            self.init(parsedSQLiteDate: parsed)
        case .null, .blob:
            return nil
        }
    }
}

/// `NSDate` is stored and decoded as `Date`.
extension NSDate: DatabaseValueConvertible {
    /// TEXT `YYYY-MM-DD HH:MM:SS.SSS` in UTC, as `Date`.
    public var databaseValue: DatabaseValue {
        Date(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate).databaseValue
    }

    /// The date that `Date` decodes, or nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard let date = Date.fromDatabaseValue(dbValue) else { return nil }
        return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate) as? Self
    }
}

extension [UInt8] {
    /// Appends the decimal digits of `value`, zero-padded to `width` (a minus sign counts in the width).
    mutating func appendDecimal(_ value: Int, width: Int) {
        var limit = 1
        for _ in 0..<width { limit *= 10 }
        if value >= 0 && value < limit {
            // Fast path: exactly `width` digits.
            var divisor = limit / 10
            while divisor > 0 {
                append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        } else {
            let digits = String(value.magnitude)
            if value < 0 { append(UInt8(ascii: "-")) }
            let padding = width - digits.utf8.count - (value < 0 ? 1 : 0)
            if padding > 0 { append(contentsOf: repeatElement(UInt8(ascii: "0"), count: padding)) }
            append(contentsOf: digits.utf8)
        }
    }
}
