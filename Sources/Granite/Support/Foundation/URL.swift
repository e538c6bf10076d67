import Foundation

/// URLs are stored as the TEXT of their absolute string.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO link (url) VALUES (?)", arguments: [URL(string: "https://example.com")!])
/// let url = try URL.fetchOne(db, sql: "SELECT url FROM link")
/// ```
extension URL: DatabaseValueConvertible {
    /// The absolute string as TEXT.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(absoluteString)) }

    /// The URL of a TEXT, as `URL(string:)` parses it; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> URL? {
        guard case .string(let string) = dbValue.storage else { return nil }
        return URL(string: string)
    }
}

/// `NSURL` is stored and decoded as `URL`.
extension NSURL: DatabaseValueConvertible {
    /// The absolute string as TEXT.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(absoluteString)) }

    /// The URL of a TEXT, as `NSURL(string:)` parses it; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard case .string(let string) = dbValue.storage else { return nil }
        return NSURL(string: string) as? Self
    }
}
