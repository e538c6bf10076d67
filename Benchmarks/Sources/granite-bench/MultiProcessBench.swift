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
                        log("\(name), one process at a time instead: \(try checkOneProcessAtATime(engine: engine))")
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
        try createMultiProcessDatabase(engine: engine, path: path)
        let roles = [.writer] + [MultiProcessChildArguments.Role](repeating: .reader, count: readers)
        let seed = options.seed ^ UInt64(run) &* 0x100 ^ UInt64(readers)
        let outcome = try runChildren(engine: engine, roles: roles, path: path, seed: seed)
        if case .measured(let sample) = outcome {
            try verifyMultiProcessTotals(engine: engine, path: path, commits: sample.commits)
        }
        return outcome
    }

    /// For an engine that cannot run two processes on one database: its writer child alone, then one reader child
    /// alone, untimed, so that the children's code and checks still run. Returns a line for the log.
    private func checkOneProcessAtATime(engine: MultiProcessChildArguments.Engine) throws -> String {
        let runDirectory = "\(directory)/multiprocess-\(engine.rawValue)-sequential"
        try FileSystem.makeDirectory(runDirectory)
        defer { FileSystem.remove(runDirectory) }
        let path = "\(runDirectory)/db"
        try createMultiProcessDatabase(engine: engine, path: path)
        guard case .measured(let written) = try runChildren(engine: engine, roles: [.writer], path: path, seed: 1),
            case .measured(let read) = try runChildren(engine: engine, roles: [.reader], path: path, seed: 2)
        else { throw BenchError("\(engine): a child alone could not open the database") }
        try verifyMultiProcessTotals(engine: engine, path: path, commits: written.commits)
        return "\(written.commits) commits by the writer alone, then \(Int(read.readsPerSecond.reduce(0, +))) reads/s "
            + "by one reader alone, rows checked"
    }

    /// The workload's table with `--mp-rows` rows at version 0, created in this process and closed again.
    private func createMultiProcessDatabase(engine: MultiProcessChildArguments.Engine, path: String) throws {
        let setup = try openMultiProcessConnection(engine, path: path, settings: settings, create: true)
        if let granite = setup as? GraniteMultiProcessConnection {
            try granite.populate(rows: options.multiProcessRows)
        }
        if let sqlite = setup as? SQLiteMultiProcessConnection { try sqlite.populate(rows: options.multiProcessRows) }
        try setup.close()
    }

    /// Starts one child per role, in order, each once the one before it has the database open; sends them `go`
    /// together once all are ready, and collects what they report. A child that cannot open the database ends the
    /// case as ``MultiProcessOutcome/couldNotOpen(_:)`` (unless it is the first: nothing else holds the file then).
    private func runChildren(
        engine: MultiProcessChildArguments.Engine, roles: [MultiProcessChildArguments.Role], path: String,
        seed: UInt64
    ) throws -> MultiProcessOutcome {
        var children: [BenchChild] = []
        defer { for child in children { child.stop() } }
        for (number, role) in roles.enumerated() {
            let child = try BenchChild(
                arguments: MultiProcessChildArguments(
                    role: role, engine: engine, path: path, rows: options.multiProcessRows,
                    seconds: options.multiProcessSeconds, seed: seed &+ UInt64(number), settings: settings))
            children.append(child)
            let first = child.readLine()
            if first == "ready" { continue }
            let message = first.flatMap { $0.hasPrefix("open-failed ") ? String($0.dropFirst(12)) : nil }
            guard let message else {
                throw BenchError("\(engine) \(role) child ended before it was ready (\(first ?? "no output"))")
            }
            if number == 0 { throw BenchError("\(engine): the first process could not open: \(message)") }
            return .couldNotOpen(message)
        }
        for child in children { child.send("go") }
        var sample = MultiProcessSample()
        for (child, role) in zip(children, roles) {
            let words = (child.readLine() ?? "").split(separator: " ").map(String.init)
            let status = child.wait()
            guard status == 0, words.first == "result" else {
                fail("multiprocess \(engine), \(roles.count) processes: a \(role) exited with status \(status)")
                continue
            }
            let values = Dictionary(
                stride(from: 1, to: words.count - 1, by: 2).map { (words[$0], Double(words[$0 + 1]) ?? 0) },
                uniquingKeysWith: { first, _ in first })
            let seconds = (values["nanoseconds"] ?? 0) / 1e9
            guard seconds > 0 else { continue }
            switch role {
            case .writer:
                sample.commits = Int(values["commits"] ?? 0)
                sample.commitsPerSecond = Double(sample.commits) / seconds
                sample.p50 = (values["p50"] ?? 0) / 1e6
                sample.p99 = (values["p99"] ?? 0) / 1e6
            case .reader:
                sample.readsPerSecond.append((values["reads"] ?? 0) / seconds)
            }
        }
        return .measured(sample)
    }

    /// After the children: every row is still there, and the versions add up to the writer's commits.
    private func verifyMultiProcessTotals(engine: MultiProcessChildArguments.Engine, path: String, commits: Int)
        throws
    {
        let rows = options.multiProcessRows
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
