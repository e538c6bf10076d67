// `granite import FILE (--sql DUMP | --csv CSV --table T [--header] | --sqlite SRC.db)`: loads a SQL script, a CSV
// file or an SQLite database into a Granite database, in one transaction: on any error nothing is loaded.

import ArgumentParser
import Foundation
import GraniteSQL
import GraniteStorage

/// Loads a SQL script, a CSV file or an SQLite database into a database file.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Load a SQL script, a CSV file or an SQLite database into a database file (created if missing).",
        discussion: """
            Everything loads in one transaction: on an error (reported with its line) the database is left as it \
            was, and a database file the import created is removed. --sql reads a script such as the output of \
            `sqlite3 DB .dump` (its BEGIN and COMMIT are part of the import's transaction). --csv reads RFC 4180 \
            CSV as `sqlite3`'s `.import --csv` does: a missing table is created with TEXT columns named by the \
            first line; an existing table's columns convert the values by their affinity, and --header skips its \
            first line. --sqlite converts an SQLite database by running `sqlite3 SRC .dump` (the sqlite3 shell must \
            be on the PATH). On a terminal a progress line shows rows per second and the share of the input read.
            """
    )

    @Argument(help: "The Granite database file to load into (created if missing).")
    var file: String

    @Option(name: .long, help: "A SQL script to run, such as the output of `sqlite3 DB .dump`.")
    var sql: String?

    @Option(name: .long, help: "A CSV file to load into --table.")
    var csv: String?

    @Option(name: .long, help: "An SQLite database to convert (through `sqlite3 SRC .dump`).")
    var sqlite: String?

    @Option(name: .long, help: "The table the CSV rows go into (created when missing).")
    var table: String?

    @Flag(name: .long, help: "The CSV file's first line names the columns: it is not loaded into an existing table.")
    var header = false

    @OptionGroup var writeLock: WriteLockOptions

    func validate() throws {
        let sources = [sql, csv, sqlite].compactMap { $0 }
        guard sources.count == 1 else { throw ValidationError("give one of --sql, --csv and --sqlite") }
        if csv != nil && table == nil { throw ValidationError("--csv needs --table") }
        if csv == nil && (table != nil || header) { throw ValidationError("--table and --header go with --csv") }
    }

    func run() throws {
        try reportingErrors {
            let existed = FileManager.default.fileExists(atPath: file)
            let session = try SQLSession(engine: try openForSQL(file, busyTimeout: writeLock.busyTimeout), format: .table)
            var loaded = false
            defer {
                try? session.engine.close()
                if !loaded && !existed { Self.removeDatabase(file) }
            }
            try session.connection.execute("BEGIN IMMEDIATE")
            let summary: String
            do {
                summary = try load(into: session)
                try session.connection.execute("COMMIT")
            } catch {
                try? session.connection.execute("ROLLBACK")
                throw error
            }
            loaded = true
            printError(summary)
        }
    }

    /// Loads the chosen input; returns the line reporting what was loaded.
    private func load(into session: SQLSession) throws -> String {
        if let csv, let table {
            return try loadCSV(csv, table: table, connection: session.connection)
        }
        if let sql {
            let input = try InputFile(path: sql)
            defer { input.close() }
            return try loadScript(LineReader(descriptor: input.descriptor), size: input.size, into: session)
        }
        guard let sqlite else { throw ValidationError("give one of --sql, --csv and --sqlite") }
        return try loadSQLiteDatabase(sqlite, into: session)
    }

    /// Runs a script's statements, skipping its own BEGIN and COMMIT.
    private func loadScript(_ reader: LineReader, size: Int64?, into session: SQLSession) throws -> String {
        let progress = ImportProgress(totalBytes: size)
        var statements = 0
        session.ownsTransaction = true
        session.afterStatement = {
            statements += 1
            progress.update(rows: statements, bytesRead: reader.bytesRead)
        }
        let succeeded = session.runLines(from: reader)
        progress.finish()
        // The session already printed the error, with its line.
        guard succeeded else { throw ExitCode.failure }
        return "imported \(grouped(statements)) statements in \(String(format: "%.2f", progress.elapsed)) s"
    }

    /// Loads a CSV file into `table`.
    private func loadCSV(_ path: String, table: String, connection: SQLConnection) throws -> String {
        let input = try InputFile(path: path)
        defer { input.close() }
        let progress = ImportProgress(totalBytes: input.size)
        var reader = CSVReader(lines: LineReader(descriptor: input.descriptor), source: path)
        var importer = CSVImporter(connection: connection, table: table)
        importer.skippedRecords = header ? 1 : 0
        importer.progress = { rows, bytesRead in progress.update(rows: rows, bytesRead: bytesRead) }
        defer { progress.finish() }
        let rows = try importer.run(&reader)
        let seconds = progress.elapsed
        return "imported \(grouped(rows)) rows into \(table) in \(String(format: "%.2f", seconds)) s "
            + "(\(grouped(Int(Double(rows) / max(seconds, 0.001)))) rows/s)"
    }

    /// Converts an SQLite database: `sqlite3 SRC .dump`, run as a separate process, is read as a script.
    private func loadSQLiteDatabase(_ path: String, into session: SQLSession) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("\(path): no such file") }
        guard let handle = FileHandle(forReadingAtPath: path),
            (try? handle.read(upToCount: sqliteMagic.count)).map({ [UInt8]($0) }) == sqliteMagic
        else { throw CLIError("\(path) is not an SQLite database") }
        try? handle.close()
        guard let shell = Self.executableOnPath("sqlite3") else {
            throw CLIError(
                "converting an SQLite database needs the sqlite3 shell, which is not on the PATH: install it, or "
                    + "run `sqlite3 \(path) .dump > dump.sql` elsewhere and `granite import \(file) --sql dump.sql`")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-readonly", path, ".dump"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let summary: String
        do {
            summary = try loadScript(
                LineReader(descriptor: pipe.fileHandleForReading.fileDescriptor), size: nil, into: session)
        } catch {
            process.terminate()
            process.waitUntilExit()
            throw error
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw CLIError("`sqlite3 \(path) .dump` failed (exit status \(process.terminationStatus)); nothing was imported")
        }
        return summary
    }

    /// The path of `name` in one of the PATH's directories, if it is there and executable.
    static func executableOnPath(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Removes a database file the import created, with its log and index.
    private static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
