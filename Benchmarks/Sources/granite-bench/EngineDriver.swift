/// Settings shared by both engines.
struct EngineSettings {
    var pageSize: Int
    var cachePages: Int
    /// Sync the file at commit: Granite `synchronous`, SQLite `synchronous=FULL`
    /// (otherwise `OFF`; SQLite's journal is always off).
    var synchronous: Bool

    var sqliteSynchronous: String { synchronous ? "FULL" : "OFF" }

    /// Committed log frames (pages) that trigger an automatic checkpoint in
    /// the WAL workloads: Granite `autoCheckpointFrames`, SQLite
    /// `PRAGMA wal_autocheckpoint` (both default to 1000).
    var walAutoCheckpointFrames = 1000

    /// Cache memory in KiB, used for SQLite's `PRAGMA cache_size=-N`.
    var cacheKiB: Int { cachePages * pageSize / 1024 }
}

/// Commit durability for the write-ahead-log workloads: Granite
/// `durability`, SQLite `journal_mode=WAL` with `synchronous` of the same name.
enum WALSync: String, CaseIterable {
    /// Sync the log at every commit (SQLite `synchronous=FULL`).
    case full
    /// Sync only at checkpoints (SQLite `synchronous=NORMAL`).
    case normal

    var sqliteSynchronous: String { rawValue.uppercased() }
}

struct LookupResult {
    var nanoseconds: UInt64
    var checksum: UInt64
}

struct TransactionResult {
    var nanoseconds: UInt64
    /// What the log looked like after the last commit (for the report's notes).
    var logState: String
}

struct ScanResult {
    var nanoseconds: UInt64
    var rows: Int
    var checksum: UInt64
    /// False if rowids did not come back strictly ascending.
    var ascending: Bool
}

/// One engine under test. Each method does its own untimed setup and
/// teardown and returns the time of the measured part only.
protocol EngineDriver {
    var name: String { get }
    /// File name of the database inside a per-run directory.
    var fileName: String { get }

    /// Creates a new database at `path` and inserts one row per element of
    /// `order` (payload from `payloads`) in a single transaction, commits and
    /// closes. Timed: open + create table + inserts + commit + close.
    func insertRows(path: String, order: UnsafeBufferPointer<Int64>, payloads: PayloadSet) throws -> UInt64

    /// Reopens the database at `path` and looks up every key (all must exist),
    /// digesting each payload. Timed: the lookups only.
    func lookupRows(path: String, keys: UnsafeBufferPointer<Int64>) throws -> LookupResult

    /// Reopens the database at `path` and iterates all rows in rowid order,
    /// digesting each payload. Timed: the iteration only. `wal` non-nil opens
    /// a database made by ``insertTransactions`` in the same mode.
    func scanRows(path: String, wal: WALSync?) throws -> ScanResult

    /// Creates a new database at `path` with a write-ahead log synced as
    /// `sync` says, creates the table in its own transaction, then inserts
    /// one row per element of `order` in explicit write transactions of
    /// `rowsPerTransaction` rows (begin, inserts, commit; the last one may be
    /// shorter), and closes. Timed: from the first begin to the return of the
    /// last commit, including any checkpoint a commit runs; open, table
    /// creation and close are not timed.
    func insertTransactions(
        path: String, order: UnsafeBufferPointer<Int64>, payloads: PayloadSet, rowsPerTransaction: Int,
        sync: WALSync
    ) throws -> TransactionResult
}

extension EngineDriver {
    func scanRows(path: String) throws -> ScanResult {
        try scanRows(path: path, wal: nil)
    }
}
