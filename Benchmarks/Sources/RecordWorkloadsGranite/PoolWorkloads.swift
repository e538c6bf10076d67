// The pool workload, compiled twice from this one file: into RecordWorkloadsGranite (`import Granite`) and, through
// a symbolic link, into RecordWorkloadsGRDB (`import GRDB`).
import Dispatch
import Foundation

#if GRANITE
    import Granite
#else
    import GRDB
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one pool run measured.
public struct PoolResult: Sendable {
    /// Per reader thread: lookups per second.
    public var readsPerSecond: [Double]
    /// The writer's commits, per second, and each commit's time (from `write` called to `write` returned), sorted.
    public var commits: Int
    public var commitsPerSecond: Double
    public var latencies: [UInt64]
    /// Lookups that found no record or a record no commit wrote.
    public var mismatches: Int
    /// The first error a thread met, if any.
    public var error: String?

    public init(
        readsPerSecond: [Double], commits: Int, commitsPerSecond: Double, latencies: [UInt64], mismatches: Int,
        error: String?
    ) {
        self.readsPerSecond = readsPerSecond
        self.commits = commits
        self.commitsPerSecond = commitsPerSecond
        self.latencies = latencies
        self.mismatches = mismatches
        self.error = error
    }
}

/// A `DatabasePool` with a table of players, read by reader threads with `Player.fetchOne(db, id:)` (each lookup its
/// own `read`) while one writer thread updates one player per write transaction.
///
/// The writer sets player `id` to version `v` as team `"v<v>"` and score `base + v`, so a reader can tell a record
/// one commit wrote from a mixture of two.
public final class PoolHarness {
    let dbPool: DatabasePool
    let recordCount: Int

    /// Creates the database at `path` (WAL, synchronous NORMAL) with `recordCount` players at version 0.
    public init(path: String, recordCount: Int) throws {
        self.recordCount = recordCount
        var configuration = Configuration()
        // SQLite's writer can meet a lock a reader holds for a moment (a reader's first open of the WAL index), and
        // GRDB's default `.immediateError` would fail the run's write on it: wait instead, as a real app would.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        dbPool = try DatabasePool(path: path, configuration: configuration)
        try dbPool.write { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("team", .text).notNull()
                t.column("score", .integer).notNull()
                t.column("created", .datetime)
            }
            for id in 1...Int64(recordCount) {
                var player = Self.player(id: id, version: 0)
                try player.insert(db)
            }
        }
    }

    /// Player `id` as the commit that gave it `version` wrote it.
    static func player(id: Int64, version: Int) -> Player {
        Player(
            id: id, name: "Player \(id)", team: "v\(version)", score: Int(id) * 1_000 + version,
            created: Date(timeIntervalSince1970: 1_700_000_000 + Double(id)))
    }

    /// Whether `player` is player `id` as some commit wrote it.
    static func isConsistent(_ player: Player?, id: Int64) -> Bool {
        guard let player, player.id == id, player.name == "Player \(id)", player.team.hasPrefix("v"),
            let version = Int(player.team.dropFirst())
        else { return false }
        return player.score == Int(id) * 1_000 + version
    }

    /// Runs `readers` reader threads and one writer thread for `seconds`.
    public func run(readers: Int, seconds: Double, seed: UInt64) throws -> PoolResult {
        let shared = PoolRunState(readers: readers)
        let group = DispatchGroup()
        let (pool, count) = (dbPool, recordCount)
        let start = DispatchTime.now().uptimeNanoseconds
        let end = start + UInt64(seconds * 1e9)
        for reader in 0..<readers {
            group.enter()
            Thread {
                PoolHarness.readLoop(
                    pool, recordCount: count, seed: seed &+ UInt64(reader), until: end, into: shared, as: reader)
                group.leave()
            }.start()
        }
        group.enter()
        Thread {
            PoolHarness.writeLoop(pool, recordCount: count, seed: seed ^ 0x5752_4954, until: end, into: shared)
            group.leave()
        }.start()
        group.wait()
        return shared.result()
    }

    private static func readLoop(
        _ pool: DatabasePool, recordCount: Int, seed: UInt64, until end: UInt64, into shared: PoolRunState,
        as reader: Int
    ) {
        var state = seed
        var reads = 0
        var mismatches = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var now = start
        do {
            while now < end {
                for _ in 0..<16 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let id = Int64((state >> 33) % UInt64(recordCount)) + 1
                    let consistent = try pool.read { db in try isConsistent(Player.fetchOne(db, id: id), id: id) }
                    if !consistent { mismatches += 1 }
                }
                reads += 16
                now = DispatchTime.now().uptimeNanoseconds
            }
        } catch {
            shared.record(error: error)
        }
        shared.recordReader(reader, readsPerSecond: Double(reads) / (Double(now - start) / 1e9), mismatches: mismatches)
    }

    private static func writeLoop(
        _ pool: DatabasePool, recordCount: Int, seed: UInt64, until end: UInt64, into shared: PoolRunState
    ) {
        var state = seed
        var versions = [Int](repeating: 0, count: recordCount + 1)
        var latencies: [UInt64] = []
        let start = DispatchTime.now().uptimeNanoseconds
        var now = start
        do {
            while now < end {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let id = Int64((state >> 33) % UInt64(recordCount)) + 1
                let version = versions[Int(id)] + 1
                let before = DispatchTime.now().uptimeNanoseconds
                try pool.write { db in try player(id: id, version: version).update(db) }
                now = DispatchTime.now().uptimeNanoseconds
                latencies.append(now - before)
                versions[Int(id)] = version
            }
        } catch {
            shared.record(error: error)
        }
        shared.recordWriter(latencies: latencies, seconds: Double(now - start) / 1e9)
    }

    /// The number of players and the sum of their versions (untimed verification after a run).
    public func totals() throws -> (count: Int, versions: Int) {
        try dbPool.read { db in
            let players = try Player.fetchAll(db)
            let versions = players.reduce(0) { $0 + ($1.score - Int($1.id ?? 0) * 1_000) }
            return (players.count, versions)
        }
    }

    public func close() throws {
        try dbPool.close()
    }
}

/// What the threads of one run report, behind a lock.
final class PoolRunState: @unchecked Sendable {
    private let lock = NSLock()
    private var readsPerSecond: [Double]
    private var mismatches = 0
    private var latencies: [UInt64] = []
    private var writerSeconds = 0.0
    private var firstError: String?

    init(readers: Int) {
        readsPerSecond = [Double](repeating: 0, count: readers)
    }

    func recordReader(_ reader: Int, readsPerSecond rate: Double, mismatches count: Int) {
        lock.lock()
        defer { lock.unlock() }
        readsPerSecond[reader] = rate
        mismatches += count
    }

    func recordWriter(latencies values: [UInt64], seconds: Double) {
        lock.lock()
        defer { lock.unlock() }
        latencies = values.sorted()
        writerSeconds = seconds
    }

    func record(error: any Error) {
        lock.lock()
        defer { lock.unlock() }
        if firstError == nil { firstError = "\(error)" }
    }

    func result() -> PoolResult {
        lock.lock()
        defer { lock.unlock() }
        return PoolResult(
            readsPerSecond: readsPerSecond, commits: latencies.count,
            commitsPerSecond: writerSeconds > 0 ? Double(latencies.count) / writerSeconds : 0, latencies: latencies,
            mismatches: mismatches, error: firstError)
    }
}
