import Foundation

// The default decoding of Decodable values: a value that decodes from a single value (a wrapper of a number,
// a string…) decodes from the database value itself; a value that needs a keyed or unkeyed container is
// stored as JSON, and is decoded from the text or blob with the type's databaseJSONDecoder().

extension DatabaseValueConvertible where Self: Decodable {
    /// The value decoded from `databaseValue`, or nil when it cannot be decoded.
    ///
    /// A type whose `init(from:)` reads a single value decodes from the database value directly. Other types
    /// (structs with keys, arrays, dictionaries) decode from the JSON stored as text or blob, with
    /// ``DatabaseValueConvertible/databaseJSONDecoder()``.
    ///
    /// ```swift
    /// struct Address: Codable, DatabaseValueConvertible {
    ///     var street: String
    ///     var city: String
    /// }
    /// let address = try Address.fetchOne(db, sql: "SELECT address FROM place")
    /// ```
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Self? {
        do {
            return try Self(from: DatabaseValueDecoder(dbValue: databaseValue))
        } catch is JSONRequiredError {
            return decodeJSON(from: databaseValue)
        } catch {
            return nil
        }
    }

    /// The value decoded from JSON text or blob, nil for other storage classes and invalid JSON.
    private static func decodeJSON(from dbValue: DatabaseValue) -> Self? {
        let decoder = databaseJSONDecoder()
        switch dbValue.storage {
        case .string(var text):
            return try? text.withUTF8 { utf8 in
                try JSONFastDecoding.decode(Self.self, from: UnsafeRawBufferPointer(utf8), with: decoder)
            }
        case .blob(let data):
            return try? data.withUnsafeBytes { bytes in
                try JSONFastDecoding.decode(Self.self, from: bytes, with: decoder)
            }
        case .null, .int64, .double:
            return nil
        }
    }
}

extension DatabaseValueConvertible where Self: Decodable & RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The value whose raw value decodes from `databaseValue`; nil otherwise. The raw value's own decoding
    /// wins over `Decodable`, so that a Codable enum reads the same column as a plain one. Inlinable for the
    /// reason given on the plain raw-representable one.
    @inlinable
    public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(databaseValue).flatMap { Self(rawValue: $0) }
    }
}

/// A decoder of one database value. It only has a single value container; asking for another container
/// throws ``JSONRequiredError``, so that the caller decodes the value from JSON instead.
private struct DatabaseValueDecoder: Decoder, SingleValueDecodingContainer {
    let dbValue: DatabaseValue
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw JSONRequiredError()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw JSONRequiredError()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { dbValue.isNull }

    func decode(_ type: Bool.Type) throws -> Bool { try converted(type) }
    func decode(_ type: String.Type) throws -> String { try converted(type) }
    func decode(_ type: Double.Type) throws -> Double { try converted(type) }
    func decode(_ type: Float.Type) throws -> Float { try converted(type) }
    func decode(_ type: Int.Type) throws -> Int { try converted(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try converted(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try converted(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try converted(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try converted(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try converted(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try converted(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try converted(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try converted(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try converted(type) }

    /// A database value type decodes with its own conversion (a `Date` from its text, for example), not
    /// with its `Decodable` implementation; other types decode from this decoder.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let convertible = T.self as? any DatabaseValueConvertible.Type else {
            return try T(from: self)
        }
        guard let value = convertible.fromDatabaseValue(dbValue) as? T else { throw mismatch() }
        return value
    }

    private func converted<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
        guard let value = T.fromDatabaseValue(dbValue) else { throw mismatch() }
        return value
    }

    private func mismatch() -> DecodingError {
        DecodingError.dataCorruptedError(in: self, debugDescription: "value mismatch")
    }
}
