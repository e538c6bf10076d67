#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The errors thrown by the storage layer.
///
/// Every failure of the storage layer surfaces as one of these cases, never as
/// a trap: damaged bytes on disk become ``corrupt(page:_:)`` naming the page,
/// a failed system call becomes ``io(_:path:errno:)``.
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A system call failed. `operation` names the call (`"open"`, `"read"`, `"write"`, `"sync"`, …), `errno` its
    /// error code; the description gives the C library's words for the code (`Permission denied`).
    case io(_ operation: String, path: String, errno: Int32)
    /// Bytes read from the file do not form a valid structure. `page` is the
    /// 1-based page number (0 when no single page is to blame).
    case corrupt(page: UInt32, _ reason: String)
    /// The file is not a Granite database, or of an unsupported version.
    case notADatabase(_ reason: String)
    /// A caller passed an argument outside the accepted range.
    case invalidArgument(_ reason: String)
    /// An insert met a key that is already present.
    case duplicateKey
    /// A named tree or other object does not exist.
    case notFound(_ what: String)
    /// A named object already exists.
    case alreadyExists(_ what: String)
    /// The database file is locked by another process.
    case locked(_ path: String)
    /// The file was opened read-only and a write was attempted.
    case readOnly
    /// A cursor was used after the tree it reads was modified.
    case cursorInvalidated
    /// An encoded value or row is malformed (outside any page context).
    case malformed(_ reason: String)
    /// Another connection holds what this one needs (the writer lock, or a
    /// snapshot a checkpoint must wait for) past the busy time-out.
    case busy(_ reason: String)
    /// A read transaction could not become a write transaction because another connection committed after its
    /// snapshot was taken (SQLite's `SQLITE_BUSY_SNAPSHOT`): what it read may be out of date, so it must end and
    /// begin again rather than write over a newer commit.
    case busySnapshot
    /// A tree or header was touched with no transaction in progress, or a ``StorageTransaction`` was used after it
    /// ended (begin one with ``StorageEngine/beginRead()`` or ``StorageEngine/beginWrite()``).
    case noActiveTransaction
    /// The operation was stopped by ``InterruptFlag/set()`` (SQLite's `sqlite3_interrupt`).
    case interrupted

    /// Whether this is a failure to open a file (SQLite's `SQLITE_CANTOPEN` rather than `SQLITE_IOERR`).
    public var isOpenFailure: Bool {
        if case .io(let operation, _, _) = self { return operation == "open" }
        return false
    }

    /// Whether this is a failure to open a file for writing that opening it for reading may avoid: the
    /// permission is missing (`EACCES`, `EPERM`) or the medium is read-only (`EROFS`).
    public var deniesWriting: Bool {
        guard case .io(let operation, _, let code) = self, operation == "open" else { return false }
        return code == EACCES || code == EPERM || code == EROFS
    }

    /// Whether this is the file system refusing byte-range locks altogether (`ENOLCK`, `EOPNOTSUPP`, ...), as
    /// opposed to a lock another process holds, which is ``busy(_:)``.
    package var refusesLocks: Bool {
        guard case .io(let operation, _, let code) = self, operation == "lock" else { return false }
        return code != EBADF
    }

    public var description: String {
        switch self {
        case .io(let operation, let path, let code):
            let cause = SystemErrorText.describe(code)
            if isOpenFailure { return "unable to open database file '\(path)': \(cause)" }
            return "disk I/O error: \(operation) failed on '\(path)': \(cause)"
        case .corrupt(let page, let reason):
            return page == 0 ? "database is corrupt: \(reason)" : "database is corrupt: page \(page): \(reason)"
        case .notADatabase(let reason):
            return "file is not a Granite database: \(reason)"
        case .invalidArgument(let reason):
            return "invalid argument: \(reason)"
        case .duplicateKey:
            return "duplicate key"
        case .notFound(let what):
            return "not found: \(what)"
        case .alreadyExists(let what):
            return "already exists: \(what)"
        case .locked(let path):
            return "database is locked: '\(path)'"
        case .readOnly:
            return "attempt to write a readonly database"
        case .cursorInvalidated:
            return "cursor used after its tree was modified"
        case .malformed(let reason):
            return "malformed data: \(reason)"
        case .busy(let reason):
            // SQLite's words for SQLITE_BUSY, which this error becomes at the API.
            return "database is locked (\(reason))"
        case .busySnapshot:
            return "database is locked (another connection committed after this transaction's snapshot)"
        case .noActiveTransaction:
            return "no transaction is in progress"
        case .interrupted:
            return "interrupted"
        }
    }
}
