import Foundation

/// `NSNull` is stored as NULL, and never decoded (NULL decodes as nil).
extension NSNull: DatabaseValueConvertible {
    /// NULL.
    public var databaseValue: DatabaseValue { .null }

    /// Always nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? { nil }
}
