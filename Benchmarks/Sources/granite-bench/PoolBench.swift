import Foundation
import RecordWorkloadsGRDB
import RecordWorkloadsGranite

/// The pool workload (`--only pool`): the same Swift source (PoolWorkloads.swift) compiled against Granite and
/// against GRDB 7.10.0, a `DatabasePool` with 1, 2 and 4 reader threads doing point lookups while one writer
/// thread commits, timed in the same run.
extension Benchmark {
    private func runPoolCase(readers: Int, directory: String, engine: Int, seed: UInt64) throws -> (
        RecordWorkloadsGranite.PoolResult, totals: (count: Int, versions: Int)
    ) {
        let path = "\(directory)/db"
        let records = options.multiProcessRows
        let seconds = options.multiProcessSeconds
        if engine == 0 {
            let harness = try RecordWorkloadsGranite.PoolHarness(path: path, recordCount: records)
            let result = try harness.run(readers: readers, seconds: seconds, seed: seed)
            let totals = try harness.totals()
            try harness.close()
            return (result, totals)
        }
        let harness = try RecordWorkloadsGRDB.PoolHarness(path: path, recordCount: records)
        let result = try harness.run(readers: readers, seconds: seconds, seed: seed)
        let totals = try harness.totals()
        try harness.close()
        return (
            RecordWorkloadsGranite.PoolResult(
                readsPerSecond: result.readsPerSecond, commits: result.commits,
                commitsPerSecond: result.commitsPerSecond, latencies: result.latencies,
                mismatches: result.mismatches, error: result.error),
            totals
        )
    }

    func poolWorkloads(table: inout [ReportRow], notes: inout [String]) throws {
        let counts = Self.multiProcessReaderCounts
        var total = [[[Double]]](repeating: [[], []], count: counts.count)
        var perReader = total
        var commitRates = total
        var p50 = total
        var p99 = total
        for run in 0..<options.runs {
            for (countIndex, readers) in counts.enumerated() {
                var line = "Pool run \(run + 1)/\(options.runs), \(readers) reader(s):"
                for index in engineOrder(run: run) {
                    let name = index == 0 ? "Granite" : "GRDB"
                    let runDirectory = "\(directory)/pool-\(name.lowercased())-\(readers)-\(run)"
                    try FileSystem.makeDirectory(runDirectory)
                    defer { FileSystem.remove(runDirectory) }
                    let seed = options.seed ^ UInt64(run) &* 0x100 ^ UInt64(readers)
                    let (result, totals) = try runPoolCase(
                        readers: readers, directory: runDirectory, engine: index, seed: seed)
                    verifyPool(result, totals: totals, engine: name, readers: readers)
                    let sum = result.readsPerSecond.reduce(0, +)
                    total[countIndex][index].append(sum)
                    perReader[countIndex][index].append(sum / Double(readers))
                    commitRates[countIndex][index].append(result.commitsPerSecond)
                    let median = Self.milliseconds(percentile: 0.50, of: result.latencies)
                    let tail = Self.milliseconds(percentile: 0.99, of: result.latencies)
                    p50[countIndex][index].append(median)
                    p99[countIndex][index].append(tail)
                    line += " \(name) reads/s=\(Int(sum)) commits/s=\(Int(result.commitsPerSecond))"
                    line += " p50=\(format(median)) ms p99=\(format(tail)) ms"
                }
                log(line)
            }
        }
        for (countIndex, readers) in counts.enumerated() {
            let label = "Pool: DatabasePool, \(readers) reader thread(s) + 1 writer"
            table.append(.rate("\(label): reads/s, all readers", total[countIndex], target: 1.0))
            table.append(.rate("\(label): reads/s per reader", perReader[countIndex], target: nil))
            table.append(.rate("\(label): writer commits/s", commitRates[countIndex], target: nil))
            table.append(.time("\(label): commit latency p50 (ms)", p50[countIndex], target: 1.0))
            table.append(.information("\(label): commit latency p99 (ms)", p99[countIndex]))
        }
        notes.append(
            "Pool: the SQLite column is GRDB 7.10.0's DatabasePool; each lookup is its own `dbPool.read`, each "
                + "commit one `dbPool.write` updating one record.")
    }

    private func verifyPool(
        _ result: RecordWorkloadsGranite.PoolResult, totals: (count: Int, versions: Int), engine: String, readers: Int
    ) {
        let context = "pool \(engine), \(readers) readers"
        if let error = result.error { fail("\(context): \(error)") }
        if result.mismatches > 0 { fail("\(context): \(result.mismatches) lookups found a wrong or no record") }
        if totals.count != options.multiProcessRows || totals.versions != result.commits {
            fail(
                "\(context): \(totals.count) records, versions summing to \(totals.versions); expected "
                    + "\(options.multiProcessRows), \(result.commits)")
        }
    }

    /// The value below which `fraction` of the sorted nanosecond samples lie, in milliseconds.
    static func milliseconds(percentile fraction: Double, of sorted: [UInt64]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let position = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
        return Double(sorted[max(0, position)]) / 1_000_000
    }
}
