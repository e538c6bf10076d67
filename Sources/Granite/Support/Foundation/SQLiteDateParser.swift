import Foundation

/// The fields of a date string in one of SQLite's date formats, as parsed by ``SQLiteDateParser``.
@usableFromInline
struct ParsedSQLiteDate: Sendable {
    var year = 0
    var month = 0
    var day = 0
    var hour = 0
    var minute = 0
    var second = 0
    /// Milliseconds as read from up to three fraction digits, in nanoseconds.
    var nanosecond = 0
    /// The offset of a `Z` / `±HH:MM` suffix, in seconds east of UTC; nil without a suffix.
    var timeZoneOffset: Int?
    var format: DatabaseDateComponents.Format = .YMD

    /// The components, with the time zone of the suffix when there is one.
    var dateComponents: DateComponents {
        var components = DateComponents()
        if format.hasYMDComponents {
            components.year = year
            components.month = month
            components.day = day
        }
        if format != .YMD {
            components.hour = hour
            components.minute = minute
        }
        switch format {
        case .YMD_HMS, .HMS:
            components.second = second
        case .YMD_HMSS, .HMSS:
            components.second = second
            components.nanosecond = nanosecond
        default:
            break
        }
        if let timeZoneOffset {
            components.timeZone = TimeZone(secondsFromGMT: timeZoneOffset)
        }
        return components
    }
}

/// A hand-written parser of the date formats GRDB decodes (no `DateFormatter`): `YYYY-MM-DD`, optionally
/// followed by a space or `T` and a time, or a time alone. Times are `HH:MM`, `HH:MM:SS` or `HH:MM:SS.F…`
/// (only the first three fraction digits count), optionally followed by `Z`, `+HH:MM` or `-HH:MM`.
@usableFromInline
struct SQLiteDateParser {
    @usableFromInline
    init() {}

    /// The fields of `string`, or nil when it is not in one of the accepted formats.
    @usableFromInline
    func parse(_ string: String) -> ParsedSQLiteDate? {
        var string = string
        return string.withUTF8 { parse(bytes: $0) }
    }

    /// The fields of the UTF-8 `bytes`, or nil when they are not in one of the accepted formats.
    func parse(bytes: UnsafeBufferPointer<UInt8>) -> ParsedSQLiteDate? {
        // "HH:MM" is the shortest accepted input.
        guard bytes.count >= 5 else { return nil }
        var cursor = Cursor(bytes: bytes)
        var result = ParsedSQLiteDate()
        if bytes[4] == UInt8(ascii: "-") {
            guard let format = parseDateTime(&cursor, into: &result) else { return nil }
            result.format = format
        } else if bytes[2] == UInt8(ascii: ":") {
            guard let format = parseTime(&cursor, into: &result) else { return nil }
            result.format = format
        } else {
            return nil
        }
        guard cursor.isAtEnd else { return nil }
        return result
    }

    private func parseDateTime(_ cursor: inout Cursor, into result: inout ParsedSQLiteDate)
        -> DatabaseDateComponents.Format?
    {
        guard let year = cursor.number(digits: 4), cursor.skip("-"),
            let month = cursor.number(digits: 2), cursor.skip("-"),
            let day = cursor.number(digits: 2)
        else { return nil }
        result.year = year
        result.month = month
        result.day = day
        if cursor.isAtEnd { return .YMD }
        guard cursor.skip(" ") || cursor.skip("T") else { return nil }
        switch parseTime(&cursor, into: &result) {
        case .HM: return .YMD_HM
        case .HMS: return .YMD_HMS
        case .HMSS: return .YMD_HMSS
        default: return nil
        }
    }

    private func parseTime(_ cursor: inout Cursor, into result: inout ParsedSQLiteDate)
        -> DatabaseDateComponents.Format?
    {
        guard let hour = cursor.number(digits: 2), cursor.skip(":"), let minute = cursor.number(digits: 2)
        else { return nil }
        result.hour = hour
        result.minute = minute
        if cursor.isAtEnd || parseTimeZone(&cursor, into: &result) { return .HM }

        guard cursor.skip(":"), let second = cursor.number(digits: 2) else { return nil }
        result.second = second
        if cursor.isAtEnd || parseTimeZone(&cursor, into: &result) { return .HMS }

        guard cursor.skip(".") else { return nil }
        // One to three significant digits; further digits are ignored. After the first and the second digit,
        // the time may end, or go on with a time zone, or with another digit.
        var fraction = 0
        var scale = 100_000_000
        for _ in 0..<2 {
            guard let digit = cursor.digit() else { return nil }
            fraction += digit * scale
            scale /= 10
            if cursor.isAtEnd || parseTimeZone(&cursor, into: &result) {
                result.nanosecond = fraction
                return .HMSS
            }
        }
        guard let digit = cursor.digit() else { return nil }
        result.nanosecond = fraction + digit * scale
        while cursor.digit() != nil {}
        _ = parseTimeZone(&cursor, into: &result)
        return .HMSS
    }

    private func parseTimeZone(_ cursor: inout Cursor, into result: inout ParsedSQLiteDate) -> Bool {
        if cursor.skip("Z") {
            result.timeZoneOffset = 0
            return true
        }
        let sign: Int
        if cursor.skip("+") {
            sign = 1
        } else if cursor.skip("-") {
            sign = -1
        } else {
            return false
        }
        guard let hours = cursor.number(digits: 2), cursor.skip(":"), let minutes = cursor.number(digits: 2)
        else { return false }
        let offset = sign * (hours * 3600 + minutes * 60)
        // Like `TimeZone(secondsFromGMT:)`, offsets beyond 18 hours are no time zone at all (UTC).
        result.timeZoneOffset = abs(offset) <= 18 * 3600 ? offset : nil
        return true
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var isAtEnd: Bool { position == bytes.count }

        mutating func skip(_ scalar: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: scalar) else { return false }
            position += 1
            return true
        }

        mutating func digit() -> Int? {
            guard position < bytes.count else { return nil }
            let value = Int(bytes[position]) - 0x30
            guard value >= 0 && value <= 9 else { return nil }
            position += 1
            return value
        }

        mutating func number(digits: Int) -> Int? {
            var value = 0
            for _ in 0..<digits {
                guard let d = digit() else { return nil }
                value = value * 10 + d
            }
            return value
        }
    }
}
