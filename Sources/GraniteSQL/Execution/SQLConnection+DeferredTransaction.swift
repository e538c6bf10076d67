import GraniteStorage

// A deferred transaction (`BEGIN` or `BEGIN DEFERRED`) holds no storage transaction until a statement needs one,
// as in SQLite: its first read takes a snapshot of the latest commit, and its first write takes the writer lock
// on that same snapshot. If another connection committed in between, the write fails with
// ``StorageError/busySnapshot`` (SQLite's `SQLITE_BUSY_SNAPSHOT`) and the transaction keeps reading its snapshot:
// writing over a commit it has not seen could lose that commit's changes.

extension SQLConnection {
    /// In an explicit transaction that has not read yet, takes its snapshot now, for a caller about to read the
    /// engine directly (a backup of the transaction's state). Does nothing otherwise.
    package func beginTransactionSnapshotIfDeferred() throws {
        if isInTransaction && !engineIsInTransaction { try beginDeferredTransactionRead() }
    }

    /// Begins the read snapshot of the explicit transaction, which has no storage transaction yet, and brings the
    /// catalog up to it.
    func beginDeferredTransactionRead() throws {
        try engineBeginRead()
        do {
            try refreshCatalog()
        } catch {
            try? engineEndRead()
            throw error
        }
    }

    /// Inside an explicit transaction, makes sure it holds the engine's write transaction before a statement
    /// writes: upgrades its read snapshot, or begins writing on the latest commit when it has not read yet.
    ///
    /// - Throws: ``StorageError/busySnapshot`` when another connection committed after the transaction's snapshot
    ///   (the transaction goes on reading it), ``StorageError/busy(_:)`` when the writer lock stays taken past the
    ///   busy time-out, ``StorageError/readOnly`` on a read-only database.
    func ensureWriteTransaction() throws {
        guard isInTransaction, !engineIsWriting else { return }
        if engineIsInTransaction {
            try engineUpgradeToWrite()
        } else {
            try beginWriteTransaction()
        }
        try openDeferredSavepoints()
    }
}
