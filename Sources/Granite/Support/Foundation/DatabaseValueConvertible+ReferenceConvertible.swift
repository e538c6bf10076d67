import Foundation

/// A Foundation value type whose reference type is convertible gets its conversions from the reference type.
///
/// ```swift
/// // URL's reference type is NSURL:
/// extension URL: DatabaseValueConvertible {} // would use NSURL's conversions
/// ```
extension DatabaseValueConvertible where Self: ReferenceConvertible, Self.ReferenceType: DatabaseValueConvertible {
    /// The value of the bridged reference type.
    public var databaseValue: DatabaseValue {
        guard let reference = self as? ReferenceType else { return .null }
        return reference.databaseValue
    }

    /// The value bridged from the reference type's decoded value; nil when it does not decode.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        ReferenceType.fromDatabaseValue(dbValue).flatMap { $0 as? Self }
    }
}
