import Foundation
import GraniteSQL
import GraniteStorage

/// A database connection that serializes all accesses, reads and writes alike, on one queue.
///
/// ```swift
/// let dbQueue = try DatabaseQueue(path: "/path/to/database.granite")
/// try dbQueue.write { db in
///     try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
/// }
/// let count = try dbQueue.read { db in
///     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
/// }
/// ```
///
/// `DatabaseQueue()` opens a private in-memory database; `DatabaseQueue(named:)` one shared by every queue of
/// the process opened with the same name.
public final class DatabaseQueue: DatabaseWriter {
    let writer: SerializedDatabase
    /// The configuration the database was opened with.
    public let configuration: Configuration
    /// The path of the database file, or `:memory:`.
    public let path: String
    private let sharedMemoryName: String?

    /// Opens the database file at `path`, creating it (and syncing its directory) when it does not exist.
    ///
    /// The queue has one connection: reads and writes run one after the other on its serial queue. Its
    /// write-ahead log is `path-wal`, shared with any other connection to the file, in this process or another.
    /// A file the process cannot write opens read-only, as does any file when `configuration.readonly` is set.
    ///
    /// - Parameters:
    ///   - path: The database file. Its directory must exist.
    ///   - configuration: Journal and busy modes, foreign keys, read-only access, `prepareDatabase` setups…
    ///     The setups run on the new connection before the initializer returns.
    /// - Throws: A ``DatabaseError``: `SQLITE_CANTOPEN` when the file cannot be opened or created (the
    ///   message names the path and the cause, such as "No such file or directory"), `SQLITE_NOTADB` for a
    ///   file that is not a Granite database (an SQLite file says so and points to `granite import`),
    ///   `SQLITE_CORRUPT` for a damaged header, `SQLITE_BUSY` when another process holds the file in a way
    ///   that does not let it open, or what a `prepareDatabase` setup throws.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.path = path
        sharedMemoryName = nil
        let engine: StorageEngine
        do {
            engine = try StorageEngine(path: path, options: configuration.queueStorageOptions)
        } catch {
            throw DatabaseError.from(error, sql: nil)
        }
        writer = try DatabaseQueue.makeWriter(engine: engine, configuration: configuration, label: "GRDB.DatabaseQueue")
    }

    /// Opens an in-memory database. Without a name it is private to this queue; with a name, every queue
    /// opened with that name in the process shares it, for as long as one of them is alive.
    public init(named name: String? = nil, configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        path = ":memory:"
        sharedMemoryName = name
        let engine: StorageEngine
        do {
            if let name {
                engine = try SharedMemoryDatabases.engine(named: name, options: configuration.queueStorageOptions)
            } else {
                engine = try StorageEngine.inMemory(options: configuration.queueStorageOptions)
            }
        } catch {
            throw DatabaseError.from(error, sql: nil)
        }
        writer = try DatabaseQueue.makeWriter(engine: engine, configuration: configuration, label: "GRDB.DatabaseQueue")
    }

    deinit {
        if let sharedMemoryName { SharedMemoryDatabases.release(sharedMemoryName) }
    }

    static func makeWriter(engine: StorageEngine, configuration: Configuration, label: String) throws
        -> SerializedDatabase
    {
        let description = configuration.label.map { $0 } ?? label
        let connection: SQLConnection
        do {
            connection = try SQLConnection(engine: engine)
        } catch {
            throw DatabaseError.from(error)
        }
        let db = try Database(connection: connection, configuration: configuration, description: description)
        let serialized = SerializedDatabase(database: db, label: description, qos: configuration.qos)
        try serialized.sync { db in
            for setup in configuration.setups { try setup(db) }
        }
        return serialized
    }

    /// Closes the database; later accesses fail.
    public func close() throws {
        try writer.sync { db in try db.close() }
    }

    // MARK: Reading

    /// Runs `value` in a read-only transaction and returns its result.
    ///
    /// The transaction sees one snapshot of the database for its whole duration; statements that write fail
    /// with `SQLITE_READONLY`. The call waits for the queue's other accesses to end.
    ///
    /// ```swift
    /// let count = try dbQueue.read { db in try Player.fetchCount(db) }
    /// ```
    ///
    /// - Throws: What `value` throws, or a ``DatabaseError`` when the transaction cannot begin. Calling it
    ///   from inside another access of the same queue throws `SQLITE_MISUSE` ("Database methods are not
    ///   reentrant."), where GRDB stops the program.
    @_disfavoredOverload
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try writer.sync { db in try db.isolatedRead { try value(db) } }
    }

    /// Runs `value` in a read-only transaction and returns its result.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.execute { db in try db.isolatedRead { try value(db) } }
    }

    /// Runs `value` in a read-only transaction, without waiting.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        writer.async { db in
            do {
                try db.isolatedRead { value(.success(db)) }
            } catch {
                value(.failure(error))
            }
        }
    }

    /// Runs `value` without a transaction.
    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try writer.sync(value)
    }

    /// Runs `value` without a transaction.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.execute(value)
    }

    /// Runs `value` without a transaction, without waiting.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        writer.async { db in value(.success(db)) }
    }

    /// Runs `value` without a transaction; may be called from inside another access.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try writer.reentrantSync(value)
    }

    // MARK: Writing

    /// Runs `updates` in a transaction of the given kind, committed or rolled back as the closure says.
    public func inTransaction(
        _ kind: Database.TransactionKind? = nil, _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try writer.sync { db in try db.inTransaction(kind) { try updates(db) } }
    }

    /// Runs `updates` outside of any transaction.
    @_disfavoredOverload
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try writer.sync { db in try db.checkingTransactionLeftOpen { try updates(db) } }
    }

    /// Runs `updates` outside of any transaction.
    public func writeWithoutTransaction<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await writer.execute { db in try db.checkingTransactionLeftOpen { try updates(db) } }
    }

    /// Runs `updates` outside of any transaction (a queue has no concurrent reads to wait for).
    @_disfavoredOverload
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction(updates)
    }

    /// Runs `updates` outside of any transaction.
    public func barrierWriteWithoutTransaction<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await writeWithoutTransaction(updates)
    }

    /// Runs `updates` outside of any transaction, without waiting.
    public func asyncBarrierWriteWithoutTransaction(
        _ updates: @escaping @Sendable (Result<Database, any Error>) -> Void
    ) {
        writer.async { db in updates(.success(db)) }
    }

    /// Runs `updates` outside of any transaction, without waiting.
    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        writer.async(updates)
    }

    /// Runs `updates` with the connection, serialized with every other access. A reentrant call is a programmer
    /// error.
    public func inDatabase<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.syncRethrowing(updates)
    }

    /// Runs `updates` with the connection; may be called from inside another access.
    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.reentrantSync(updates)
    }
}

/// The in-memory databases opened by name, shared by the queues that use the name.
enum SharedMemoryDatabases {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var entries: [String: (engine: StorageEngine, users: Int)] = [:]

    /// A new connection to the in-memory database `name`, created on first use.
    static func engine(named name: String, options: StorageOptions) throws -> StorageEngine {
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[name] {
            entries[name] = (entry.engine, entry.users + 1)
            return try StorageEngine(sharing: entry.engine, options: options)
        }
        let root = try StorageEngine.inMemory(options: options)
        entries[name] = (root, 1)
        return try StorageEngine(sharing: root, options: options)
    }

    /// Forgets the database `name` when its last queue goes.
    static func release(_ name: String) {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[name] else { return }
        if entry.users <= 1 {
            entries[name] = nil
        } else {
            entries[name] = (entry.engine, entry.users - 1)
        }
    }
}

extension Database {
    /// Runs `block`; a transaction it leaves open is rolled back and reported, unless the configuration allows
    /// unsafe transactions.
    func checkingTransactionLeftOpen<T>(_ block: () throws -> T) throws -> T {
        let result = try block()
        if !configuration.allowsUnsafeTransactions && connection.isInTransaction {
            try? rollback()
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "A transaction has been left opened at the end of a database access")
        }
        return result
    }

    /// Closes the connection.
    func close() throws {
        clearStatementCache()
        try wrap { try connection.engine.close() }
    }
}
