// Transactions as values: what ``StorageEngine/beginRead()`` and ``StorageEngine/beginWrite()`` return. A
// transaction is a handle on the engine's one active transaction; once it ends (commit, rollback, or another
// transaction begun after it), every use throws ``StorageError/noActiveTransaction`` instead of acting on whatever
// transaction the engine has then.

/// What read and write transactions share: the snapshot they read, the trees and header fields they read, and
/// ending them.
///
/// A transaction is either a ``ReadTransaction`` or a ``WriteTransaction``. It is used from the thread that
/// began it, and stays valid until ``commit()`` or ``rollback()``; after that every method throws
/// ``StorageError/noActiveTransaction``. Tree handles obtained from it read and write through the engine's
/// active transaction: used when no transaction is active they throw ``StorageError/noActiveTransaction``.
public class StorageTransaction {
    /// The connection this transaction runs on.
    public let engine: StorageEngine
    /// Which of the engine's transactions this is: valid while it equals the engine's active serial.
    let serial: UInt64

    init(engine: StorageEngine, serial: UInt64) {
        self.engine = engine
        self.serial = serial
    }

    /// Whether the transaction is still in progress (not committed, rolled back or superseded).
    public final var isActive: Bool { engine.activeSerial == serial }

    /// Throws unless this transaction is the engine's active one.
    @inline(__always)
    final func checkActive() throws {
        guard engine.activeSerial == serial else { throw StorageError.noActiveTransaction }
    }

    /// The table tree named `name`; throws ``StorageError/notFound(_:)`` when there is none (or it is an index).
    public final func table(named name: String) throws -> TableTree {
        let info = try tree(named: name, kind: .table, describedAs: "table")
        return TableTree(name: name, root: info.root, context: engine.treeContext)
    }

    /// The index tree named `name`; throws ``StorageError/notFound(_:)`` when there is none (or it is a table).
    public final func index(named name: String) throws -> IndexTree {
        let info = try tree(named: name, kind: .index, describedAs: "index")
        return IndexTree(name: name, root: info.root, context: engine.treeContext)
    }

    /// The catalog entry of the tree `name` of `kind`; throws ``StorageError/notFound(_:)`` naming it as
    /// `noun` when there is none of that kind.
    private func tree(named name: String, kind: TreeKind, describedAs noun: String) throws -> TreeInfo {
        try checkActive()
        guard let info = try engine.catalog.lookup(name), info.kind == kind else {
            throw StorageError.notFound("\(noun) '\(name)'")
        }
        return info
    }

    /// The catalog entry of `name` (its kind and root page), or nil when no tree has that name.
    public final func treeInfo(named name: String) throws -> TreeInfo? {
        try checkActive()
        return try engine.catalog.lookup(name)
    }

    /// Every tree in the catalog, ordered by the bytes of their names.
    public final func trees() throws -> [TreeInfo] {
        try checkActive()
        return try engine.catalog.all()
    }

    /// The number stored in the header for applications (`PRAGMA user_version`), as this transaction sees it.
    public final var userVersion: UInt32 {
        get throws { try header().userVersion }
    }

    /// The schema cookie (FORMAT.md § "The header page") as this transaction sees it: it changes whenever a
    /// transaction changes the SQL schema.
    public final var schemaCookie: UInt32 {
        get throws { try header().schemaCookie }
    }

    /// The number of pages in the database (`PRAGMA page_count`), as this transaction sees it.
    package final var pageCount: UInt32 {
        get throws { try header().pageCount }
    }

    /// The number of pages on the freelist (`PRAGMA freelist_count`), as this transaction sees it.
    package final var freelistCount: UInt32 {
        get throws { try header().freelistCount }
    }

    /// The file header as this transaction sees it.
    private func header() throws -> FileHeader {
        try checkActive()
        try engine.pager.prepareForRead()
        return engine.pager.header
    }

    /// Ends the transaction: a write transaction's changes are appended to the log (and, at ``Durability/full``,
    /// synced); a read transaction releases its snapshot. On an I/O error a write transaction is rolled back and
    /// the error thrown; it has ended either way.
    public final func commit() throws {
        try checkActive()
        try engine.commitActiveTransaction()
    }

    /// Ends the transaction, dropping every change of a write transaction (no I/O on the database file).
    public final func rollback() throws {
        try checkActive()
        try engine.rollbackActiveTransaction()
    }
}

/// A read transaction: every read sees the snapshot of the latest commit taken when it began, whatever other
/// connections commit meanwhile. Returned by ``StorageEngine/beginRead()``; end it with ``commit()`` (or
/// ``rollback()``, the same for a read).
///
/// ```swift
/// let read = try engine.beginRead()
/// let count = try read.table(named: "items").count()
/// try read.commit()
/// ```
public final class ReadTransaction: StorageTransaction {
    /// Ends this read transaction and begins a write transaction on the latest commit, which may be newer than
    /// this transaction's snapshot (the way an SQL statement that starts writing in a deferred transaction goes on).
    /// Waits up to the busy time-out for the writer lock. This transaction has ended whether or not the write
    /// transaction could begin.
    public func upgradeToWrite() throws -> WriteTransaction {
        try checkActive()
        try engine.commitActiveTransaction()
        return try engine.beginWrite()
    }

    /// Turns this read transaction into a write transaction on the same snapshot, as SQLite's deferred transaction
    /// does at its first write after reading: takes the writer lock, waiting up to the busy time-out (then throwing
    /// ``StorageError/busy(_:)``), while the snapshot is still held.
    ///
    /// - Throws: ``StorageError/busySnapshot`` when another connection (of this process or another) committed
    ///   after the snapshot was taken: what this transaction read may be out of date. This read transaction then
    ///   goes on, on its snapshot; end it and begin again to write. ``StorageError/readOnly`` on a read-only
    ///   connection.
    public func upgradeToWriteOnSnapshot() throws -> WriteTransaction {
        try checkActive()
        return try engine.upgradeReadToWrite()
    }
}
