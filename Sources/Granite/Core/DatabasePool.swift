import Dispatch
import Foundation
import GraniteSQL
import GraniteStorage

/// A database with one writer connection and a pool of reader connections: reads run concurrently with each
/// other and with the writer, each on a stable snapshot of the last commit.
///
/// ```swift
/// let dbPool = try DatabasePool(path: "/path/to/database.granite")
/// try dbPool.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// let count = try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
/// ```
public final class DatabasePool: DatabaseWriter {
    let writer: SerializedDatabase
    let readerPool: ReaderPool
    /// The configuration the database was opened with.
    public let configuration: Configuration
    /// The path of the database file.
    public let path: String

    /// Opens the database file at `path`, creating it when it does not exist, with one writer connection and
    /// up to `configuration.maximumReaderCount` reader connections, opened on demand.
    ///
    /// Readers run concurrently with each other and with the writer, each on a snapshot of the last commit;
    /// writes run one at a time. Other pools, queues and processes may open the same file.
    ///
    /// - Parameters:
    ///   - path: The database file. Its directory must exist.
    ///   - configuration: The pool's settings; its `prepareDatabase` setups run on every connection it opens.
    /// - Throws: A ``DatabaseError``, as ``DatabaseQueue/init(path:configuration:)`` does.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        precondition(configuration.maximumReaderCount > 0, "configuration.maximumReaderCount must be positive")
        self.configuration = configuration
        self.path = path
        let engine: StorageEngine
        do {
            // GRDB runs a pool's writer at NORMAL, SQLite's advice for WAL mode.
            engine = try StorageEngine(path: path, options: configuration.storageOptions(defaultDurability: .normal))
        } catch {
            throw DatabaseError.from(error)
        }
        let label = configuration.label ?? "GRDB.DatabasePool"
        var writerConfiguration = configuration
        writerConfiguration.defaultTransactionKind = .immediate
        writer = try DatabaseQueue.makeWriter(
            engine: engine, configuration: writerConfiguration, label: label + ".writer")
        var readerConfiguration = configuration
        readerConfiguration.readonly = true
        readerPool = ReaderPool(maximumCount: configuration.maximumReaderCount) { index in
            // Readers never commit; they keep SQLite's default level, which `PRAGMA synchronous` reads back.
            var options = readerConfiguration.storageOptions(defaultDurability: .full)
            options.readOnly = false  // shares the writer's file; writes are refused at the SQL level
            let readerEngine: StorageEngine
            do {
                readerEngine = try StorageEngine(sharing: engine, options: options)
            } catch {
                throw DatabaseError.from(error)
            }
            return try DatabaseQueue.makeWriter(
                engine: readerEngine, configuration: readerConfiguration, label: label + ".reader.\(index)")
        }
    }

    /// Closes every connection; later accesses fail.
    public func close() throws {
        try readerPool.closeAll()
        try writer.sync { db in try db.close() }
    }

    // MARK: Reading

    /// Runs `value` on a reader, on a snapshot of the last commit, and returns its result.
    ///
    /// The read does not wait for the writer, and later commits do not change what it sees. It waits for a
    /// free reader when `configuration.maximumReaderCount` reads already run.
    ///
    /// - Throws: What `value` throws, or a ``DatabaseError``: `SQLITE_READONLY` for a statement that writes,
    ///   `SQLITE_MISUSE` when called from inside another access of the pool.
    @_disfavoredOverload
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try onReader(isolated: true, value)
    }

    /// Runs `value` on a reader, on a snapshot of the last commit, and returns its result.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await onReader(isolated: true, value)
    }

    /// Runs `value` on a reader, on a snapshot of the last commit, without waiting.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncOnReader(isolated: true, value)
    }

    /// Runs `value` on a reader, without a snapshot transaction.
    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try onReader(isolated: false, value)
    }

    /// Runs `value` on a reader, without a snapshot transaction.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await onReader(isolated: false, value)
    }

    /// Runs `value` on a reader, without a snapshot transaction, without waiting.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncOnReader(isolated: false, value)
    }

    /// Runs `value` on a reader with writes refused, on one snapshot when `isolated`.
    private func onReader<T>(isolated: Bool, _ value: (Database) throws -> T) throws -> T {
        if writer.isReentrant || readerPool.isReentrant {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: SerializedDatabase.reentrancyMessage)
        }
        return try readerPool.withReader { reader in
            try reader.sync { db in try db.readAccess(isolated: isolated) { try value(db) } }
        }
    }

    private func onReader<T: Sendable>(
        isolated: Bool, _ value: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let reader = try await readerPool.acquireAsync()
        defer { readerPool.release(reader) }
        return try await reader.execute { db in try db.readAccess(isolated: isolated) { try value(db) } }
    }

    private func asyncOnReader(
        isolated: Bool, _ value: @escaping @Sendable (Result<Database, any Error>) -> Void
    ) {
        let pool = readerPool
        DispatchQueue.global(qos: configuration.qos.qosClass).async {
            do {
                let reader = try pool.acquire()
                reader.async { db in
                    defer { pool.release(reader) }
                    do {
                        try db.readAccess(isolated: isolated) { value(.success(db)) }
                    } catch {
                        value(.failure(error))
                    }
                }
            } catch {
                value(.failure(error))
            }
        }
    }

    /// Runs `value` on the connection of the current access if there is one, else on a reader.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        if writer.isReentrant { return try writer.reentrantSync(value) }
        if let reader = readerPool.currentReader { return try reader.reentrantSync(value) }
        return try readerPool.withReader { reader in try reader.sync { db in try db.refusingWrites { try value(db) } } }
    }

    // MARK: Writing

    /// Runs `updates` in a transaction of the given kind, committed or rolled back as the closure says.
    public func inTransaction(
        _ kind: Database.TransactionKind? = nil, _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try writer.sync { db in try db.inTransaction(kind) { try updates(db) } }
    }

    /// Runs `updates` on the writer, outside of any transaction.
    @_disfavoredOverload
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        if readerPool.isReentrant {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: SerializedDatabase.reentrancyMessage)
        }
        return try writer.sync { db in try db.checkingTransactionLeftOpen { try updates(db) } }
    }

    /// Runs `updates` on the writer, outside of any transaction.
    public func writeWithoutTransaction<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await writer.execute { db in try db.checkingTransactionLeftOpen { try updates(db) } }
    }

    /// Waits until no read runs, then runs `updates` on the writer while no read starts.
    @_disfavoredOverload
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try readerPool.barrier { try writeWithoutTransaction(updates) }
    }

    /// Waits until no read runs, then runs `updates` on the writer while no read starts.
    public func barrierWriteWithoutTransaction<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let pool = readerPool
        let writer = self.writer
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DispatchQueue.global(qos: configuration.qos.qosClass).async {
                continuation.resume(
                    with: Result {
                        try pool.barrier {
                            try writer.sync { db in try db.checkingTransactionLeftOpen { try updates(db) } }
                        }
                    })
            }
        }
    }

    /// Waits until no read runs, then runs `updates` on the writer, without blocking the caller.
    public func asyncBarrierWriteWithoutTransaction(
        _ updates: @escaping @Sendable (Result<Database, any Error>) -> Void
    ) {
        let pool = readerPool
        let writer = self.writer
        DispatchQueue.global(qos: configuration.qos.qosClass).async {
            pool.barrier { writer.syncRethrowing { db in updates(.success(db)) } }
        }
    }

    /// Runs `updates` on the writer, outside of any transaction, without waiting.
    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        writer.async(updates)
    }

    /// Runs `updates` on the writer; may be called from inside another writer access.
    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.reentrantSync(updates)
    }
}

/// The reader connections of a pool: created on demand up to a maximum, handed out one access at a time.
final class ReaderPool: @unchecked Sendable {
    private let maximumCount: Int
    private let makeReader: (Int) throws -> SerializedDatabase
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var all: [SerializedDatabase] = []
    private var available: [SerializedDatabase] = []
    private var barrierActive = false
    private var busyCount = 0
    private var closed = false

    init(maximumCount: Int, makeReader: @escaping (Int) throws -> SerializedDatabase) {
        self.maximumCount = maximumCount
        self.makeReader = makeReader
    }

    /// Whether the current thread is inside a read of one of the readers.
    var isReentrant: Bool { currentReader != nil }

    /// The reader whose access runs on the current thread, if any.
    var currentReader: SerializedDatabase? {
        condition.lock()
        let readers = all
        condition.unlock()
        return readers.first { $0.isReentrant }
    }

    /// Every reader made so far, busy or not.
    var readers: [SerializedDatabase] {
        condition.lock()
        defer { condition.unlock() }
        return all
    }

    /// A reader, waiting while all are busy or a barrier runs.
    func acquire() throws -> SerializedDatabase {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed.") }
            if !barrierActive {
                if let reader = available.popLast() {
                    busyCount += 1
                    return reader
                }
                if all.count < maximumCount {
                    let reader = try makeReader(all.count + 1)
                    all.append(reader)
                    busyCount += 1
                    return reader
                }
            }
            condition.wait()
        }
    }

    /// A reader, awaited without blocking a thread of the cooperative pool.
    func acquireAsync() async throws -> SerializedDatabase {
        try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<SerializedDatabase, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.acquire() })
            }
        }
    }

    /// Gives a reader back.
    func release(_ reader: SerializedDatabase) {
        condition.lock()
        available.append(reader)
        busyCount -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `body` with a reader.
    func withReader<T>(_ body: (SerializedDatabase) throws -> T) throws -> T {
        let reader = try acquire()
        defer { release(reader) }
        return try body(reader)
    }

    /// Waits until no reader is busy, then runs `body` while no read can start.
    func barrier<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        while barrierActive { condition.wait() }
        barrierActive = true
        while busyCount > 0 { condition.wait() }
        condition.unlock()
        defer {
            condition.lock()
            barrierActive = false
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// Closes the readers that are not busy and forgets them (new ones are made on demand).
    func closeIdleReaders() {
        condition.lock()
        let idle = available
        available.removeAll()
        all.removeAll { reader in idle.contains { $0 === reader } }
        condition.unlock()
        for reader in idle { try? reader.sync { db in try db.close() } }
    }

    /// Closes every reader.
    func closeAll() throws {
        let readers: [SerializedDatabase] = barrier {
            condition.lock()
            closed = true
            let readers = all
            condition.unlock()
            return readers
        }
        for reader in readers { try reader.sync { db in try db.close() } }
    }
}
