import Foundation

/// `NSData` is stored and decoded as `Data`.
extension NSData: DatabaseValueConvertible {
    /// The bytes as a BLOB.
    public var databaseValue: DatabaseValue {
        DatabaseValue(storage: .blob(Data(bytes: bytes, count: length)))
    }

    /// The bytes of a BLOB, or the UTF-8 bytes of a TEXT, as `Data` decodes them; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard let data = Data.fromDatabaseValue(dbValue) else { return nil }
        return NSData(data: data) as? Self
    }
}
