import Foundation

// Encodable records: `encode(to:)` for free.

extension EncodableRecord where Self: Encodable {
    /// Encodes the record into `container`, through the record's coding strategies. Values that are not
    /// database values (arrays, dictionaries, nested structs) are stored as JSON strings.
    ///
    /// ```swift
    /// struct Player: Encodable, PersistableRecord { var id: Int64; var name: String }
    /// try Player(id: 1, name: "Arthur").insert(db)
    /// ```
    public func encode(to container: inout PersistenceContainer) throws {
        let encoder = RecordEncoder<Self>(container: container)
        try encode(to: encoder)
        if let error = encoder.error { throw error }
        container = encoder.container
    }
}

/// The encoder of a record: each key is a column of the persistence container.
private final class RecordEncoder<Record: EncodableRecord>: Encoder, SingleValueEncodingContainer {
    var container: PersistenceContainer
    /// The first unsupported encoding, thrown when the record is encoded.
    var error: (any Error)?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }

    init(container: PersistenceContainer) {
        self.container = container
    }

    func fail(_ description: String, codingPath: [any CodingKey]) {
        if error != nil { return }
        error = EncodingError.invalidValue(
            Record.self, EncodingError.Context(codingPath: codingPath, debugDescription: description))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordKeyedContainer<Record, Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fail("unkeyed encoding into a database row is not supported", codingPath: [])
        return DiscardingEncoder(codingPath: [])
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func persist(_ value: (any DatabaseValueConvertible)?, forKey key: some CodingKey) {
        container[Record.databaseColumnEncodingStrategy.column(forKey: key)] = value
    }

    /// Encodes a value into the column of `key`: Data, Date and UUID through the record's strategies, database
    /// values natively, single values of other types natively, and other values as JSON.
    func encode<T: Encodable>(_ value: T, forKey key: some CodingKey) throws {
        let column = Record.databaseColumnEncodingStrategy.column(forKey: key)
        if let data = value as? Data {
            container[column] = try Record.databaseDataEncodingStrategy(for: column).encode(data)
        } else if let date = value as? Date {
            container[column] = Record.databaseDateEncodingStrategy(for: column).encode(date)
        } else if let uuid = value as? UUID {
            container[column] = Record.databaseUUIDEncodingStrategy(for: column).encode(uuid)
        } else if let value = value as? any DatabaseValueConvertible {
            container[column] = value.databaseValue
        } else {
            let columnEncoder = ColumnEncoder(recordEncoder: self, key: key)
            do {
                try value.encode(to: columnEncoder)
                if columnEncoder.requiresJSON { throw JSONRequiredError() }
            } catch is JSONRequiredError {
                let json = try Record.databaseJSONEncoder(for: key.stringValue).encode(value)
                container[column] = String(decoding: json, as: UTF8.self)
            }
        }
    }

    private func singleValueError(_ value: Any) -> EncodingError {
        EncodingError.invalidValue(
            value, EncodingError.Context(codingPath: [], debugDescription: "a database row is not a single value"))
    }

    func encodeNil() throws { throw singleValueError(Optional<Int>.none as Any) }
    func encode(_ value: Bool) throws { throw singleValueError(value) }
    func encode(_ value: String) throws { throw singleValueError(value) }
    func encode(_ value: Double) throws { throw singleValueError(value) }
    func encode(_ value: Float) throws { throw singleValueError(value) }
    func encode(_ value: Int) throws { throw singleValueError(value) }
    func encode(_ value: Int8) throws { throw singleValueError(value) }
    func encode(_ value: Int16) throws { throw singleValueError(value) }
    func encode(_ value: Int32) throws { throw singleValueError(value) }
    func encode(_ value: Int64) throws { throw singleValueError(value) }
    func encode(_ value: UInt) throws { throw singleValueError(value) }
    func encode(_ value: UInt8) throws { throw singleValueError(value) }
    func encode(_ value: UInt16) throws { throw singleValueError(value) }
    func encode(_ value: UInt32) throws { throw singleValueError(value) }
    func encode(_ value: UInt64) throws { throw singleValueError(value) }

    /// A record that encodes itself as a single value: an encodable record fills the container, another
    /// value encodes its keys into it.
    func encode<T: Encodable>(_ value: T) throws {
        if let record = value as? any EncodableRecord {
            try record.encode(to: &container)
        } else {
            try value.encode(to: self)
        }
    }
}

/// The keyed container of a record encoder.
private struct RecordKeyedContainer<Record: EncodableRecord, Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder<Record>
    var codingPath: [any CodingKey] { [] }

    func encodeNil(forKey key: Key) throws { encoder.persist(nil, forKey: key) }
    func encode(_ value: Bool, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: String, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: Double, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: Float, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: Int, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: Int8, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: Int16, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: Int32, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: Int64, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: UInt, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: UInt8, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: UInt16, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: UInt32, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encode(_ value: UInt64, forKey key: Key) throws { encoder.persist(value, forKey: key) }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder.encode(value, forKey: key) }

    func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: String?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: Double?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: Float?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: Int?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { encoder.persist(value, forKey: key) }
    func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { encoder.persist(value, forKey: key) }

    func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value {
            try encoder.encode(value, forKey: key)
        } else {
            encoder.persist(nil, forKey: key)
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.fail("nested containers are not supported in a database row", codingPath: [key])
        return KeyedEncodingContainer(DiscardingEncoder.KeyedContainer<NestedKey>(codingPath: [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.fail("nested containers are not supported in a database row", codingPath: [key])
        return DiscardingEncoder(codingPath: [key])
    }

    func superEncoder() -> any Encoder { encoder }

    func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// The encoder of one column: single values go into the column; a keyed or unkeyed container means the
/// value is JSON.
private final class ColumnEncoder<Record: EncodableRecord, ColumnKey: CodingKey>: Encoder,
    SingleValueEncodingContainer
{
    let recordEncoder: RecordEncoder<Record>
    let key: ColumnKey
    var requiresJSON = false
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }

    init(recordEncoder: RecordEncoder<Record>, key: ColumnKey) {
        self.recordEncoder = recordEncoder
        self.key = key
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        requiresJSON = true
        return KeyedEncodingContainer(DiscardingEncoder.KeyedContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        requiresJSON = true
        return DiscardingEncoder(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { recordEncoder.persist(nil, forKey: key) }
    func encode(_ value: Bool) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: String) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: Double) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: Float) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: Int) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: Int8) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: Int16) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: Int32) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: Int64) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: UInt) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: UInt8) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: UInt16) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: UInt32) throws { recordEncoder.persist(value, forKey: key) }
    func encode(_ value: UInt64) throws { recordEncoder.persist(value, forKey: key) }

    func encode<T: Encodable>(_ value: T) throws { try recordEncoder.encode(value, forKey: key) }
}

/// An encoder that accepts everything and stores nothing: it stands for values that will be JSON-encoded.
struct DiscardingEncoder: Encoder, UnkeyedEncodingContainer, SingleValueEncodingContainer {
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var count: Int { 0 }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { self }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { self }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        var codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(KeyedContainer<NestedKey>(codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            DiscardingEncoder(codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { DiscardingEncoder(codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { DiscardingEncoder(codingPath: codingPath + [key]) }
    }
}
