import Foundation

// The default encoding of Encodable values: a value that encodes a single value (a wrapper of a number, a
// string…) is stored as that value; a value that needs a keyed or unkeyed container is stored as JSON text,
// encoded with the type's databaseJSONEncoder(). Text rather than blob keeps the JSON readable in the
// database and usable by SQLite's JSON functions.

extension DatabaseValueConvertible where Self: Encodable {
    /// The value stored in the database: the single value the value encodes, or its JSON as TEXT.
    ///
    /// The JSON comes from ``DatabaseValueConvertible/databaseJSONEncoder()`` (sorted keys, so that equal
    /// values give equal text). A value that the JSON encoder rejects (a NaN with the default encoder, for
    /// example) is stored as NULL: the property cannot throw.
    ///
    /// ```swift
    /// struct Address: Codable, DatabaseValueConvertible {
    ///     var street: String
    ///     var city: String
    /// }
    /// Address(street: "Main Street", city: "Paris").databaseValue
    /// // "{"city":"Paris","street":"Main Street"}"
    /// ```
    public var databaseValue: DatabaseValue {
        let encoder = DatabaseValueEncoder()
        do {
            try encode(to: encoder)
            if !encoder.requiresJSON { return encoder.encodedValue }
        } catch {
            // Rejected as a single value: JSON is the only remaining representation.
        }
        guard let json = try? Self.databaseJSONEncoder().encode(self) else { return .null }
        return DatabaseValue(storage: .string(String(decoding: json, as: UTF8.self)))
    }
}

extension DatabaseValueConvertible where Self: Encodable & RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The raw value: a Codable enum is stored like a plain one.
    @inlinable
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
}

/// An encoder of one database value. Asking for a keyed or unkeyed container marks the value as JSON (the
/// encoding protocols do not let the container throw), and the containers it returns discard what they get.
private final class DatabaseValueEncoder: Encoder, SingleValueEncodingContainer {
    private(set) var encodedValue = DatabaseValue.null
    private(set) var requiresJSON = false
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        requiresJSON = true
        return KeyedEncodingContainer(DiscardingEncoder.KeyedContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        requiresJSON = true
        return DiscardingEncoder(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { encodedValue = .null }
    func encode(_ value: Bool) throws { encodedValue = value.databaseValue }
    func encode(_ value: String) throws { encodedValue = value.databaseValue }
    func encode(_ value: Double) throws { encodedValue = value.databaseValue }
    func encode(_ value: Float) throws { encodedValue = value.databaseValue }
    func encode(_ value: Int) throws { encodedValue = value.databaseValue }
    func encode(_ value: Int8) throws { encodedValue = value.databaseValue }
    func encode(_ value: Int16) throws { encodedValue = value.databaseValue }
    func encode(_ value: Int32) throws { encodedValue = value.databaseValue }
    func encode(_ value: Int64) throws { encodedValue = value.databaseValue }
    func encode(_ value: UInt) throws { encodedValue = value.databaseValue }
    func encode(_ value: UInt8) throws { encodedValue = value.databaseValue }
    func encode(_ value: UInt16) throws { encodedValue = value.databaseValue }
    func encode(_ value: UInt32) throws { encodedValue = value.databaseValue }
    func encode(_ value: UInt64) throws { encodedValue = value.databaseValue }

    /// A database value type is stored with its own conversion (a `Date` as text, for example), not with its
    /// `Encodable` implementation; other types encode into this encoder.
    func encode<T: Encodable>(_ value: T) throws {
        if let convertible = value as? any DatabaseValueConvertible {
            encodedValue = convertible.databaseValue
        } else {
            try value.encode(to: self)
        }
    }
}
