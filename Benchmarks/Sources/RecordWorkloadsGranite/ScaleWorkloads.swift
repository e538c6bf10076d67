// The scale workload (`--only scale`), compiled twice from this one file like RecordWorkloads.swift: into
// RecordWorkloadsGranite and, through a symbolic link, into RecordWorkloadsGRDB.
import Foundation

#if GRANITE
    import Granite
#else
    import GRDB
#endif

/// One `player` table (the record workloads' schema) grown step by step to millions of rows, measured at each
/// step: how the per-operation costs and the memory change with the size of the table, not how fast one size is.
public final class ScaleHarness {
    let dbQueue: DatabaseQueue
    /// Rows in the table.
    public private(set) var rows = 0

    /// Opens (creates) the database at `path` as the record workloads do: WAL, synchronous NORMAL.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try dbQueue.write { db in try RecordHarness.createPlayerTable(db) }
    }

    /// Inserts players until the table holds `target` rows, `batch` per transaction (records built inside the
    /// timing, as an application would); the seconds taken.
    public func grow(to target: Int, batch: Int = 10_000) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        while rows < target {
            let end = min(rows + batch, target)
            let first = rows
            try dbQueue.write { db in
                for i in first..<end {
                    var player = RecordHarness.makePlayer(i)
                    try player.insert(db)
                }
            }
            rows = end
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// `count` `Player.fetchOne(db, id:)` calls on seeded random ids, each in its own read: the microseconds of
    /// each, and a digest of the players read (equal on both engines).
    public func fetchOneLatencies(count: Int, seed: UInt64) throws -> (micros: [Double], digest: UInt64) {
        var state = seed
        var micros: [Double] = []
        micros.reserveCapacity(count)
        var digest: UInt64 = 0
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let id = Int64((state >> 33) % UInt64(rows)) + 1
            let start = DispatchTime.now().uptimeNanoseconds
            let player = try dbQueue.read { db in try Player.fetchOne(db, id: id) }
            micros.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3)
            digest &+= player?.digest() ?? 0
        }
        return (micros, digest)
    }

    /// `count` top-100 queries, by score (indexed) or by created (no index: a full scan and a top-N sort): the
    /// milliseconds of each, and a digest of the last result.
    public func topLatencies(count: Int, indexed: Bool) throws -> (millis: [Double], digest: UInt64) {
        let column = Column(indexed ? "score" : "created")
        var millis: [Double] = []
        var digest: UInt64 = 0
        for _ in 0..<count {
            let start = DispatchTime.now().uptimeNanoseconds
            let top = try dbQueue.read { db in try Player.order(column.desc).limit(100).fetchAll(db) }
            millis.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            digest = top.reduce(0) { $0 &* 31 &+ $1.digest() }
        }
        return (millis, digest)
    }

    public func close() throws {
        try dbQueue.close()
    }
}
