import CSQLite
import Foundation
import GraniteSQL
import GraniteStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The table of the multi-process workload: `kv(id INTEGER PRIMARY KEY, version, chk, payload)`, rows 1...N.
///
/// A row's `chk` is ``check(id:version:)`` and its payload holds `chk` in its first 8 bytes (little-endian) then
/// filler, so a reader can tell a row written by one commit from a mixture of two.
enum MultiProcessTable {
    static let payloadBytes = 100
    static let schema =
        "CREATE TABLE kv(id INTEGER PRIMARY KEY, version INTEGER NOT NULL, chk INTEGER NOT NULL, payload BLOB NOT NULL)"
    static let insert = "INSERT INTO kv(id, version, chk, payload) VALUES (?, ?, ?, ?)"
    static let select = "SELECT version, chk, payload FROM kv WHERE id = ?"
    static let update = "UPDATE kv SET version = ?, chk = ?, payload = ? WHERE id = ?"
    static let totals = "SELECT count(*), sum(version) FROM kv"

    static func check(id: Int64, version: Int64) -> Int64 {
        Int64(bitPattern: SplitMix64.mix(UInt64(bitPattern: id) &* 0x9E37_79B9 ^ UInt64(bitPattern: version)))
    }

    /// Fills `buffer` (``payloadBytes`` long) with the payload of row `id` at `version`.
    static func fillPayload(_ buffer: inout [UInt8], id: Int64, version: Int64) {
        let chk = UInt64(bitPattern: check(id: id, version: version))
        for index in 0..<8 { buffer[index] = UInt8(truncatingIfNeeded: chk >> (8 * UInt64(index))) }
        for index in 8..<payloadBytes { buffer[index] = UInt8(truncatingIfNeeded: id &+ Int64(index)) }
    }

    /// Whether a row read for `id` is one that some commit wrote whole.
    static func isConsistent(id: Int64, version: Int64, chk: Int64, payload: UnsafeRawBufferPointer) -> Bool {
        guard chk == check(id: id, version: version), payload.count == payloadBytes else { return false }
        var stored: UInt64 = 0
        for index in 0..<8 { stored |= UInt64(payload[index]) << (8 * UInt64(index)) }
        return stored == UInt64(bitPattern: chk)
    }
}

/// What a child process is asked to do, from its command line:
/// `--mp-child reader|writer granite|sqlite PATH ROWS SECONDS SEED CACHE_PAGES PAGE_SIZE AUTO_CHECKPOINT`.
struct MultiProcessChildArguments {
    enum Role: String { case reader, writer }
    enum Engine: String { case granite, sqlite }

    var role: Role
    var engine: Engine
    var path: String
    var rows: Int
    var seconds: Double
    var seed: UInt64
    var settings: EngineSettings

    var commandLine: [String] {
        [
            "--mp-child", role.rawValue, engine.rawValue, path, String(rows), String(seconds), String(seed),
            String(settings.cachePages), String(settings.pageSize), String(settings.walAutoCheckpointFrames),
        ]
    }

    init(role: Role, engine: Engine, path: String, rows: Int, seconds: Double, seed: UInt64, settings: EngineSettings) {
        self.role = role
        self.engine = engine
        self.path = path
        self.rows = rows
        self.seconds = seconds
        self.seed = seed
        self.settings = settings
    }

    init(parsing arguments: [String]) throws {
        guard arguments.count == 10, arguments[0] == "--mp-child", let role = Role(rawValue: arguments[1]),
            let engine = Engine(rawValue: arguments[2]), let rows = Int(arguments[4]), rows > 0,
            let seconds = Double(arguments[5]), seconds > 0, let seed = UInt64(arguments[6]),
            let cachePages = Int(arguments[7]), let pageSize = Int(arguments[8]),
            let autoCheckpoint = Int(arguments[9])
        else { throw BenchError("bad --mp-child arguments: \(arguments)") }
        var settings = EngineSettings(pageSize: pageSize, cachePages: cachePages, synchronous: false)
        settings.walAutoCheckpointFrames = autoCheckpoint
        self.init(
            role: role, engine: engine, path: arguments[3], rows: rows, seconds: seconds, seed: seed,
            settings: settings)
    }
}

/// One engine's connection in a child process (or in the parent, for setup and the final totals).
protocol MultiProcessConnection: AnyObject {
    /// Looks row `id` up in its own (autocommit) read; false when the row is missing or inconsistent.
    func lookUp(id: Int64) throws -> Bool
    /// Sets row `id` to `version` in its own write transaction.
    func update(id: Int64, version: Int64, payload: [UInt8]) throws
    /// `count(*)` and `sum(version)` of the table.
    func totals() throws -> (count: Int64, sum: Int64)
    func close() throws
}

/// Granite through GraniteSQL: one `SQLConnection`, prepared statements, WAL with durability `.normal`.
final class GraniteMultiProcessConnection: MultiProcessConnection {
    let engine: StorageEngine
    let db: SQLConnection
    let begin: PreparedStatement
    let commit: PreparedStatement
    let select: PreparedStatement
    let updateRow: PreparedStatement

    init(path: String, settings: EngineSettings, create: Bool) throws {
        var options = StorageOptions()
        options.pageSize = settings.pageSize
        options.cacheSize = settings.cachePages
        options.durability = .normal
        options.autoCheckpointFrames = settings.walAutoCheckpointFrames
        options.create = create
        let engine = try StorageEngine(path: path, options: options)
        let db = try SQLConnection(engine: engine)
        if create { try db.execute(MultiProcessTable.schema) }
        self.engine = engine
        self.db = db
        begin = try db.prepare("BEGIN")
        commit = try db.prepare("COMMIT")
        select = try db.prepare(MultiProcessTable.select)
        updateRow = try db.prepare(MultiProcessTable.update)
    }

    /// Fills rows 1...`rows` at version 0 in one transaction.
    func populate(rows: Int) throws {
        let insert = try db.prepare(MultiProcessTable.insert)
        var payload = [UInt8](repeating: 0, count: MultiProcessTable.payloadBytes)
        try begin.execute()
        for id in 1...Int64(rows) {
            MultiProcessTable.fillPayload(&payload, id: id, version: 0)
            try insert.bind(.integer(id), at: 1)
            try insert.bind(.integer(0), at: 2)
            try insert.bind(.integer(MultiProcessTable.check(id: id, version: 0)), at: 3)
            try insert.bind(.blob(payload), at: 4)
            try insert.execute()
        }
        try commit.execute()
    }

    func lookUp(id: Int64) throws -> Bool {
        try select.bind(.integer(id), at: 1)
        defer { select.reset() }
        guard try select.stepRow(), case .integer(let version) = select.column(at: 0),
            case .integer(let chk) = select.column(at: 1), case .blob(let payload) = select.column(at: 2)
        else { return false }
        return payload.withUnsafeBytes {
            MultiProcessTable.isConsistent(id: id, version: version, chk: chk, payload: $0)
        }
    }

    func update(id: Int64, version: Int64, payload: [UInt8]) throws {
        try begin.execute()
        try updateRow.bind(.integer(version), at: 1)
        try updateRow.bind(.integer(MultiProcessTable.check(id: id, version: version)), at: 2)
        try updateRow.bind(.blob(payload), at: 3)
        try updateRow.bind(.integer(id), at: 4)
        try updateRow.execute()
        try commit.execute()
    }

    func totals() throws -> (count: Int64, sum: Int64) {
        let statement = try db.prepare(MultiProcessTable.totals)
        guard let row = try statement.step(), row.count == 2, case .integer(let count) = row[0] else {
            throw BenchError("Granite: no totals row")
        }
        if case .integer(let sum) = row[1] { return (count, sum) }
        return (count, 0)
    }

    func close() throws { try engine.close() }
}

/// SQLite through its C API: WAL, synchronous=NORMAL, a busy time-out (readers and the writer of other processes
/// may hold locks for a moment, as during a checkpoint).
final class SQLiteMultiProcessConnection: MultiProcessConnection {
    let connection: SQLiteConnection
    let begin: OpaquePointer?
    let commit: OpaquePointer?
    let select: OpaquePointer?
    let updateRow: OpaquePointer?

    init(path: String, settings: EngineSettings, create: Bool) throws {
        let connection = try SQLiteConnection(path: path, settings: settings, create: create, wal: .normal)
        try connection.execute("PRAGMA busy_timeout=5000")
        if create { try connection.execute(MultiProcessTable.schema) }
        self.connection = connection
        begin = try connection.prepare("BEGIN").handle
        commit = try connection.prepare("COMMIT").handle
        select = try connection.prepare(MultiProcessTable.select).handle
        updateRow = try connection.prepare(MultiProcessTable.update).handle
    }

    func populate(rows: Int) throws {
        let insert = try connection.prepare(MultiProcessTable.insert).handle
        var payload = [UInt8](repeating: 0, count: MultiProcessTable.payloadBytes)
        try connection.stepDone(begin, "BEGIN")
        for id in 1...Int64(rows) {
            MultiProcessTable.fillPayload(&payload, id: id, version: 0)
            try connection.check(sqlite3_bind_int64(insert, 1, id))
            try connection.check(sqlite3_bind_int64(insert, 2, 0))
            try connection.check(sqlite3_bind_int64(insert, 3, MultiProcessTable.check(id: id, version: 0)))
            try payload.withUnsafeBytes {
                try connection.check(sqlite3_bind_blob(insert, 4, $0.baseAddress, Int32($0.count), nil))
            }
            try connection.stepDone(insert, "INSERT id \(id)")
        }
        try connection.stepDone(commit, "COMMIT")
    }

    func lookUp(id: Int64) throws -> Bool {
        try connection.check(sqlite3_bind_int64(select, 1, id))
        let rc = sqlite3_step(select)
        guard rc == SQLITE_ROW else {
            try connection.check(sqlite3_reset(select))
            if rc == SQLITE_DONE { return false }
            throw connection.error(rc, "SELECT id \(id)")
        }
        let version = sqlite3_column_int64(select, 0)
        let chk = sqlite3_column_int64(select, 1)
        let payload = UnsafeRawBufferPointer(
            start: sqlite3_column_blob(select, 2), count: Int(sqlite3_column_bytes(select, 2)))
        let consistent = MultiProcessTable.isConsistent(id: id, version: version, chk: chk, payload: payload)
        try connection.check(sqlite3_reset(select))
        return consistent
    }

    func update(id: Int64, version: Int64, payload: [UInt8]) throws {
        try connection.stepDone(begin, "BEGIN")
        try connection.check(sqlite3_bind_int64(updateRow, 1, version))
        try connection.check(sqlite3_bind_int64(updateRow, 2, MultiProcessTable.check(id: id, version: version)))
        try payload.withUnsafeBytes {
            try connection.check(sqlite3_bind_blob(updateRow, 3, $0.baseAddress, Int32($0.count), nil))
        }
        try connection.check(sqlite3_bind_int64(updateRow, 4, id))
        try connection.stepDone(updateRow, "UPDATE id \(id)")
        try connection.stepDone(commit, "COMMIT")
    }

    func totals() throws -> (count: Int64, sum: Int64) {
        let statement = try connection.prepare(MultiProcessTable.totals).handle
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_ROW else { throw connection.error(rc, "totals") }
        return (sqlite3_column_int64(statement, 0), sqlite3_column_int64(statement, 1))
    }

    func close() throws { try connection.close() }
}

/// Opens (or, with `create`, creates) the workload's database on `engine`.
func openMultiProcessConnection(
    _ engine: MultiProcessChildArguments.Engine, path: String, settings: EngineSettings, create: Bool
) throws -> any MultiProcessConnection {
    switch engine {
    case .granite: return try GraniteMultiProcessConnection(path: path, settings: settings, create: create)
    case .sqlite: return try SQLiteMultiProcessConnection(path: path, settings: settings, create: create)
    }
}

/// The child process's side: `open-failed <message>` or `ready`, then waits for `go` on standard input, runs its
/// role for the given seconds and prints `result …`. Exit status 0, 1 on a wrong row, 3 when the database would
/// not open.
enum MultiProcessChild {
    static func main(_ arguments: [String]) -> Never {
        let child: MultiProcessChildArguments
        do {
            child = try MultiProcessChildArguments(parsing: arguments)
        } catch {
            log("error: \(error)")
            exit(2)
        }
        let connection: any MultiProcessConnection
        do {
            connection = try openMultiProcessConnection(
                child.engine, path: child.path, settings: child.settings, create: false)
        } catch {
            reply("open-failed \(error)")
            exit(3)
        }
        reply("ready")
        guard readLine() == "go" else { exit(0) }
        do {
            let passed: Bool
            switch child.role {
            case .reader: passed = try runReader(child, connection)
            case .writer: passed = try runWriter(child, connection)
            }
            try connection.close()
            exit(passed ? 0 : 1)
        } catch {
            log("\(child.engine) \(child.role): error: \(error)")
            exit(1)
        }
    }

    private static func reply(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// Point lookups of random ids, each in its own read, until the time is up.
    private static func runReader(_ child: MultiProcessChildArguments, _ connection: any MultiProcessConnection)
        throws -> Bool
    {
        var random = SplitMix64(seed: child.seed)
        let start = MonotonicClock.nanoseconds()
        let end = start + UInt64(child.seconds * 1e9)
        var reads = 0
        var now = start
        while now < end {
            for _ in 0..<64 {
                let id = Int64(random.next(below: UInt64(child.rows))) + 1
                guard try connection.lookUp(id: id) else {
                    log("MISMATCH: \(child.engine) reader: row \(id) missing or inconsistent")
                    return false
                }
            }
            reads += 64
            now = MonotonicClock.nanoseconds()
        }
        reply("result reads \(reads) nanoseconds \(now - start)")
        return true
    }

    /// One-row update transactions of random ids at full speed until the time is up; each commit timed.
    private static func runWriter(_ child: MultiProcessChildArguments, _ connection: any MultiProcessConnection)
        throws -> Bool
    {
        var random = SplitMix64(seed: child.seed)
        var versions = [Int64](repeating: 0, count: child.rows + 1)
        var payload = [UInt8](repeating: 0, count: MultiProcessTable.payloadBytes)
        var latencies: [UInt64] = []
        let start = MonotonicClock.nanoseconds()
        let end = start + UInt64(child.seconds * 1e9)
        var now = start
        while now < end {
            let id = Int64(random.next(below: UInt64(child.rows))) + 1
            let version = versions[Int(id)] + 1
            MultiProcessTable.fillPayload(&payload, id: id, version: version)
            let before = MonotonicClock.nanoseconds()
            try connection.update(id: id, version: version, payload: payload)
            now = MonotonicClock.nanoseconds()
            latencies.append(now - before)
            versions[Int(id)] = version
        }
        latencies.sort()
        func percentile(_ fraction: Double) -> UInt64 {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
        }
        let summary = "commits \(latencies.count) nanoseconds \(now - start)"
        reply("result \(summary) p50 \(percentile(0.5)) p99 \(percentile(0.99))")
        return true
    }
}
