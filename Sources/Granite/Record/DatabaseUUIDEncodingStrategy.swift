import Foundation

/// How an Encodable record encodes its `UUID` properties. Decoding needs no strategy: UUIDs decode from
/// 16-byte blobs and from strings of either case.
///
/// ```swift
/// static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
///     .uppercaseString
/// }
/// ```
public enum DatabaseUUIDEncodingStrategy: Sendable {
    /// Encodes a 16-byte blob. The default.
    case deferredToUUID

    /// Encodes "E621E1F8-C36C-495A-93FC-0C247A3E6E5F".
    case uppercaseString

    /// Encodes "e621e1f8-c36c-495a-93fc-0c247a3e6e5f".
    case lowercaseString

    /// The database value of `uuid`.
    func encode(_ uuid: UUID) -> DatabaseValue {
        switch self {
        case .deferredToUUID: return uuid.databaseValue
        case .uppercaseString: return uuid.uuidString.databaseValue
        case .lowercaseString: return uuid.uuidString.lowercased().databaseValue
        }
    }
}
