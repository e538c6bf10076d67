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
        return try engine.createTable(named: name)
    }

    /// Creates an empty index tree named `name` (1 to 1024 bytes of UTF-8); throws
    /// ``StorageError/alreadyExists(_:)`` when a tree has that name.
    public func createIndex(named name: String) throws -> IndexTree {
        try checkActive()
        return try engine.createIndex(named: name)
    }

    /// Deletes the tree named `name` and frees all its pages (they go to the freelist).
    public func dropTree(named name: String) throws {
        try checkActive()
        try engine.dropTree(named: name)
    }

    /// Removes every entry of the tree named `name`, keeping the tree (and its root page).
    public func clearTree(named name: String) throws {
        try checkActive()
        try engine.clearTree(named: name)
    }

    /// Changes the header's ``StorageTransaction/userVersion`` (`PRAGMA user_version = n`).
    public func setUserVersion(_ value: UInt32) throws {
        try checkActive()
        try engine.setUserVersion(value)
    }

    /// Increments the header's ``StorageTransaction/schemaCookie``, telling other connections to reload the schema
    /// once this transaction commits.
    public func bumpSchemaCookie() throws {
        try checkActive()
        try engine.bumpSchemaCookie()
    }

    /// Opens a savepoint named `name` (matched without regard to ASCII case); savepoints nest.
    public func savepoint(_ name: String) throws {
        try checkActive()
        try engine.savepoint(name)
    }

    /// Undoes the changes made since savepoint `name` (the newest of that name); it and the savepoints before it
    /// stay open, later ones close. Throws ``StorageError/notFound(_:)`` when no savepoint has that name.
    public func rollback(toSavepoint name: String) throws {
        try checkActive()
        try engine.rollback(toSavepoint: name)
    }

    /// Closes savepoint `name` and those opened after it, keeping their changes in the transaction.
    public func releaseSavepoint(_ name: String) throws {
        try checkActive()
        try engine.releaseSavepoint(name)
    }
}
