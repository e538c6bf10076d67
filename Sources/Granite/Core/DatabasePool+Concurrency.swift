import Dispatch
import Foundation
import GraniteStorage

extension DatabasePool {
    /// The message of the misuse of a concurrent read started inside a transaction (as GRDB words it).
    private static let concurrentReadInTransactionMessage = """
        must not be called from inside a transaction. \
        If this error is raised from a DatabasePool.write block, use \
        DatabasePool.writeWithoutTransaction instead (and use \
        transactions when needed).
        """

    /// Runs `value` on a reader, concurrently with the writer, on a snapshot of the database as the writer
    /// sees it now: the read sees the writer's last commit even if the writer goes on writing. The caller is
    /// blocked until the snapshot is taken, not while `value` runs.
    ///
    /// Call it from a writer access, outside of any transaction (in `writeWithoutTransaction`); elsewhere
    /// `value` receives a `SQLITE_MISUSE` ``DatabaseError``.
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     try db.execute(sql: "DELETE FROM player")
    ///     dbPool.asyncConcurrentRead { dbResult in
    ///         let count = try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM player")   // 0
    ///     }
    ///     try db.execute(sql: "INSERT INTO player DEFAULT VALUES")
    /// }
    /// ```
    public func asyncConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        guard writer.isReentrant else {
            value(
                .failure(
                    DatabaseError(
                        resultCode: .SQLITE_MISUSE, message: "asyncConcurrentRead must be called from the writer")))
            return
        }
        let insideTransaction = writer.reentrantSync { db in db.isInsideTransaction }
        guard !insideTransaction else {
            value(.failure(DatabaseError(resultCode: .SQLITE_MISUSE, message: Self.concurrentReadInTransactionMessage)))
            return
        }
        let reader: SerializedDatabase
        do {
            reader = try readerPool.acquire()
        } catch {
            value(.failure(error))
            return
        }
        // The writer waits until the reader holds its snapshot, so that the snapshot is the writer's state now.
        let isolated = DispatchSemaphore(value: 0)
        let pool = readerPool
        reader.async { db in
            defer { pool.release(reader) }
            do {
                try db.isolatedRead {
                    isolated.signal()
                    value(.success(db))
                }
            } catch {
                isolated.signal()
                value(.failure(error))
            }
        }
        isolated.wait()
    }

    /// The same as ``asyncConcurrentRead(_:)``: runs `value` on a reader, on the writer's current state.
    public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncConcurrentRead(value)
    }

    /// Runs `updates` in a transaction of the given kind (the configuration's default when nil), committed or
    /// rolled back as the closure says, and rolled back when it throws.
    ///
    /// - Throws: A ``DatabaseError`` when the transaction fails, or what `updates` throws.
    public func writeInTransaction(
        _ kind: Database.TransactionKind? = nil, _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try inTransaction(kind, updates)
    }

    /// Closes the idle reader connections (new ones open on demand), which frees their memory. Readers busy
    /// with a read are left alone.
    public func invalidateReadOnlyConnections() {
        readerPool.closeIdleReaders()
    }

    /// A snapshot of the database as of the last commit, that sees that content forever (see
    /// ``DatabaseSnapshot``).
    ///
    /// - Throws: `SQLITE_MISUSE` ("makeSnapshot() must not be called from inside a transaction.") when called
    ///   from a writer access inside a transaction, or a ``DatabaseError`` when the connection cannot open.
    public func makeSnapshot() throws -> DatabaseSnapshot {
        let (engine, insideTransaction) = writer.reentrantSync { db in
            (db.connection.engine, db.isInsideTransaction)
        }
        if writer.isReentrant && insideTransaction {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "makeSnapshot() must not be called from inside a transaction.")
        }
        let label = (configuration.label ?? "GRDB.DatabasePool") + ".snapshot.\(Self.snapshotCounter.next())"
        return try DatabaseSnapshot(sharing: engine, path: path, configuration: configuration, label: label)
    }

    /// Numbers the snapshots of the process, for their labels.
    private static let snapshotCounter = SnapshotCounter()
}

extension DatabaseQueue {
    /// Runs `value` right away with the queue's connection, with writes refused: a queue has no concurrent
    /// reader. Call it from a write access, outside of any transaction; elsewhere `value` receives a
    /// `SQLITE_MISUSE` ``DatabaseError``.
    public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        guard writer.isReentrant else {
            value(
                .failure(
                    DatabaseError(
                        resultCode: .SQLITE_MISUSE, message: "spawnConcurrentRead must be called from the writer")))
            return
        }
        writer.reentrantSync { db in
            guard !db.isInsideTransaction else {
                value(
                    .failure(
                        DatabaseError(
                            resultCode: .SQLITE_MISUSE, message: "must not be called from inside a transaction.")))
                return
            }
            do {
                try db.isolatedRead { value(.success(db)) }
            } catch {
                value(.failure(error))
            }
        }
    }
}

/// A thread-safe counter.
final class SnapshotCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
