// Implements FORMAT.md § "The catalog": the named roots of every tree.

/// A named tree as recorded in the catalog.
public struct TreeInfo: Equatable, Sendable {
    /// The tree's name (unique within the file).
    public var name: String
    /// Table or index.
    public var kind: TreeKind
    /// The tree's root page.
    public var root: PageNumber
}

/// The catalog: an index tree (rooted at the header's catalog root) whose
/// keys are tree names in UTF-8 and whose values are 5 bytes: the tree kind
/// (1 table, 2 index) and the root page number (UInt32 little-endian).
struct Catalog {
    let context: TreeContext

    var pager: Pager { context.pager }

    var tree: BTree { BTree(context: context, root: pager.header.catalogRoot, kind: .index) }

    static func decode(name: String, value: UnsafeRawBufferPointer, pager: Pager) throws -> TreeInfo {
        guard value.count == 5, let kind = TreeKind(rawValue: value[0]) else {
            throw StorageError.corrupt(page: pager.header.catalogRoot, "catalog entry '\(name)' is malformed")
        }
        let root = value.baseAddress!.u32(1)
        guard pager.isValidPageNumber(root) else {
            throw StorageError.corrupt(
                page: pager.header.catalogRoot, "catalog entry '\(name)' has root \(root) out of range")
        }
        return TreeInfo(name: name, kind: kind, root: root)
    }

    func lookup(_ name: String) throws -> TreeInfo? {
        let key = Array(name.utf8)
        let handle = IndexTree(name: "", root: pager.header.catalogRoot, context: context)
        return try handle.withValue(key: key) { try Catalog.decode(name: name, value: $0, pager: pager) }
    }

    func all() throws -> [TreeInfo] {
        let cursor = TreeCursor(tree: tree)
        var result: [TreeInfo] = []
        var ok = try cursor.first()
        while ok {
            guard let name = String(validating: cursor.key, as: UTF8.self) else {
                throw StorageError.corrupt(page: pager.header.catalogRoot, "catalog name is not UTF-8")
            }
            result.append(try cursor.withPayload { try Catalog.decode(name: name, value: $0, pager: pager) })
            ok = try cursor.next()
        }
        return result
    }

    func add(_ info: TreeInfo) throws {
        var value = [info.kind.rawValue, 0, 0, 0, 0]
        value.withUnsafeMutableBytes { $0.baseAddress!.setU32(1, info.root) }
        let handle = IndexTree(name: "", root: pager.header.catalogRoot, context: context)
        do {
            try handle.insert(key: Array(info.name.utf8), value: value)
        } catch StorageError.duplicateKey {
            throw StorageError.alreadyExists("tree '\(info.name)'")
        }
    }

    func remove(_ name: String) throws {
        let handle = IndexTree(name: "", root: pager.header.catalogRoot, context: context)
        _ = try handle.delete(key: Array(name.utf8))
    }
}
