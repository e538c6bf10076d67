// The coding path of the fast JSON decoder: a linked list built as values nest, an array only when asked for.

/// One step of a coding path: its key and the step before it.
///
/// ```swift
/// let node = JSONCodingPathNode(parent: nil, key: JSONPathKey(index: 0))
/// JSONCodingPathNode.codingPath(node)  // [Index 0]
/// ```
final class JSONCodingPathNode {
    /// The step before this one, nil at the top level.
    let parent: JSONCodingPathNode?
    /// The key of this step.
    let key: any CodingKey

    /// A step of `key` after `parent`.
    init(parent: JSONCodingPathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    /// The keys from the top level down to `node`.
    static func codingPath(_ node: JSONCodingPathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = node
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }
}

/// The keys the fast JSON decoder makes itself, as Foundation's: `Index N` for array elements, `super`.
///
/// ```swift
/// JSONPathKey(index: 2).stringValue  // "Index 2"
/// ```
struct JSONPathKey: CodingKey {
    /// The key's string.
    var stringValue: String
    /// The key's integer (array elements).
    var intValue: Int?

    /// A key of `stringValue`.
    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    /// A key of `intValue`, named by its decimal digits.
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key of the array element at `index`.
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    /// The key of a super decoder.
    static let superKey = JSONPathKey(stringValue: "super")
}
