import Dispatch
import GraniteSQL
import GraniteStorage

/// A reader that sees the database as it was when ``DatabasePool/makeSnapshot()`` made it, for as long as it
/// lives: later writes and checkpoints never show through (the engine's checkpointer leaves in the log the
/// pages the snapshot still needs).
///
/// ```swift
/// let snapshot = try dbPool.makeSnapshot()
/// try dbPool.write { db in try db.execute(sql: "DELETE FROM player") }
/// let count = try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
/// // count is the number of players before the deletion
/// ```
///
/// A snapshot has its own connection, whose read transaction stays open until the snapshot is deallocated
/// or closed: keep snapshots short-lived, as the log cannot be fully checkpointed while one lives.
public final class DatabaseSnapshot {
    let reader: SerializedDatabase
    /// The configuration of the snapshot's connection (read-only).
    public let configuration: Configuration
    /// The path of the database file.
    public let path: String

    init(sharing engine: StorageEngine, path: String, configuration: Configuration, label: String) throws {
        var configuration = configuration
        configuration.readonly = true
        configuration.maximumReaderCount = 1
        configuration.allowsUnsafeTransactions = true
        self.configuration = configuration
        self.path = path
        var options = configuration.storageOptions(defaultDurability: .full)  // as pool readers: snapshots never write
        options.readOnly = false  // shares the pool's file; writes are refused at the SQL level
        let snapshotEngine: StorageEngine
        do {
            snapshotEngine = try StorageEngine(sharing: engine, options: options)
        } catch {
            throw DatabaseError.from(error)
        }
        reader = try DatabaseQueue.makeWriter(engine: snapshotEngine, configuration: configuration, label: label)
        try reader.sync { db in try db.wrap { try db.connection.beginSnapshotRead() } }
    }

    deinit {
        reader.reentrantSync { db in
            try? db.connection.endSnapshotRead()
            try? db.close()
        }
    }
}

extension DatabaseSnapshot: DatabaseSnapshotReader {
    /// Ends the snapshot and closes its connection; later reads throw.
    public func close() throws {
        try reader.sync { db in
            try? db.connection.endSnapshotRead()
            try db.close()
        }
    }

    /// Runs `block` on the snapshot and returns its result. A call from inside another access of the snapshot
    /// is a programmer error.
    ///
    /// - Throws: What `block` throws.
    @_disfavoredOverload
    public func read<T>(_ block: (Database) throws -> T) rethrows -> T {
        try reader.syncRethrowing { db in try db.refusingWrites { try block(db) } }
    }

    /// Runs `value` on the snapshot and returns its result.
    ///
    /// - Throws: What `value` throws.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await reader.execute { db in try db.refusingWrites { try value(db) } }
    }

    /// Runs `value` on the snapshot, without waiting.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        reader.async { db in db.refusingWrites { value(.success(db)) } }
    }

    /// Runs `value` on the snapshot: the same as `read(_:)` (a snapshot has no unsafe access).
    ///
    /// - Throws: What `value` throws.
    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) rethrows -> T {
        try read(value)
    }

    /// Runs `value` on the snapshot: the same as `read(_:)`.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await read(value)
    }

    /// Runs `value` on the snapshot, without waiting: the same as ``asyncRead(_:)``.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncRead(value)
    }

    /// Runs `value` on the snapshot; may be called from inside another access of the snapshot.
    ///
    /// - Throws: What `value` throws.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try reader.reentrantSync { db in try db.refusingWrites { try value(db) } }
    }
}

/// A reader whose every read sees the same database content: ``DatabaseSnapshot``. Do not declare other
/// conformances: the guarantee is what makes reentrant reads safe.
public protocol DatabaseSnapshotReader: DatabaseReader {}

extension DatabaseSnapshotReader {
    /// Runs `value` and returns its result; may be called from inside another access, since a snapshot reads
    /// the same content everywhere.
    ///
    /// - Throws: What `value` throws.
    public func reentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try unsafeReentrantRead(value)
    }

    /// Runs `value`: the same as `read`, since a snapshot has no unsafe access.
    ///
    /// - Throws: What `value` throws.
    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try read(value)
    }

    /// Runs `value` without waiting: the same as `asyncRead`.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncRead(value)
    }
}
