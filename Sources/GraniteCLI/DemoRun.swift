// One run of `granite demo`: the record API steps, each checked against the generated data, then the file.

import Foundation
import Granite
import GraniteSQL
import GraniteStorage

/// The SQL statements a database connection ran, collected by its trace.
final class SQLLog: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []

    func record(_ sql: String) {
        lock.withLock { statements.append(sql) }
    }

    /// The statements recorded since the last call, distinct and in order, with their counts.
    func take() -> [DemoStep.StatementCount] {
        let taken = lock.withLock {
            defer { statements.removeAll() }
            return statements
        }
        var counts: [DemoStep.StatementCount] = []
        for sql in taken {
            if let k = counts.firstIndex(where: { $0.sql == sql }) {
                counts[k].count += 1
            } else {
                counts.append(DemoStep.StatementCount(sql: sql, count: 1))
            }
        }
        return counts
    }
}

/// One run of the demo.
final class DemoRun {
    let path: String
    let clock = ContinuousClock()
    let log = SQLLog()
    var steps: [DemoStep] = []
    var verification = VerificationReport()
    var compression = CompressionReport()
    /// The generated players, player `n` at index `n - 1`.
    let players = (1...Int64(DemoData.playerCount)).map(DemoData.player)

    init(path: String) {
        self.path = path
    }

    /// Runs `body` as the step `title` (whose Swift source is `code`), recording the SQL it ran, its duration,
    /// and the result `describe` makes of its value.
    func step<R>(_ title: String, _ code: String, _ body: () throws -> R, describe: (R) -> String) rethrows -> R {
        _ = log.take()
        let start = clock.now
        let result = try body()
        let elapsed = rounded(milliseconds(clock.now - start))
        steps.append(
            DemoStep(title: title, code: code, sql: log.take(), result: describe(result), milliseconds: elapsed))
        return result
    }

    func run() throws -> DemoReport {
        var configuration = Configuration()
        let log = self.log
        configuration.prepareDatabase { db in
            db.trace { event in
                if case .statement(let statement) = event { log.record(statement.sql) }
            }
        }
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try migrate(dbQueue)
        try insert(dbQueue)
        try query(dbQueue)
        try change(dbQueue)
        let remaining = try dbQueue.read { try Player.fetchCount($0) }
        try dbQueue.close()
        return try fileReport(players: remaining)
    }

    // MARK: Steps

    func migrate(_ dbQueue: DatabaseQueue) throws {
        var migrator = DatabaseMigrator()
        Player.registerMigrations(in: &migrator)
        let applied = try step(
            "Migrate: create the player table and its score index with the schema DSL",
            "Player.registerMigrations(in: &migrator); try migrator.migrate(dbQueue)",
            {
                try migrator.migrate(dbQueue)
                return try dbQueue.read { try migrator.appliedMigrations($0) }
            }, describe: { "applied migrations: \($0.joined(separator: ", "))" })
        verification.expect(applied == ["createPlayer"], "migrations: applied \(applied)")
    }

    func insert(_ dbQueue: DatabaseQueue) throws {
        let ids = try step(
            "Insert \(grouped(DemoData.playerCount)) players in one transaction",
            "try dbQueue.write { db in for var player in players { try player.insert(db) } }",
            {
                try dbQueue.write { db -> [Int64] in
                    var ids: [Int64] = []
                    ids.reserveCapacity(players.count)
                    for var player in players {
                        try player.insert(db)
                        ids.append(player.id ?? 0)
                    }
                    return ids
                }
            }, describe: { "\(grouped($0.count)) players, didInsert set ids \($0.first ?? 0)…\($0.last ?? 0)" })
        verification.expect(ids == Array(1...Int64(DemoData.playerCount)), "insert: unexpected ids")
    }

    func query(_ dbQueue: DatabaseQueue) throws {
        let team = DemoData.featuredTeam
        try dbQueue.read { db in
            let best = try step(
                "The 5 best players of team \(team)",
                "Player.filter(Player.Columns.team == \"\(team)\").order(\\.score.desc).limit(5).fetchAll(db)",
                { try Player.filter(Player.Columns.team == team).order(\.score.desc).limit(5).fetchAll(db) },
                describe: { $0.map { "\($0.name) (\($0.score))" }.joined(separator: ", ") })
            let expectedScores = players.filter { $0.team == team }.map(\.score).sorted(by: >).prefix(5)
            verification.expect(
                best.map(\.score) == Array(expectedScores) && best.allSatisfy { $0.team == team },
                "best players: \(best.map(\.score)), expected \(Array(expectedScores))")

            let highScorers = try step(
                "Count the players scoring 900 or more",
                "Player.filter(Player.Columns.score >= 900).fetchCount(db)",
                { try Player.filter(Player.Columns.score >= 900).fetchCount(db) },
                describe: { "\(grouped($0)) players" })
            let expectedCount = players.filter { $0.score >= 900 }.count
            verification.expect(
                highScorers == expectedCount, "fetchCount: \(highScorers), expected \(expectedCount)")

            let id = DemoData.featuredID
            let player = try step(
                "Fetch player \(id) by id, achievements decoded from JSON",
                "Player.fetchOne(db, id: \(id))",
                { try Player.fetchOne(db, id: id) },
                describe: { player in
                    guard let player else { return "not found" }
                    return "\(player.name), team \(player.team), score \(player.score), "
                        + "\(player.achievements.count) achievements, first \"\(player.achievements.first?.title ?? "")\""
                })
            var expected = players[Int(id) - 1]
            expected.id = id
            verification.expect(player == expected, "fetchOne(id: \(id)) differs from the inserted player")

            let teams = try step(
                "Aggregate: players and average score by team",
                "Player.select(Player.Columns.team, count(Player.Columns.id), average(Player.Columns.score))"
                    + ".group(Player.Columns.team).order(Player.Columns.team).asRequest(of: Row.self).fetchAll(db)",
                {
                    try Player
                        .select(Player.Columns.team, count(Player.Columns.id), average(Player.Columns.score))
                        .group(Player.Columns.team)
                        .order(Player.Columns.team)
                        .asRequest(of: Row.self)
                        .fetchAll(db)
                },
                describe: { rows in
                    rows.map { row -> String in
                        let team: String = row[0]
                        let count: Int = row[1]
                        let average: Double = row[2]
                        return "\(team) \(count) (avg \(String(format: "%.1f", average)))"
                    }.joined(separator: ", ")
                })
            let expectedTeams = DemoData.teams.map { team in players.filter { $0.team == team }.count }
            verification.expect(
                teams.map { row -> Int in row[1] } == expectedTeams,
                "group by team: counts differ from \(expectedTeams)")
        }
    }

    func change(_ dbQueue: DatabaseQueue) throws {
        let id = DemoData.featuredID
        try dbQueue.write { db in
            var player = try Player.find(db, id: id)
            let oldScore = player.score
            let changed = try step(
                "Update player \(id): only the changed columns are written",
                "try player.updateChanges(db) { $0.score += 100; $0.achievements.append(…) }",
                {
                    try player.updateChanges(db) {
                        $0.score += 100
                        $0.achievements.append(
                            Player.Achievement(
                                title: "Demo star", season: $0.achievements.count + 1, points: 100,
                                note: "Updated by granite demo."))
                    }
                }, describe: { $0 ? "score \(oldScore) → \(player.score)" : "nothing changed" })
            let stored = try Player.fetchOne(db, id: id)
            verification.expect(
                changed && stored == player && stored?.score == oldScore + 100,
                "updateChanges: the stored player differs")

            let threshold = DemoData.deletionThreshold
            let deleted = try step(
                "Delete the players scoring below \(threshold)",
                "Player.filter(Player.Columns.score < \(threshold)).deleteAll(db)",
                { try Player.filter(Player.Columns.score < threshold).deleteAll(db) },
                describe: { "\(grouped($0)) players deleted" })
            var scores = players.map(\.score)
            scores[Int(id) - 1] = player.score
            let expectedDeleted = scores.filter { $0 < threshold }.count
            verification.expect(deleted == expectedDeleted, "deleteAll: \(deleted), expected \(expectedDeleted)")
            let remaining = try Player.fetchCount(db)
            verification.expect(
                remaining == players.count - expectedDeleted, "after deleteAll: \(remaining) players left")
        }
    }

    // MARK: The file

    /// Reopens the file with the storage engine alone: its trees (named after their SQL objects), the compressed
    /// text of the tables, the integrity check.
    func fileReport(players remaining: Int) throws -> DemoReport {
        var options = StorageOptions()
        options.readOnly = true
        options.create = false
        let engine = try StorageEngine(path: path, options: options)
        defer { try? engine.close() }
        var objects: [String: String] = [:]
        if let connection = try? SQLConnection(engine: engine) {
            for table in connection.catalog.tables { objects[table.storageName] = table.name }
            for table in connection.catalog.tables {
                for index in connection.catalog.indexes(on: table.name) { objects[index.storageName] = index.name }
            }
        }
        let integrity = engine.checkIntegrity()
        let read = try engine.beginRead()
        for tree in integrity.trees where tree.info.kind == .table && tree.info.name != "granite_schema" {
            try measureCompression(try read.table(named: tree.info.name))
        }
        try read.commit()
        compression.savedBytes = compression.plainBytes - compression.storedBytes
        let trees = integrity.trees.map {
            DemoTree(object: objects[$0.info.name] ?? $0.info.name, tree: TreeReport($0))
        }
        return DemoReport(
            file: path, fileSize: try engine.file.size(), pageSize: engine.pager.pageSize,
            pageCount: engine.pager.pageCount, players: remaining, steps: steps, trees: trees,
            compression: compression, verification: verification,
            integrity: IntegrityVerdict(ok: integrity.isOK, problems: integrity.problems))
    }

    /// Totals the compressed text stored in a table tree's rows.
    func measureCompression(_ table: TableTree) throws {
        let cursor = try table.makeCursor()
        var found = try cursor.first()
        while found {
            let payload = try cursor.payload()
            try payload.withUnsafeBytes { raw in
                let row = try RowDecoder(raw)
                for column in 0..<row.count where row.type(at: column) == .text {
                    compression.textValues += 1
                    if row.isCompressed(at: column) {
                        compression.compressedValues += 1
                        compression.plainBytes += row.textLength(at: column) ?? 0
                        compression.storedBytes += row.body(at: column).count
                    }
                }
            }
            found = try cursor.next()
        }
    }
}
