/// Settings shared by both engines.
struct EngineSettings {
    var pageSize: Int
    var cachePages: Int
    /// Sync the file at commit: Granite `synchronous`, SQLite `synchronous=FULL`
    /// (otherwise `OFF`; SQLite's journal is always off).
    var synchronous: Bool

    var sqliteSynchronous: String { synchronous ? "FULL" : "OFF" }

    /// Cache memory in KiB, used for SQLite's `PRAGMA cache_size=-N`.
    var cacheKiB: Int { cachePages * pageSize / 1024 }
}

struct LookupResult {
    var nanoseconds: UInt64
    var checksum: UInt64
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
    /// digesting each payload. Timed: the iteration only.
    func scanRows(path: String) throws -> ScanResult
}
