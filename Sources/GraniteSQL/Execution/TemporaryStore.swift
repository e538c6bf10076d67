import GraniteStorage

/// The storage of a connection's temporary schema (`temp`): an in-memory engine only this connection knows, made
/// on the first use of the schema and gone with the connection. Nothing of it reaches the database file or its log.
///
/// Its one write transaction stays open for the store's life; the connection's transactions are mirrored by
/// savepoints in it (``begin()``, ``commit()``, ``rollback()``, and the statement and user savepoints under their
/// own names), so that a rollback of the connection's transaction, of a savepoint or of a failing statement undoes
/// the temporary schema's changes with the main database's.
final class TemporaryStore {
    let engine: StorageEngine
    /// The store's open write transaction, which every temporary tree is read and written through.
    let transaction: WriteTransaction

    /// The savepoint standing for the connection's write transaction.
    private static let transactionSavepoint = "granite_temp_transaction"

    init() throws {
        engine = try StorageEngine.inMemory()
        transaction = try engine.beginWrite()
    }

    deinit {
        try? transaction.rollback()
        try? engine.close()
    }

    /// The connection began a write transaction.
    func begin() throws { try transaction.savepoint(Self.transactionSavepoint) }

    /// The connection's write transaction committed: its temporary changes stay.
    func commit() throws { try transaction.releaseSavepoint(Self.transactionSavepoint) }

    /// The connection's write transaction rolled back: its temporary changes are undone.
    func rollback() throws {
        try transaction.rollback(toSavepoint: Self.transactionSavepoint)
        try transaction.releaseSavepoint(Self.transactionSavepoint)
    }
}
