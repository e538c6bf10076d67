// `granite demo [FILE]`: a tour of Granite's GRDB-compatible record API on a fresh database, then of the file it
// wrote.

import ArgumentParser
import Foundation
import Granite
import GraniteStorage

/// Creates a demo database through the record API (a Codable `Player`, a migration, queries, an update, a
/// deletion), printing each step with its SQL, then shows the file: trees, compressed text, integrity check.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Tour the record API on a new demo database, then show and check the file.",
        discussion: """
            Written the way a GRDB user writes it: a Codable `Player` record (FetchableRecord, \
            MutablePersistableRecord, Identifiable; its achievements stored as a JSON column), a DatabaseMigrator \
            migration creating the `player` table and an index with the schema DSL, \(DemoData.playerCount) \
            deterministic players inserted in one transaction, query interface requests (filter, order, limit, \
            fetchCount, fetchOne by id, a grouped aggregate), an updateChanges and a deleteAll. Each step prints \
            what it does, the SQL it ran and its result, checked against the generated data. Then the file: its \
            trees with their root pages, the text zlib compressed, the integrity check. An existing FILE is \
            replaced if it is a Granite database. Exits with status 1 when a check or the integrity check fails.
            """
    )

    @Argument(help: "The database file to create.")
    var file = "granite-demo.granite"

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingErrors {
            let path = URL(fileURLWithPath: file).standardizedFileURL.path
            try removeExisting(path)
            let report = try DemoRun(path: path).run()
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
