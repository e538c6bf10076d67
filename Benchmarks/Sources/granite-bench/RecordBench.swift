import Foundation
import RecordWorkloadsGRDB
import RecordWorkloadsGranite

/// The record workloads (`--only records`): the same Swift source (RecordWorkloads.swift) compiled against Granite
/// and against GRDB 7.10.0 on SQLite, timed in the same run.
extension Benchmark {
    private enum RecordPhase: Int, CaseIterable {
        case insert, fetchAll, fetchOne, topScores, filter, update, delete, transactions

        static let lookups = 10_000
        static let topScoreQueries = 1_000
        static let filters = 20
        static let updates = 10_000
        static let deletes = 10_000
        static let transactionCount = 1_000

        func label(records: Int) -> String {
            switch self {
            case .insert: return "Records: insert \(records) Player records, one transaction"
            case .fetchAll: return "Records: Player.fetchAll (\(records) records)"
            case .fetchOne: return "Records: Player.fetchOne(db, id:) ×\(Self.lookups)"
            case .topScores:
                return "Records: Player.order(score.desc).limit(100) (indexed) ×\(Self.topScoreQueries)"
            case .filter: return "Records: Player.filter(team == …) (unindexed) ×\(Self.filters)"
            case .update: return "Records: update(db) ×\(Self.updates), one transaction"
            case .delete: return "Records: deleteOne(db, id:) ×\(Self.deletes), one transaction"
            case .transactions: return "Records: \(Self.transactionCount) one-record write transactions"
            }
        }
    }

    /// What one engine produced in one run: times (ns), results to compare, file size after closing.
    private struct RecordRun {
        var times: [UInt64] = []
        var results: [String: RecordOutcome] = [:]
        var deleted = 0
        var fileSize: Int64 = 0
        var files: [String] = []
        var synchronous = -1
    }

    /// Runs the phases on one engine in a fresh directory.
    private func runRecordPhases(records: Int, directory: String, engine: Int) throws -> RecordRun {
        let path = "\(directory)/db"
        let harness: any RecordWorkloadRunner =
            engine == 0
            ? GraniteRecordRunner(try RecordWorkloadsGranite.RecordHarness(path: path, recordCount: records))
            : GRDBRecordRunner(try RecordWorkloadsGRDB.RecordHarness(path: path, recordCount: records))
        var run = RecordRun()
        run.synchronous = try harness.synchronousLevel()
        func timed(_ name: String, _ body: () throws -> Void) rethrows {
            let start = MonotonicClock.nanoseconds()
            try body()
            run.times.append(MonotonicClock.nanoseconds() - start)
            run.results[name] = harness.takeResult()
        }
        try timed("insert") { try harness.insertAll() }
        try timed("fetchAll") { try harness.fetchAll() }
        try timed("fetchOne") { try harness.fetchByID(count: RecordPhase.lookups) }
        try timed("topScores") { try harness.topScores(count: RecordPhase.topScoreQueries) }
        try timed("filter") { try harness.filterTeam(count: RecordPhase.filters) }
        try timed("update") { try harness.update(count: RecordPhase.updates) }
        try timed("delete") { run.deleted = try harness.delete(count: RecordPhase.deletes) }
        try timed("transactions") { try harness.insertTransactions(count: RecordPhase.transactionCount) }
        try harness.finalContents()
        run.results["final contents"] = harness.takeResult()
        try harness.close()
        (run.fileSize, run.files) = try FileSystem.totalFileSize(inDirectory: directory)
        return run
    }

    func recordWorkloads(records: Int, table: inout [ReportRow], notes: inout [String]) throws {
        var times = [[[Double]]](repeating: [[], []], count: RecordPhase.allCases.count)
        var sizes: [[Int64]] = [[], []]
        var files: [[String]] = [[], []]
        for run in 0..<options.runs {
            var outcomes: [RecordRun?] = [nil, nil]
            for index in engineOrder(run: run) {
                let name = index == 0 ? "Granite" : "GRDB"
                let runDirectory = "\(directory)/records-\(name.lowercased())-\(run)"
                try FileSystem.makeDirectory(runDirectory)
                let result = try runRecordPhases(records: records, directory: runDirectory, engine: index)
                if let keep = ProcessInfo.processInfo.environment["GRANITE_BENCH_KEEP"] {
                    // Kept for inspection (`granite info`, `sqlite3 … dbstat`): moved out of the work directory.
                    try? FileManager.default.moveItem(
                        atPath: runDirectory, toPath: "\(keep)/records-\(name.lowercased())-\(run)")
                }
                FileSystem.remove(runDirectory)
                if result.synchronous != 1 {
                    fail("\(name) records: PRAGMA synchronous is \(result.synchronous), expected 1 (NORMAL)")
                }
                var line = "Records run \(run + 1)/\(options.runs): \(name)"
                for phase in RecordPhase.allCases {
                    let ms = milliseconds(result.times[phase.rawValue])
                    times[phase.rawValue][index].append(ms)
                    line += " \(phase)=\(format(ms)) ms"
                }
                line += " size=\(result.fileSize) B (\(result.files.joined(separator: ", ")))"
                log(line)
                sizes[index].append(result.fileSize)
                files[index] = result.files
                outcomes[index] = result
            }
            guard let granite = outcomes[0], let grdb = outcomes[1] else { continue }
            if granite.deleted != grdb.deleted {
                fail("records: Granite deleted \(granite.deleted) records, GRDB \(grdb.deleted)")
            }
            for (phase, expected) in grdb.results.sorted(by: { $0.key < $1.key }) {
                let actual = granite.results[phase]
                if actual != expected {
                    fail("records \(phase): Granite \(actual.map(\.description) ?? "nothing"), GRDB \(expected)")
                }
            }
            if run == 0 {
                let final = grdb.results["final contents"].map(\.description) ?? "?"
                log("records: both engines end with \(final); \(grdb.deleted) deleted")
            }
        }
        for phase in RecordPhase.allCases {
            table.append(.time(phase.label(records: records), times[phase.rawValue], target: 1.0))
        }
        let medianSizes = sizes.map { Int64(median($0.map(Double.init))) }
        table.append(.size("Records: database file size after close (bytes)", medianSizes, target: 1.0))
        notes.append(
            "Record file size = every file left in the database directory after `dbQueue.close()`: "
                + "Granite \(files[0].joined(separator: ", ")); GRDB \(files[1].joined(separator: ", ")).")
    }
}

/// The workloads of one engine, behind one interface for the timing loop.
protocol RecordWorkloadRunner {
    func synchronousLevel() throws -> Int
    func takeResult() -> RecordOutcome
    func insertAll() throws
    func fetchAll() throws
    func fetchByID(count: Int) throws
    func topScores(count: Int) throws
    func filterTeam(count: Int) throws
    func update(count: Int) throws
    func delete(count: Int) throws -> Int
    func insertTransactions(count: Int) throws
    func finalContents() throws
    func close() throws
}

/// Both modules define their own `RecordResult`; the Granite one is the common currency.
typealias RecordOutcome = RecordWorkloadsGranite.RecordResult

struct GraniteRecordRunner: RecordWorkloadRunner {
    let harness: RecordWorkloadsGranite.RecordHarness
    init(_ harness: RecordWorkloadsGranite.RecordHarness) { self.harness = harness }
    func synchronousLevel() throws -> Int { try harness.synchronousLevel() }
    func takeResult() -> RecordOutcome { harness.takeResult() }
    func insertAll() throws { try harness.insertAll() }
    func fetchAll() throws { try harness.fetchAll() }
    func fetchByID(count: Int) throws { try harness.fetchByID(count: count) }
    func topScores(count: Int) throws { try harness.topScores(count: count) }
    func filterTeam(count: Int) throws { try harness.filterTeam(count: count) }
    func update(count: Int) throws { try harness.update(count: count) }
    func delete(count: Int) throws -> Int { try harness.delete(count: count) }
    func insertTransactions(count: Int) throws { try harness.insertTransactions(count: count) }
    func finalContents() throws { try harness.finalContents() }
    func close() throws { try harness.close() }
}

struct GRDBRecordRunner: RecordWorkloadRunner {
    let harness: RecordWorkloadsGRDB.RecordHarness
    init(_ harness: RecordWorkloadsGRDB.RecordHarness) { self.harness = harness }
    func synchronousLevel() throws -> Int { try harness.synchronousLevel() }
    func takeResult() -> RecordOutcome {
        let result = harness.takeResult()
        return RecordOutcome(count: result.count, checksum: result.checksum)
    }
    func insertAll() throws { try harness.insertAll() }
    func fetchAll() throws { try harness.fetchAll() }
    func fetchByID(count: Int) throws { try harness.fetchByID(count: count) }
    func topScores(count: Int) throws { try harness.topScores(count: count) }
    func filterTeam(count: Int) throws { try harness.filterTeam(count: count) }
    func update(count: Int) throws { try harness.update(count: count) }
    func delete(count: Int) throws -> Int { try harness.delete(count: count) }
    func insertTransactions(count: Int) throws { try harness.insertTransactions(count: count) }
    func finalContents() throws { try harness.finalContents() }
    func close() throws { try harness.close() }
}
