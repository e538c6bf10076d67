import Foundation

/// How an Encodable record encodes its `Date` properties.
///
/// ```swift
/// static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .iso8601 }
/// ```
public enum DatabaseDateEncodingStrategy: @unchecked Sendable {
    /// Encodes "YYYY-MM-DD HH:MM:SS.SSS" text in UTC. The default.
    case deferredToDate

    /// Encodes a Double: seconds since 2001-01-01 00:00:00 UTC.
    case timeIntervalSinceReferenceDate

    /// Encodes a Double: seconds since 1970-01-01 00:00:00 UTC.
    case timeIntervalSince1970

    /// Encodes an integer: whole seconds since 1970-01-01 00:00:00 UTC (rounded down).
    case secondsSince1970

    /// Encodes an integer: whole milliseconds since 1970-01-01 00:00:00 UTC (rounded down).
    case millisecondsSince1970

    /// Encodes an ISO 8601 string such as "2024-05-06T07:08:09Z".
    case iso8601

    /// Encodes a string with a formatter.
    case formatted(DateFormatter)

    /// Encodes with a function; nil encodes NULL.
    case custom(@Sendable (Date) -> (any DatabaseValueConvertible)?)

    /// The database value of `date`.
    func encode(_ date: Date) -> DatabaseValue {
        switch self {
        case .deferredToDate:
            return date.databaseValue
        case .timeIntervalSinceReferenceDate:
            return date.timeIntervalSinceReferenceDate.databaseValue
        case .timeIntervalSince1970:
            return date.timeIntervalSince1970.databaseValue
        case .secondsSince1970:
            return Int64(date.timeIntervalSince1970.rounded(.down)).databaseValue
        case .millisecondsSince1970:
            return Int64((1000 * date.timeIntervalSince1970).rounded(.down)).databaseValue
        case .iso8601:
            return iso8601DateFormatterLock.withLock { $0.string(from: date) }.databaseValue
        case .formatted(let formatter):
            return formatter.string(from: date).databaseValue
        case .custom(let format):
            return format(date)?.databaseValue ?? .null
        }
    }
}
