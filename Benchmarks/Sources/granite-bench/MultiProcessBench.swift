import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The multi-process workload (`--only multiprocess`): this binary started again as child processes
/// (``MultiProcessChild``), 1, 2 and 4 readers doing point lookups while one writer commits one-row transactions,
/// on Granite (GraniteSQL, durability .normal) and on SQLite (C API, WAL, synchronous=NORMAL), timed in the same
/// run.
extension Benchmark {
    static let multiProcessReaderCounts = [1, 2, 4]

    /// One engine, one reader count, one run: what the children reported.
    struct MultiProcessSample {
        var readsPerSecond: [Double] = []
        var commits = 0
        var commitsPerSecond = 0.0
        var p50 = 0.0
        var p99 = 0.0
    }

    /// How one case ended: measured, or the engine could not open the database in a second process.
    enum MultiProcessOutcome {
        case measured(MultiProcessSample)
        case couldNotOpen(String)
    }

    func multiProcessWorkloads(table: inout [ReportRow], notes: inout [String]) throws {
        let counts = Self.multiProcessReaderCounts
        // Per reader count and engine: total reads/s, per-reader reads/s, commits/s, p50, p99 (ms), one per run.
        var total = [[[Double]]](repeating: [[], []], count: counts.count)
        var perReader = total
        var commitRates = total
        var p50 = total
        var p99 = total
        var openFailure: [String?] = [nil, nil]
        for run in 0..<options.runs {
            for (countIndex, readers) in counts.enumerated() {
                var line = "Multi-process run \(run + 1)/\(options.runs), \(readers) reader(s):"
                for index in engineOrder(run: run) where openFailure[index] == nil {
                    let engine: MultiProcessChildArguments.Engine = index == 0 ? .granite : .sqlite
                    let name = index == 0 ? "Granite" : "SQLite"
                    let runDirectory = "\(directory)/multiprocess-\(engine.rawValue)-\(readers)-\(run)"
                    try FileSystem.makeDirectory(runDirectory)
                    defer { FileSystem.remove(runDirectory) }
                    let outcome = try runMultiProcessCase(
                        engine: engine, readers: readers, path: "\(runDirectory)/db", run: run)
                    guard case .measured(let sample) = outcome else {
                        if case .couldNotOpen(let message) = outcome { openFailure[index] = message }
                        log("\(name): second process could not open: \(openFailure[index] ?? "")")
                        continue
                    }
                    let sum = sample.readsPerSecond.reduce(0, +)
                    total[countIndex][index].append(sum)
                    perReader[countIndex][index].append(sum / Double(readers))
                    commitRates[countIndex][index].append(sample.commitsPerSecond)
                    p50[countIndex][index].append(sample.p50)
                    p99[countIndex][index].append(sample.p99)
                    line += " \(name) reads/s=\(Int(sum)) commits/s=\(Int(sample.commitsPerSecond))"
                    line += " p50=\(format(sample.p50)) ms p99=\(format(sample.p99)) ms"
                }
                log(line)
            }
        }
        for (countIndex, readers) in counts.enumerated() {
            let label = "Multi-process, \(readers) reader process(es) + 1 writer process"
            table.append(.rate("\(label): reads/s, all readers", total[countIndex], target: 1.0))
            table.append(.rate("\(label): reads/s per reader", perReader[countIndex], target: nil))
            table.append(.rate("\(label): writer commits/s", commitRates[countIndex], target: nil))
            table.append(.time("\(label): commit latency p50 (ms)", p50[countIndex], target: 1.0))
            table.append(.information("\(label): commit latency p99 (ms)", p99[countIndex]))
        }
        for (index, name) in ["Granite", "SQLite"].enumerated() {
            if let message = openFailure[index] {
                notes.append("Multi-process: \(name): second process could not open: \(message) (not measured).")
            }
        }
    }

    /// Creates the database (untimed, in this process, closed again), starts the writer and the readers, lets them
    /// run `--mp-duration` seconds together, and checks what they report and what the file holds after.
    private func runMultiProcessCase(
        engine: MultiProcessChildArguments.Engine, readers: Int, path: String, run: Int
    ) throws -> MultiProcessOutcome {
        let rows = options.multiProcessRows
        let setup = try openMultiProcessConnection(engine, path: path, settings: settings, create: true)
        if let granite = setup as? GraniteMultiProcessConnection { try granite.populate(rows: rows) }
        if let sqlite = setup as? SQLiteMultiProcessConnection { try sqlite.populate(rows: rows) }
        try setup.close()

        func arguments(_ role: MultiProcessChildArguments.Role, seed: UInt64) -> MultiProcessChildArguments {
            MultiProcessChildArguments(
                role: role, engine: engine, path: path, rows: rows, seconds: options.multiProcessSeconds,
                seed: seed, settings: settings)
        }
        // The writer first: with it open, every reader is a second process on the database.
        var children: [BenchChild] = []
        defer { for child in children { child.stop() } }
        let seed = options.seed ^ UInt64(run) &* 0x100 ^ UInt64(readers)
        for number in 0...readers {
            let child = try BenchChild(
                arguments: arguments(number == 0 ? .writer : .reader, seed: seed &+ UInt64(number)))
            children.append(child)
            let first = child.readLine()
            if first == "ready" { continue }
            let message = first.flatMap { $0.hasPrefix("open-failed ") ? String($0.dropFirst(12)) : nil }
            guard let message else {
                throw BenchError("\(engine) child \(number) ended before it was ready (\(first ?? "no output"))")
            }
            if number == 0 { throw BenchError("\(engine): the writer process could not open: \(message)") }
            return .couldNotOpen(message)
        }
        for child in children { child.send("go") }
        var sample = MultiProcessSample()
        for (number, child) in children.enumerated() {
            let words = (child.readLine() ?? "").split(separator: " ").map(String.init)
            let status = child.wait()
            guard status == 0, words.first == "result" else {
                fail("multiprocess \(engine), \(readers) readers: child \(number) exited with status \(status)")
                continue
            }
            let values = Dictionary(
                stride(from: 1, to: words.count - 1, by: 2).map { (words[$0], Double(words[$0 + 1]) ?? 0) },
                uniquingKeysWith: { first, _ in first })
            let seconds = (values["nanoseconds"] ?? 0) / 1e9
            guard seconds > 0 else { continue }
            if number == 0 {
                sample.commits = Int(values["commits"] ?? 0)
                sample.commitsPerSecond = Double(sample.commits) / seconds
                sample.p50 = (values["p50"] ?? 0) / 1e6
                sample.p99 = (values["p99"] ?? 0) / 1e6
            } else {
                sample.readsPerSecond.append((values["reads"] ?? 0) / seconds)
            }
        }
        try verifyMultiProcessTotals(engine: engine, path: path, rows: rows, commits: sample.commits)
        return .measured(sample)
    }

    /// After the children: every row is still there, and the versions add up to the writer's commits.
    private func verifyMultiProcessTotals(
        engine: MultiProcessChildArguments.Engine, path: String, rows: Int, commits: Int
    ) throws {
        let connection = try openMultiProcessConnection(engine, path: path, settings: settings, create: false)
        let (count, sum) = try connection.totals()
        try connection.close()
        if count != Int64(rows) || sum != Int64(commits) {
            fail("multiprocess \(engine): \(count) rows with versions summing to \(sum); expected \(rows), \(commits)")
        }
    }
}

/// A child process of this binary, started with `--mp-child …`: lines in on standard input, lines out on standard
/// output, standard error shared with the parent.
final class BenchChild {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private var finished = false

    init(arguments: MultiProcessChildArguments) throws {
        process.executableURL = URL(fileURLWithPath: try Self.executablePath())
        process.arguments = arguments.commandLine
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// This binary's path (the children run the same code).
    static func executablePath() throws -> String {
        if let path = Bundle.main.executablePath { return path }
        throw BenchError("cannot find the benchmark's own executable")
    }

    /// The next line of the child's output, or nil at its end.
    func readLine() -> String? {
        let fd = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits for the child to end; its exit status (128 + the signal when killed).
    func wait() -> Int32 {
        process.waitUntilExit()
        finished = true
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// Ends a child that has not been waited for: closing its input makes a waiting child exit.
    func stop() {
        guard !finished else { return }
        try? input.fileHandleForWriting.close()
        _ = wait()
    }
}
