/// A table tree: rows keyed by a 64-bit rowid.
///
/// A handle is cheap to copy; it stays usable while its ``StorageEngine`` is open.
///
/// ```swift
/// let write = try engine.beginWrite()
/// let people = try write.createTable(named: "people")
/// try people.insert(rowid: 1, payload: RowEncoder().encode([.text("Ada")]))
/// let row = try people.get(rowid: 1)
/// try write.commit()
/// ```
public struct TableTree {
    /// The tree's name in the catalog.
    public let name: String
    /// The tree's root page; it never changes while the tree exists.
    public let root: PageNumber
    let context: TreeContext

    var pager: Pager { context.pager }

    var tree: BTree { BTree(context: context, root: root, kind: .table) }

    /// Inserts a row; throws ``StorageError/duplicateKey`` when `rowid` exists.
    /// Ascending rowids take the append path and fill pages completely.
    public func insert(rowid: Int64, payload: UnsafeRawBufferPointer) throws {
        _ = try tree.insert(
            .rowid(rowid), rowid: rowid, key: UnsafeRawBufferPointer(start: nil, count: 0),
            payload: payload, replace: false)
    }

    /// Inserts a row; throws ``StorageError/duplicateKey`` when `rowid` exists.
    public func insert(rowid: Int64, payload: [UInt8]) throws {
        try payload.withUnsafeBytes { try insert(rowid: rowid, payload: $0) }
    }

    /// Inserts or overwrites a row; returns whether a row was replaced.
    @discardableResult
    public func replace(rowid: Int64, payload: UnsafeRawBufferPointer) throws -> Bool {
        // An UPDATE rewrites the row it just read: where that lookup left off, when nothing changed since.
        if try tree.replaceAtHint(rowid: rowid, payload: payload) { return true }
        return try tree.insert(
            .rowid(rowid), rowid: rowid, key: UnsafeRawBufferPointer(start: nil, count: 0),
            payload: payload, replace: true)
    }

    /// Inserts or overwrites a row; returns whether a row was replaced.
    @discardableResult
    public func replace(rowid: Int64, payload: [UInt8]) throws -> Bool {
        try payload.withUnsafeBytes { try replace(rowid: rowid, payload: $0) }
    }

    /// Deletes a row; returns whether it existed.
    @discardableResult
    public func delete(rowid: Int64) throws -> Bool {
        // A DELETE removes the row it just read: where that lookup left off, when nothing changed since.
        if try tree.deleteAtHint(rowid: rowid) { return true }
        return try tree.delete(.rowid(rowid))
    }

    /// Calls `body` with the payload of the row at `rowid`; nil when absent.
    public func withPayload<R>(rowid: Int64, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        let t = tree
        let (leaf, index, found) = try t.descend(.rowid(rowid), context.path)
        guard found else { return nil }
        context.rowHint = RowHint(root: root, generation: context.generation, page: leaf.number, index: index)
        let result = try t.withPayload(leaf, try leaf.cell(at: index), body)
        try pager.safePoint()
        return result
    }

    /// The payload of the row at `rowid`, or nil.
    public func get(rowid: Int64) throws -> [UInt8]? {
        try withPayload(rowid: rowid) { [UInt8]($0) }
    }

    /// Whether a row with `rowid` exists.
    public func contains(rowid: Int64) throws -> Bool {
        try tree.descend(.rowid(rowid), context.path).found
    }

    /// A cursor over the rows in rowid order (initially not positioned).
    public func makeCursor() throws -> TreeCursor {
        TreeCursor(tree: tree)
    }

    /// The number of rows (walks every leaf).
    public func count() throws -> Int {
        try tree.countEntries()
    }

    /// The largest rowid, or nil when the table is empty.
    public func lastRowid() throws -> Int64? {
        let cursor = try makeCursor()
        return try cursor.last() ? cursor.rowid : nil
    }
}

/// Where a lookup by rowid found its row: tree, leaf page and cell index, valid while the tree context's generation
/// is `generation` (any change to any tree, rollback or new snapshot bumps it).
struct RowHint {
    var root: PageNumber = 0
    var generation: UInt64 = 0
    var page: PageNumber = 0
    var index = 0
}
