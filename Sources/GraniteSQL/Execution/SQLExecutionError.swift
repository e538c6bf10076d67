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
        /// This connection's own open transaction stands in the way (`SQLITE_LOCKED`), e.g. a checkpoint asked
        /// for inside a transaction.
        case locked
    }

    /// SQLite's extended result codes for constraint violations.
    public enum ExtendedCode: Int32, Sendable, Equatable {
        /// `SQLITE_CONSTRAINT_CHECK`.
        case check = 275
        /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
        case foreignKey = 787
        /// `SQLITE_CONSTRAINT_NOTNULL`.
        case notNull = 1299
        /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
        case primaryKey = 1555
        /// `SQLITE_CONSTRAINT_UNIQUE`.
        case unique = 2067
        /// `SQLITE_CONSTRAINT_ROWID`: an explicit rowid of a table without INTEGER PRIMARY KEY is taken.
        case rowid = 2579
        /// `SQLITE_CONSTRAINT_DATATYPE`: a value of the wrong type for a column of a STRICT table.
        case datatype = 3091
        /// `SQLITE_CONSTRAINT_TRIGGER`: a trigger's `RAISE(ROLLBACK|ABORT|FAIL, …)`.
        case trigger = 1811
    }

    /// The kind of failure.
    public var kind: Kind
    /// SQLite's error message, exactly as SQLite words it (applications match on it).
    public var message: String
    /// A close existing name for an unknown table, column, function or index (`did you mean …?`), if any.
    public var suggestion: String?
    /// The extended result code of a constraint violation, if known.
    public var extendedCode: ExtendedCode?
    /// What the error is about, when it names something unknown or misused.
    package var subject: SQLErrorSubject?
    /// Why ``SQLConnection/prepare(_:)`` refused its text, when it held no statement or more than one.
    package enum StatementCount: Sendable, Equatable {
        case none, several
    }

    /// Set when ``SQLConnection/prepare(_:)`` was given no statement or several (the API layer words the
    /// latter its own way).
    package var statementCount: StatementCount?
    /// How the failing statement resolves the failure: `FAIL` keeps the statement's earlier changes and `ROLLBACK`
    /// ends the transaction; nil (or `ABORT`) undoes the statement.
    var resolution: ConflictResolution?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Creates a generic SQL error (``Kind/error``).
    public init(_ message: String) {
        self.init(.error, message)
    }

    /// SQLite's primary result code: 1 (`SQLITE_ERROR`), 6 (`SQLITE_LOCKED`), 13 (`SQLITE_FULL`),
    /// 19 (`SQLITE_CONSTRAINT`), 20 (`SQLITE_MISMATCH`) or 21 (`SQLITE_MISUSE`).
    public var resultCode: Int32 {
        switch kind {
        case .error: return 1
        case .locked: return 6
        case .full: return 13
        case .constraint: return 19
        case .mismatch: return 20
        case .misuse: return 21
        }
    }

    /// SQLite's extended result code: ``extendedCode`` when known, else ``resultCode``.
    public var extendedResultCode: Int32 { extendedCode?.rawValue ?? resultCode }

    /// The message, followed by ` (did you mean 'name'?)` when there is a suggestion.
    public var description: String { NameSuggestions.describe(message, suggestion) }

    static func constraint(_ message: String) -> SQLExecutionError { SQLExecutionError(.constraint, message) }
    static func constraint(
        _ code: ExtendedCode, _ message: String, resolution: ConflictResolution? = nil
    ) -> SQLExecutionError {
        var error = SQLExecutionError(.constraint, message)
        error.extendedCode = code
        error.resolution = resolution
        return error
    }
    static let foreignKeyFailure = constraint(.foreignKey, "FOREIGN KEY constraint failed")
    static let datatypeMismatch = SQLExecutionError(.mismatch, "datatype mismatch")
    static func noSuchTable(_ name: String) -> SQLExecutionError { SQLExecutionError(.noSuchTable(name)) }
    static func unsupported(_ what: String) -> SQLExecutionError {
        SQLExecutionError(.error, "\(what) is not supported yet")
    }
}
