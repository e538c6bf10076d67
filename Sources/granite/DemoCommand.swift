// `granite demo [FILE]`: builds a demo database through the storage API, reads
// it back, verifies everything, checks it, and reports what it found.

import ArgumentParser
import Foundation
import GraniteStorage

/// Creates a demo database (a `people` table and a `people_by_name` index),
/// then reopens it read-only and verifies every row, lookup and index entry.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create a demo database, read it back, verify and check it.",
        discussion: """
            Writes \(DemoData.rowCount) deterministic rows to a table `people` and their names to an \
            index `people_by_name`, commits, reopens the file read-only, reads everything back (a full \
            scan, \(DemoData.lookupCount) point lookups, an index range scan), runs the integrity \
            check and prints a summary. An existing FILE is replaced if it is a Granite database. \
            Exits with status 1 when verification or the integrity check fails.
            """
    )

    @Argument(help: "The database file to create.")
    var file = "granite-demo.granite"

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingErrors {
            let path = URL(fileURLWithPath: file).standardizedFileURL.path
            try removeExisting(path)
            let demo = DemoRun(path: path)
            let report = try demo.run()
            if output.json {
                try printJSON(report)
            } else {
                report.printText()
            }
            if !report.verification.ok || !report.integrity.ok {
                for failure in report.verification.failures { printError("granite: verification: \(failure)") }
                for problem in report.integrity.problems { printError("granite: integrity: \(problem)") }
                throw ExitCode.failure
            }
        }
    }

    /// Removes an earlier demo file and its `-wal`; refuses to remove anything
    /// that is not a Granite database (or empty).
    func removeExisting(_ path: String) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else { throw CLIError("\(path) is a directory") }
            guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError("cannot read \(path)") }
            let prefix = [UInt8](try handle.read(upToCount: FileHeader.magic.count) ?? Data())
            try? handle.close()
            guard prefix.isEmpty || prefix == FileHeader.magic else {
                throw CLIError("refusing to replace \(path): it exists and is not a Granite database")
            }
            try manager.removeItem(atPath: path)
        }
        if manager.fileExists(atPath: path + "-wal") { try manager.removeItem(atPath: path + "-wal") }
    }
}

/// How long one phase of the demo took.
struct PhaseReport: Codable {
    var name: String
    var milliseconds: Double
}

/// How much text compression saved over the whole table.
struct CompressionReport: Codable {
    var textValues = 0
    var compressedValues = 0
    /// UTF-8 bytes of the compressed values, and their stored bodies.
    var plainBytes = 0
    var storedBytes = 0
    var savedBytes = 0
}

/// What the read-back found.
struct VerificationReport: Codable {
    var ok = true
    var rowsScanned = 0
    var lookups = 0
    var indexKeys = 0
    var rangePrefix = DemoData.rangePrefix
    var rangeMatches = 0
    /// The first mismatches found (at most 20).
    var failures: [String] = []

    mutating func fail(_ message: String) {
        ok = false
        if failures.count < 20 { failures.append(message) }
    }
}

/// The integrity check's verdict.
struct IntegrityVerdict: Codable {
    var ok: Bool
    var problems: [String]
}

/// The result of `granite demo`.
struct DemoReport: Codable {
    var file: String
    var fileSize: Int64
    var pageSize: Int
    var pageCount: UInt32
    var rows: Int
    var trees: [TreeReport]
    var compression: CompressionReport
    var verification: VerificationReport
    var integrity: IntegrityVerdict
    var phases: [PhaseReport]

    func printText() {
        print("Granite demo database \(file)")
        let lines = [
            ("size", "\(byteSize(Int(fileSize))) (\(grouped(fileSize)) bytes)"),
            ("page size", "\(grouped(pageSize)) bytes"),
            ("pages", grouped(pageCount)),
            ("rows", "\(grouped(rows)) in people"),
        ]
        printLines(aligned(lines))
        print("trees")
        printLines(TreeReport.table(trees).render(indent: "  "))
        let c = compression
        print("compressed text")
        print(
            "  \(grouped(c.compressedValues)) of \(grouped(c.textValues)) text values stored compressed: "
                + "\(byteSize(c.plainBytes)) → \(byteSize(c.storedBytes)), \(byteSize(c.savedBytes)) saved "
                + "(\(percent(c.plainBytes == 0 ? 0 : Double(c.savedBytes) / Double(c.plainBytes))))")
        print("phases")
        let width = phases.map(\.name.count).max() ?? 0
        for phase in phases {
            let padding = String(repeating: " ", count: width - phase.name.count + 2)
            print("  " + phase.name + padding + String(format: "%9.1f ms", phase.milliseconds))
        }
        let v = verification
        if v.ok {
            print(
                "verification: ok (\(grouped(v.rowsScanned)) rows scanned, \(grouped(v.lookups)) lookups, "
                    + "\(grouped(v.indexKeys)) index keys, \(grouped(v.rangeMatches)) names starting with "
                    + "'\(v.rangePrefix)')")
        } else {
            print("verification: FAILED (\(v.failures.count) mismatches shown on standard error)")
        }
        print(integrity.ok ? "integrity: ok" : "integrity: \(integrity.problems.count) PROBLEMS")
    }
}

/// One run of the demo: write, reopen, verify, check.
final class DemoRun {
    let path: String
    let clock = ContinuousClock()
    var phases: [PhaseReport] = []
    var verification = VerificationReport()
    var compression = CompressionReport()

    init(path: String) {
        self.path = path
    }

    /// Runs `body`, recording its duration as phase `name`.
    func phase<R>(_ name: String, _ body: () throws -> R) rethrows -> R {
        let start = clock.now
        let result = try body()
        phases.append(PhaseReport(name: name, milliseconds: rounded(milliseconds(clock.now - start))))
        return result
    }

    func run() throws -> DemoReport {
        let rowids = Int64(1)...Int64(DemoData.rowCount)
        let rows = phase("generate \(grouped(DemoData.rowCount)) rows") { rowids.map(DemoData.row) }
        try write(rows)
        let engine = try phase("reopen read-only") { () throws -> StorageEngine in
            var options = StorageOptions()
            options.readOnly = true
            options.create = false
            return try StorageEngine(path: path, options: options)
        }
        defer { try? engine.close() }
        let people = try engine.table(named: "people")
        let index = try engine.index(named: "people_by_name")
        try phase("full scan (\(grouped(DemoData.rowCount)) rows)") { try fullScan(people, rows) }
        try phase("point lookups (\(grouped(DemoData.lookupCount)))") { try lookups(people, rows) }
        try phase("index scan (\(grouped(DemoData.rowCount)) keys)") { try indexScan(index, rows) }
        try phase("index range scan '\(DemoData.rangePrefix)…' + row fetches") { try rangeScan(index, people, rows) }
        let integrity = phase("integrity check") { engine.checkIntegrity() }
        compression.savedBytes = compression.plainBytes - compression.storedBytes
        return DemoReport(
            file: path, fileSize: try engine.file.size(), pageSize: engine.pager.pageSize,
            pageCount: engine.pager.pageCount, rows: rows.count, trees: integrity.trees.map(TreeReport.init),
            compression: compression, verification: verification,
            integrity: IntegrityVerdict(ok: integrity.isOK, problems: integrity.problems), phases: phases)
    }

    /// Creates the file, inserts every row and index key, commits and closes.
    func write(_ rows: [[Value]]) throws {
        let engine = try StorageEngine(path: path)
        defer { try? engine.close() }
        try phase("insert rows and index keys") {
            let people = try engine.createTable(named: "people")
            let index = try engine.createIndex(named: "people_by_name")
            let encoder = RowEncoder()
            for (i, values) in rows.enumerated() {
                let rowid = Int64(i + 1)
                try people.insert(rowid: rowid, payload: encoder.encode(values))
                try index.insert(key: KeyEncoding.encode([values[0], .integer(rowid)]), value: [])
            }
        }
        try phase("commit") { try engine.commit() }
        try engine.close()
    }

    /// Reads every row in rowid order and compares it with the generated data;
    /// also totals the compressed text.
    func fullScan(_ people: TableTree, _ rows: [[Value]]) throws {
        let cursor = try people.makeCursor()
        var expected: Int64 = 1
        var found = try cursor.first()
        while found {
            let rowid = cursor.rowid
            if rowid != expected { verification.fail("full scan: found rowid \(rowid), expected \(expected)") }
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
            check(payload, rowid: rowid, rows, "full scan")
            verification.rowsScanned += 1
            expected = rowid + 1
            found = try cursor.next()
        }
        if verification.rowsScanned != rows.count {
            verification.fail("full scan: found \(verification.rowsScanned) rows, expected \(rows.count)")
        }
    }

    /// Point lookups of generated rowids, plus two rowids that must be absent.
    func lookups(_ people: TableTree, _ rows: [[Value]]) throws {
        for rowid in DemoData.lookupRowids() {
            guard let payload = try people.get(rowid: rowid) else {
                verification.fail("lookup: rowid \(rowid) is missing")
                continue
            }
            check(payload, rowid: rowid, rows, "lookup")
            verification.lookups += 1
        }
        for absent in [Int64(0), Int64(rows.count + 1)] where try people.get(rowid: absent) != nil {
            verification.fail("lookup: rowid \(absent) should not exist")
        }
    }

    /// Walks the whole index: keys in order, one per row, each naming its row.
    func indexScan(_ index: IndexTree, _ rows: [[Value]]) throws {
        let cursor = try index.makeCursor()
        var seen = [Bool](repeating: false, count: rows.count + 1)
        var previous: [UInt8]? = nil
        var found = try cursor.first()
        while found {
            let key = cursor.key
            if let previous, !previous.lexicographicallyPrecedes(key) {
                verification.fail("index scan: keys out of order at key \(hexString(key, limit: 40))")
            }
            let values = try KeyEncoding.decode(key)
            if values.count == 2, case .integer(let rowid) = values[1], rowid >= 1, rowid <= Int64(rows.count) {
                if values[0] != rows[Int(rowid) - 1][0] {
                    verification.fail("index scan: key \(values) does not match row \(rowid)")
                }
                if seen[Int(rowid)] { verification.fail("index scan: rowid \(rowid) appears twice") }
                seen[Int(rowid)] = true
            } else {
                verification.fail("index scan: unexpected key \(values)")
            }
            verification.indexKeys += 1
            previous = key
            found = try cursor.next()
        }
        if verification.indexKeys != rows.count {
            verification.fail("index scan: found \(verification.indexKeys) keys, expected \(rows.count)")
        }
    }

    /// Finds every name starting with the demo prefix through the index and
    /// fetches each row from the table.
    func rangeScan(_ index: IndexTree, _ people: TableTree, _ rows: [[Value]]) throws {
        let prefix = DemoData.rangePrefix
        let expected = rows.filter { row in
            if case .text(let name) = row[0] { return name.hasPrefix(prefix) }
            return false
        }.count
        let cursor = try index.makeCursor()
        var found = try cursor.seek(atOrAfter: KeyEncoding.encode([.text(prefix)]))
        while found {
            let values = try KeyEncoding.decode(cursor.key)
            guard values.count == 2, case .text(let name) = values[0], name.hasPrefix(prefix),
                case .integer(let rowid) = values[1]
            else { break }
            if let payload = try people.get(rowid: rowid) {
                let row = try RowDecoder.decode(payload)
                if row.first != .text(name) { verification.fail("range scan: row \(rowid) is not named \(name)") }
            } else {
                verification.fail("range scan: index names rowid \(rowid), which is missing")
            }
            verification.rangeMatches += 1
            found = try cursor.next()
        }
        if verification.rangeMatches != expected {
            verification.fail("range scan: found \(verification.rangeMatches) names, expected \(expected)")
        }
    }

    /// Compares a stored row with the generated one.
    func check(_ payload: [UInt8], rowid: Int64, _ rows: [[Value]], _ phase: String) {
        guard rowid >= 1, rowid <= Int64(rows.count) else {
            verification.fail("\(phase): unexpected rowid \(rowid)")
            return
        }
        do {
            let values = try RowDecoder.decode(payload)
            if values != rows[Int(rowid) - 1] {
                verification.fail("\(phase): row \(rowid) differs from what was written")
            }
        } catch {
            verification.fail("\(phase): row \(rowid) does not decode: \(errorMessage(error))")
        }
    }
}
