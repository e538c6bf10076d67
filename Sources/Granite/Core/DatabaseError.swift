import Foundation
import GraniteSQL
import GraniteStorage

/// An error thrown by the database: a result code, a message, and the SQL and arguments of the failing
/// statement when there is one.
///
/// ```swift
/// do {
///     try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')")
/// } catch let error as DatabaseError {
///     error.resultCode          // .SQLITE_CONSTRAINT
///     error.extendedResultCode  // .SQLITE_CONSTRAINT_PRIMARYKEY
///     error.message             // "UNIQUE constraint failed: player.id"
///     error.sql                 // "INSERT INTO player (id, name) VALUES (1, 'Arthur')"
/// }
/// ```
public struct DatabaseError: Error, Sendable {
    /// The primary result code.
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }
    /// The extended result code.
    public let extendedResultCode: ResultCode
    /// The error message.
    public let message: String?
    /// The SQL of the failing statement.
    public let sql: String?
    /// The arguments of the failing statement.
    public let arguments: StatementArguments?
    /// Whether ``description`` shows the arguments (see `Configuration.publicStatementArguments`).
    let publicStatementArguments: Bool
    /// A close existing name, when the error is about an unknown table, column, index or function
    /// (`playr` for `no such table: playr` gives `player`); nil otherwise. Granite only: it is kept out of
    /// ``message``, which holds SQLite's text exactly.
    public internal(set) var suggestion: String?

    /// Creates an error; without a message, the message is the code's meaning.
    public init(
        resultCode: ResultCode = .SQLITE_ERROR, message: String? = nil, sql: String? = nil,
        arguments: StatementArguments? = nil, publicStatementArguments: Bool = false
    ) {
        extendedResultCode = resultCode
        self.message = message ?? resultCode.errorString
        self.sql = sql
        self.arguments = arguments
        self.publicStatementArguments = publicStatementArguments
    }

    /// Whether the error is an interruption (`SQLITE_INTERRUPT`, or an `SQLITE_ABORT` caused by one).
    public var isInterruptionError: Bool {
        switch resultCode {
        case .SQLITE_INTERRUPT, .SQLITE_ABORT: return true
        default: return false
        }
    }

    /// `SQLite error 19: UNIQUE constraint failed: player.id - while executing `INSERT …``; the word SQLite
    /// stays for compatibility with code that reads GRDB's descriptions.
    public var description: String {
        describe(showingArguments: publicStatementArguments)
    }

    /// The description, with the statement arguments visible.
    public var expandedDescription: String {
        describe(showingArguments: true)
    }

    private func describe(showingArguments: Bool) -> String {
        var text = "SQLite error \(resultCode.rawValue)"
        if let message { text += ": \(message)" }
        if let sql { text += " - while executing `\(sql.trimmedSQLStatement)`" }
        if showingArguments, let arguments, !arguments.isEmpty { text += " with arguments \(arguments)" }
        return text
    }
}

extension DatabaseError: CustomStringConvertible {}

extension DatabaseError: CustomNSError {
    /// The error domain, GRDB's for compatibility.
    public static var errorDomain: String { "GRDB.DatabaseError" }
    /// The extended result code.
    public var errorCode: Int { Int(extendedResultCode.rawValue) }
    /// The description under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
}

extension DatabaseError {
    /// `SQLITE_OK` (0).
    public static let SQLITE_OK = ResultCode.SQLITE_OK
    /// `SQLITE_ERROR` (1).
    public static let SQLITE_ERROR = ResultCode.SQLITE_ERROR
    /// `SQLITE_INTERNAL` (2).
    public static let SQLITE_INTERNAL = ResultCode.SQLITE_INTERNAL
    /// `SQLITE_PERM` (3).
    public static let SQLITE_PERM = ResultCode.SQLITE_PERM
    /// `SQLITE_ABORT` (4).
    public static let SQLITE_ABORT = ResultCode.SQLITE_ABORT
    /// `SQLITE_BUSY` (5).
    public static let SQLITE_BUSY = ResultCode.SQLITE_BUSY
    /// `SQLITE_LOCKED` (6).
    public static let SQLITE_LOCKED = ResultCode.SQLITE_LOCKED
    /// `SQLITE_NOMEM` (7).
    public static let SQLITE_NOMEM = ResultCode.SQLITE_NOMEM
    /// `SQLITE_READONLY` (8).
    public static let SQLITE_READONLY = ResultCode.SQLITE_READONLY
    /// `SQLITE_INTERRUPT` (9).
    public static let SQLITE_INTERRUPT = ResultCode.SQLITE_INTERRUPT
    /// `SQLITE_IOERR` (10).
    public static let SQLITE_IOERR = ResultCode.SQLITE_IOERR
    /// `SQLITE_CORRUPT` (11).
    public static let SQLITE_CORRUPT = ResultCode.SQLITE_CORRUPT
    /// `SQLITE_NOTFOUND` (12).
    public static let SQLITE_NOTFOUND = ResultCode.SQLITE_NOTFOUND
    /// `SQLITE_FULL` (13).
    public static let SQLITE_FULL = ResultCode.SQLITE_FULL
    /// `SQLITE_CANTOPEN` (14).
    public static let SQLITE_CANTOPEN = ResultCode.SQLITE_CANTOPEN
    /// `SQLITE_PROTOCOL` (15).
    public static let SQLITE_PROTOCOL = ResultCode.SQLITE_PROTOCOL
    /// `SQLITE_EMPTY` (16).
    public static let SQLITE_EMPTY = ResultCode.SQLITE_EMPTY
    /// `SQLITE_SCHEMA` (17).
    public static let SQLITE_SCHEMA = ResultCode.SQLITE_SCHEMA
    /// `SQLITE_TOOBIG` (18).
    public static let SQLITE_TOOBIG = ResultCode.SQLITE_TOOBIG
    /// `SQLITE_CONSTRAINT` (19).
    public static let SQLITE_CONSTRAINT = ResultCode.SQLITE_CONSTRAINT
    /// `SQLITE_MISMATCH` (20).
    public static let SQLITE_MISMATCH = ResultCode.SQLITE_MISMATCH
    /// `SQLITE_MISUSE` (21).
    public static let SQLITE_MISUSE = ResultCode.SQLITE_MISUSE
    /// `SQLITE_NOLFS` (22).
    public static let SQLITE_NOLFS = ResultCode.SQLITE_NOLFS
    /// `SQLITE_AUTH` (23).
    public static let SQLITE_AUTH = ResultCode.SQLITE_AUTH
    /// `SQLITE_FORMAT` (24).
    public static let SQLITE_FORMAT = ResultCode.SQLITE_FORMAT
    /// `SQLITE_RANGE` (25).
    public static let SQLITE_RANGE = ResultCode.SQLITE_RANGE
    /// `SQLITE_NOTADB` (26).
    public static let SQLITE_NOTADB = ResultCode.SQLITE_NOTADB
    /// `SQLITE_NOTICE` (27).
    public static let SQLITE_NOTICE = ResultCode.SQLITE_NOTICE
    /// `SQLITE_WARNING` (28).
    public static let SQLITE_WARNING = ResultCode.SQLITE_WARNING
    /// `SQLITE_ROW` (100).
    public static let SQLITE_ROW = ResultCode.SQLITE_ROW
    /// `SQLITE_DONE` (101).
    public static let SQLITE_DONE = ResultCode.SQLITE_DONE
    /// `SQLITE_ERROR_MISSING_COLLSEQ` (257).
    public static let SQLITE_ERROR_MISSING_COLLSEQ = ResultCode.SQLITE_ERROR_MISSING_COLLSEQ
    /// `SQLITE_ERROR_RETRY` (513).
    public static let SQLITE_ERROR_RETRY = ResultCode.SQLITE_ERROR_RETRY
    /// `SQLITE_ERROR_SNAPSHOT` (769).
    public static let SQLITE_ERROR_SNAPSHOT = ResultCode.SQLITE_ERROR_SNAPSHOT
    /// `SQLITE_IOERR_READ` (266).
    public static let SQLITE_IOERR_READ = ResultCode.SQLITE_IOERR_READ
    /// `SQLITE_IOERR_SHORT_READ` (522).
    public static let SQLITE_IOERR_SHORT_READ = ResultCode.SQLITE_IOERR_SHORT_READ
    /// `SQLITE_IOERR_WRITE` (778).
    public static let SQLITE_IOERR_WRITE = ResultCode.SQLITE_IOERR_WRITE
    /// `SQLITE_IOERR_FSYNC` (1034).
    public static let SQLITE_IOERR_FSYNC = ResultCode.SQLITE_IOERR_FSYNC
    /// `SQLITE_IOERR_DIR_FSYNC` (1290).
    public static let SQLITE_IOERR_DIR_FSYNC = ResultCode.SQLITE_IOERR_DIR_FSYNC
    /// `SQLITE_IOERR_TRUNCATE` (1546).
    public static let SQLITE_IOERR_TRUNCATE = ResultCode.SQLITE_IOERR_TRUNCATE
    /// `SQLITE_IOERR_FSTAT` (1802).
    public static let SQLITE_IOERR_FSTAT = ResultCode.SQLITE_IOERR_FSTAT
    /// `SQLITE_IOERR_UNLOCK` (2058).
    public static let SQLITE_IOERR_UNLOCK = ResultCode.SQLITE_IOERR_UNLOCK
    /// `SQLITE_IOERR_RDLOCK` (2314).
    public static let SQLITE_IOERR_RDLOCK = ResultCode.SQLITE_IOERR_RDLOCK
    /// `SQLITE_IOERR_DELETE` (2570).
    public static let SQLITE_IOERR_DELETE = ResultCode.SQLITE_IOERR_DELETE
    /// `SQLITE_IOERR_BLOCKED` (2826).
    public static let SQLITE_IOERR_BLOCKED = ResultCode.SQLITE_IOERR_BLOCKED
    /// `SQLITE_IOERR_NOMEM` (3082).
    public static let SQLITE_IOERR_NOMEM = ResultCode.SQLITE_IOERR_NOMEM
    /// `SQLITE_IOERR_ACCESS` (3338).
    public static let SQLITE_IOERR_ACCESS = ResultCode.SQLITE_IOERR_ACCESS
    /// `SQLITE_IOERR_CHECKRESERVEDLOCK` (3594).
    public static let SQLITE_IOERR_CHECKRESERVEDLOCK = ResultCode.SQLITE_IOERR_CHECKRESERVEDLOCK
    /// `SQLITE_IOERR_LOCK` (3850).
    public static let SQLITE_IOERR_LOCK = ResultCode.SQLITE_IOERR_LOCK
    /// `SQLITE_IOERR_CLOSE` (4106).
    public static let SQLITE_IOERR_CLOSE = ResultCode.SQLITE_IOERR_CLOSE
    /// `SQLITE_IOERR_DIR_CLOSE` (4362).
    public static let SQLITE_IOERR_DIR_CLOSE = ResultCode.SQLITE_IOERR_DIR_CLOSE
    /// `SQLITE_IOERR_SHMOPEN` (4618).
    public static let SQLITE_IOERR_SHMOPEN = ResultCode.SQLITE_IOERR_SHMOPEN
    /// `SQLITE_IOERR_SHMSIZE` (4874).
    public static let SQLITE_IOERR_SHMSIZE = ResultCode.SQLITE_IOERR_SHMSIZE
    /// `SQLITE_IOERR_SHMLOCK` (5130).
    public static let SQLITE_IOERR_SHMLOCK = ResultCode.SQLITE_IOERR_SHMLOCK
    /// `SQLITE_IOERR_SHMMAP` (5386).
    public static let SQLITE_IOERR_SHMMAP = ResultCode.SQLITE_IOERR_SHMMAP
    /// `SQLITE_IOERR_SEEK` (5642).
    public static let SQLITE_IOERR_SEEK = ResultCode.SQLITE_IOERR_SEEK
    /// `SQLITE_IOERR_DELETE_NOENT` (5898).
    public static let SQLITE_IOERR_DELETE_NOENT = ResultCode.SQLITE_IOERR_DELETE_NOENT
    /// `SQLITE_IOERR_MMAP` (6154).
    public static let SQLITE_IOERR_MMAP = ResultCode.SQLITE_IOERR_MMAP
    /// `SQLITE_IOERR_GETTEMPPATH` (6410).
    public static let SQLITE_IOERR_GETTEMPPATH = ResultCode.SQLITE_IOERR_GETTEMPPATH
    /// `SQLITE_IOERR_CONVPATH` (6666).
    public static let SQLITE_IOERR_CONVPATH = ResultCode.SQLITE_IOERR_CONVPATH
    /// `SQLITE_IOERR_VNODE` (6922).
    public static let SQLITE_IOERR_VNODE = ResultCode.SQLITE_IOERR_VNODE
    /// `SQLITE_IOERR_AUTH` (7178).
    public static let SQLITE_IOERR_AUTH = ResultCode.SQLITE_IOERR_AUTH
    /// `SQLITE_IOERR_BEGIN_ATOMIC` (7434).
    public static let SQLITE_IOERR_BEGIN_ATOMIC = ResultCode.SQLITE_IOERR_BEGIN_ATOMIC
    /// `SQLITE_IOERR_COMMIT_ATOMIC` (7690).
    public static let SQLITE_IOERR_COMMIT_ATOMIC = ResultCode.SQLITE_IOERR_COMMIT_ATOMIC
    /// `SQLITE_IOERR_ROLLBACK_ATOMIC` (7946).
    public static let SQLITE_IOERR_ROLLBACK_ATOMIC = ResultCode.SQLITE_IOERR_ROLLBACK_ATOMIC
    /// `SQLITE_IOERR_DATA` (8202).
    public static let SQLITE_IOERR_DATA = ResultCode.SQLITE_IOERR_DATA
    /// `SQLITE_IOERR_CORRUPTFS` (8458).
    public static let SQLITE_IOERR_CORRUPTFS = ResultCode.SQLITE_IOERR_CORRUPTFS
    /// `SQLITE_LOCKED_SHAREDCACHE` (262).
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode.SQLITE_LOCKED_SHAREDCACHE
    /// `SQLITE_LOCKED_VTAB` (518).
    public static let SQLITE_LOCKED_VTAB = ResultCode.SQLITE_LOCKED_VTAB
    /// `SQLITE_BUSY_RECOVERY` (261).
    public static let SQLITE_BUSY_RECOVERY = ResultCode.SQLITE_BUSY_RECOVERY
    /// `SQLITE_BUSY_SNAPSHOT` (517).
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode.SQLITE_BUSY_SNAPSHOT
    /// `SQLITE_BUSY_TIMEOUT` (773).
    public static let SQLITE_BUSY_TIMEOUT = ResultCode.SQLITE_BUSY_TIMEOUT
    /// `SQLITE_CANTOPEN_NOTEMPDIR` (270).
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode.SQLITE_CANTOPEN_NOTEMPDIR
    /// `SQLITE_CANTOPEN_ISDIR` (526).
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode.SQLITE_CANTOPEN_ISDIR
    /// `SQLITE_CANTOPEN_FULLPATH` (782).
    public static let SQLITE_CANTOPEN_FULLPATH = ResultCode.SQLITE_CANTOPEN_FULLPATH
    /// `SQLITE_CANTOPEN_CONVPATH` (1038).
    public static let SQLITE_CANTOPEN_CONVPATH = ResultCode.SQLITE_CANTOPEN_CONVPATH
    /// `SQLITE_CANTOPEN_DIRTYWAL` (1294).
    public static let SQLITE_CANTOPEN_DIRTYWAL = ResultCode.SQLITE_CANTOPEN_DIRTYWAL
    /// `SQLITE_CANTOPEN_SYMLINK` (1550).
    public static let SQLITE_CANTOPEN_SYMLINK = ResultCode.SQLITE_CANTOPEN_SYMLINK
    /// `SQLITE_CORRUPT_VTAB` (267).
    public static let SQLITE_CORRUPT_VTAB = ResultCode.SQLITE_CORRUPT_VTAB
    /// `SQLITE_CORRUPT_SEQUENCE` (523).
    public static let SQLITE_CORRUPT_SEQUENCE = ResultCode.SQLITE_CORRUPT_SEQUENCE
    /// `SQLITE_CORRUPT_INDEX` (779).
    public static let SQLITE_CORRUPT_INDEX = ResultCode.SQLITE_CORRUPT_INDEX
    /// `SQLITE_READONLY_RECOVERY` (264).
    public static let SQLITE_READONLY_RECOVERY = ResultCode.SQLITE_READONLY_RECOVERY
    /// `SQLITE_READONLY_CANTLOCK` (520).
    public static let SQLITE_READONLY_CANTLOCK = ResultCode.SQLITE_READONLY_CANTLOCK
    /// `SQLITE_READONLY_ROLLBACK` (776).
    public static let SQLITE_READONLY_ROLLBACK = ResultCode.SQLITE_READONLY_ROLLBACK
    /// `SQLITE_READONLY_DBMOVED` (1032).
    public static let SQLITE_READONLY_DBMOVED = ResultCode.SQLITE_READONLY_DBMOVED
    /// `SQLITE_READONLY_CANTINIT` (1288).
    public static let SQLITE_READONLY_CANTINIT = ResultCode.SQLITE_READONLY_CANTINIT
    /// `SQLITE_READONLY_DIRECTORY` (1544).
    public static let SQLITE_READONLY_DIRECTORY = ResultCode.SQLITE_READONLY_DIRECTORY
    /// `SQLITE_ABORT_ROLLBACK` (516).
    public static let SQLITE_ABORT_ROLLBACK = ResultCode.SQLITE_ABORT_ROLLBACK
    /// `SQLITE_CONSTRAINT_CHECK` (275).
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode.SQLITE_CONSTRAINT_CHECK
    /// `SQLITE_CONSTRAINT_COMMITHOOK` (531).
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode.SQLITE_CONSTRAINT_COMMITHOOK
    /// `SQLITE_CONSTRAINT_FOREIGNKEY` (787).
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode.SQLITE_CONSTRAINT_FOREIGNKEY
    /// `SQLITE_CONSTRAINT_FUNCTION` (1043).
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode.SQLITE_CONSTRAINT_FUNCTION
    /// `SQLITE_CONSTRAINT_NOTNULL` (1299).
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode.SQLITE_CONSTRAINT_NOTNULL
    /// `SQLITE_CONSTRAINT_PRIMARYKEY` (1555).
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode.SQLITE_CONSTRAINT_PRIMARYKEY
    /// `SQLITE_CONSTRAINT_TRIGGER` (1811).
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode.SQLITE_CONSTRAINT_TRIGGER
    /// `SQLITE_CONSTRAINT_UNIQUE` (2067).
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode.SQLITE_CONSTRAINT_UNIQUE
    /// `SQLITE_CONSTRAINT_VTAB` (2323).
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode.SQLITE_CONSTRAINT_VTAB
    /// `SQLITE_CONSTRAINT_ROWID` (2579).
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode.SQLITE_CONSTRAINT_ROWID
    /// `SQLITE_CONSTRAINT_PINNED` (2835).
    public static let SQLITE_CONSTRAINT_PINNED = ResultCode.SQLITE_CONSTRAINT_PINNED
    /// `SQLITE_CONSTRAINT_DATATYPE` (3091).
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode.SQLITE_CONSTRAINT_DATATYPE
    /// `SQLITE_NOTICE_RECOVER_WAL` (283).
    public static let SQLITE_NOTICE_RECOVER_WAL = ResultCode.SQLITE_NOTICE_RECOVER_WAL
    /// `SQLITE_NOTICE_RECOVER_ROLLBACK` (539).
    public static let SQLITE_NOTICE_RECOVER_ROLLBACK = ResultCode.SQLITE_NOTICE_RECOVER_ROLLBACK
    /// `SQLITE_WARNING_AUTOINDEX` (284).
    public static let SQLITE_WARNING_AUTOINDEX = ResultCode.SQLITE_WARNING_AUTOINDEX
    /// `SQLITE_AUTH_USER` (279).
    public static let SQLITE_AUTH_USER = ResultCode.SQLITE_AUTH_USER
    /// `SQLITE_OK_LOAD_PERMANENTLY` (256).
    public static let SQLITE_OK_LOAD_PERMANENTLY = ResultCode.SQLITE_OK_LOAD_PERMANENTLY
    /// `SQLITE_OK_SYMLINK` (512).
    public static let SQLITE_OK_SYMLINK = ResultCode.SQLITE_OK_SYMLINK
}

extension DatabaseError {
    /// The error for an engine failure, with the statement that caused it. The engine throws six error types,
    /// all mapped here: ``SQLEvaluationError``, ``SQLExecutionError``, ``SQLSyntaxError``, ``SchemaError``,
    /// ``StorageError`` and ``SQLUserFunctionError`` (from the application's functions). Other errors (thrown by
    /// the application's closures) pass through unchanged.
    static func from(
        _ error: any Error, sql: String? = nil, arguments: StatementArguments? = nil, publicArguments: Bool = false
    ) -> any Error {
        let code: ResultCode
        let message: String
        var suggestion: String?
        switch error {
        case let error as DatabaseError:
            return error
        case let error as SQLExecutionError:
            code = ResultCode(rawValue: error.extendedResultCode)
            message = error.message
            suggestion = error.suggestion
        case let error as SQLEvaluationError:
            // Expression and function errors (integer overflow, bad arguments, non-deterministic use in an
            // index…) are SQLITE_ERROR in SQLite, but for a value past the length limit (SQLITE_TOOBIG).
            code = ResultCode(rawValue: error.resultCode)
            message = error.message
            suggestion = error.suggestion
        case let error as SQLSyntaxError:
            code = .SQLITE_ERROR
            message = error.message
        case let error as SchemaError:
            code = .SQLITE_ERROR
            message = error.message
            suggestion = error.suggestion
        case let error as SQLUserFunctionError:
            // Thrown by a DatabaseFunction or DatabaseAggregate: the code and message the function chose.
            code = ResultCode(rawValue: error.resultCode)
            message = error.message
        case let error as StorageError:
            switch error {
            case .io: code = error.isOpenFailure ? .SQLITE_CANTOPEN : .SQLITE_IOERR
            case .corrupt, .malformed, .cursorInvalidated: code = .SQLITE_CORRUPT
            case .notADatabase: code = .SQLITE_NOTADB
            case .invalidArgument, .noActiveTransaction: code = .SQLITE_MISUSE
            case .duplicateKey: code = .SQLITE_CONSTRAINT
            case .notFound, .alreadyExists: code = .SQLITE_ERROR
            case .locked, .busy: code = .SQLITE_BUSY
            case .busySnapshot: code = .SQLITE_BUSY_SNAPSHOT
            case .readOnly: code = .SQLITE_READONLY
            case .interrupted: code = .SQLITE_INTERRUPT
            }
            message = error.description
        default:
            return error
        }
        var databaseError = DatabaseError(
            resultCode: code, message: message, sql: sql, arguments: arguments,
            publicStatementArguments: publicArguments)
        databaseError.suggestion = suggestion
        return databaseError
    }
}

extension String {
    /// The SQL without surrounding white space and trailing semicolons.
    var trimmedSQLStatement: String {
        var scalars = Substring(self).unicodeScalars
        while let last = scalars.last, last == ";" || last.properties.isWhitespace { scalars.removeLast() }
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        return String(scalars)
    }
}
