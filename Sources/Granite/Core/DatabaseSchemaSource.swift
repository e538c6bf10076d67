/// A type that customizes what schema introspection reports, set with ``Configuration/schemaSource`` or
/// ``Database/withSchemaSource(_:execute:)``.
///
/// ```swift
/// struct MySchemaSource: DatabaseSchemaSource {
///     func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
///         view.name == "playerSummary" ? ["id"] : nil
///     }
/// }
/// ```
///
/// ``Database/primaryKey(_:in:)`` asks it for the primary key of a view, which has none otherwise (so that records
/// read from a view can be fetched by id).
public protocol DatabaseSchemaSource: Sendable {
    /// The columns that identify the rows of `view`, or nil to let the database decide.
    ///
    /// - Parameters:
    ///   - db: The connection that introspects.
    ///   - view: The view.
    /// - Throws: Any error; introspection throws it.
    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]?
}

extension DatabaseSchemaSource {
    /// No answer: the database decides.
    public func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? { nil }

    /// A source that asks this one first, and `other` for what this one does not answer (nil). The answers are
    /// never merged.
    ///
    /// - Parameter other: The source asked second.
    public func then(_ other: some DatabaseSchemaSource) -> some DatabaseSchemaSource {
        ChainedSchemaSource(first: self, second: other)
    }
}

/// Two schema sources asked in order (see ``DatabaseSchemaSource/then(_:)``).
struct ChainedSchemaSource<First: DatabaseSchemaSource, Second: DatabaseSchemaSource>: DatabaseSchemaSource {
    let first: First
    let second: Second

    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        try first.columnsForPrimaryKey(db, inView: view) ?? second.columnsForPrimaryKey(db, inView: view)
    }
}

extension Database {
    /// Runs `block` with `schemaSource` as the connection's ``schemaSource`` (nil: none), then restores the
    /// previous one; the schema caches are cleared before and after, since the source changes what they hold.
    ///
    /// - Parameters:
    ///   - schemaSource: The source in effect during `block`.
    ///   - block: The closure to run.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    public func withSchemaSource<T>(
        _ schemaSource: (any DatabaseSchemaSource)?, execute block: () throws -> T
    ) rethrows -> T {
        let previous = self.schemaSource
        clearSchemaCache()
        self.schemaSource = schemaSource
        defer {
            self.schemaSource = previous
            clearSchemaCache()
        }
        return try block()
    }

    /// Forgets the schema information cached by this connection (primary and unique keys, record statements).
    /// Granite notices its own schema changes; call this after another process changed the schema, or to free
    /// memory.
    public func clearSchemaCache() {
        keyCache = DatabaseKeyCache()
    }
}
