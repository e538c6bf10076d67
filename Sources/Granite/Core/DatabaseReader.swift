/// A type that reads the database: ``DatabaseQueue`` and ``DatabasePool``.
public protocol DatabaseReader: AnyObject, Sendable {
    /// The configuration the database was opened with.
    var configuration: Configuration { get }

    /// The path of the database file (`:memory:` for in-memory databases).
    var path: String { get }

    /// Closes the connections; later accesses throw.
    func close() throws

    /// Runs `value` on a stable snapshot of the database, with writes refused, and returns its result.
    func read<T>(_ value: (Database) throws -> T) throws -> T

    /// Runs `value` on a stable snapshot of the database, with writes refused, and returns its result.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `value` on a stable snapshot of the database, without waiting.
    func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs `value` without isolation: statements may see different commits.
    func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Runs `value` without isolation: statements may see different commits.
    func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `value` without isolation, without waiting.
    func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs `value` without isolation; may be called from inside another access.
    func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Stops the statements running on the reader's connections, from any thread: see
    /// ``DatabaseQueue/interrupt()``.
    func interrupt()
}

/// A type that writes to the database: ``DatabaseQueue`` and ``DatabasePool``.
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `updates` outside of any transaction, serialized with other writes.
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T

    /// Runs `updates` outside of any transaction, serialized with other writes.
    func writeWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `updates` once no read is running, outside of any transaction.
    func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T

    /// Runs `updates` once no read is running, outside of any transaction.
    func barrierWriteWithoutTransaction<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T

    /// Runs `updates` once no read is running, without waiting.
    func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs `updates` outside of any transaction, without waiting.
    func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void)

    /// Runs `updates` outside of any transaction; may be called from inside another access.
    func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) throws -> T

    /// From a write access outside of any transaction, runs `value` on the database as the writer sees it now,
    /// concurrently with the writes that follow when the writer allows it (a pool), right away otherwise (a
    /// queue). Called elsewhere, `value` receives a `SQLITE_MISUSE` error.
    func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)
}

extension DatabaseWriter {
    /// Runs `updates` in a transaction, committed when it returns and rolled back when it throws.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
    /// }
    /// ```
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in try db.writeInTransaction(nil, { try updates(db) }) }
    }

    /// Runs `updates` in a transaction, committed when it returns and rolled back when it throws.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writeWithoutTransaction { db in try db.writeInTransaction(nil, { try updates(db) }) }
    }

    /// Runs `updates` in a transaction without waiting, then `completion` with the result.
    public func asyncWrite<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Database, Result<T, any Error>) -> Void
    ) {
        asyncWriteWithoutTransaction { db in
            let result = Result { try db.writeInTransaction(nil, { try updates(db) }) }
            completion(db, result)
        }
    }

    /// Deletes every table, index and row: the database is empty afterwards.
    public func erase() throws {
        try barrierWriteWithoutTransaction { db in try db.erase() }
    }

    /// Deletes every table, index and row: the database is empty afterwards.
    public func erase() async throws {
        try await barrierWriteWithoutTransaction { db in try db.erase() }
    }
}
