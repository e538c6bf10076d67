import Foundation

/// `NSString` is stored and decoded as `String`.
extension NSString: DatabaseValueConvertible {
    /// The string as TEXT.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(substring(from: 0))) }

    /// The string of a TEXT; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard case .string(let string) = dbValue.storage else { return nil }
        return NSString(string: string) as? Self
    }
}
