import GraniteStorage

// The connection's calls to the storage engine's transactions, and the temporary store's that follow them.

extension SQLConnection {
    // MARK: Storage engine transactions

    // Every transaction call from the connection to the storage engine goes through these functions, on the
    // storage transaction the connection holds.

    var engineIsInTransaction: Bool {
        if case .none = storageTransaction { return false }
        return true
    }
    var engineIsWriting: Bool {
        if case .write = storageTransaction { return true }
        return false
    }

    // The temporary store, when there is one, follows every write transaction and savepoint (see TemporaryStore).

    func engineBeginRead() throws { storageTransaction = .read(try engine.beginRead()) }
    func engineBeginWrite() throws {
        storageTransaction = .write(try engine.beginWrite())
        try beginTemporaryStoreWithWrite()
    }

    /// Begins the temporary store's transaction with the write transaction just begun, which is rolled back if
    /// the temporary store's cannot begin.
    private func beginTemporaryStoreWithWrite() throws {
        guard let temporaryStore else { return }
        do {
            try temporaryStore.begin()
        } catch {
            try? releaseStorageTransaction()?.rollback()
            throw error
        }
    }
    /// Turns the read transaction in progress into a write transaction on the same snapshot
    /// (``ReadTransaction/upgradeToWriteOnSnapshot()``), or begins a write transaction when none is in progress.
    func engineUpgradeToWrite() throws {
        guard case .read(let read) = storageTransaction else { return try engineBeginWrite() }
        storageTransaction = .write(try read.upgradeToWriteOnSnapshot())
        try beginTemporaryStoreWithWrite()
    }
    func engineEndRead() throws { try releaseStorageTransaction()?.commit() }
    func engineCommit() throws {
        let writing = engineIsWriting
        do {
            try releaseStorageTransaction()?.commit()
        } catch {
            if writing, let temporaryStore { try? temporaryStore.rollback() }
            throw error
        }
        if writing, let temporaryStore { try temporaryStore.commit() }
    }
    func engineRollback() throws {
        let writing = engineIsWriting
        defer { if writing, let temporaryStore { try? temporaryStore.rollback() } }
        try releaseStorageTransaction()?.rollback()
    }
    func engineSavepoint(_ name: String) throws {
        try currentWriteTransaction().savepoint(name)
        if let temporaryStore { try temporaryStore.transaction.savepoint(name) }
    }
    func engineRollback(toSavepoint name: String) throws {
        try currentWriteTransaction().rollback(toSavepoint: name)
        if let temporaryStore { try temporaryStore.transaction.rollback(toSavepoint: name) }
    }
    func engineReleaseSavepoint(_ name: String) throws {
        try currentWriteTransaction().releaseSavepoint(name)
        if let temporaryStore { try temporaryStore.transaction.releaseSavepoint(name) }
    }

    /// Lets go of the storage transaction for the caller to end, moving it out rather than copying it (a retain and
    /// a release fewer on every statement).
    func releaseStorageTransaction() -> StorageTransaction? {
        var held = HeldStorageTransaction.none
        swap(&held, &storageTransaction)
        return held.transaction
    }

    /// The storage transaction in progress, for reading trees and header fields; throws
    /// ``StorageError/noActiveTransaction`` when the connection holds none.
    func currentTransaction() throws -> StorageTransaction {
        if let transaction = storageTransaction.transaction { return transaction }
        // A deferred transaction's first read.
        if isInTransaction {
            try beginDeferredTransactionRead()
            if let transaction = storageTransaction.transaction { return transaction }
        }
        throw StorageError.noActiveTransaction
    }

    /// The write transaction in progress, for changing trees and header fields; throws
    /// ``StorageError/noActiveTransaction`` when the connection holds none, and what a change in a read
    /// transaction throws when it holds a read.
    func currentWriteTransaction() throws -> WriteTransaction {
        if case .write(let write) = storageTransaction { return write }
        if isInTransaction {
            try ensureWriteTransaction()
            if case .write(let write) = storageTransaction { return write }
        }
        try engine.pager.prepareForWrite()
        throw StorageError.noActiveTransaction
    }
}
