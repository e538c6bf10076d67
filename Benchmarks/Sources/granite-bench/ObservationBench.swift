import Foundation
import RecordWorkloadsGRDB
import RecordWorkloadsGranite

/// The observation workloads (`--only observation`): N one-row write transactions on a `DatabaseQueue` and on a
/// `DatabasePool`, observed by a `ValueObservation` of the written table, of an unrelated table, or by none; the
/// same Swift source (ObservationWorkloads.swift) compiled against Granite and against GRDB 7.10.0 on SQLite,
/// timed in the same run.
extension Benchmark {
    private struct ObservationCase {
        var pool: Bool
        var observed: RecordWorkloadsGranite.ObservationHarness.Observed

        var tag: String {
            let kind: String
            switch observed {
            case .writtenTable: kind = "written"
            case .unrelatedTable: kind = "unrelated"
            case .nothing: kind = "none"
            }
            return (pool ? "pool-" : "queue-") + kind
        }

        var grdbObserved: RecordWorkloadsGRDB.ObservationHarness.Observed {
            switch observed {
            case .writtenTable: return .writtenTable
            case .unrelatedTable: return .unrelatedTable
            case .nothing: return .nothing
            }
        }

        func label(writes: Int) -> String {
            let engine = pool ? "DatabasePool" : "DatabaseQueue"
            switch observed {
            case .writtenTable: return "Observation: \(writes) one-row writes, \(engine), observing the table, total"
            case .unrelatedTable:
                return "Observation: \(writes) one-row writes, \(engine), observing an unrelated table"
            case .nothing: return "Observation: \(writes) one-row writes, \(engine), no observation"
            }
        }
    }

    private static let observationCases: [ObservationCase] = [false, true].flatMap { pool in
        [.writtenTable, .unrelatedTable, .nothing].map { ObservationCase(pool: pool, observed: $0) }
    }

    /// One case on one engine in a fresh directory.
    private func runObservationCase(
        _ observationCase: ObservationCase, writes: Int, directory: String, engine: Int
    ) throws -> RecordWorkloadsGranite.ObservationResult {
        let path = "\(directory)/db"
        if engine == 0 {
            let harness = try RecordWorkloadsGranite.ObservationHarness(path: path, pool: observationCase.pool)
            let result = try harness.run(writes: writes, observing: observationCase.observed)
            try harness.close()
            return result
        }
        let harness = try RecordWorkloadsGRDB.ObservationHarness(path: path, pool: observationCase.pool)
        let result = try harness.run(writes: writes, observing: observationCase.grdbObserved)
        try harness.close()
        return RecordWorkloadsGranite.ObservationResult(
            totalNanoseconds: result.totalNanoseconds, latencies: result.latencies, rowCount: result.rowCount,
            lastObservedValue: result.lastObservedValue, notifications: result.notifications)
    }

    func observationWorkloads(writes: Int, table: inout [ReportRow], notes: inout [String]) throws {
        let cases = Self.observationCases
        // Per case and engine: total times, latency p50 and p99 (ms), one sample per run.
        var totals = [[[Double]]](repeating: [[], []], count: cases.count)
        var p50 = [[[Double]]](repeating: [[], []], count: cases.count)
        var p99 = [[[Double]]](repeating: [[], []], count: cases.count)
        var received = [[Int]](repeating: [0, 0], count: cases.count)
        for run in 0..<options.runs {
            for (caseIndex, observationCase) in cases.enumerated() {
                var line = "Observation run \(run + 1)/\(options.runs) \(observationCase.tag):"
                for index in engineOrder(run: run) {
                    let name = index == 0 ? "Granite" : "GRDB"
                    let runDirectory = "\(directory)/observation-\(observationCase.tag)-\(name.lowercased())-\(run)"
                    try FileSystem.makeDirectory(runDirectory)
                    let result = try runObservationCase(
                        observationCase, writes: writes, directory: runDirectory, engine: index)
                    FileSystem.remove(runDirectory)
                    verifyObservation(result, observationCase, writes: writes, engine: name)
                    let total = milliseconds(result.totalNanoseconds)
                    totals[caseIndex][index].append(total)
                    line += " \(name) total=\(format(total)) ms"
                    if observationCase.observed == .writtenTable {
                        let sorted = result.latencies.sorted()
                        let (median, tail) = (percentile(sorted, 0.50), percentile(sorted, 0.99))
                        p50[caseIndex][index].append(median)
                        p99[caseIndex][index].append(tail)
                        received[caseIndex][index] = sorted.count
                        line += " p50=\(format(median)) ms p99=\(format(tail)) ms (\(sorted.count) values)"
                    }
                }
                log(line)
            }
        }
        for (caseIndex, observationCase) in cases.enumerated() {
            let label = observationCase.label(writes: writes)
            table.append(.time(label, totals[caseIndex], target: 1.0))
            if observationCase.observed == .writtenTable {
                let engine = observationCase.pool ? "DatabasePool" : "DatabaseQueue"
                table.append(
                    .information("Observation: \(engine), commit-to-onChange latency p50", p50[caseIndex]))
                table.append(
                    .information("Observation: \(engine), commit-to-onChange latency p99", p99[caseIndex]))
                notes.append(
                    "Observation, \(engine), observing the written table: values received after the writes "
                        + "(last run): Granite \(received[caseIndex][0]), GRDB \(received[caseIndex][1]) of \(writes).")
            }
        }
    }

    private func verifyObservation(
        _ result: RecordWorkloadsGranite.ObservationResult, _ observationCase: ObservationCase, writes: Int,
        engine: String
    ) {
        if result.rowCount != writes {
            fail("observation \(observationCase.tag): \(engine) has \(result.rowCount) rows, expected \(writes)")
        }
        switch observationCase.observed {
        case .writtenTable where result.lastObservedValue != writes:
            fail("observation \(observationCase.tag): \(engine) observed \(result.lastObservedValue) last")
        // A pool may fetch its first value twice (GRDB's does: on a reader, then on the writer to catch a write
        // made in between), never more.
        case .unrelatedTable where result.notifications > (observationCase.pool ? 2 : 1):
            fail("observation \(observationCase.tag): \(engine) delivered \(result.notifications) values")
        default:
            break
        }
    }

    /// The value below which `fraction` of the sorted nanosecond samples lie, in milliseconds.
    private func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let position = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
        return milliseconds(sorted[max(0, position)])
    }
}
