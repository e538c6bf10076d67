// Tests only: the transaction operations on the engine itself, acting on whatever transaction is in progress.
// Production code holds the ``StorageTransaction`` it began; the many storage tests that drive one engine step by
// step read better without threading the handle through every line.

import GraniteStorage

extension StorageEngine {
    /// The transaction in progress, or ``StorageError/noActiveTransaction``.
    private var inProgress: StorageTransaction {
        get throws {
            guard let transaction = currentTransaction else { throw StorageError.noActiveTransaction }
            return transaction
        }
    }

    /// The write transaction in progress; otherwise throws what the pager throws for a change outside one.
    private var writeInProgress: WriteTransaction {
        get throws {
            if let write = currentTransaction as? WriteTransaction { return write }
            try pager.prepareForWrite()
            throw StorageError.noActiveTransaction
        }
    }

    /// ``StorageTransaction/commit()`` of the transaction in progress; nothing when none is.
    package func commit() throws { try currentTransaction?.commit() }
    /// ``StorageTransaction/rollback()`` of the transaction in progress; nothing when none is.
    package func rollback() throws { try currentTransaction?.rollback() }
    /// Ends the read transaction in progress.
    package func endRead() throws { try currentTransaction?.commit() }

    package func table(named name: String) throws -> TableTree { try inProgress.table(named: name) }
    package func index(named name: String) throws -> IndexTree { try inProgress.index(named: name) }
    package func treeInfo(named name: String) throws -> TreeInfo? { try inProgress.treeInfo(named: name) }
    package func trees() throws -> [TreeInfo] { try inProgress.trees() }
    package var userVersion: UInt32 { get throws { try inProgress.userVersion } }
    package var schemaCookie: UInt32 { get throws { try inProgress.schemaCookie } }

    package func createTable(named name: String) throws -> TableTree { try writeInProgress.createTable(named: name) }
    package func createIndex(named name: String) throws -> IndexTree { try writeInProgress.createIndex(named: name) }
    package func dropTree(named name: String) throws { try writeInProgress.dropTree(named: name) }
    package func clearTree(named name: String) throws { try writeInProgress.clearTree(named: name) }
    package func setUserVersion(_ value: UInt32) throws { try writeInProgress.setUserVersion(value) }
    package func bumpSchemaCookie() throws { try writeInProgress.bumpSchemaCookie() }
    package func savepoint(_ name: String) throws { try writeInProgress.savepoint(name) }
    package func rollback(toSavepoint name: String) throws { try writeInProgress.rollback(toSavepoint: name) }
    package func releaseSavepoint(_ name: String) throws { try writeInProgress.releaseSavepoint(name) }
}
