import Foundation
import RecordWorkloadsGRDB
import RecordWorkloadsGranite

/// The scale workload (`--only scale`, issue 24 item 3): one `player` table grown to each of `--scale-sizes` rows
/// (default 100k, 1M, 10M), measured at every step, on Granite and on GRDB 7.10.0. Each engine runs in a child
/// process of its own (`--scale-child`), so the peak resident memory read from `/proc/self/status` belongs to that
/// engine alone and not to the other engine's run or to the parent.
extension Benchmark {
    static let scaleLookups = 10_000
    static let scaleIndexedQueries = 200

    /// Unindexed top-100 queries per step: each is a full scan, so fewer as the table grows.
    static func scaleUnindexedQueries(rows: Int) -> Int { max(3, min(20, 2_000_000 / max(rows, 1))) }

    func scaleWorkloads() throws {
        let sizes = options.scaleSizes
        var steps: [[[String: Double]]] = [[], []]
        for engine in 0..<2 {
            let name = engine == 0 ? "granite" : "grdb"
            let path = directory + "/scale-\(name)"
            try FileSystem.makeDirectory(path)
            defer { FileSystem.remove(path) }
            log("scale: \(name) in a child process, sizes \(sizes.map(String.init).joined(separator: ","))")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try BenchChild.executablePath())
            process.arguments = ["--scale-child", name, path, sizes.map(String.init).joined(separator: ",")]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationReason == .exit, process.terminationStatus == 0 else {
                fail("scale \(name): the child exited with status \(process.terminationStatus)")
                continue
            }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard words.first == "step" else { continue }
                var values: [String: Double] = [:]
                for i in stride(from: 1, to: words.count - 1, by: 2) { values[words[i]] = Double(words[i + 1]) }
                steps[engine].append(values)
            }
        }
        print("Scale (`player` table of the record workloads, grown step by step; Granite / GRDB 7.10.0 on SQLite,")
        print("each engine in its own process, default cache sizes, WAL + synchronous NORMAL, 10,000 rows per")
        print(
            "insert transaction; \(Self.scaleLookups) fetchOne, \(Self.scaleIndexedQueries) indexed top-100 per step):")
        print("")
        print(
            "| rows | insert rows/s | fetchOne p50 µs | fetchOne p99 µs | top100 indexed p50 ms "
                + "| top100 unindexed p50 ms | bytes/row | VmRSS MiB | peak RSS MiB | RssAnon MiB |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        func cell(_ key: String, _ step: Int, _ format: (Double) -> String) -> String {
            let values = (0..<2).map { steps[$0].count > step ? steps[$0][step][key] : nil }
            return values.map { $0.map(format) ?? "–" }.joined(separator: " / ")
        }
        let fixed = { (digits: Int) in { (value: Double) in String(format: "%.\(digits)f", value) } }
        for (step, rows) in sizes.enumerated() {
            let mib = { (value: Double) in String(format: "%.1f", value / 1024) }
            print(
                "| \(rows) | \(cell("insertRate", step, fixed(0))) | \(cell("p50", step, fixed(1))) | "
                    + "\(cell("p99", step, fixed(1))) | \(cell("top", step, fixed(3))) | "
                    + "\(cell("unindexed", step, fixed(1))) | \(cell("bytesPerRow", step, fixed(1))) | "
                    + "\(cell("rssKB", step, mib)) | \(cell("hwmKB", step, mib)) | \(cell("anonKB", step, mib)) |")
            for key in ["lookupDigest", "topDigest", "unindexedDigest"] {
                let values = (0..<2).map { steps[$0].count > step ? steps[$0][step][key] : nil }
                if values[0] != values[1] { fail("scale \(rows) rows: \(key) differs between the engines") }
            }
        }
        print("")
    }
}

/// The child side of the scale workload: `--scale-child granite|grdb DIRECTORY SIZES`. Prints one
/// `step key value …` line per size on standard output; progress goes to standard error.
enum ScaleChild {
    static func main(_ arguments: [String]) -> Never {
        do {
            guard arguments.count == 4 else { throw BenchError("usage: --scale-child granite|grdb DIR SIZES") }
            let sizes = arguments[3].split(separator: ",").compactMap { Int($0) }
            let path = arguments[2] + "/scale.sqlite"
            let granite = arguments[1] == "granite"
            if granite {
                try run(try RecordWorkloadsGranite.ScaleHarness(path: path), path: path, sizes: sizes, granite: true)
            } else {
                try run(try RecordWorkloadsGRDB.ScaleHarness(path: path), path: path, sizes: sizes, granite: false)
            }
            exit(0)
        } catch {
            log("scale child: \(error)")
            exit(1)
        }
    }

    fileprivate protocol Harness {
        var rows: Int { get }
        func grow(to target: Int, batch: Int) throws -> Double
        func fetchOneLatencies(count: Int, seed: UInt64) throws -> (micros: [Double], digest: UInt64)
        func topLatencies(count: Int, indexed: Bool) throws -> (millis: [Double], digest: UInt64)
        func close() throws
    }

    private static func run(_ harness: some Harness, path: String, sizes: [Int], granite: Bool) throws {
        let name = granite ? "Granite" : "GRDB"
        for size in sizes {
            let before = harness.rows
            let seconds = try harness.grow(to: size, batch: 10_000)
            let lookups = try harness.fetchOneLatencies(count: Benchmark.scaleLookups, seed: UInt64(size))
            let top = try harness.topLatencies(count: Benchmark.scaleIndexedQueries, indexed: true)
            let unindexed = try harness.topLatencies(
                count: Benchmark.scaleUnindexedQueries(rows: size), indexed: false)
            let bytes = (FileSystem.size(of: path) ?? 0) + (FileSystem.size(of: path + "-wal") ?? 0)
            let memory = processMemory()
            let micros = lookups.micros.sorted()
            var fields: [(String, Double)] = [
                ("rows", Double(size)), ("insertRate", Double(size - before) / seconds),
                ("p50", micros[micros.count / 2]), ("p99", micros[micros.count * 99 / 100]),
                ("top", median(top.millis)), ("unindexed", median(unindexed.millis)),
                ("bytesPerRow", Double(bytes) / Double(size)),
                ("lookupDigest", Double(lookups.digest % (1 << 50))),
                ("topDigest", Double(top.digest % (1 << 50))),
                ("unindexedDigest", Double(unindexed.digest % (1 << 50))),
            ]
            for (key, value) in memory { fields.append((key, Double(value))) }
            // Written unbuffered: the parent reads the lines when the child ends.
            let line = "step " + fields.map { "\($0.0) \($0.1)" }.joined(separator: " ") + "\n"
            FileHandle.standardOutput.write(Data(line.utf8))
            log("scale: \(name) " + line.dropLast())
            log("scale: \(name) \(size) rows done (\(String(format: "%.1f", seconds)) s of inserts)")
        }
        try harness.close()
    }

    /// VmRSS, VmHWM (peak) and RssAnon of this process in KiB, from `/proc/self/status` (empty elsewhere).
    static func processMemory() -> [(String, Int)] {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return [] }
        var result: [(String, Int)] = []
        for (field, key) in [("VmRSS:", "rssKB"), ("VmHWM:", "hwmKB"), ("RssAnon:", "anonKB")] {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { continue }
            let words = line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            if let value = Int(words.first ?? "") {
                result.append((key, value))
            }
        }
        return result
    }
}

extension RecordWorkloadsGranite.ScaleHarness: ScaleChild.Harness {}
extension RecordWorkloadsGRDB.ScaleHarness: ScaleChild.Harness {}
