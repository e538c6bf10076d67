import CSQLite

/// SQLite through its C API: `CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)`,
/// `journal_mode=OFF`, `synchronous=OFF` (FULL with `--synchronous`), page size
/// and cache matched to Granite. The WAL workloads use `journal_mode=WAL` with
/// `synchronous=FULL` or `NORMAL`.
struct SQLiteDriver: EngineDriver {
    let settings: EngineSettings
    let name = "SQLite"
    let fileName = "bench.sqlite"

    static var version: String { String(cString: sqlite3_libversion()) }

    func insertRows(path: String, order: UnsafeBufferPointer<Int64>, payloads: PayloadSet) throws -> UInt64 {
        let start = MonotonicClock.nanoseconds()
        let db = try SQLiteConnection(path: path, settings: settings, create: true)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
        try db.execute("BEGIN")
        let insert = try db.prepare("INSERT INTO t(id, v) VALUES (?, ?)")
        let stmt = insert.handle
        for rowid in order {
            let payload = payloads.payload(for: rowid)
            try db.check(sqlite3_bind_int64(stmt, 1, rowid))
            // Destructor nil == SQLITE_STATIC: the payload buffer outlives the step.
            try db.check(sqlite3_bind_blob(stmt, 2, payload.baseAddress, Int32(payload.count), nil))
            let rc = sqlite3_step(stmt)
            guard rc == SQLITE_DONE else { throw db.error(rc, "INSERT rowid \(rowid)") }
            try db.check(sqlite3_reset(stmt))
        }
        insert.finalize()
        try db.execute("COMMIT")
        try db.close()
        return MonotonicClock.nanoseconds() - start
    }

    func lookupRows(path: String, keys: UnsafeBufferPointer<Int64>) throws -> LookupResult {
        let db = try SQLiteConnection(path: path, settings: settings, create: false)
        let select = try db.prepare("SELECT v FROM t WHERE id=?")
        let stmt = select.handle
        try db.execute("BEGIN")
        var checksum: UInt64 = 0
        let start = MonotonicClock.nanoseconds()
        for key in keys {
            try db.check(sqlite3_bind_int64(stmt, 1, key))
            let rc = sqlite3_step(stmt)
            guard rc == SQLITE_ROW else {
                throw rc == SQLITE_DONE
                    ? BenchError("SQLite: rowid \(key) not found") : db.error(rc, "SELECT rowid \(key)")
            }
            let blob = sqlite3_column_blob(stmt, 0)
            let count = Int(sqlite3_column_bytes(stmt, 0))
            checksum &+= rowDigest(rowid: key, payload: UnsafeRawBufferPointer(start: blob, count: count))
            try db.check(sqlite3_reset(stmt))
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        try db.execute("COMMIT")
        select.finalize()
        try db.close()
        return LookupResult(nanoseconds: elapsed, checksum: checksum)
    }

    func insertTransactions(
        path: String, order: UnsafeBufferPointer<Int64>, payloads: PayloadSet, rowsPerTransaction: Int,
        sync: WALSync
    ) throws -> TransactionResult {
        let db = try SQLiteConnection(path: path, settings: settings, create: true, wal: sync)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
        // Prepared like the insert, so no SQL is parsed inside the timing.
        let begin = try db.prepare("BEGIN").handle
        let commit = try db.prepare("COMMIT").handle
        let stmt = try db.prepare("INSERT INTO t(id, v) VALUES (?, ?)").handle
        let count = order.count
        var index = 0
        let start = MonotonicClock.nanoseconds()
        while index < count {
            let end = min(index + rowsPerTransaction, count)
            try db.stepDone(begin, "BEGIN")
            while index < end {
                let rowid = order[index]
                let payload = payloads.payload(for: rowid)
                try db.check(sqlite3_bind_int64(stmt, 1, rowid))
                try db.check(sqlite3_bind_blob(stmt, 2, payload.baseAddress, Int32(payload.count), nil))
                try db.stepDone(stmt, "INSERT rowid \(rowid)")
                index += 1
            }
            // COMMIT runs SQLite's automatic checkpoint (wal_autocheckpoint) when due.
            try db.stepDone(commit, "COMMIT")
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        let walBytes = FileSystem.size(of: path + "-wal") ?? 0
        let dbBytes = FileSystem.size(of: path) ?? 0
        try db.close()
        return TransactionResult(
            nanoseconds: elapsed, logState: "-wal file \(walBytes) B; database file \(dbBytes) B")
    }

    func scanRows(path: String, wal: WALSync?) throws -> ScanResult {
        let db = try SQLiteConnection(path: path, settings: settings, create: false, wal: wal)
        let select = try db.prepare("SELECT id, v FROM t")
        let stmt = select.handle
        try db.execute("BEGIN")
        var checksum: UInt64 = 0
        var rows = 0
        var previous = Int64.min
        var ascending = true
        let start = MonotonicClock.nanoseconds()
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw db.error(rc, "SELECT scan") }
            let rowid = sqlite3_column_int64(stmt, 0)
            let blob = sqlite3_column_blob(stmt, 1)
            let count = Int(sqlite3_column_bytes(stmt, 1))
            checksum &+= rowDigest(rowid: rowid, payload: UnsafeRawBufferPointer(start: blob, count: count))
            if rowid <= previous { ascending = false }
            previous = rowid
            rows += 1
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        try db.execute("COMMIT")
        select.finalize()
        try db.close()
        return ScanResult(nanoseconds: elapsed, rows: rows, checksum: checksum, ascending: ascending)
    }
}

/// Minimal owning wrapper around a `sqlite3*` connection.
final class SQLiteConnection {
    private var db: OpaquePointer?
    private var statements: [SQLiteStatement] = []

    /// `wal` nil: `journal_mode=OFF` and the `--synchronous` setting;
    /// otherwise `journal_mode=WAL` with that `synchronous` level.
    init(path: String, settings: EngineSettings, create: Bool, wal: WALSync? = nil) throws {
        // Single-threaded benchmark: no per-call mutex (SQLITE_OPEN_NOMUTEX).
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if create { flags |= SQLITE_OPEN_CREATE }
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(rc)"
            sqlite3_close(handle)
            throw BenchError("SQLite: cannot open \(path): \(message)")
        }
        db = handle
        if create {
            try execute("PRAGMA page_size=\(settings.pageSize)")
        } else {
            let pageSize = try pragmaInt("page_size")
            guard pageSize == settings.pageSize else {
                throw BenchError("SQLite: page_size is \(pageSize), expected \(settings.pageSize)")
            }
        }
        try execute("PRAGMA cache_size=-\(settings.cacheKiB)")
        let mode = wal == nil ? "off" : "wal"
        let journal = try queryText("PRAGMA journal_mode=\(mode.uppercased())")
        guard journal.lowercased() == mode else {
            throw BenchError("SQLite: journal_mode is \(journal), expected \(mode)")
        }
        if let wal {
            try execute("PRAGMA synchronous=\(wal.sqliteSynchronous)")
            try execute("PRAGMA wal_autocheckpoint=\(settings.walAutoCheckpointFrames)")
        } else {
            try execute("PRAGMA synchronous=\(settings.sqliteSynchronous)")
        }
    }

    deinit {
        for statement in statements { statement.finalize() }
        if let db { sqlite3_close_v2(db) }
    }

    func close() throws {
        for statement in statements { statement.finalize() }
        statements.removeAll()
        guard let handle = db else { return }
        db = nil
        let rc = sqlite3_close(handle)
        guard rc == SQLITE_OK else { throw BenchError("SQLite: close failed with code \(rc)") }
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "code \(rc)"
            sqlite3_free(message)
            throw BenchError("SQLite: \(sql): \(text)")
        }
    }

    /// First column of the first row of `sql`, as text.
    func queryText(_ sql: String) throws -> String {
        let statement = try prepare(sql)
        defer { statement.finalize() }
        let rc = sqlite3_step(statement.handle)
        guard rc == SQLITE_ROW else { throw error(rc, sql) }
        guard let text = sqlite3_column_text(statement.handle, 0) else { return "" }
        return String(cString: text)
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &handle, nil)
        guard rc == SQLITE_OK, let handle else { throw error(rc, sql) }
        let statement = SQLiteStatement(handle: handle)
        statements.append(statement)
        return statement
    }

    /// Steps a statement that returns no rows, then resets it.
    @inline(__always)
    func stepDone(_ statement: OpaquePointer?, _ context: @autoclosure () -> String) throws {
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_DONE else { throw error(rc, context()) }
        try check(sqlite3_reset(statement))
    }

    @inline(__always)
    func check(_ rc: Int32) throws {
        if rc != SQLITE_OK { throw error(rc, "call") }
    }

    func error(_ rc: Int32, _ context: String) -> BenchError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? ""
        return BenchError("SQLite: \(context) failed with code \(rc): \(message)")
    }

    /// Reads an integer pragma (used to double-check settings).
    func pragmaInt(_ name: String) throws -> Int {
        Int(try queryText("PRAGMA \(name)")) ?? -1
    }
}

/// A prepared statement; finalized explicitly or when its connection closes.
final class SQLiteStatement {
    private(set) var handle: OpaquePointer?

    init(handle: OpaquePointer) { self.handle = handle }

    func finalize() {
        if let handle {
            sqlite3_finalize(handle)
            self.handle = nil
        }
    }
}
