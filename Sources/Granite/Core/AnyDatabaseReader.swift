/// A type-erased ``DatabaseReader``: forwards every access to the reader it wraps.
///
/// ```swift
/// let reader = AnyDatabaseReader(dbPool)
/// let count = try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }
/// ```
public final class AnyDatabaseReader {
    let base: any DatabaseReader

    /// A reader that forwards to `base`.
    public init(_ base: any DatabaseReader) {
        self.base = base
    }
}

extension AnyDatabaseReader: DatabaseReader {
    /// The configuration of the wrapped reader.
    public var configuration: Configuration { base.configuration }

    /// The path of the wrapped reader.
    public var path: String { base.path }

    /// Closes the wrapped reader.
    ///
    /// - Throws: What the wrapped reader throws.
    public func close() throws { try base.close() }

    /// Runs `value` in a read of the wrapped reader (see `DatabaseReader/read(_:)`).
    ///
    /// - Throws: What the wrapped reader or `value` throws.
    @_disfavoredOverload
    public func read<T>(_ value: (Database) throws -> T) throws -> T { try base.read(value) }

    /// Runs `value` in a read of the wrapped reader.
    ///
    /// - Throws: What the wrapped reader or `value` throws.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await base.read(value)
    }

    /// Runs `value` in a read of the wrapped reader, without waiting.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.asyncRead(value)
    }

    /// Runs `value` in an unisolated read of the wrapped reader.
    ///
    /// - Throws: What the wrapped reader or `value` throws.
    @_disfavoredOverload
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T { try base.unsafeRead(value) }

    /// Runs `value` in an unisolated read of the wrapped reader.
    ///
    /// - Throws: What the wrapped reader or `value` throws.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await base.unsafeRead(value)
    }

    /// Runs `value` in an unisolated read of the wrapped reader, without waiting.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.asyncUnsafeRead(value)
    }

    /// Runs `value` in a reentrant read of the wrapped reader.
    ///
    /// - Throws: What the wrapped reader or `value` throws.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try base.unsafeReentrantRead(value)
    }
}
