// `granite checkpoint FILE [--mode passive|full|truncate]`: copies the committed
// frames of the write-ahead log into the database file.

import ArgumentParser
import Foundation
import GraniteStorage

/// The `--mode` values, one per ``CheckpointMode``.
enum CheckpointModeArgument: String, ExpressibleByArgument, CaseIterable {
    case passive, full, truncate

    var mode: CheckpointMode {
        switch self {
        case .passive: .passive
        case .full: .full
        case .truncate: .truncate
        }
    }
}

/// Opens the database read-write, runs one checkpoint, and shows the log before and after.
struct CheckpointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Copy the committed frames of the write-ahead log into the database file.",
        discussion: """
            Opens FILE read-write (so no other process may have it open), recovers its log, runs \
            one checkpoint and prints its result with the log's state before and after. Modes: \
            passive copies what no reader needs, full copies every committed frame, truncate also \
            empties the log file. Closing the database afterwards (the last connection) always \
            checkpoints everything and removes FILE-wal; the last line says what is left.
            """
    )

    @Argument(help: "The database file.")
    var file: String

    @Option(name: .long, help: "passive, full or truncate.")
    var mode: CheckpointModeArgument = .passive

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingErrors {
            let report = try CheckpointReport(file: file, mode: mode.mode)
            if output.json {
                try printJSON(report)
            } else {
                report.printText()
            }
        }
    }
}

/// The state of a write-ahead log as the engine sees it (``WALStatus``).
struct WALStatusReport: Codable {
    /// Whether the log file exists.
    var present: Bool
    var fileSize: Int64
    /// Whether the log has a valid header (an absent, empty or ignored log has none).
    var hasHeader: Bool
    var checkpointSequence: UInt32?
    var salt1: UInt32?
    var salt2: UInt32?
    /// Committed frames and commits in the log.
    var frames: Int
    var commits: Int
    /// Frames already copied into the database file.
    var backfilledFrames: Int

    init(_ status: WALStatus, present: Bool) {
        self.present = present
        fileSize = status.fileSize
        hasHeader = status.header != nil
        checkpointSequence = status.header?.checkpointSequence
        salt1 = status.header?.salt1
        salt2 = status.header?.salt2
        frames = status.frames
        commits = status.commits
        backfilledFrames = status.backfilledFrames
    }

    /// One line: "present, 12,345 bytes, sequence 3 (salts …), 30 frames in 7 commits, 0 copied".
    var text: String {
        guard present else { return "absent" }
        var parts = ["present, \(grouped(fileSize)) bytes"]
        if let checkpointSequence, let salt1, let salt2 {
            parts.append("sequence \(checkpointSequence) (salts \(hex32(salt1)) \(hex32(salt2)))")
        } else {
            parts.append("no header")
        }
        parts.append(
            "\(grouped(frames)) committed frame\(frames == 1 ? "" : "s") in \(grouped(commits)) "
                + "commit\(commits == 1 ? "" : "s"), \(grouped(backfilledFrames)) copied to the file")
        return parts.joined(separator: ", ")
    }
}

/// The result of `granite checkpoint`.
struct CheckpointReport: Codable {
    var file: String
    var mode: String
    var before: WALStatusReport
    var logFrames: Int
    var backfilledFrames: Int
    var truncated: Bool
    var after: WALStatusReport
    /// Whether FILE-wal still exists once the database is closed, and its size.
    var walPresentAfterClose: Bool
    var walSizeAfterClose: Int64

    init(file: String, mode: CheckpointMode) throws {
        self.file = file
        self.mode = mode.rawValue
        let walPath = file + "-wal"
        let walExisted = FileManager.default.fileExists(atPath: walPath)
        let engine = try openExisting(file, readOnly: false)
        var open = true
        defer { if open { try? engine.close() } }
        before = WALStatusReport(engine.walStatus, present: walExisted)
        let result = try engine.checkpoint(mode)
        logFrames = result.logFrames
        backfilledFrames = result.backfilledFrames
        truncated = result.truncated
        after = WALStatusReport(engine.walStatus, present: FileManager.default.fileExists(atPath: walPath))
        open = false
        try engine.close()
        walPresentAfterClose = FileManager.default.fileExists(atPath: walPath)
        let attributes = try? FileManager.default.attributesOfItem(atPath: walPath)
        walSizeAfterClose = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    func printText() {
        print("checkpoint \(file) (mode \(mode))")
        printLines(
            aligned([
                ("log before", before.text),
                (
                    "checkpoint",
                    "\(grouped(logFrames)) committed frame\(logFrames == 1 ? "" : "s") in the log, "
                        + "\(grouped(backfilledFrames)) copied to the file"
                        + (truncated ? ", log truncated" : "")
                ),
                ("log after", after.text),
                (
                    "after close",
                    walPresentAfterClose
                        ? "\(file)-wal remains (\(grouped(walSizeAfterClose)) bytes)" : "\(file)-wal removed"
                ),
            ]))
    }
}
