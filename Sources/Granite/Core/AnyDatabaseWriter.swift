/// A type-erased ``DatabaseWriter``: forwards every access to the writer it wraps.
///
/// ```swift
/// let writer = AnyDatabaseWriter(dbQueue)
/// try writer.write { db in try db.execute(sql: "INSERT INTO player DEFAULT VALUES") }
/// ```
public final class AnyDatabaseWriter {
    let base: any DatabaseWriter

    /// A writer that forwards to `base`.
    public init(_ base: any DatabaseWriter) {
        self.base = base
    }
}

extension AnyDatabaseWriter: DatabaseWriter {
    /// The configuration of the wrapped writer.
    public var configuration: Configuration { base.configuration }

    /// The path of the wrapped writer.
    public var path: String { base.path }

    /// Closes the wrapped writer.
    ///
    /// - Throws: What the wrapped writer throws.
    public func close() throws { try base.close() }

    // MARK: Reading

    /// Runs `value` in a read of the wrapped writer.
    ///
    /// - Throws: What the wrapped writer or `value` throws.
    @_disfavoredOverload
    public func read<T>(_ value: (Database) throws -> T) throws -> T { try base.read(value) }

    /// Runs `value` in a read of the wrapped writer.
    ///
    /// - Throws: What the wrapped writer or `value` throws.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await base.read(value)
    }

    /// Runs `value` in a read of the wrapped writer, without waiting.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.asyncRead(value)
    }

    /// Runs `value` in an unisolated read of the wrapped writer.
    ///
    /// - Throws: What the wrapped writer or `value` throws.
    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T { try base.unsafeRead(value) }

    /// Runs `value` in an unisolated read of the wrapped writer.
    ///
    /// - Throws: What the wrapped writer or `value` throws.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await base.unsafeRead(value)
    }

    /// Runs `value` in an unisolated read of the wrapped writer, without waiting.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.asyncUnsafeRead(value)
    }

    /// Runs `value` in a reentrant read of the wrapped writer.
    ///
    /// - Throws: What the wrapped writer or `value` throws.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try base.unsafeReentrantRead(value)
    }

    /// Runs `value` on the wrapped writer's state now, concurrently with later writes
    /// (``DatabaseWriter/spawnConcurrentRead(_:)``).
    public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.spawnConcurrentRead(value)
    }

    // MARK: Writing

    /// Runs `updates` outside of any transaction on the wrapped writer.
    ///
    /// - Throws: What the wrapped writer or `updates` throws.
    @_disfavoredOverload
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try base.writeWithoutTransaction(updates)
    }

    /// Runs `updates` outside of any transaction on the wrapped writer.
    ///
    /// - Throws: What the wrapped writer or `updates` throws.
    public func writeWithoutTransaction<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await base.writeWithoutTransaction(updates)
    }

    /// Runs `updates` on the wrapped writer once no read runs.
    ///
    /// - Throws: What the wrapped writer or `updates` throws.
    @_disfavoredOverload
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try base.barrierWriteWithoutTransaction(updates)
    }

    /// Runs `updates` on the wrapped writer once no read runs.
    ///
    /// - Throws: What the wrapped writer or `updates` throws.
    public func barrierWriteWithoutTransaction<T: Sendable>(
        _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await base.barrierWriteWithoutTransaction(updates)
    }

    /// Runs `updates` on the wrapped writer once no read runs, without waiting.
    public func asyncBarrierWriteWithoutTransaction(
        _ updates: @escaping @Sendable (Result<Database, any Error>) -> Void
    ) {
        base.asyncBarrierWriteWithoutTransaction(updates)
    }

    /// Runs `updates` outside of any transaction on the wrapped writer, without waiting.
    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        base.asyncWriteWithoutTransaction(updates)
    }

    /// Runs `updates` on the wrapped writer; may be called from inside another access.
    ///
    /// - Throws: What the wrapped writer or `updates` throws.
    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) throws -> T {
        try base.unsafeReentrantWrite(updates)
    }
}
