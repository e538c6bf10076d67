import Foundation
import RecordWorkloadsGRDB
import RecordWorkloadsGranite

/// The record workloads, the same Swift source compiled against Granite and against GRDB 7.10.0 on SQLite, timed in
/// the same run: `--only records` with hand-written `init(row:)`/`encode(to:)` (RecordWorkloads.swift), and
/// `--only synthesized` with conformances synthesized by `Codable` (SynthesizedWorkloads.swift).
extension Benchmark {
    /// Which record type the workloads use.
    enum RecordWorkloadKind {
        case handWritten, synthesized

        /// The first word of each report line.
        var labelPrefix: String { self == .handWritten ? "Records" : "Synthesized Codable" }
        /// What the record is, for the report lines.
        var recordName: String { self == .handWritten ? "Player" : "SynthesizedPlayer" }
        /// The directory-name part and the log prefix.
        var tag: String { self == .handWritten ? "records" : "synthesized" }
        /// How many filters the filter phase runs, and what each returns.
        var filters: (count: Int, share: String) {
            switch self {
            case .handWritten: return (RecordWorkloadsGranite.RecordHarness.filterCount, "a fiftieth")
            case .synthesized: return (RecordWorkloadsGranite.SynthesizedHarness.filterCount, "a fifth")
            }
        }
        /// Where the ratios must stay: issue targets of 1.0× (hand-written) and 0.5× (synthesized) GRDB's time.
        var target: Double { self == .handWritten ? 1.0 : 0.5 }

        func makeRunner(engine: Int, path: String, records: Int) throws -> any RecordWorkloadRunner {
            switch (self, engine) {
            case (.handWritten, 0): return try RecordWorkloadsGranite.RecordHarness(path: path, recordCount: records)
            case (.handWritten, _): return try RecordWorkloadsGRDB.RecordHarness(path: path, recordCount: records)
            case (.synthesized, 0): return try RecordWorkloadsGranite.SynthesizedHarness(path: path, recordCount: records)
            case (.synthesized, _): return try RecordWorkloadsGRDB.SynthesizedHarness(path: path, recordCount: records)
            }
        }
    }

    private enum RecordPhase: Int, CaseIterable {
        case insert, fetchAll, fetchCursor, fetchOne, topScores, filter, update, delete, transactions

        static let lookups = 10_000
        static let topScoreQueries = 1_000
        static let updates = 10_000
        static let deletes = 10_000
        static let transactionCount = 1_000

        func label(records: Int, kind: RecordWorkloadKind) -> String {
            let prefix = kind.labelPrefix
            let name = kind.recordName
            switch self {
            case .insert: return "\(prefix): insert \(records) \(name) records, one transaction"
            case .fetchAll: return "\(prefix): \(name).fetchAll (\(records) records)"
            case .fetchCursor: return "\(prefix): \(name).fetchCursor, iterated (\(records) records)"
            case .fetchOne: return "\(prefix): \(name).fetchOne(db, id:) ×\(Self.lookups)"
            case .topScores:
                return "\(prefix): \(name).order(score.desc).limit(100) (indexed) ×\(Self.topScoreQueries)"
            case .filter:
                let filters = kind.filters
                return "\(prefix): \(name).filter(team == …) (unindexed, \(filters.share) each) ×\(filters.count)"
            case .update: return "\(prefix): update(db) ×\(Self.updates), one transaction"
            case .delete: return "\(prefix): deleteOne(db, id:) ×\(Self.deletes), one transaction"
            case .transactions: return "\(prefix): \(Self.transactionCount) one-record write transactions"
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
    private func runRecordPhases(
        kind: RecordWorkloadKind, records: Int, directory: String, engine: Int
    ) throws -> RecordRun {
        let harness = try kind.makeRunner(engine: engine, path: "\(directory)/db", records: records)
        var run = RecordRun()
        run.synchronous = try harness.synchronousLevel()
        func timed(_ name: String, _ body: () throws -> Void) rethrows {
            let start = MonotonicClock.nanoseconds()
            try body()
            run.times.append(MonotonicClock.nanoseconds() - start)
            run.results[name] = harness.takeOutcome()
        }
        try timed("insert") { try harness.insertAll() }
        try timed("fetchAll") { try harness.fetchAll() }
        try timed("fetchCursor") { try harness.fetchCursor() }
        try timed("fetchOne") { try harness.fetchByID(count: RecordPhase.lookups) }
        try timed("topScores") { try harness.topScores(count: RecordPhase.topScoreQueries) }
        try timed("filter") { try harness.filterTeam(count: kind.filters.count) }
        try timed("update") { try harness.update(count: RecordPhase.updates) }
        try timed("delete") { run.deleted = try harness.delete(count: RecordPhase.deletes) }
        try timed("transactions") { try harness.insertTransactions(count: RecordPhase.transactionCount) }
        try harness.finalContents()
        run.results["final contents"] = harness.takeOutcome()
        try harness.close()
        (run.fileSize, run.files) = try FileSystem.totalFileSize(inDirectory: directory)
        return run
    }

    func recordWorkloads(
        kind: RecordWorkloadKind, records: Int, table: inout [ReportRow], notes: inout [String]
    ) throws {
        var times = [[[Double]]](repeating: [[], []], count: RecordPhase.allCases.count)
        var sizes: [[Int64]] = [[], []]
        var files: [[String]] = [[], []]
        for run in 0..<options.runs {
            var outcomes: [RecordRun?] = [nil, nil]
            for index in engineOrder(run: run) {
                let name = index == 0 ? "Granite" : "GRDB"
                let runDirectory = "\(directory)/\(kind.tag)-\(name.lowercased())-\(run)"
                try FileSystem.makeDirectory(runDirectory)
                let result = try runRecordPhases(kind: kind, records: records, directory: runDirectory, engine: index)
                if let keep = ProcessInfo.processInfo.environment["GRANITE_BENCH_KEEP"] {
                    // Kept for inspection (`granite info`, `sqlite3 … dbstat`): moved out of the work directory.
                    try? FileManager.default.moveItem(
                        atPath: runDirectory, toPath: "\(keep)/\(kind.tag)-\(name.lowercased())-\(run)")
                }
                FileSystem.remove(runDirectory)
                if result.synchronous != 1 {
                    fail("\(name) \(kind.tag): PRAGMA synchronous is \(result.synchronous), expected 1 (NORMAL)")
                }
                var line = "\(kind.labelPrefix) run \(run + 1)/\(options.runs): \(name)"
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
                fail("\(kind.tag): Granite deleted \(granite.deleted) records, GRDB \(grdb.deleted)")
            }
            for (phase, expected) in grdb.results.sorted(by: { $0.key < $1.key }) {
                let actual = granite.results[phase]
                if actual != expected {
                    fail("\(kind.tag) \(phase): Granite \(actual.map(\.description) ?? "nothing"), GRDB \(expected)")
                }
            }
            if run == 0 {
                let final = grdb.results["final contents"].map(\.description) ?? "?"
                log("\(kind.tag): both engines end with \(final); \(grdb.deleted) deleted")
            }
        }
        for phase in RecordPhase.allCases {
            table.append(.time(phase.label(records: records, kind: kind), times[phase.rawValue], target: kind.target))
        }
        let medianSizes = sizes.map { Int64(median($0.map(Double.init))) }
        table.append(
            .size("\(kind.labelPrefix): database file size after close (bytes)", medianSizes, target: 1.0))
        notes.append(
            "\(kind.labelPrefix) file size = every file left in the database directory after `dbQueue.close()`: "
                + "Granite \(files[0].joined(separator: ", ")); GRDB \(files[1].joined(separator: ", ")).")
    }
}

/// The workloads of one engine, behind one interface for the timing loop: each harness, compiled against Granite
/// or against GRDB, provides them with the same names.
protocol RecordWorkloadRunner {
    func synchronousLevel() throws -> Int
    /// The count and digest of the last workload's records, in the Granite module's type.
    func takeOutcome() -> RecordOutcome
    func insertAll() throws
    func fetchAll() throws
    func fetchCursor() throws
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

extension RecordWorkloadsGranite.RecordHarness: RecordWorkloadRunner {
    func takeOutcome() -> RecordOutcome { takeResult() }
}

extension RecordWorkloadsGranite.SynthesizedHarness: RecordWorkloadRunner {
    func takeOutcome() -> RecordOutcome { takeResult() }
}

extension RecordWorkloadsGRDB.RecordHarness: RecordWorkloadRunner {
    func takeOutcome() -> RecordOutcome {
        let result = takeResult()
        return RecordOutcome(count: result.count, checksum: result.checksum)
    }
}

extension RecordWorkloadsGRDB.SynthesizedHarness: RecordWorkloadRunner {
    func takeOutcome() -> RecordOutcome {
        let result = takeResult()
        return RecordOutcome(count: result.count, checksum: result.checksum)
    }
}
