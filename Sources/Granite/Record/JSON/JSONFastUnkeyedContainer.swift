/// The unkeyed container of an array of the fast JSON decoder: its elements in order.
struct JSONFastUnkeyedContainer: UnkeyedDecodingContainer {
    /// The shared state of the decode.
    let state: JSONFastState
    /// The coding path of the array.
    let path: JSONCodingPathNode?
    /// The number of elements.
    let count: Int?
    /// The index of the next element.
    private(set) var currentIndex = 0
    /// The token of the next element.
    private var cursor: Int

    /// The container of the array at `array`.
    init(state: JSONFastState, array: Int, path: JSONCodingPathNode?) {
        self.state = state
        self.path = path
        count = Int(state.tokens[array].count)
        cursor = array + 1
    }

    /// The coding path of the array.
    var codingPath: [any CodingKey] { JSONCodingPathNode.codingPath(path) }

    /// Whether every element was decoded.
    var isAtEnd: Bool { currentIndex >= count! }

    /// The token of the next element, or a bail at the end (Foundation's `valueNotFound`).
    private func current() throws -> Int {
        guard !isAtEnd, state.isReadable else { throw state.bail() }
        return cursor
    }

    /// Moves to the next element.
    private mutating func advance() {
        cursor = Int(state.tokens[cursor].next)
        currentIndex += 1
    }

    /// The coding path step of the next element.
    private var node: JSONCodingPathNode { JSONCodingPathNode(parent: path, key: JSONPathKey(index: currentIndex)) }

    /// Whether the next element is `null`, skipping it if so.
    mutating func decodeNil() throws -> Bool {
        guard try state.isNull(at: current()) else { return false }
        advance()
        return true
    }

    /// Decodes the next element with `read` and moves past it.
    private mutating func next<T>(_ read: (JSONFastState, Int) throws -> T) throws -> T {
        let value = try read(state, current())
        advance()
        return value
    }

    /// A boolean.
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.bool(at: $1) } }
    /// A string.
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.string(at: $1) } }
    /// A double.
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.double(at: $1) } }
    /// A float.
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.float(at: $1) } }
    /// An integer.
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.integer(at: $1) } }
    /// An integer.
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.integer(at: $1) } }

    /// Any other value, with Foundation's special cases (see ``JSONFastState/unwrap(_:at:path:)``).
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let node = node
        return try next { try $0.unwrap(T.self, at: $1, path: node) }
    }

    /// The keyed container of the next element.
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let node = node
        return try next { try JSONFastDecoder(state: $0, index: $1, path: node).container(keyedBy: NestedKey.self) }
    }

    /// The unkeyed container of the next element.
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let node = node
        return try next { try JSONFastDecoder(state: $0, index: $1, path: node).unkeyedContainer() }
    }

    /// A decoder of the next element.
    mutating func superDecoder() throws -> any Decoder {
        let node = node
        return try next { JSONFastDecoder(state: $0, index: $1, path: node) }
    }
}
