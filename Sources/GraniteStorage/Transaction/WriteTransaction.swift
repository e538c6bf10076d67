// The write transaction: changes to trees and header fields, and nested savepoints.

/// A write transaction: holds the writer lock from ``StorageEngine/beginWrite()`` until ``commit()`` or
/// ``rollback()``, and sees its own changes. Besides reading (see ``StorageTransaction``) it creates, drops and
/// clears trees, changes header fields, and opens savepoints that can be rolled back to.
///
/// ```swift
/// let write = try engine.beginWrite()
/// let table = try write.createTable(named: "items")
/// try table.insert(rowid: 1, payload: [1, 2, 3])
/// try write.commit()
/// ```
public final class WriteTransaction: StorageTransaction {
    /// Creates an empty table tree named `name` (1 to 1024 bytes of UTF-8); throws
    /// ``StorageError/alreadyExists(_:)`` when a tree has that name.
    public func createTable(named name: String) throws -> TableTree {
        try checkActive()
        let info = try createTree(named: name, kind: .table)
        return TableTree(name: name, root: info.root, context: engine.treeContext)
    }

    /// Creates an empty index tree named `name` (1 to 1024 bytes of UTF-8); throws
    /// ``StorageError/alreadyExists(_:)`` when a tree has that name.
    public func createIndex(named name: String) throws -> IndexTree {
        try checkActive()
        let info = try createTree(named: name, kind: .index)
        return IndexTree(name: name, root: info.root, context: engine.treeContext)
    }

    /// Allocates the empty root page of a new tree and adds it to the catalog.
    private func createTree(named name: String, kind: TreeKind) throws -> TreeInfo {
        let pager = engine.pager
        try pager.prepareForWrite()
        guard !name.isEmpty, name.utf8.count <= 1024 else {
            throw StorageError.invalidArgument("tree names must have 1 to 1024 bytes")
        }
        let catalog = engine.catalog
        if try catalog.lookup(name) != nil { throw StorageError.alreadyExists("tree '\(name)'") }
        let root = try pager.allocatePage()
        TreePage(unchecked: root, base: try pager.writablePage(root), geometry: pager.geometry)
            .initialize(kind.leafType)
        let info = TreeInfo(name: name, kind: kind, root: root)
        try catalog.add(info)
        return info
    }

    /// Deletes the tree named `name` and frees all its pages (they go to the freelist).
    public func dropTree(named name: String) throws {
        try checkActive()
        try destroyTree(named: name, keepingRoot: false)
    }

    /// Removes every entry of the tree named `name`, keeping the tree (and its root page).
    public func clearTree(named name: String) throws {
        try checkActive()
        try destroyTree(named: name, keepingRoot: true)
    }

    /// Frees the pages of tree `name`: all of them, removing it from the catalog, or all but its emptied root.
    private func destroyTree(named name: String, keepingRoot: Bool) throws {
        let pager = engine.pager
        try pager.prepareForWrite()
        let catalog = engine.catalog
        guard let info = try catalog.lookup(name) else { throw StorageError.notFound("tree '\(name)'") }
        try BTree(context: engine.treeContext, root: info.root, kind: info.kind).destroy(keepRoot: keepingRoot)
        if !keepingRoot { try catalog.remove(name) }
        try pager.safePoint()
    }

    /// Changes the header's ``StorageTransaction/userVersion`` (`PRAGMA user_version = n`).
    public func setUserVersion(_ value: UInt32) throws {
        try checkActive()
        try engine.pager.prepareForWrite()
        engine.pager.header.userVersion = value
    }

    /// Increments the header's ``StorageTransaction/schemaCookie``, telling other connections to reload the schema
    /// once this transaction commits.
    public func bumpSchemaCookie() throws {
        try checkActive()
        try engine.pager.prepareForWrite()
        engine.pager.header.schemaCookie &+= 1
    }

    /// Opens a savepoint named `name` (matched without regard to ASCII case); savepoints nest.
    public func savepoint(_ name: String) throws {
        try checkActive()
        try engine.pager.prepareForWrite()
        try engine.pager.savepoint(name)
    }

    /// Undoes the changes made since savepoint `name` (the newest of that name); it and the savepoints before it
    /// stay open, later ones close. Throws ``StorageError/notFound(_:)`` when no savepoint has that name.
    public func rollback(toSavepoint name: String) throws {
        try checkActive()
        try engine.pager.rollback(toSavepoint: name)
    }

    /// Closes savepoint `name` and those opened after it, keeping their changes in the transaction.
    public func releaseSavepoint(_ name: String) throws {
        try checkActive()
        try engine.pager.releaseSavepoint(name)
    }
}
