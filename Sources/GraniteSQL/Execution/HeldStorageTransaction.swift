import GraniteStorage

/// The storage transaction an ``SQLConnection`` began and has not ended yet.
///
/// Kept apart from ``TransactionState``: several SQL states share one storage transaction (running statements and a
/// snapshot read share a read; an autocommit statement begun inside a snapshot read replaces it by a write), and
/// telling a read from a write here is a switch, not a dynamic cast, on the per-statement path.
enum HeldStorageTransaction {
    /// The connection holds no storage transaction.
    case none
    /// The read snapshot of running statements, of ``SQLConnection/beginSnapshotRead()``, or of a deferred
    /// transaction that has not written yet.
    case read(ReadTransaction)
    /// The write transaction of an explicit transaction or of an autocommit statement.
    case write(WriteTransaction)

    /// The transaction held, whichever kind it is.
    var transaction: StorageTransaction? {
        switch self {
        case .none: return nil
        case .read(let read): return read
        case .write(let write): return write
        }
    }
}
