// The record workloads, compiled twice from this one file: into RecordWorkloadsGranite (`import Granite`) and,
// through a symbolic link, into RecordWorkloadsGRDB (`import GRDB`). The code below is the same for both, except
// for one line of configuration under `#if GRANITE` (see `RecordHarness.init`).
import Foundation

#if GRANITE
    import Granite
#else
    import GRDB
#endif

/// A player: the record of the workloads, with hand-written decoding and encoding (no Codable synthesis).
public struct Player: Identifiable, FetchableRecord, MutablePersistableRecord {
    public var id: Int64?
    public var name: String
    public var team: String
    public var score: Int
    public var created: Date?

    public static let databaseTableName = "player"

    public init(id: Int64? = nil, name: String, team: String, score: Int, created: Date?) {
        self.id = id
        self.name = name
        self.team = team
        self.score = score
        self.created = created
    }

    public init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        team = row["team"]
        score = row["score"]
        created = row["created"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["team"] = team
        container["score"] = score
        container["created"] = created
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// An order-sensitive digest of every property.
    func digest() -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) { hash = (hash ^ value) &* 0x0000_0100_0000_01B3 }
        mix(UInt64(bitPattern: id ?? -1))
        for byte in name.utf8 { mix(UInt64(byte)) }
        mix(0xFF)
        for byte in team.utf8 { mix(UInt64(byte)) }
        mix(UInt64(bitPattern: Int64(score)))
        mix(created.map { UInt64(bitPattern: Int64($0.timeIntervalSince1970 * 1000)) } ?? 0xFFFF)
        return hash
    }
}

/// The number and digest of the records a workload produced: equal on both engines when they agree.
public struct RecordResult: Equatable, CustomStringConvertible {
    public var count: Int
    public var checksum: UInt64
    public init(count: Int, checksum: UInt64) {
        self.count = count
        self.checksum = checksum
    }
    public var description: String { "\(count) records, checksum \(String(checksum, radix: 16))" }
}

/// One database and the record workloads run on it, in order: insert, fetchAll, fetchCursor, fetchOne(id:), order+limit,
/// unindexed filter, updates, deletes, one-record transactions, then `close()` before the file size is read.
public final class RecordHarness {
    let dbQueue: DatabaseQueue
    let recordCount: Int
    /// The records to insert, built before timing starts.
    var pending: [Player] = []
    /// The records read or written by the last workload, digested after its timing.
    var produced: [Player] = []
    /// Count and digest of records a cursor workload read without keeping them.
    var streamed: (count: Int, checksum: UInt64) = (0, 0)

    /// Teams of the players: the unindexed filter selects one of them.
    public static let teamCount = 50
    /// How many filters the filter workload runs, each returning a fiftieth of the table.
    public static let filterCount = 20

    /// Opens (creates) the database at `path`: WAL, synchronous NORMAL, table `player` with an index on score.
    public init(path: String, recordCount: Int) throws {
        self.recordCount = recordCount
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try dbQueue.write { db in try Self.createPlayerTable(db) }
        pending = (0..<recordCount).map(Self.makePlayer)
    }

    /// Creates table `player` with an index on score: shared by the record and the scale workloads, so that
    /// both measure the same schema.
    static func createPlayerTable(_ db: Database) throws {
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("team", .text).notNull()
            t.column("score", .integer).notNull()
            t.column("created", .datetime)
        }
        try db.create(index: "player_on_score", on: "player", columns: ["score"])
    }

    /// The `PRAGMA synchronous` level the connection reports (1 = NORMAL).
    public func synchronousLevel() throws -> Int {
        try dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Player number `i` (0-based): unique scores, so that ordering by score is the same on both engines.
    static func makePlayer(_ i: Int) -> Player {
        Player(
            name: "Player \(i)", team: "team\(i % teamCount)", score: (i &* 7_919) % 1_000_003,
            created: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)))
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

    /// Fetches the whole table.
    public func fetchAll() throws {
        produced = try dbQueue.read { db in try Player.fetchAll(db) }
    }

    /// Iterates the whole table through a cursor, digesting each record as it comes and keeping none.
    public func fetchCursor() throws {
        streamed = try dbQueue.read { db in
            var count = 0
            var checksum: UInt64 = 0
            let cursor = try Player.fetchCursor(db)
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
                if let player = try Player.fetchOne(db, id: spreadID(k, multiplier: 7_919, offset: 11)) {
                    produced.append(player)
                }
            }
        }
    }

    /// `count` times the 100 best scores (`order(score.desc).limit(100)`, through the index on score).
    public func topScores(count: Int) throws {
        try dbQueue.read { db in
            for _ in 0..<count {
                produced += try Player.order(Column("score").desc).limit(100).fetchAll(db)
            }
        }
    }

    /// `count` filters on the unindexed column `team`, one team after the other.
    public func filterTeam(count: Int) throws {
        try dbQueue.read { db in
            for k in 0..<count {
                produced += try Player.filter(Column("team") == "team\(k % Self.teamCount)").fetchAll(db)
            }
        }
    }

    /// `count` full-record updates by id, in one transaction.
    public func update(count: Int) throws {
        try dbQueue.write { db in
            for k in 0..<count {
                let id = spreadID(k, multiplier: 7_919, offset: 101)
                var player = Self.makePlayer(Int(id) - 1)
                player.id = id
                player.score += 2_000_000 + k
                player.name += " (updated)"
                try player.update(db)
            }
        }
    }

    /// `count` deletions by id, in one transaction; returns how many records they deleted.
    public func delete(count: Int) throws -> Int {
        try dbQueue.write { db in
            var deleted = 0
            for k in 0..<count {
                if try Player.deleteOne(db, id: spreadID(k, multiplier: 104_729, offset: 7)) { deleted += 1 }
            }
            return deleted
        }
    }

    /// `count` write transactions of one inserted record each.
    public func insertTransactions(count: Int) throws {
        for k in 0..<count {
            var player = Self.makePlayer(recordCount + k)
            try dbQueue.write { db in try player.insert(db) }
            produced.append(player)
        }
    }

    /// The whole table in id order (untimed verification after the workloads).
    public func finalContents() throws {
        produced = try dbQueue.read { db in try Player.order(Column("id")).fetchAll(db) }
    }

    /// Closes the database: what remains on disk is then measured.
    public func close() throws {
        try dbQueue.close()
    }
}
