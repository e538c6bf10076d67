/// An index tree: byte-comparable keys, each with an optional value.
///
/// Keys compare as unsigned bytes (shorter prefix first); build them with
/// ``KeyEncoding`` so that byte order equals SQL order.
public struct IndexTree {
    /// The tree's name in the catalog.
    public let name: String
    /// The tree's root page; it never changes while the tree exists.
    public let root: PageNumber
    let context: TreeContext

    var pager: Pager { context.pager }

    var tree: BTree { BTree(context: context, root: root, kind: .index) }

    /// Inserts a key; throws ``StorageError/duplicateKey`` when it exists.
    public func insert(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        _ = try tree.insert(.bytes(key), rowid: 0, key: key, payload: value, replace: false)
    }

    /// Inserts a key; throws ``StorageError/duplicateKey`` when it exists.
    public func insert(key: [UInt8], value: [UInt8] = []) throws {
        try key.withUnsafeBytes { k in try value.withUnsafeBytes { try insert(key: k, value: $0) } }
    }

    /// Inserts or overwrites a key's value; returns whether the key existed.
    @discardableResult
    public func replace(key: [UInt8], value: [UInt8] = []) throws -> Bool {
        try key.withUnsafeBytes { k in
            try value.withUnsafeBytes { try tree.insert(.bytes(k), rowid: 0, key: k, payload: $0, replace: true) }
        }
    }

    /// Deletes a key; returns whether it existed.
    @discardableResult
    public func delete(key: [UInt8]) throws -> Bool {
        try key.withUnsafeBytes { try tree.delete(.bytes($0)) }
    }

    /// Deletes a key; returns whether it existed.
    @discardableResult
    public func delete(key: UnsafeRawBufferPointer) throws -> Bool {
        try tree.delete(.bytes(key))
    }

    /// Calls `body` with the value stored at `key`; nil when absent.
    public func withValue<R>(key: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        let t = tree
        let result: R? = try key.withUnsafeBytes { k in
            let (leaf, index, found) = try t.descend(.bytes(k), context.path)
            guard found else { return nil }
            let cell = try leaf.cell(at: index)
            return try t.withPayload(leaf, cell) { try body(UnsafeRawBufferPointer(rebasing: $0[cell.keyLength...])) }
        }
        try pager.safePoint()
        return result
    }

    /// The value stored at `key`, or nil when the key is absent.
    public func get(key: [UInt8]) throws -> [UInt8]? {
        try withValue(key: key) { [UInt8]($0) }
    }

    /// Whether `key` is present.
    public func contains(key: [UInt8]) throws -> Bool {
        try key.withUnsafeBytes { try tree.descend(.bytes($0), context.path).found }
    }

    /// A cursor over the keys in byte order (initially not positioned).
    public func makeCursor() throws -> TreeCursor {
        TreeCursor(tree: tree)
    }

    /// The number of keys (walks every leaf).
    public func count() throws -> Int {
        try tree.countEntries()
    }
}
