import Foundation

/// The keyed container of an object of the fast JSON decoder.
///
/// A key is found by comparing its UTF-8 bytes with the members' keys (ASCII without escapes, checked by
/// ``JSONFastState/checkKeys(ofObject:)``), starting after the member found last: synthesized `init(from:)`s
/// ask for keys in declaration order, which is usually the order of the text.
final class JSONFastKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The shared state of the decode.
    let state: JSONFastState
    /// The token of the object.
    let object: Int
    /// The coding path of the object.
    let path: JSONCodingPathNode?
    /// The token of the first key.
    private let firstKey: Int
    /// The token after the object.
    private let end: Int
    /// The number of members.
    private let memberCount: Int
    /// The token of the key where the next search starts.
    private var hint: Int

    /// The container of the object at `object` (whose keys are checked).
    init(state: JSONFastState, object: Int, path: JSONCodingPathNode?) {
        self.state = state
        self.object = object
        self.path = path
        let token = state.tokens[object]
        firstKey = object + 1
        end = Int(token.next)
        memberCount = Int(token.count)
        hint = object + 1
    }

    /// The coding path of the object.
    var codingPath: [any CodingKey] { JSONCodingPathNode.codingPath(path) }

    /// The keys of the members that convert to `Key`, in the order of the text. Foundation lists them in the
    /// order of a dictionary: when two members convert to equal keys (`"1"` and `"01"` as integer keys), the
    /// order may change what the caller decodes, and the decode is abandoned to Foundation.
    var allKeys: [Key] {
        guard state.isReadable else { return [] }
        var keys: [Key] = []
        keys.reserveCapacity(memberCount)
        var strings = Set<String>(minimumCapacity: memberCount)
        var integers = Set<Int>()
        var key = firstKey
        while key < end {
            if let codingKey = Key(stringValue: state.decodeString(state.tokens[key])) {
                if !strings.insert(codingKey.stringValue).inserted
                    || codingKey.intValue.map({ !integers.insert($0).inserted }) ?? false
                {
                    state.abandon()
                }
                keys.append(codingKey)
            }
            key = Int(state.tokens[key + 1].next)
        }
        return keys
    }

    /// The token of the value of `key`, if any.
    private func find(_ key: Key) -> Int? {
        guard memberCount > 0, state.isReadable else { return nil }
        var name = key.stringValue
        return name.withUTF8 { name -> Int? in
            let tokens = state.tokens
            let base = state.base
            var candidate = hint
            for _ in 0..<memberCount {
                if candidate >= end { candidate = firstKey }
                let token = tokens[candidate]
                let next = Int(tokens[candidate + 1].next)
                if Int(token.end - token.start) == name.count,
                    name.isEmpty || memcmp(base + Int(token.start), name.baseAddress!, name.count) == 0
                {
                    hint = next
                    return candidate + 1
                }
                candidate = next
            }
            // A key that is not ASCII may equal an ASCII key as a `String` (canonical equivalence).
            if name.contains(where: { $0 >= 0x80 }) {
                let string = String(decoding: name, as: UTF8.self)
                candidate = firstKey
                while candidate < end {
                    if state.decodeString(tokens[candidate]) == string { return candidate + 1 }
                    candidate = Int(tokens[candidate + 1].next)
                }
            }
            return nil
        }
    }

    /// The token of the value of `key`, or a bail (Foundation's `keyNotFound`).
    private func value(_ key: Key) throws -> Int {
        guard let index = find(key) else { throw state.bail() }
        return index
    }

    /// The coding path step of `key`.
    private func node(_ key: Key) -> JSONCodingPathNode { JSONCodingPathNode(parent: path, key: key) }

    /// Whether the object has a member for `key`.
    func contains(_ key: Key) -> Bool { find(key) != nil }

    /// Whether the value of `key` is `null`.
    func decodeNil(forKey key: Key) throws -> Bool { try state.isNull(at: value(key)) }

    /// A boolean.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try state.bool(at: value(key)) }
    /// A string.
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try state.string(at: value(key)) }
    /// A double.
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try state.double(at: value(key)) }
    /// A float.
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try state.float(at: value(key)) }
    /// An integer.
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try state.integer(at: value(key)) }
    /// An integer.
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try state.integer(at: value(key)) }

    /// Any other value, with Foundation's special cases (see ``JSONFastState/unwrap(_:at:path:)``).
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try state.unwrap(T.self, at: value(key), path: node(key))
    }

    /// The token of the value of `key` unless it is missing or `null`.
    private func present(_ key: Key) throws -> Int? {
        guard let index = find(key), try !state.isNull(at: index) else { return nil }
        return index
    }

    /// A boolean, nil when missing or `null`.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try state.bool(at: $0) }
    }
    /// A string, nil when missing or `null`.
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try state.string(at: $0) }
    }
    /// A double, nil when missing or `null`.
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try state.double(at: $0) }
    }
    /// A float, nil when missing or `null`.
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try present(key).map { try state.float(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// An integer, nil when missing or `null`.
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try present(key).map { try state.integer(at: $0) }
    }
    /// Any other value, nil when missing or `null`.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try state.unwrap(T.self, at: $0, path: node(key)) }
    }

    /// The keyed container of the object of `key`.
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try JSONFastDecoder(state: state, index: value(key), path: node(key)).container(keyedBy: NestedKey.self)
    }

    /// The unkeyed container of the array of `key`.
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONFastDecoder(state: state, index: value(key), path: node(key)).unkeyedContainer()
    }

    /// A decoder of the value of the key `super` (`null` when missing).
    func superDecoder() throws -> any Decoder {
        let key = JSONPathKey.superKey
        var index = state.nullIndex
        if let found = try findName(key.stringValue) { index = found }
        return JSONFastDecoder(state: state, index: index, path: JSONCodingPathNode(parent: path, key: key))
    }

    /// A decoder of the value of `key` (`null` when missing).
    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONFastDecoder(state: state, index: find(key) ?? state.nullIndex, path: node(key))
    }

    /// The token of the value of the member named `name` (ASCII), if any.
    private func findName(_ name: String) throws -> Int? {
        guard state.isReadable else { throw state.bail() }
        var key = firstKey
        while key < end {
            if state.decodeString(state.tokens[key]) == name { return key + 1 }
            key = Int(state.tokens[key + 1].next)
        }
        return nil
    }
}
