// `granite vacuum FILE` and `granite backup FILE DEST`: a compact rebuild of a database, in place or into a new
// file, with progress on a terminal.

import ArgumentParser
import Foundation
import GraniteSQL
import GraniteStorage

/// Rebuilds a database compactly in place (SQL's `VACUUM`), or into a new file (`VACUUM INTO`).
struct VacuumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vacuum",
        abstract: "Rebuild a database compactly, returning its free pages to the file system.",
        discussion: """
            Rebuilds every table and index of FILE with full pages and an empty freelist, compressing \
            texts under the threshold given (default 128 bytes), and installs the result as one commit: \
            a crash at any point leaves the old database or the new one. Other processes may have FILE \
            open; the vacuum waits for their writer like any write, and the file shrinks once no reader \
            uses older pages. With --into, FILE is left alone and the compact copy is written to a new \
            file (which must not exist or be empty; a copy that fails leaves no database there). Progress \
            goes to standard error on a terminal, or with --progress.
            """
    )

    @Argument(help: "The database file.")
    var file: String

    @Option(name: .long, help: "Write the compact copy to this new file instead of rebuilding FILE.")
    var into: String?

    @Option(name: .long, help: "Compress TEXT values of at least this many bytes; 0 never compresses.")
    var compressFrom = 128

    @Flag(name: .long, help: "Report progress on standard error even when it is not a terminal.")
    var progress = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runVacuum(
            file: file, into: into, threshold: compressFrom > 0 ? compressFrom : nil, progress: progress,
            json: output.json)
    }
}

/// Copies a snapshot of a database into a new file while other connections go on writing.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy one snapshot of a database into a new file while writers go on.",
        discussion: """
            Reads FILE on one snapshot (other processes may keep writing: the copy holds exactly the \
            last commit before it began) and writes its tables, indexes, views and triggers to DEST, a \
            new file (it must not exist or be empty), compactly, synced when the command ends; a copy \
            that fails (a damaged page of FILE) leaves no database at DEST. \
            Progress goes to standard error on a terminal, or with --progress.
            """
    )

    @Argument(help: "The database file.")
    var file: String

    @Argument(help: "The new file to write.")
    var destination: String

    @Flag(name: .long, help: "Report progress on standard error even when it is not a terminal.")
    var progress = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runVacuum(file: file, into: destination, threshold: 128, progress: progress, json: output.json)
    }
}

/// Vacuums `file` (into a new file when `into` is given), showing progress on a terminal or when `progress` is
/// set, and prints the report.
private func runVacuum(file: String, into: String?, threshold: Int?, progress: Bool, json: Bool) throws {
    try reportingErrors {
        let meter = ProgressMeter(enabled: progress || isatty(STDERR_FILENO) != 0)
        let report = try VacuumReport(file: file, into: into, threshold: threshold, meter: meter)
        meter.finish()
        if json {
            try printJSON(report)
        } else {
            report.printText()
        }
    }
}

/// Progress lines on standard error: rewritten in place on a terminal, one per step otherwise.
final class ProgressMeter {
    let enabled: Bool
    private let terminal = isatty(STDERR_FILENO) != 0
    private var lastLine = ""
    private var lastReport = Date.distantPast

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Shows `line`, at most ten times a second unless `force`.
    func show(_ line: String, force: Bool = false) {
        guard enabled, line != lastLine else { return }
        let now = Date()
        guard force || now.timeIntervalSince(lastReport) >= 0.1 else { return }
        lastReport = now
        lastLine = line
        let text = terminal ? "\r\u{1b}[K" + line : line + "\n"
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Ends the in-place line on a terminal.
    func finish() {
        if enabled, terminal, !lastLine.isEmpty { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    /// Shows where a vacuum stands.
    func show(_ step: VacuumProgress) {
        switch step {
        case .rebuilding(let p): show(p)
        case .installing(let remaining, let total):
            show("installing: \(grouped(total - remaining)) of \(grouped(total)) pages", force: remaining == 0)
        }
    }

    /// Shows where a rebuild stands.
    func show(_ p: CompactionProgress) {
        show(
            "rebuilding: tree \(p.treesDone + 1) of \(p.treeCount) (\(p.tree)), \(grouped(p.entriesCopied)) entries",
            force: p.entriesCopied == 0)
    }
}

/// What a vacuum or backup did: the sizes before and after.
struct VacuumReport: Codable {
    var file: String
    var into: String?
    var pagesBefore: Int
    var freePagesBefore: Int
    var bytesBefore: Int64
    var pagesAfter: Int
    var bytesAfter: Int64
    var seconds: Double

    init(file: String, into: String?, threshold: Int?, meter: ProgressMeter) throws {
        self.file = file
        self.into = into
        let start = Date()
        bytesBefore = fileSize(file)
        let engine = try openExisting(file, readOnly: into != nil)
        var open = true
        defer { if open { try? engine.close() } }
        let read = try engine.beginRead()
        pagesBefore = Int(try read.pageCount)
        freePagesBefore = Int(try read.freelistCount)
        try read.commit()
        let connection = try SQLConnection(engine: engine)
        connection.textCompressionThreshold = threshold
        if let into {
            try connection.vacuum(into: into) { meter.show($0) }
            open = false
            try engine.close()
            let copy = try openExisting(into, readOnly: true)
            defer { try? copy.close() }
            let copyRead = try copy.beginRead()
            pagesAfter = Int(try copyRead.pageCount)
            try copyRead.commit()
            bytesAfter = fileSize(into)
        } else {
            try connection.vacuum { meter.show($0) }
            pagesAfter = Int(engine.pager.pageCount)
            open = false
            try engine.close()
            bytesAfter = fileSize(file)
        }
        seconds = Date().timeIntervalSince(start)
    }

    func printText() {
        let target = into ?? file
        print(into == nil ? "vacuum \(file)" : "copied \(file) to \(target)")
        printLines(
            aligned([
                (
                    "before",
                    "\(grouped(pagesBefore)) pages (\(grouped(freePagesBefore)) free), \(grouped(bytesBefore)) bytes"
                ),
                ("after", "\(grouped(pagesAfter)) pages, \(grouped(bytesAfter)) bytes"),
                ("time", String(format: "%.2f s", seconds)),
            ]))
    }
}

/// The size of the file at `path` in bytes (0 when it cannot be read).
private func fileSize(_ path: String) -> Int64 {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
}
