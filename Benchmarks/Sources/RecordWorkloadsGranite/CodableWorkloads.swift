// The Codable workloads, compiled twice from this one file: into RecordWorkloadsGranite (`import Granite`) and,
// through a symbolic link, into RecordWorkloadsGRDB (`import GRDB`). Same code for both engines, except for the
// configuration lines under `#if GRANITE` (see `CodableHarness.init`).
import Foundation

#if GRANITE
    import Granite
#else
    import GRDB
#endif

/// One event of a profile's history: repetitive, realistic text (stored inside the profile's JSON column).
public struct ProfileEvent: Codable, Equatable {
    public var kind: String
    public var timestamp: Int64
    public var place: String
    public var device: String
    public var note: String
}

/// A user profile: a Codable record whose `events` property, a nested array, is stored as one JSON column.
public struct Profile: Codable, FetchableRecord, PersistableRecord {
    public var id: Int64
    public var name: String
    public var email: String
    public var city: String
    public var events: [ProfileEvent]

    public static let databaseTableName = "profile"
}

/// The colour of an achievement (the seed's example).
public enum AchievementColor: String, Codable {
    case bronze, silver, gold
}

/// An achievement (the seed's example).
public struct Achievement: Codable, Equatable {
    public var name: String
    public var color: AchievementColor
}

/// The seed's player, with its achievements stored in a JSON column.
public struct AchievementPlayer: Codable, FetchableRecord, PersistableRecord {
    public var id: Int64
    public var name: String
    public var score: Int
    public var achievements: [Achievement]

    public static let databaseTableName = "player"
}

/// The data sets of the Codable workloads.
public enum CodableDataset: String, CaseIterable, Sendable {
    /// Profiles with 20 events each (kind, timestamp, place, device, note).
    case profiles
    /// The seed's `Player` with 3 to 6 achievements each.
    case achievements
}

/// A deterministic stream of pseudo-random numbers (64-bit LCG), the same on every run and engine.
struct CodableRandom {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

/// An order-sensitive FNV-1a digest.
struct CodableDigest {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func mix(_ value: UInt64) { hash = (hash ^ value) &* 0x0000_0100_0000_01B3 }
    mutating func mix(_ text: String) {
        for byte in text.utf8 { mix(UInt64(byte)) }
        mix(0xFF)
    }
}

extension Profile {
    /// Profile number `i` (0-based), with 20 events drawn from small vocabularies.
    static func make(_ i: Int) -> Profile {
        let kinds = ["login", "logout", "purchase", "page_view", "search", "password_reset", "review", "share"]
        let places = [
            "Paris, France", "Lyon, France", "Berlin, Germany", "Madrid, Spain", "Lisbon, Portugal",
            "Rome, Italy", "London, United Kingdom", "Dublin, Ireland", "Amsterdam, Netherlands",
            "Brussels, Belgium", "Vienna, Austria", "Zurich, Switzerland", "Oslo, Norway", "Stockholm, Sweden",
            "Copenhagen, Denmark", "Helsinki, Finland", "Warsaw, Poland", "Prague, Czech Republic",
            "Budapest, Hungary", "Athens, Greece",
        ]
        let devices = ["iPhone 15 (iOS 17.4)", "Pixel 8 (Android 14)", "MacBook Air (Safari 17)", "Windows 11 (Edge)"]
        let notes = [
            "Signed in with a saved password from the mobile application",
            "Viewed the order history page and downloaded an invoice",
            "Bought a monthly subscription with a credit card",
            "Searched the catalogue for running shoes in size 42",
            "Requested a password reset link by email",
            "Left a five-star review on a recently delivered item",
            "Shared a product page with a friend through a messaging app",
            "Signed out after a session of about twenty minutes",
            "Updated the delivery address and the phone number",
            "Added three items to the shopping basket",
        ]
        var random = CodableRandom(state: UInt64(i) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        var timestamp = Int64(1_700_000_000 + i * 37)
        let events = (0..<20).map { _ -> ProfileEvent in
            timestamp += Int64(60 + random.next(86_400))
            return ProfileEvent(
                kind: kinds[random.next(kinds.count)], timestamp: timestamp, place: places[random.next(places.count)],
                device: devices[random.next(devices.count)], note: notes[random.next(notes.count)])
        }
        return Profile(
            id: Int64(i + 1), name: "User \(i)", email: "user\(i)@example.com", city: places[i % places.count],
            events: events)
    }

    func digest(_ d: inout CodableDigest) {
        d.mix(UInt64(bitPattern: id))
        d.mix(name)
        d.mix(email)
        d.mix(city)
        d.mix(UInt64(events.count))
        for event in events {
            d.mix(event.kind)
            d.mix(UInt64(bitPattern: event.timestamp))
            d.mix(event.place)
            d.mix(event.device)
            d.mix(event.note)
        }
    }
}

extension AchievementPlayer {
    /// Player number `i` (0-based) with 3 to 6 achievements.
    static func make(_ i: Int) -> AchievementPlayer {
        let names = [
            "Use Codable Records", "Write a Migration", "Observe the Database", "Define an Association",
            "Run a Full-Text Search", "Share a Database Pool", "Encode a Nested Struct", "Fetch with a Cursor",
            "Write a Custom Request", "Handle a Conflict",
        ]
        let colors: [AchievementColor] = [.bronze, .silver, .gold]
        var random = CodableRandom(state: UInt64(i) &* 0xD1B5_4A32_D192_ED03 &+ 7)
        let achievements = (0..<(3 + i % 4)).map { _ in
            Achievement(name: names[random.next(names.count)], color: colors[random.next(colors.count)])
        }
        return AchievementPlayer(
            id: Int64(i + 1), name: "Player \(i)", score: (i &* 7_919) % 100_003, achievements: achievements)
    }

    func digest(_ d: inout CodableDigest) {
        d.mix(UInt64(bitPattern: id))
        d.mix(name)
        d.mix(UInt64(bitPattern: Int64(score)))
        for achievement in achievements {
            d.mix(achievement.name)
            d.mix(achievement.color.rawValue)
        }
    }
}

/// One database and the Codable workloads run on it: insert every record in one transaction, fetchAll, close.
public final class CodableHarness {
    let dbQueue: DatabaseQueue
    let dataset: CodableDataset
    var pendingProfiles: [Profile] = []
    var pendingPlayers: [AchievementPlayer] = []
    /// The digest and count of the last workload's records.
    var produced: (count: Int, digest: UInt64) = (0, 0)

    /// Opens (creates) the database at `path` (WAL, synchronous NORMAL) with the table of `dataset`, and builds
    /// `recordCount` records. `compressionThreshold` is Granite's `jsonCompressionThreshold` (GRDB ignores it).
    public init(path: String, dataset: CodableDataset, recordCount: Int, compressionThreshold: Int? = 128) throws {
        self.dataset = dataset
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        #if GRANITE
            configuration.jsonCompressionThreshold = compressionThreshold
        #endif
        dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try dbQueue.write { db in
            switch dataset {
            case .profiles:
                try db.create(table: "profile") { t in
                    t.primaryKey("id", .integer)
                    t.column("name", .text).notNull()
                    t.column("email", .text).notNull()
                    t.column("city", .text).notNull()
                    t.column("events", .jsonText).notNull()
                }
            case .achievements:
                try db.create(table: "player") { t in
                    t.primaryKey("id", .integer)
                    t.column("name", .text).notNull()
                    t.column("score", .integer).notNull()
                    t.column("achievements", .jsonText).notNull()
                }
            }
        }
        switch dataset {
        case .profiles: pendingProfiles = (0..<recordCount).map(Profile.make)
        case .achievements: pendingPlayers = (0..<recordCount).map(AchievementPlayer.make)
        }
    }

    /// Count and digest of the last workload's records, as `(count, digest)`.
    public func takeResult() -> (count: Int, digest: UInt64) {
        defer { produced = (0, 0) }
        return produced
    }

    /// Inserts every pending record in one transaction (digested after the timing, by ``digestFetched()``).
    public func insertAll() throws {
        let profiles = pendingProfiles
        let players = pendingPlayers
        pendingProfiles = []
        pendingPlayers = []
        try dbQueue.write { db in
            for profile in profiles { try profile.insert(db) }
            for player in players { try player.insert(db) }
        }
        fetchedProfiles = profiles
        fetchedPlayers = players
    }

    /// Fetches the whole table (digested after the timing, by ``digestFetched()``).
    public func fetchAll() throws {
        switch dataset {
        case .profiles: fetchedProfiles = try dbQueue.read { db in try Profile.fetchAll(db) }
        case .achievements: fetchedPlayers = try dbQueue.read { db in try AchievementPlayer.fetchAll(db) }
        }
    }

    var fetchedProfiles: [Profile] = []
    var fetchedPlayers: [AchievementPlayer] = []

    /// Digests the records of the last ``insertAll()`` or ``fetchAll()`` (untimed).
    public func digestFetched() {
        var digest = CodableDigest()
        for profile in fetchedProfiles { profile.digest(&digest) }
        for player in fetchedPlayers { player.digest(&digest) }
        produced = (fetchedProfiles.count + fetchedPlayers.count, digest.hash)
        fetchedProfiles = []
        fetchedPlayers = []
    }

    /// The `PRAGMA synchronous` level the connection reports (1 = NORMAL).
    public func synchronousLevel() throws -> Int {
        try dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Closes the database (the last connection checkpoints and removes the write-ahead log on both engines).
    public func close() throws {
        try dbQueue.close()
    }
}
