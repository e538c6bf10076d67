// `granite demo [FILE]`: builds a demo database through Granite's GRDB-compatible API, reads
// it back, verifies everything, checks the file, and reports what it found.

import ArgumentParser
import Foundation
import Granite
import GraniteStorage

/// Creates a demo database (a `people` table and a `people_by_name` index),
/// then reopens it read-only and verifies every row, lookup and index entry.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create a demo database, read it back, verify and check it.",
        discussion: """
            Through Granite's GRDB-compatible API (DatabaseQueue, the schema DSL, a cached statement), \
            creates a table `people` with an index `people_by_name` on its names and writes \
            \(DemoData.rowCount) deterministic rows in one transaction; reopens the file read-only and reads \
            everything back (a row cursor over the whole table, \(DemoData.lookupCount) point lookups, an \
            index scan, an index range); then runs the file's integrity check and prints a summary with \
            the trees and the compressed text. An existing FILE is replaced if it is a Granite database. \
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
        let dbQueue = try phase("reopen read-only") { () throws -> DatabaseQueue in
            var configuration = Configuration()
            configuration.readonly = true
            return try DatabaseQueue(path: path, configuration: configuration)
        }
        try dbQueue.read { db in
            try phase("full scan (\(grouped(DemoData.rowCount)) rows)") { try fullScan(db, rows) }
            try phase("point lookups (\(grouped(DemoData.lookupCount)))") { try lookups(db, rows) }
            try phase("index scan (\(grouped(DemoData.rowCount)) names)") { try indexScan(db, rows) }
            try phase("index range '\(DemoData.rangePrefix)…'") { try rangeScan(db, rows) }
        }
        try dbQueue.close()
        // The file-format view: the trees, the compressed text in the table's pages, and the integrity check.
        var options = StorageOptions()
        options.readOnly = true
        options.create = false
        let engine = try StorageEngine(path: path, options: options)
        defer { try? engine.close() }
        let integrity = phase("integrity check") { engine.checkIntegrity() }
        for tree in integrity.trees where tree.info.kind == .table && tree.info.name != "granite_schema" {
            try measureCompression(try engine.table(named: tree.info.name))
        }
        compression.savedBytes = compression.plainBytes - compression.storedBytes
        return DemoReport(
            file: path, fileSize: try engine.file.size(), pageSize: engine.pager.pageSize,
            pageCount: engine.pager.pageCount, rows: rows.count, trees: integrity.trees.map(TreeReport.init),
            compression: compression, verification: verification,
            integrity: IntegrityVerdict(ok: integrity.isOK, problems: integrity.problems), phases: phases)
    }

    /// Creates the database through Granite's GRDB-compatible API: the `people` table and its name index,
    /// then every row through one cached statement, in one transaction.
    func write(_ rows: [[Value]]) throws {
        let dbQueue = try DatabaseQueue(path: path)
        try phase("create schema, insert rows") {
            try dbQueue.write { db in
                try db.create(table: "people") { t in
                    t.primaryKey("id", .integer)
                    t.column("name", .text).notNull()
                    t.column("age", .integer)
                    t.column("score", .double)
                    t.column("email", .text)
                    t.column("bio", .text)
                    t.column("photo", .blob)
                }
                try db.create(index: "people_by_name", on: "people", columns: ["name"])
                let insert = try db.cachedStatement(
                    sql: "INSERT INTO people (id, name, age, score, email, bio, photo) VALUES (?, ?, ?, ?, ?, ?, ?)")
                for (i, values) in rows.enumerated() {
                    try insert.execute(arguments: StatementArguments([Int64(i + 1)] + values.map(Self.convertible)))
                }
            }
        }
        try dbQueue.close()
    }

    /// A storage value as an argument.
    static func convertible(_ value: Value) -> (any DatabaseValueConvertible)? {
        switch value {
        case .null: return nil
        case .integer(let v): return v
        case .real(let v): return v
        case .text(let v): return v
        case .blob(let v): return Data(v)
        }
    }

    /// A fetched value as a storage value.
    static func value(_ dbValue: DatabaseValue) -> Value {
        switch dbValue.storage {
        case .null: return .null
        case .int64(let v): return .integer(v)
        case .double(let v): return .real(v)
        case .string(let v): return .text(v)
        case .blob(let v): return .blob([UInt8](v))
        }
    }

    /// Reads every row in id order through a row cursor and compares it with the generated data.
    func fullScan(_ db: Database, _ rows: [[Value]]) throws {
        let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM people ORDER BY id")
        var expected: Int64 = 1
        while let row = try cursor.next() {
            let rowid: Int64 = row["id"]
            if rowid != expected { verification.fail("full scan: found id \(rowid), expected \(expected)") }
            check(row, rowid: rowid, rows, "full scan")
            verification.rowsScanned += 1
            expected = rowid + 1
        }
        if verification.rowsScanned != rows.count {
            verification.fail("full scan: found \(verification.rowsScanned) rows, expected \(rows.count)")
        }
    }

    /// Point lookups of generated ids, plus two ids that must be absent.
    func lookups(_ db: Database, _ rows: [[Value]]) throws {
        let select = try db.cachedStatement(sql: "SELECT * FROM people WHERE id = ?")
        for rowid in DemoData.lookupRowids() {
            guard let row = try Row.fetchOne(select, arguments: [rowid]) else {
                verification.fail("lookup: id \(rowid) is missing")
                continue
            }
            check(row, rowid: rowid, rows, "lookup")
            verification.lookups += 1
        }
        for absent in [Int64(0), Int64(rows.count + 1)] where try Row.fetchOne(select, arguments: [absent]) != nil {
            verification.fail("lookup: id \(absent) should not exist")
        }
    }

    /// Reads every name in index order (a covering index scan): sorted, one per row.
    func indexScan(_ db: Database, _ rows: [[Value]]) throws {
        let names = try String.fetchAll(db, sql: "SELECT name FROM people ORDER BY name")
        let expected = rows.compactMap { row -> String? in
            if case .text(let name) = row[0] { return name }
            return nil
        }
        if names != expected.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            verification.fail("index scan: the names are not the generated names in index order")
        }
        verification.indexKeys = names.count
    }

    /// Finds every name starting with the demo prefix through the index, with its row.
    func rangeScan(_ db: Database, _ rows: [[Value]]) throws {
        let prefix = DemoData.rangePrefix
        let expected = rows.filter { row in
            if case .text(let name) = row[0] { return name.hasPrefix(prefix) }
            return false
        }.count
        let upper = String(prefix.dropLast()) + String(UnicodeScalar(prefix.unicodeScalars.last!.value + 1)!)
        let matches = try Row.fetchAll(
            db, sql: "SELECT * FROM people WHERE name >= ? AND name < ? ORDER BY name", arguments: [prefix, upper])
        for row in matches {
            let name: String = row["name"]
            if !name.hasPrefix(prefix) { verification.fail("range scan: \(name) does not start with \(prefix)") }
            check(row, rowid: row["id"], rows, "range scan")
        }
        verification.rangeMatches = matches.count
        if matches.count != expected {
            verification.fail("range scan: found \(matches.count) names, expected \(expected)")
        }
    }

    /// Totals the compressed text stored in a table tree's rows.
    func measureCompression(_ table: TableTree) throws {
        let cursor = try table.makeCursor()
        var found = try cursor.first()
        while found {
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
            found = try cursor.next()
        }
    }

    /// Compares a fetched row (id first) with the generated one.
    func check(_ row: Row, rowid: Int64, _ rows: [[Value]], _ phase: String) {
        guard rowid >= 1, rowid <= Int64(rows.count) else {
            verification.fail("\(phase): unexpected id \(rowid)")
            return
        }
        let values = row.databaseValues.dropFirst().map(Self.value)
        if Array(values) != rows[Int(rowid) - 1] {
            verification.fail("\(phase): row \(rowid) differs from what was written")
        }
    }
}
