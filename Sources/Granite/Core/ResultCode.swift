// SQLite result codes, primary and extended, with the text SQLite gives each family.

/// A SQLite-compatible result code, primary (`SQLITE_CONSTRAINT`) or extended (`SQLITE_CONSTRAINT_UNIQUE`).
///
/// A primary code matches every extended code of its family in `switch` and `catch` patterns:
///
/// ```swift
/// do {
///     try player.insert(db)
/// } catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE {
///     // a duplicate
/// } catch ResultCode.SQLITE_CONSTRAINT {
///     // another constraint failure
/// }
/// ```
public struct ResultCode: RawRepresentable, Hashable, Sendable {
    /// The numeric code.
    public let rawValue: CInt

    /// Creates a result code.
    public init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// The primary code of the family (the low eight bits).
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// Whether the code is a primary code.
    var isPrimary: Bool { self == primaryResultCode }

    /// A primary pattern matches its whole family; an extended pattern matches itself only.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern.isPrimary ? pattern == code.primaryResultCode : pattern == code
    }

    /// Whether `error` is a ``DatabaseError`` whose extended code matches the pattern.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return pattern ~= error.extendedResultCode
    }

    /// `SQLITE_OK` (0).
    public static let SQLITE_OK = ResultCode(rawValue: 0)
    /// `SQLITE_ERROR` (1).
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    /// `SQLITE_INTERNAL` (2).
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    /// `SQLITE_PERM` (3).
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    /// `SQLITE_ABORT` (4).
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    /// `SQLITE_BUSY` (5).
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    /// `SQLITE_LOCKED` (6).
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    /// `SQLITE_NOMEM` (7).
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    /// `SQLITE_READONLY` (8).
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    /// `SQLITE_INTERRUPT` (9).
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    /// `SQLITE_IOERR` (10).
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    /// `SQLITE_CORRUPT` (11).
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    /// `SQLITE_NOTFOUND` (12).
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
    /// `SQLITE_FULL` (13).
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    /// `SQLITE_CANTOPEN` (14).
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    /// `SQLITE_PROTOCOL` (15).
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
    /// `SQLITE_EMPTY` (16).
    public static let SQLITE_EMPTY = ResultCode(rawValue: 16)
    /// `SQLITE_SCHEMA` (17).
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    /// `SQLITE_TOOBIG` (18).
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    /// `SQLITE_CONSTRAINT` (19).
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    /// `SQLITE_MISMATCH` (20).
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    /// `SQLITE_MISUSE` (21).
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    /// `SQLITE_NOLFS` (22).
    public static let SQLITE_NOLFS = ResultCode(rawValue: 22)
    /// `SQLITE_AUTH` (23).
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    /// `SQLITE_FORMAT` (24).
    public static let SQLITE_FORMAT = ResultCode(rawValue: 24)
    /// `SQLITE_RANGE` (25).
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    /// `SQLITE_NOTADB` (26).
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    /// `SQLITE_NOTICE` (27).
    public static let SQLITE_NOTICE = ResultCode(rawValue: 27)
    /// `SQLITE_WARNING` (28).
    public static let SQLITE_WARNING = ResultCode(rawValue: 28)
    /// `SQLITE_ROW` (100).
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    /// `SQLITE_DONE` (101).
    public static let SQLITE_DONE = ResultCode(rawValue: 101)
    /// `SQLITE_ERROR_MISSING_COLLSEQ` (257).
    public static let SQLITE_ERROR_MISSING_COLLSEQ = ResultCode(rawValue: 257)
    /// `SQLITE_ERROR_RETRY` (513).
    public static let SQLITE_ERROR_RETRY = ResultCode(rawValue: 513)
    /// `SQLITE_ERROR_SNAPSHOT` (769).
    public static let SQLITE_ERROR_SNAPSHOT = ResultCode(rawValue: 769)
    /// `SQLITE_IOERR_READ` (266).
    public static let SQLITE_IOERR_READ = ResultCode(rawValue: 266)
    /// `SQLITE_IOERR_SHORT_READ` (522).
    public static let SQLITE_IOERR_SHORT_READ = ResultCode(rawValue: 522)
    /// `SQLITE_IOERR_WRITE` (778).
    public static let SQLITE_IOERR_WRITE = ResultCode(rawValue: 778)
    /// `SQLITE_IOERR_FSYNC` (1034).
    public static let SQLITE_IOERR_FSYNC = ResultCode(rawValue: 1034)
    /// `SQLITE_IOERR_DIR_FSYNC` (1290).
    public static let SQLITE_IOERR_DIR_FSYNC = ResultCode(rawValue: 1290)
    /// `SQLITE_IOERR_TRUNCATE` (1546).
    public static let SQLITE_IOERR_TRUNCATE = ResultCode(rawValue: 1546)
    /// `SQLITE_IOERR_FSTAT` (1802).
    public static let SQLITE_IOERR_FSTAT = ResultCode(rawValue: 1802)
    /// `SQLITE_IOERR_UNLOCK` (2058).
    public static let SQLITE_IOERR_UNLOCK = ResultCode(rawValue: 2058)
    /// `SQLITE_IOERR_RDLOCK` (2314).
    public static let SQLITE_IOERR_RDLOCK = ResultCode(rawValue: 2314)
    /// `SQLITE_IOERR_DELETE` (2570).
    public static let SQLITE_IOERR_DELETE = ResultCode(rawValue: 2570)
    /// `SQLITE_IOERR_BLOCKED` (2826).
    public static let SQLITE_IOERR_BLOCKED = ResultCode(rawValue: 2826)
    /// `SQLITE_IOERR_NOMEM` (3082).
    public static let SQLITE_IOERR_NOMEM = ResultCode(rawValue: 3082)
    /// `SQLITE_IOERR_ACCESS` (3338).
    public static let SQLITE_IOERR_ACCESS = ResultCode(rawValue: 3338)
    /// `SQLITE_IOERR_CHECKRESERVEDLOCK` (3594).
    public static let SQLITE_IOERR_CHECKRESERVEDLOCK = ResultCode(rawValue: 3594)
    /// `SQLITE_IOERR_LOCK` (3850).
    public static let SQLITE_IOERR_LOCK = ResultCode(rawValue: 3850)
    /// `SQLITE_IOERR_CLOSE` (4106).
    public static let SQLITE_IOERR_CLOSE = ResultCode(rawValue: 4106)
    /// `SQLITE_IOERR_DIR_CLOSE` (4362).
    public static let SQLITE_IOERR_DIR_CLOSE = ResultCode(rawValue: 4362)
    /// `SQLITE_IOERR_SHMOPEN` (4618).
    public static let SQLITE_IOERR_SHMOPEN = ResultCode(rawValue: 4618)
    /// `SQLITE_IOERR_SHMSIZE` (4874).
    public static let SQLITE_IOERR_SHMSIZE = ResultCode(rawValue: 4874)
    /// `SQLITE_IOERR_SHMLOCK` (5130).
    public static let SQLITE_IOERR_SHMLOCK = ResultCode(rawValue: 5130)
    /// `SQLITE_IOERR_SHMMAP` (5386).
    public static let SQLITE_IOERR_SHMMAP = ResultCode(rawValue: 5386)
    /// `SQLITE_IOERR_SEEK` (5642).
    public static let SQLITE_IOERR_SEEK = ResultCode(rawValue: 5642)
    /// `SQLITE_IOERR_DELETE_NOENT` (5898).
    public static let SQLITE_IOERR_DELETE_NOENT = ResultCode(rawValue: 5898)
    /// `SQLITE_IOERR_MMAP` (6154).
    public static let SQLITE_IOERR_MMAP = ResultCode(rawValue: 6154)
    /// `SQLITE_IOERR_GETTEMPPATH` (6410).
    public static let SQLITE_IOERR_GETTEMPPATH = ResultCode(rawValue: 6410)
    /// `SQLITE_IOERR_CONVPATH` (6666).
    public static let SQLITE_IOERR_CONVPATH = ResultCode(rawValue: 6666)
    /// `SQLITE_IOERR_VNODE` (6922).
    public static let SQLITE_IOERR_VNODE = ResultCode(rawValue: 6922)
    /// `SQLITE_IOERR_AUTH` (7178).
    public static let SQLITE_IOERR_AUTH = ResultCode(rawValue: 7178)
    /// `SQLITE_IOERR_BEGIN_ATOMIC` (7434).
    public static let SQLITE_IOERR_BEGIN_ATOMIC = ResultCode(rawValue: 7434)
    /// `SQLITE_IOERR_COMMIT_ATOMIC` (7690).
    public static let SQLITE_IOERR_COMMIT_ATOMIC = ResultCode(rawValue: 7690)
    /// `SQLITE_IOERR_ROLLBACK_ATOMIC` (7946).
    public static let SQLITE_IOERR_ROLLBACK_ATOMIC = ResultCode(rawValue: 7946)
    /// `SQLITE_IOERR_DATA` (8202).
    public static let SQLITE_IOERR_DATA = ResultCode(rawValue: 8202)
    /// `SQLITE_IOERR_CORRUPTFS` (8458).
    public static let SQLITE_IOERR_CORRUPTFS = ResultCode(rawValue: 8458)
    /// `SQLITE_LOCKED_SHAREDCACHE` (262).
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode(rawValue: 262)
    /// `SQLITE_LOCKED_VTAB` (518).
    public static let SQLITE_LOCKED_VTAB = ResultCode(rawValue: 518)
    /// `SQLITE_BUSY_RECOVERY` (261).
    public static let SQLITE_BUSY_RECOVERY = ResultCode(rawValue: 261)
    /// `SQLITE_BUSY_SNAPSHOT` (517).
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode(rawValue: 517)
    /// `SQLITE_BUSY_TIMEOUT` (773).
    public static let SQLITE_BUSY_TIMEOUT = ResultCode(rawValue: 773)
    /// `SQLITE_CANTOPEN_NOTEMPDIR` (270).
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode(rawValue: 270)
    /// `SQLITE_CANTOPEN_ISDIR` (526).
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode(rawValue: 526)
    /// `SQLITE_CANTOPEN_FULLPATH` (782).
    public static let SQLITE_CANTOPEN_FULLPATH = ResultCode(rawValue: 782)
    /// `SQLITE_CANTOPEN_CONVPATH` (1038).
    public static let SQLITE_CANTOPEN_CONVPATH = ResultCode(rawValue: 1038)
    /// `SQLITE_CANTOPEN_DIRTYWAL` (1294).
    public static let SQLITE_CANTOPEN_DIRTYWAL = ResultCode(rawValue: 1294)
    /// `SQLITE_CANTOPEN_SYMLINK` (1550).
    public static let SQLITE_CANTOPEN_SYMLINK = ResultCode(rawValue: 1550)
    /// `SQLITE_CORRUPT_VTAB` (267).
    public static let SQLITE_CORRUPT_VTAB = ResultCode(rawValue: 267)
    /// `SQLITE_CORRUPT_SEQUENCE` (523).
    public static let SQLITE_CORRUPT_SEQUENCE = ResultCode(rawValue: 523)
    /// `SQLITE_CORRUPT_INDEX` (779).
    public static let SQLITE_CORRUPT_INDEX = ResultCode(rawValue: 779)
    /// `SQLITE_READONLY_RECOVERY` (264).
    public static let SQLITE_READONLY_RECOVERY = ResultCode(rawValue: 264)
    /// `SQLITE_READONLY_CANTLOCK` (520).
    public static let SQLITE_READONLY_CANTLOCK = ResultCode(rawValue: 520)
    /// `SQLITE_READONLY_ROLLBACK` (776).
    public static let SQLITE_READONLY_ROLLBACK = ResultCode(rawValue: 776)
    /// `SQLITE_READONLY_DBMOVED` (1032).
    public static let SQLITE_READONLY_DBMOVED = ResultCode(rawValue: 1032)
    /// `SQLITE_READONLY_CANTINIT` (1288).
    public static let SQLITE_READONLY_CANTINIT = ResultCode(rawValue: 1288)
    /// `SQLITE_READONLY_DIRECTORY` (1544).
    public static let SQLITE_READONLY_DIRECTORY = ResultCode(rawValue: 1544)
    /// `SQLITE_ABORT_ROLLBACK` (516).
    public static let SQLITE_ABORT_ROLLBACK = ResultCode(rawValue: 516)
    /// `SQLITE_CONSTRAINT_CHECK` (275).
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode(rawValue: 275)
    /// `SQLITE_CONSTRAINT_COMMITHOOK` (531).
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode(rawValue: 531)
    /// `SQLITE_CONSTRAINT_FOREIGNKEY` (787).
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode(rawValue: 787)
    /// `SQLITE_CONSTRAINT_FUNCTION` (1043).
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode(rawValue: 1043)
    /// `SQLITE_CONSTRAINT_NOTNULL` (1299).
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode(rawValue: 1299)
    /// `SQLITE_CONSTRAINT_PRIMARYKEY` (1555).
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode(rawValue: 1555)
    /// `SQLITE_CONSTRAINT_TRIGGER` (1811).
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode(rawValue: 1811)
    /// `SQLITE_CONSTRAINT_UNIQUE` (2067).
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode(rawValue: 2067)
    /// `SQLITE_CONSTRAINT_VTAB` (2323).
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode(rawValue: 2323)
    /// `SQLITE_CONSTRAINT_ROWID` (2579).
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode(rawValue: 2579)
    /// `SQLITE_CONSTRAINT_PINNED` (2835).
    public static let SQLITE_CONSTRAINT_PINNED = ResultCode(rawValue: 2835)
    /// `SQLITE_CONSTRAINT_DATATYPE` (3091).
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode(rawValue: 3091)
    /// `SQLITE_NOTICE_RECOVER_WAL` (283).
    public static let SQLITE_NOTICE_RECOVER_WAL = ResultCode(rawValue: 283)
    /// `SQLITE_NOTICE_RECOVER_ROLLBACK` (539).
    public static let SQLITE_NOTICE_RECOVER_ROLLBACK = ResultCode(rawValue: 539)
    /// `SQLITE_WARNING_AUTOINDEX` (284).
    public static let SQLITE_WARNING_AUTOINDEX = ResultCode(rawValue: 284)
    /// `SQLITE_AUTH_USER` (279).
    public static let SQLITE_AUTH_USER = ResultCode(rawValue: 279)
    /// `SQLITE_OK_LOAD_PERMANENTLY` (256).
    public static let SQLITE_OK_LOAD_PERMANENTLY = ResultCode(rawValue: 256)
    /// `SQLITE_OK_SYMLINK` (512).
    public static let SQLITE_OK_SYMLINK = ResultCode(rawValue: 512)
}

extension ResultCode: CustomStringConvertible {
    /// The English text SQLite gives the code's family (`sqlite3_errstr`).
    var errorString: String? {
        switch primaryResultCode.rawValue {
        case 0: return "not an error"
        case 1: return "SQL logic error"
        case 2: return "internal logic error"
        case 3: return "access permission denied"
        case 4: return "query aborted"
        case 5: return "database is locked"
        case 6: return "database table is locked"
        case 7: return "out of memory"
        case 8: return "attempt to write a readonly database"
        case 9: return "interrupted"
        case 10: return "disk I/O error"
        case 11: return "database disk image is malformed"
        case 12: return "unknown operation"
        case 13: return "database or disk is full"
        case 14: return "unable to open database file"
        case 15: return "locking protocol"
        case 17: return "database schema has changed"
        case 18: return "string or blob too big"
        case 19: return "constraint failed"
        case 20: return "datatype mismatch"
        case 21: return "bad parameter or other API misuse"
        case 22: return "large file support is disabled"
        case 23: return "authorization denied"
        case 25: return "column index out of range"
        case 26: return "file is not a database"
        case 27: return "notification message"
        case 28: return "warning message"
        case 100: return "another row available"
        case 101: return "no more rows available"
        default: return nil
        }
    }

    /// The code followed by its meaning: `19 (constraint failed)`.
    public var description: String {
        if let errorString { return "\(rawValue) (\(errorString))" }
        return "\(rawValue)"
    }
}
