import Foundation

/// How a Decodable record decodes its `Date` properties.
///
/// ```swift
/// static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
///     .timeIntervalSince1970
/// }
/// ```
public enum DatabaseDateDecodingStrategy: @unchecked Sendable {
    /// Decodes with `Date.fromDatabaseValue`: "YYYY-MM-DD HH:MM:SS.SSS" and other SQLite date formats,
    /// Julian days, and Unix timestamps. The default.
    case deferredToDate

    /// Decodes a number of seconds since 2001-01-01 00:00:00 UTC.
    case timeIntervalSinceReferenceDate

    /// Decodes a number of seconds since 1970-01-01 00:00:00 UTC.
    case timeIntervalSince1970

    /// Decodes a number of milliseconds since 1970-01-01 00:00:00 UTC.
    case millisecondsSince1970

    /// Decodes an ISO 8601 string such as "2024-05-06T07:08:09Z".
    case iso8601

    /// Decodes a string with a formatter.
    case formatted(DateFormatter)

    /// Decodes with a function; nil is a decoding error.
    case custom(@Sendable (DatabaseValue) -> Date?)

    /// Decodes the non-NULL value at `index`.
    func decode(fromRow row: Row, atIndex index: Int) throws -> Date {
        let date: Date?
        switch self {
        case .deferredToDate:
            return try row.decode(Date.self, atIndex: index)
        case .timeIntervalSinceReferenceDate:
            date = try? Date(timeIntervalSinceReferenceDate: row.decode(Double.self, atIndex: index))
        case .timeIntervalSince1970:
            date = try? Date(timeIntervalSince1970: row.decode(Double.self, atIndex: index))
        case .millisecondsSince1970:
            date = try? Date(timeIntervalSince1970: row.decode(Double.self, atIndex: index) / 1000)
        case .iso8601:
            date = (try? row.decode(String.self, atIndex: index)).flatMap { string in
                iso8601DateFormatterLock.withLock { $0.date(from: string) }
            }
        case .formatted(let formatter):
            date = (try? row.decode(String.self, atIndex: index)).flatMap(formatter.date(from:))
        case .custom(let format):
            date = format(DatabaseValue(row.value(at: index)))
        }
        if let date { return date }
        throw RowDecodingError.valueMismatch(
            Date.self, row: row, key: .columnIndex(index), databaseValue: DatabaseValue(row.value(at: index)))
    }
}

/// The ISO 8601 formatter (internet date time) of the date strategies, behind a lock.
let iso8601DateFormatterLock = ISO8601FormatterBox()

/// A lock-protected `ISO8601DateFormatter`.
final class ISO8601FormatterBox: @unchecked Sendable {
    private let lock = NSLock()
    private let formatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = .withInternetDateTime
        return formatter
    }()

    func withLock<T>(_ body: (ISO8601DateFormatter) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(formatter)
    }
}
