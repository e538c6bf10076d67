import Foundation
import RecordWorkloadsGRDB
import RecordWorkloadsGranite

/// The Codable workloads (`--only codable`): Codable records with a nested JSON array property, the same Swift
/// source (CodableWorkloads.swift) compiled against Granite and against GRDB 7.10.0 on SQLite. Granite runs with
/// JSON compression on (its default threshold, 128 bytes); a third, untimed run with compression off measures
/// what compression saves.
extension Benchmark {
    /// The configurations measured: Granite (compression on), GRDB, Granite with compression off (size only).
    private static let codableEngines = ["Granite", "GRDB", "Granite (compression off)"]

    /// What one engine produced in one run.
    private struct CodableRun {
        var insert: UInt64 = 0
        var fetchAll: UInt64 = 0
        var inserted: (count: Int, digest: UInt64) = (0, 0)
        var fetched: (count: Int, digest: UInt64) = (0, 0)
        var fileSize: Int64 = 0
        var files: [String] = []
        var synchronous = -1
    }

    private func runCodablePhases(
        dataset: RecordWorkloadsGranite.CodableDataset, records: Int, directory: String, engine: Int
    ) throws -> CodableRun {
        let path = "\(directory)/db"
        var run = CodableRun()
        if engine == 1 {
            let harness = try RecordWorkloadsGRDB.CodableHarness(
                path: path, dataset: .init(dataset), recordCount: records)
            run.synchronous = try harness.synchronousLevel()
            var start = MonotonicClock.nanoseconds()
            try harness.insertAll()
            run.insert = MonotonicClock.nanoseconds() - start
            harness.digestFetched()
            run.inserted = harness.takeResult()
            start = MonotonicClock.nanoseconds()
            try harness.fetchAll()
            run.fetchAll = MonotonicClock.nanoseconds() - start
            harness.digestFetched()
            run.fetched = harness.takeResult()
            try harness.close()
        } else {
            let harness = try RecordWorkloadsGranite.CodableHarness(
                path: path, dataset: dataset, recordCount: records, compressionThreshold: engine == 0 ? 128 : nil)
            run.synchronous = try harness.synchronousLevel()
            var start = MonotonicClock.nanoseconds()
            try harness.insertAll()
            run.insert = MonotonicClock.nanoseconds() - start
            harness.digestFetched()
            run.inserted = harness.takeResult()
            start = MonotonicClock.nanoseconds()
            try harness.fetchAll()
            run.fetchAll = MonotonicClock.nanoseconds() - start
            harness.digestFetched()
            run.fetched = harness.takeResult()
            try harness.close()
        }
        (run.fileSize, run.files) = try FileSystem.totalFileSize(inDirectory: directory)
        return run
    }

    func codableWorkloads(records: Int, table: inout [ReportRow], notes: inout [String]) throws {
        for dataset in RecordWorkloadsGranite.CodableDataset.allCases {
            let what =
                dataset == .profiles
                ? "\(records) Profile records (20 events each in a JSON column)"
                : "\(records) seed Player records (3–6 achievements each in a JSON column)"
            var insertTimes: [[Double]] = [[], []]
            var fetchTimes: [[Double]] = [[], []]
            var sizes: [[Int64]] = [[], [], []]
            var files: [[String]] = [[], [], []]
            for run in 0..<options.runs {
                var outcomes: [CodableRun?] = [nil, nil, nil]
                for index in engineOrder(run: run) + [2] {
                    let name = Self.codableEngines[index]
                    let runDirectory = "\(directory)/codable-\(dataset.rawValue)-\(index)-\(run)"
                    try FileSystem.makeDirectory(runDirectory)
                    let result = try runCodablePhases(
                        dataset: dataset, records: records, directory: runDirectory, engine: index)
                    FileSystem.remove(runDirectory)
                    if result.synchronous != 1 {
                        fail("\(name) codable: PRAGMA synchronous is \(result.synchronous), expected 1 (NORMAL)")
                    }
                    let insertMS = milliseconds(result.insert)
                    let fetchMS = milliseconds(result.fetchAll)
                    if index < 2 {
                        insertTimes[index].append(insertMS)
                        fetchTimes[index].append(fetchMS)
                    }
                    sizes[index].append(result.fileSize)
                    files[index] = result.files
                    log(
                        "Codable \(dataset.rawValue) run \(run + 1)/\(options.runs): \(name) insert=\(format(insertMS)) ms "
                            + "fetchAll=\(format(fetchMS)) ms size=\(result.fileSize) B "
                            + "(\(result.files.joined(separator: ", ")))")
                    outcomes[index] = result
                }
                guard let grdb = outcomes[1] else { continue }
                for index in [0, 2] {
                    guard let granite = outcomes[index] else { continue }
                    let name = Self.codableEngines[index]
                    if granite.inserted != grdb.inserted {
                        fail("codable \(dataset.rawValue) insert: \(name) \(granite.inserted), GRDB \(grdb.inserted)")
                    }
                    if granite.fetched != grdb.fetched || grdb.fetched != grdb.inserted {
                        fail(
                            "codable \(dataset.rawValue) fetchAll: \(name) \(granite.fetched), GRDB \(grdb.fetched), "
                                + "inserted \(grdb.inserted)")
                    }
                }
            }
            table.append(.time("Codable: insert \(what), one transaction", insertTimes, target: 1.0))
            table.append(.time("Codable: fetchAll \(what)", fetchTimes, target: 1.0))
            let medians = sizes.map { Int64(median($0.map(Double.init))) }
            table.append(
                .size(
                    "Codable: file size after close, \(dataset.rawValue) (bytes)", [medians[0], medians[1]],
                    target: dataset == .profiles ? 0.5 : 1.0))
            table.append(
                .size(
                    "Codable: file size after close, \(dataset.rawValue), Granite compression off (bytes)",
                    [medians[2], medians[1]], target: nil))
            let saved: Double = 100 * (1 - Double(medians[0]) / Double(max(medians[2], 1)))
            let graniteFiles = files[0].joined(separator: ", ")
            let grdbFiles = files[1].joined(separator: ", ")
            var note = "Codable \(dataset.rawValue) file size = every file left after `dbQueue.close()`: "
            note += "Granite \(graniteFiles); GRDB \(grdbFiles); Granite with compression off \(medians[2]) B, "
            note += "compression saves " + String(format: "%.1f", saved) + "% of it."
            notes.append(note)
        }
    }
}

extension RecordWorkloadsGRDB.CodableDataset {
    /// The GRDB module's copy of a Granite module's data set.
    init(_ dataset: RecordWorkloadsGranite.CodableDataset) {
        self = Self(rawValue: dataset.rawValue)!
    }
}
