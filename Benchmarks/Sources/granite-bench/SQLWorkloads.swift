import Foundation

/// The SQL workloads (`--only sql`): the same statements, prepared once, run through GraniteSQL and through
/// `sqlite3_prepare_v2`/`bind`/`step`/`reset` on a `player` table with an index on `score`.
enum SQLText {
    /// The `player` table and its index; with `withoutRowid` (`--sql-without-rowid`), a WITHOUT ROWID table.
    static func schema(withoutRowid: Bool) -> [String] {
        [
            "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT, score INTEGER, created REAL)"
                + (withoutRowid ? " WITHOUT ROWID" : ""),
            "CREATE INDEX player_score ON player(score)",
        ]
    }
    static let insert = "INSERT INTO player(id, name, team, score, created) VALUES (?, ?, ?, ?, ?)"
    static let selectByKey = "SELECT * FROM player WHERE id = ?"
    static let range = "SELECT id, name, score FROM player WHERE score > ? ORDER BY score LIMIT 20"
    static let groupByTeam = "SELECT team, count(*), avg(score), max(created) FROM player GROUP BY team"
    static let totals = "SELECT count(*), sum(score) FROM player"
    static let update = "UPDATE player SET score = ? WHERE id = ?"
    static let delete = "DELETE FROM player WHERE id = ?"
}

/// The timed phases of one SQL run, in the order they run on the same database.
enum SQLPhase: Int, CaseIterable {
    case insert
    case selectByKey
    case range
    case aggregate
    case update
    case delete

    func label(_ dataset: SQLDataset) -> String {
        plainLabel(dataset) + (dataset.withoutRowid ? " (WITHOUT ROWID)" : "")
    }

    private func plainLabel(_ dataset: SQLDataset) -> String {
        switch self {
        case .insert: return "SQL: INSERT \(dataset.rows) rows, one transaction"
        case .selectByKey: return "SQL: SELECT * by primary key ×\(dataset.selectKeys.count)"
        case .range:
            return "SQL: indexed range + ORDER BY + LIMIT 20 ×\(dataset.rangeThresholds.count)"
        case .aggregate:
            return "SQL: GROUP BY team + count/sum, full table ×\(dataset.aggregateRepetitions)"
        case .update: return "SQL: UPDATE score by key ×\(dataset.updates.count), one transaction"
        case .delete: return "SQL: DELETE by key ×\(dataset.deletes.count), one transaction"
        }
    }
}

/// Everything the SQL workloads bind, generated (seeded) before any timing, plus the results a correct
/// engine must produce where they are cheap to compute.
final class SQLDataset {
    let rows: Int
    /// Whether the `player` table is a WITHOUT ROWID table.
    let withoutRowid: Bool
    /// Row `id` (1-based) has `names[id - 1]`, `teams[id - 1]` (nil is NULL), and so on.
    let names: [String]
    let teams: [String?]
    let scores: [Int64]
    let created: [Double]
    let selectKeys: [Int64]
    let rangeThresholds: [Int64]
    let updates: [(id: Int64, score: Int64)]
    /// Distinct ids.
    let deletes: [Int64]
    let aggregateRepetitions = 5

    /// `count(*)` and `sum(score)` after the insert, after the updates and after the deletes.
    let totalsAfterInsert: (count: Int64, sum: Int64)
    let totalsAfterUpdate: (count: Int64, sum: Int64)
    let totalsAfterDelete: (count: Int64, sum: Int64)
    /// Sum of the row digests of every primary-key select.
    let expectedSelectChecksum: UInt64

    static let scoreBound: UInt64 = 1_000_000

    private static let firstNames = [
        "Ada", "Grace", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances", "Edsger", "Radia", "Tim",
        "Sophie", "José", "Zoë", "Øyvind", "Anaïs", "Björn", "Chidi", "Mei", "Priya", "Kwame", "Léa", "Yusuf",
        "Hiroshi", "Ingrid", "Mateo", "Nadia", "Olusegun", "Rafael", "Saoirse", "Tomasz", "Ulla",
    ]
    private static let lastNames = [
        "Lovelace", "Hopper", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen", "Dijkstra",
        "Perlman", "Berners-Lee", "Wilson", "García", "Müller", "Nguyễn", "O'Brien", "Kowalski", "Okafor",
        "Tanaka", "Sharma", "Mensah", "Dubois", "Haddad", "Sato", "Lindqvist", "Fernández", "Petrov", "Adeyemi",
        "Silva", "Murphy", "Nowak", "Järvinen", "van der Berg", "Al-Sayed", "Kim", "Rossi",
    ]
    private static let teamNames = [
        "Red Rockets", "Blue Herons", "Green Giants", "Golden Bears", "Silver Foxes", "Night Owls", "Storm Chasers",
        "Iron Wolves", "River Otters", "Sky Pirates", "Thunder Cats", "Ice Breakers", "Sand Vipers", "Fire Ants",
        "Mountain Goats", "Sea Lions", "Wild Geese", "Crimson Tide", "Northern Lights", "Desert Hawks",
        "Harbor Seals", "Jade Dragons", "Copper Kites", "Marsh Frogs",
    ]

    init(rows: Int, seed: UInt64, withoutRowid: Bool = false) {
        self.rows = rows
        self.withoutRowid = withoutRowid
        var rng = SplitMix64(seed: seed ^ 0x5351_4C5F_524F_5753)
        var names: [String] = []
        var teams: [String?] = []
        var scores: [Int64] = []
        var created: [Double] = []
        names.reserveCapacity(rows)
        teams.reserveCapacity(rows)
        scores.reserveCapacity(rows)
        created.reserveCapacity(rows)
        var timestamp = 1_600_000_000.0
        for _ in 0..<rows {
            let first = Self.firstNames[Int(rng.next(below: UInt64(Self.firstNames.count)))]
            let last = Self.lastNames[Int(rng.next(below: UInt64(Self.lastNames.count)))]
            switch rng.next(below: 10) {
            case 0:
                let initial = Character(Unicode.Scalar(UInt8(65 + rng.next(below: 26))))
                names.append("\(first) \(initial). \(last)")
            case 1: names.append("\(first) \(last) \(rng.next(below: 1000))")
            default: names.append("\(first) \(last)")
            }
            // About 2% of the players have no team (NULL), so GROUP BY has a NULL group.
            let team = rng.next(below: 50)
            teams.append(team == 0 ? nil : Self.teamNames[Int(rng.next(below: UInt64(Self.teamNames.count)))])
            scores.append(Int64(rng.next(below: Self.scoreBound)))
            timestamp += Double(rng.next(below: 600_000)) / 1000
            created.append(timestamp)
        }
        self.names = names
        self.teams = teams
        self.scores = scores
        self.created = created

        var keys: [Int64] = []
        keys.reserveCapacity(rows)
        for _ in 0..<rows { keys.append(Int64(rng.next(below: UInt64(rows))) + 1) }
        selectKeys = keys
        rangeThresholds = (0..<1000).map { _ in Int64(rng.next(below: Self.scoreBound)) }
        let changeCount = min(10_000, rows)
        var updates: [(id: Int64, score: Int64)] = []
        updates.reserveCapacity(changeCount)
        for _ in 0..<changeCount {
            updates.append((Int64(rng.next(below: UInt64(rows))) + 1, Int64(rng.next(below: Self.scoreBound))))
        }
        self.updates = updates
        deletes = Array(shuffledOrder(rows: rows, seed: rng.next()).prefix(changeCount))

        totalsAfterInsert = (Int64(rows), scores.reduce(0, +))
        var updated = scores
        for (id, score) in updates { updated[Int(id - 1)] = score }
        totalsAfterUpdate = (Int64(rows), updated.reduce(0, +))
        var remainingSum = totalsAfterUpdate.sum
        for id in deletes { remainingSum -= updated[Int(id - 1)] }
        totalsAfterDelete = (Int64(rows - deletes.count), remainingSum)

        var checksum: UInt64 = 0
        for key in keys { checksum &+= Self.rowDigest(id: key, names: names, teams: teams, scores: scores, created) }
        expectedSelectChecksum = checksum
    }

    /// Digest of the full row `id` as `SELECT *` returns it.
    private static func rowDigest(
        id: Int64, names: [String], teams: [String?], scores: [Int64], _ created: [Double]
    ) -> UInt64 {
        let index = Int(id - 1)
        var digest = SQLDigest.column(SQLDigest.integer(id), at: 0)
        var name = names[index]
        digest &+= SQLDigest.column(name.withUTF8 { SQLDigest.text(UnsafeRawBufferPointer($0)) }, at: 1)
        if var team = teams[index] {
            digest &+= SQLDigest.column(team.withUTF8 { SQLDigest.text(UnsafeRawBufferPointer($0)) }, at: 2)
        } else {
            digest &+= SQLDigest.column(SQLDigest.null, at: 2)
        }
        digest &+= SQLDigest.column(SQLDigest.integer(scores[index]), at: 3)
        digest &+= SQLDigest.column(SQLDigest.real(created[index]), at: 4)
        return digest
    }
}

/// Digests of result values: a row's digest is the sum of `column(value digest, at: index)`; ordered results
/// chain rows with ``chain(_:_:)``. Integer, real, text and blob digests differ for equal bits.
enum SQLDigest {
    static let null: UInt64 = 0x4E55_4C4C_4E55_4C4C

    @inline(__always)
    static func integer(_ value: Int64) -> UInt64 {
        SplitMix64.mix(UInt64(bitPattern: value) ^ 0x494E_5445_4745_5221)
    }

    @inline(__always)
    static func real(_ value: Double) -> UInt64 {
        SplitMix64.mix(value.bitPattern ^ 0x5245_414C_5245_414C)
    }

    @inline(__always)
    static func text(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        rowDigest(rowid: 0x54_4558_54, payload: bytes)
    }

    @inline(__always)
    static func blob(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        rowDigest(rowid: 0x42_4C4F_42, payload: bytes)
    }

    @inline(__always)
    static func column(_ digest: UInt64, at index: Int) -> UInt64 {
        SplitMix64.mix(digest &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
    }

    @inline(__always)
    static func chain(_ accumulated: UInt64, _ row: UInt64) -> UInt64 {
        SplitMix64.mix(accumulated ^ row) &+ 1
    }
}

/// What one engine measured and produced in one SQL run.
struct SQLRunResult {
    var nanoseconds = [UInt64](repeating: 0, count: SQLPhase.allCases.count)
    /// Named results (counts, sums, checksums), compared between engines and runs.
    var checks: [(name: String, value: UInt64)] = []

    mutating func record(_ phase: SQLPhase, since start: UInt64) {
        nanoseconds[phase.rawValue] = MonotonicClock.nanoseconds() - start
    }

    mutating func check(_ name: String, _ value: UInt64) {
        checks.append((name, value))
    }

    mutating func check(_ name: String, _ value: Int64) {
        checks.append((name, UInt64(bitPattern: value)))
    }
}

/// One engine running the SQL workloads.
protocol SQLEngineDriver {
    var name: String { get }
    var fileName: String { get }

    /// Creates a new database at `path` (write-ahead log synced as `sync` says), creates the schema and
    /// prepares every statement untimed, then runs each ``SQLPhase`` in order on the same database, timing
    /// each, with untimed checks (`count(*)`, `sum(score)`) between the writing phases; closes it. The
    /// checks count rows rather than reading `changes()`: GraniteSQL's `SQLConnection.changes` is not maintained
    /// yet (always 0).
    func runSQLWorkloads(path: String, dataset: SQLDataset, sync: WALSync) throws -> SQLRunResult
}

extension Benchmark {
    /// Runs the SQL workloads `runs` times per engine, each run in a fresh directory, verifies the results
    /// against the expected values and between engines, and appends one report row per phase.
    func sqlWorkloads(dataset: SQLDataset, sync: WALSync, table: inout [ReportRow]) throws {
        let drivers: [any SQLEngineDriver] = [
            GraniteSQLDriver(settings: settings), SQLiteSQLDriver(settings: settings),
        ]
        var times = [[[Double]]](repeating: [[], []], count: SQLPhase.allCases.count)
        var reference: [(name: String, value: UInt64)]?
        let expected: [String: UInt64] = [
            "count after insert": UInt64(dataset.totalsAfterInsert.count),
            "sum after insert": UInt64(bitPattern: dataset.totalsAfterInsert.sum),
            "primary-key select checksum": dataset.expectedSelectChecksum,
            "count after update": UInt64(dataset.totalsAfterUpdate.count),
            "sum after update": UInt64(bitPattern: dataset.totalsAfterUpdate.sum),
            "count after delete": UInt64(dataset.totalsAfterDelete.count),
            "sum after delete": UInt64(bitPattern: dataset.totalsAfterDelete.sum),
        ]
        for run in 0..<options.runs {
            for index in engineOrder(run: run) {
                let driver = drivers[index]
                let runDirectory = "\(directory)/sql-\(driver.name.lowercased())-\(run)"
                try FileSystem.makeDirectory(runDirectory)
                let result = try driver.runSQLWorkloads(
                    path: "\(runDirectory)/\(driver.fileName)", dataset: dataset, sync: sync)
                FileSystem.remove(runDirectory)
                for check in result.checks {
                    if let value = expected[check.name], value != check.value {
                        fail("\(driver.name) SQL \(check.name): \(check.value) != expected \(value)")
                    }
                }
                if let reference {
                    if reference.map(\.name) != result.checks.map(\.name) {
                        fail("\(driver.name) SQL checks \(result.checks.map(\.name)) != \(reference.map(\.name))")
                    } else {
                        for (mine, theirs) in zip(result.checks, reference) where mine.value != theirs.value {
                            fail("\(driver.name) SQL \(mine.name): \(mine.value) differs from the other engine/run")
                        }
                    }
                } else {
                    reference = result.checks
                }
                var line = "SQL run \(run + 1)/\(options.runs): \(driver.name)"
                for phase in SQLPhase.allCases {
                    let ms = milliseconds(result.nanoseconds[phase.rawValue])
                    times[phase.rawValue][index].append(ms)
                    line += " \(phase)=\(format(ms)) ms"
                }
                log(line)
            }
        }
        for phase in SQLPhase.allCases {
            table.append(.time(phase.label(dataset), times[phase.rawValue], target: 1.0))
        }
    }
}
