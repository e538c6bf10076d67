/// The `Decoder` (and single value container) of one value of the fast JSON decoder.
///
/// ```swift
/// let value = try T(from: JSONFastDecoder(state: state, index: 0, path: nil))
/// ```
///
/// Whatever Foundation's `JSONDecoder` would reject (a type mismatch, a missing key, `null` for a value) throws
/// ``JSONFastBail``: the caller decodes the whole value again with Foundation, which throws its own error.
struct JSONFastDecoder: Decoder, SingleValueDecodingContainer {
    /// The shared state of the decode.
    let state: JSONFastState
    /// The token of the value.
    let index: Int
    /// The coding path of the value.
    let path: JSONCodingPathNode?

    /// The coding path of the value.
    var codingPath: [any CodingKey] { JSONCodingPathNode.codingPath(path) }

    /// The `JSONDecoder`'s user info.
    var userInfo: [CodingUserInfoKey: Any] { state.options.userInfo }

    /// The keyed container of an object.
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard try state.token(index).kind == .object else { throw state.bail() }
        try state.checkKeys(ofObject: index)
        return KeyedDecodingContainer(JSONFastKeyedContainer<Key>(state: state, object: index, path: path))
    }

    /// The unkeyed container of an array.
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard try state.token(index).kind == .array else { throw state.bail() }
        return JSONFastUnkeyedContainer(state: state, array: index, path: path)
    }

    /// The value itself.
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Whether the value is `null`.
    func decodeNil() -> Bool { (try? state.isNull(at: index)) ?? false }

    /// A boolean.
    func decode(_ type: Bool.Type) throws -> Bool { try state.bool(at: index) }
    /// A string.
    func decode(_ type: String.Type) throws -> String { try state.string(at: index) }
    /// A double.
    func decode(_ type: Double.Type) throws -> Double { try state.double(at: index) }
    /// A float.
    func decode(_ type: Float.Type) throws -> Float { try state.float(at: index) }
    /// An integer.
    func decode(_ type: Int.Type) throws -> Int { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: Int8.Type) throws -> Int8 { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: Int16.Type) throws -> Int16 { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: Int32.Type) throws -> Int32 { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: Int64.Type) throws -> Int64 { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: UInt.Type) throws -> UInt { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: UInt8.Type) throws -> UInt8 { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: UInt16.Type) throws -> UInt16 { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: UInt32.Type) throws -> UInt32 { try state.integer(at: index) }
    /// An integer.
    func decode(_ type: UInt64.Type) throws -> UInt64 { try state.integer(at: index) }

    /// Any other value, with Foundation's special cases (see ``JSONFastState/unwrap(_:at:path:)``).
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try state.unwrap(T.self, at: index, path: path) }
}
