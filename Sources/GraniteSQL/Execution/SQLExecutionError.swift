/// An error raised while executing a statement, carrying SQLite's message (e.g.
/// `UNIQUE constraint failed: t.c`, `no such table: t`, `datatype mismatch`).
public struct SQLExecutionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, mirroring SQLite's primary result codes.
    public enum Kind: Sendable, Equatable {
        /// A generic SQL error (`SQLITE_ERROR`): unknown objects, misuse, unsupported features.
        case error
        /// A constraint violation (`SQLITE_CONSTRAINT`).
        case constraint
        /// A type mismatch (`SQLITE_MISMATCH`), e.g. a non-integer rowid.
        case mismatch
        /// Wrong use of the API, e.g. the wrong number of arguments (`SQLITE_RANGE` / `SQLITE_MISUSE`).
        case misuse
        /// The database is full (no rowid can be assigned).
        case full
    }

    /// The kind of failure.
    public var kind: Kind
    /// SQLite's error message, exactly as SQLite words it (applications match on it).
    public var message: String
    /// A close existing name for an unknown table, column, function or index (`did you mean …?`), if any.
    public var suggestion: String?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Creates a generic SQL error (``Kind/error``).
    public init(_ message: String) {
        self.init(.error, message)
    }

    /// The message, followed by ` (did you mean 'name'?)` when there is a suggestion.
    public var description: String { NameSuggestions.describe(message, suggestion) }

    static func constraint(_ message: String) -> SQLExecutionError { SQLExecutionError(.constraint, message) }
    static let datatypeMismatch = SQLExecutionError(.mismatch, "datatype mismatch")
    static func noSuchTable(_ name: String) -> SQLExecutionError { SQLExecutionError(.error, "no such table: \(name)") }
    static func unsupported(_ what: String) -> SQLExecutionError {
        SQLExecutionError(.error, "\(what) is not supported yet")
    }
}
