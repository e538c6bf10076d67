// The record workloads again, with a record whose conformances are all synthesized (`Codable`): the code most apps
// write. Compiled twice from this one file, into RecordWorkloadsGranite (`import Granite`) and, through a symbolic
// link, into RecordWorkloadsGRDB (`import GRDB`).
import Foundation

#if GRANITE
    import Granite
#else
    import GRDB
#endif

/// The team of a `SynthesizedPlayer`: a string enum, stored as its raw value, usable in requests.
public enum SynthesizedTeam: String, CaseIterable, Codable, DatabaseValueConvertible, Sendable {
    case red, green, blue, yellow, purple
}

/// A player whose decoding and encoding are synthesized by `Codable`: an optional auto-incremented id, text, a
/// string enum, an integer, a `Date`, a `UUID` and an optional integer.
public struct SynthesizedPlayer: Codable, Identifiable, FetchableRecord, MutablePersistableRecord {
    public var id: Int64?
    public var name: String
    public var team: SynthesizedTeam
    public var score: Int
    public var created: Date
    public var token: UUID
    public var bonus: Int?

    public static let databaseTableName = "player"

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Player number `i` (0-based): unique scores (ordering by score is the same on both engines), teams in
    /// turn (each a fifth of the table), a bonus on two players out of three.
    static func make(_ i: Int) -> SynthesizedPlayer {
        var tokenBytes = [UInt8](repeating: 0, count: 16)
        var state = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 &+ 0x2545_F491_4F6C_DD1D
        for index in tokenBytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            tokenBytes[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let token = tokenBytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        return SynthesizedPlayer(
            id: nil, name: "Player \(i)", team: SynthesizedTeam.allCases[i % SynthesizedTeam.allCases.count],
            score: (i &* 7_919) % 1_000_003, created: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)),
            token: token, bonus: i % 3 == 0 ? nil : i % 1_000)
    }

    /// An order-sensitive digest of every property.
    func digest() -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) { hash = (hash ^ value) &* 0x0000_0100_0000_01B3 }
        mix(UInt64(bitPattern: id ?? -1))
        for byte in name.utf8 { mix(UInt64(byte)) }
        mix(0xFF)
        for byte in team.rawValue.utf8 { mix(UInt64(byte)) }
        mix(UInt64(bitPattern: Int64(score)))
        mix(UInt64(bitPattern: Int64((created.timeIntervalSince1970 * 1000).rounded())))
        withUnsafeBytes(of: token.uuid) { for byte in $0 { mix(UInt64(byte)) } }
        mix(bonus.map { UInt64(bitPattern: Int64($0)) } ?? 0xFFFF)
        return hash
    }
}

/// One database and the workloads of `SynthesizedPlayer`, in order: insert, fetchAll, fetchCursor, fetchOne(id:),
/// order+limit, a filter returning a fifth of the table, updates, deletes, one-record transactions, then `close()`.
public final class SynthesizedHarness {
    let dbQueue: DatabaseQueue
    let recordCount: Int
    /// The records to insert, built before timing starts.
    var pending: [SynthesizedPlayer] = []
    /// The records read or written by the last workload, digested after its timing.
    var produced: [SynthesizedPlayer] = []
    /// Count and digest of records a cursor workload read without keeping them.
    var streamed: (count: Int, checksum: UInt64) = (0, 0)

    /// How many filters the filter workload runs: one per team, each returning a fifth of the table.
    public static let filterCount = SynthesizedTeam.allCases.count

    /// Opens (creates) the database at `path`: WAL, synchronous NORMAL, table `player` with an index on score.
    public init(path: String, recordCount: Int) throws {
        self.recordCount = recordCount
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try dbQueue.write { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("team", .text).notNull()
                t.column("score", .integer).notNull()
                t.column("created", .datetime).notNull()
                t.column("token", .blob).notNull()
                t.column("bonus", .integer)
            }
            try db.create(index: "player_on_score", on: "player", columns: ["score"])
        }
        pending = (0..<recordCount).map(SynthesizedPlayer.make)
    }

    /// The `PRAGMA synchronous` level the connection reports (1 = NORMAL).
    public func synchronousLevel() throws -> Int {
        try dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// The `k`-th id of a spread-out sequence of ids in `1...recordCount`.
    func spreadID(_ k: Int, multiplier: Int, offset: Int) -> Int64 {
        Int64((k &* multiplier &+ offset) % recordCount + 1)
    }

    /// Count and digest of the last workload's records (untimed), then forgets them.
    public func takeResult() -> RecordResult {
        var checksum = streamed.checksum
        for player in produced { checksum = checksum &* 31 &+ player.digest() }
        let result = RecordResult(count: streamed.count + produced.count, checksum: checksum)
        produced = []
        streamed = (0, 0)
        return result
    }

    /// Inserts every pending record in one transaction.
    public func insertAll() throws {
        var players = pending
        pending = []
        try dbQueue.write { db in
            for index in players.indices { try players[index].insert(db) }
        }
        produced = players
    }

    /// Fetches the whole table into an array.
    public func fetchAll() throws {
        produced = try dbQueue.read { db in try SynthesizedPlayer.fetchAll(db) }
    }

    /// Iterates the whole table through a cursor, digesting each record as it comes and keeping none.
    public func fetchCursor() throws {
        streamed = try dbQueue.read { db in
            var count = 0
            var checksum: UInt64 = 0
            let cursor = try SynthesizedPlayer.fetchCursor(db)
            while let player = try cursor.next() {
                count += 1
                checksum = checksum &* 31 &+ player.digest()
            }
            return (count, checksum)
        }
    }

    /// `count` fetches of one record by id.
    public func fetchByID(count: Int) throws {
        produced.reserveCapacity(count)
        try dbQueue.read { db in
            for k in 0..<count {
                if let player = try SynthesizedPlayer.fetchOne(db, id: spreadID(k, multiplier: 7_919, offset: 11)) {
                    produced.append(player)
                }
            }
        }
    }

    /// `count` times the 100 best scores (`order(score.desc).limit(100)`, through the index on score).
    public func topScores(count: Int) throws {
        try dbQueue.read { db in
            for _ in 0..<count {
                produced += try SynthesizedPlayer.order(Column("score").desc).limit(100).fetchAll(db)
            }
        }
    }

    /// `count` filters on the unindexed column `team`, one team after the other: each returns a fifth of the table.
    public func filterTeam(count: Int) throws {
        try dbQueue.read { db in
            for k in 0..<count {
                let team = SynthesizedTeam.allCases[k % SynthesizedTeam.allCases.count]
                produced += try SynthesizedPlayer.filter(Column("team") == team).fetchAll(db)
            }
        }
    }

    /// `count` full-record updates by id, in one transaction.
    public func update(count: Int) throws {
        try dbQueue.write { db in
            for k in 0..<count {
                let id = spreadID(k, multiplier: 7_919, offset: 101)
                var player = SynthesizedPlayer.make(Int(id) - 1)
                player.id = id
                player.score += 2_000_000 + k
                player.name += " (updated)"
                player.bonus = k
                try player.update(db)
            }
        }
    }

    /// `count` deletions by id, in one transaction; returns how many records they deleted.
    public func delete(count: Int) throws -> Int {
        try dbQueue.write { db in
            var deleted = 0
            for k in 0..<count {
                if try SynthesizedPlayer.deleteOne(db, id: spreadID(k, multiplier: 104_729, offset: 7)) {
                    deleted += 1
                }
            }
            return deleted
        }
    }

    /// `count` write transactions of one inserted record each.
    public func insertTransactions(count: Int) throws {
        for k in 0..<count {
            var player = SynthesizedPlayer.make(recordCount + k)
            try dbQueue.write { db in try player.insert(db) }
            produced.append(player)
        }
    }

    /// The whole table in id order (untimed verification after the workloads).
    public func finalContents() throws {
        produced = try dbQueue.read { db in try SynthesizedPlayer.order(Column("id")).fetchAll(db) }
    }

    /// Closes the database: what remains on disk is then measured.
    public func close() throws {
        try dbQueue.close()
    }
}
