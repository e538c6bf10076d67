import Foundation
import RowWorkloadsGRDB
import RowWorkloadsGranite

/// The row-level workloads (`--only rows`): the same Swift source (RowWorkloads.swift) compiled against Granite
/// and against GRDB 7.10.0 on SQLite, timed in the same run.
extension Benchmark {
    private enum RowPhase: Int, CaseIterable {
        case insertPositional, insertNamed, fetchRows, fetchInts

        func label(rows: Int) -> String {
            switch self {
            case .insertPositional: return "Rows: INSERT \(rows) rows ×10 Int, cached statement, positional arguments"
            case .insertNamed: return "Rows: INSERT \(rows) rows ×10 Int, cached statement, named arguments"
            case .fetchRows: return "Rows: fetch \(rows) rows ×10 Int via Row cursor"
            case .fetchInts: return "Rows: Int.fetchAll ×10 columns of \(rows) rows"
            }
        }
    }

    /// Runs the four phases on one engine and returns their times in nanoseconds.
    private func runRowPhases(
        rows: Int, path: String, make: (String) throws -> any RowWorkloadRunner
    ) throws -> [UInt64] {
        let harness = try make(path)
        var times: [UInt64] = []
        var start = MonotonicClock.nanoseconds()
        try harness.insertPositional(rows: rows)
        times.append(MonotonicClock.nanoseconds() - start)
        try harness.clear()
        start = MonotonicClock.nanoseconds()
        try harness.insertNamed(rows: rows)
        times.append(MonotonicClock.nanoseconds() - start)
        let expected = RowWorkloadsGranite.RowHarness.expectedSum(rows: rows)
        start = MonotonicClock.nanoseconds()
        let rowSum = try harness.fetchRows()
        times.append(MonotonicClock.nanoseconds() - start)
        start = MonotonicClock.nanoseconds()
        let intSum = try harness.fetchInts()
        times.append(MonotonicClock.nanoseconds() - start)
        if rowSum != expected { fail("\(harness.engine) row fetch sum \(rowSum) != \(expected)") }
        if intSum != expected { fail("\(harness.engine) Int.fetchAll sum \(intSum) != \(expected)") }
        return times
    }

    func rowWorkloads(rows: Int, table: inout [ReportRow]) throws {
        var times = [[[Double]]](repeating: [[], []], count: RowPhase.allCases.count)
        for run in 0..<options.runs {
            for index in engineOrder(run: run) {
                let name = index == 0 ? "Granite" : "GRDB"
                let runDirectory = "\(directory)/rows-\(name.lowercased())-\(run)"
                try FileSystem.makeDirectory(runDirectory)
                let result = try runRowPhases(rows: rows, path: "\(runDirectory)/db") { path in
                    if index == 0 { return GraniteRowRunner(try RowWorkloadsGranite.RowHarness(path: path)) }
                    return GRDBRowRunner(try RowWorkloadsGRDB.RowHarness(path: path))
                }
                FileSystem.remove(runDirectory)
                var line = "Rows run \(run + 1)/\(options.runs): \(name)"
                for phase in RowPhase.allCases {
                    let ms = milliseconds(result[phase.rawValue])
                    times[phase.rawValue][index].append(ms)
                    line += " \(phase)=\(format(ms)) ms"
                }
                log(line)
            }
        }
        for phase in RowPhase.allCases {
            table.append(.time(phase.label(rows: rows), times[phase.rawValue], target: 1.0))
        }
    }
}

/// The workloads of one engine, behind one interface for the timing loop.
protocol RowWorkloadRunner {
    var engine: String { get }
    func insertPositional(rows: Int) throws
    func insertNamed(rows: Int) throws
    func clear() throws
    func fetchRows() throws -> Int
    func fetchInts() throws -> Int
}

struct GraniteRowRunner: RowWorkloadRunner {
    let harness: RowWorkloadsGranite.RowHarness
    init(_ harness: RowWorkloadsGranite.RowHarness) { self.harness = harness }
    var engine: String { "Granite" }
    func insertPositional(rows: Int) throws { try harness.insertPositional(rows: rows) }
    func insertNamed(rows: Int) throws { try harness.insertNamed(rows: rows) }
    func clear() throws { try harness.clear() }
    func fetchRows() throws -> Int { try harness.fetchRows() }
    func fetchInts() throws -> Int { try harness.fetchInts() }
}

struct GRDBRowRunner: RowWorkloadRunner {
    let harness: RowWorkloadsGRDB.RowHarness
    init(_ harness: RowWorkloadsGRDB.RowHarness) { self.harness = harness }
    var engine: String { "GRDB" }
    func insertPositional(rows: Int) throws { try harness.insertPositional(rows: rows) }
    func insertNamed(rows: Int) throws { try harness.insertNamed(rows: rows) }
    func clear() throws { try harness.clear() }
    func fetchRows() throws -> Int { try harness.fetchRows() }
    func fetchInts() throws -> Int { try harness.fetchInts() }
}
