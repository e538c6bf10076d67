import Foundation

/// A type that can encode itself into the columns of a database row.
///
/// ```swift
/// struct Player: EncodableRecord {
///     var id: Int64?
///     var name: String
///     func encode(to container: inout PersistenceContainer) {
///         container["id"] = id
///         container["name"] = name
///     }
/// }
/// ```
public protocol EncodableRecord {
    /// Stores the record's values into `container`, one column at a time.
    func encode(to container: inout PersistenceContainer) throws

    /// The user info of the encoders of the record (empty by default).
    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// The JSON encoder used for a JSON column.
    static func databaseJSONEncoder(for column: String) -> JSONEncoder

    /// How an Encodable record encodes the `Data` of a column (`.deferredToData` by default).
    static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy

    /// How an Encodable record encodes the `Date` of a column (`.deferredToDate` by default).
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy

    /// How an Encodable record encodes the `UUID` of a column (`.deferredToUUID` by default).
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy

    /// How an Encodable record maps coding keys to columns (`.useDefaultKeys` by default).
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { get }
}

extension EncodableRecord {
    /// Empty.
    public static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [:] }

    /// A JSON encoder with sorted keys, base64 data, dates in milliseconds since 1970, and throwing on
    /// non-conforming floats.
    public static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.outputFormatting = .sortedKeys
        encoder.userInfo = sendableUserInfo(databaseEncodingUserInfo)
        return encoder
    }

    /// `.deferredToData`.
    public static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy {
        .deferredToData
    }

    /// `.deferredToDate`.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .deferredToDate
    }

    /// `.deferredToUUID`.
    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
        .deferredToUUID
    }

    /// `.useDefaultKeys`.
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .useDefaultKeys }

    /// The encoded values, by column name.
    ///
    /// ```swift
    /// try player.databaseDictionary // ["id": 1, "name": "Arthur"]
    /// ```
    public var databaseDictionary: [String: DatabaseValue] {
        get throws {
            var dictionary: [String: DatabaseValue] = [:]
            for (column, value) in try PersistenceContainer(self) { dictionary[column] = value }
            return dictionary
        }
    }
}

extension Row {
    /// A row made of the encoded values of a record.
    convenience init(_ record: some EncodableRecord) throws {
        try self.init(PersistenceContainer(record))
    }
}
