// `granite wal FILE`: the write-ahead log `FILE-wal` (FORMAT.md § "The write-ahead log"), frame
// by frame, with what recovery keeps. The log is read through the engine's own scanner
// (`LogScanner`), so what this shows as kept is what an open keeps.

import ArgumentParser
import Foundation
import GraniteStorage

/// Decodes `FILE-wal` without opening the database: header, every frame, and
/// where recovery stops.
///
/// A damaged or torn log tail is an expected state (a crash leaves one), so the
/// command reports it and exits with status 0; it exits with status 1 only when
/// neither the database nor its log exists, or a file cannot be read.
struct WalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wal",
        abstract: "Decode the write-ahead log of a database file, frame by frame.",
        discussion: """
            Reads FILE-wal directly (the database is not opened, so this works while another \
            process holds the database). Shows the log header, one line per frame (page, commit \
            size, whether its salts match the header, whether its cumulative checksum is valid, and \
            whether recovery keeps it), then a summary: frames, commits, the pages the kept frames \
            hold, and where recovery stops and why. A damaged or torn tail is reported, not an \
            error: the exit status is 0 whenever the files could be read.
            """
    )

    @Argument(help: "The database file (its log is FILE-wal).")
    var file: String

    @Flag(name: .long, help: "Print only the header and the summary, not one line per frame.")
    var summary = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingErrors {
            let report = try WALReport(databasePath: file)
            if output.json {
                try printJSON(report)
            } else {
                report.printText(frames: !summary)
            }
        }
    }
}

/// The raw log header fields, whether or not they form a valid header.
struct WALHeaderReport: Codable {
    var valid: Bool
    /// Why the header is invalid (recovery then ignores the whole log).
    var problem: String?
    var magic: String
    var formatVersion: UInt32
    var pageSize: UInt32
    var checkpointSequence: UInt32
    var salt1: UInt32
    var salt2: UInt32
    var checksum: UInt32

    init(_ reading: LogHeaderReading) {
        valid = reading.isValid
        problem = reading.problem.map(WALHeaderReport.describe)
        magic = String(decoding: reading.magic.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
        formatVersion = reading.formatVersion
        pageSize = reading.pageSize
        checkpointSequence = reading.checkpointSequence
        salt1 = reading.salt1
        salt2 = reading.salt2
        checksum = reading.checksum
    }

    /// Why recovery ignores the log, in words.
    static func describe(_ problem: LogHeaderProblem) -> String {
        switch problem {
        case .badMagic: "bad magic (not \"GraniteW\")"
        case .badChecksum: "bad header checksum"
        case .unsupportedVersion(let version): "unsupported log format version \(version)"
        case .pageSizeDiffers(let log, let database): "page size \(log) differs from the database's \(database)"
        case .invalidPageSize(let size): "page size \(size) is not a power of two in 512...65536"
        }
    }
}

/// One frame of the log.
struct WALFrameReport: Codable {
    var index: Int
    var offset: Int64
    var page: UInt32
    /// The database size in pages after the transaction this frame ends; nil for other frames.
    var commitSize: UInt32?
    var saltsMatch: Bool
    /// Whether the cumulative checksum is right given the previous frame's stored checksum
    /// (or the header, for frame 0): false pinpoints the frame whose bytes are damaged.
    var checksumValid: Bool
    /// "committed" (kept by recovery) or "discarded".
    var status: String
    /// Why a discarded frame is discarded.
    var reason: String?
}

/// What recovery makes of the log.
struct WALSummary: Codable {
    /// Complete frames in the file (a torn partial frame at the end is not counted).
    var frames: Int
    /// Bytes after the last complete frame.
    var tornBytes: Int64
    /// Commit frames among the committed frames.
    var commits: Int
    var committedFrames: Int
    var discardedFrames: Int
    /// Frames recovery reads and finds valid (committed ones plus an uncommitted valid tail).
    var validFrames: Int
    /// Distinct pages held by committed frames, ascending, and the same compactly ("1-5, 9").
    var pages: [UInt32]
    var pageRanges: String
    /// The database size in pages after the last kept commit, nil when nothing is kept.
    var databaseSize: UInt32?
    /// The first frame recovery does not keep, nil when it keeps every frame of the file.
    var recoveryStopsAtFrame: Int?
    /// The first frame that fails validation (where recovery stops reading), nil when none does.
    var firstInvalidFrame: Int?
    /// Why recovery stops where it does.
    var recoveryStopReason: String
}

/// The result of `granite wal`.
struct WALReport: Codable {
    var database: String
    var wal: String
    var present: Bool
    var walFileSize: Int64
    /// The page size in the database header, nil when the database is missing or unreadable.
    var databasePageSize: UInt32?
    var databaseProblem: String?
    var header: WALHeaderReport?
    var frames: [WALFrameReport]
    var summary: WALSummary?

    init(databasePath: String) throws {
        database = databasePath
        wal = databasePath + "-wal"
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        let databaseExists = manager.fileExists(atPath: databasePath, isDirectory: &isDirectory)
        if databaseExists && isDirectory.boolValue {
            throw CLIError("\(databasePath) is a directory, not a database file")
        }
        present = manager.fileExists(atPath: wal, isDirectory: &isDirectory)
        if present && isDirectory.boolValue { throw CLIError("\(wal) is a directory, not a write-ahead log") }
        guard databaseExists || present else { throw CLIError("\(databasePath): no such file (and no \(wal))") }
        frames = []
        walFileSize = 0
        if databaseExists {
            (databasePageSize, databaseProblem) = WALReport.readDatabasePageSize(databasePath)
        } else {
            databaseProblem = "the database file does not exist"
        }
        guard present else { return }
        let log: POSIXFile
        do {
            log = try POSIXFile(path: wal, create: false, readOnly: true)
        } catch {
            throw CLIError("cannot open \(wal) for reading")
        }
        defer { log.close() }
        walFileSize = try log.size()
        try analyze(log)
    }

    /// The page size from the database header, or why it cannot be read.
    private static func readDatabasePageSize(_ path: String) -> (UInt32?, String?) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return (nil, "cannot open the database file") }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: FileHeader.size), data.count == FileHeader.size else {
            return (nil, "the database file is shorter than its 64-byte header")
        }
        do {
            let header = try [UInt8](data).withUnsafeBytes { try FileHeader(reading: $0.baseAddress!) }
            return (header.pageSize, nil)
        } catch {
            return (nil, errorMessage(error))
        }
    }

    /// Reads the log through the engine's own scanner: its header verdict, then every complete
    /// frame, judged by the rules recovery applies.
    private mutating func analyze(_ log: POSIXFile) throws {
        guard let reading = try LogHeaderReading.read(log, databasePageSize: databasePageSize) else {
            summary = WALSummary(
                frames: 0, tornBytes: walFileSize, commits: 0, committedFrames: 0, discardedFrames: 0, validFrames: 0,
                pages: [], pageRanges: "", databaseSize: nil, recoveryStopsAtFrame: nil,
                firstInvalidFrame: nil,
                recoveryStopReason: walFileSize == 0
                    ? "the log is empty" : "the log is shorter than its 32-byte header: ignored as a whole")
            return
        }
        let headerReport = WALHeaderReport(reading)
        header = headerReport
        guard let pageSize = framePageSize(reading) else {
            summary = WALSummary(
                frames: 0, tornBytes: walFileSize - Int64(WALHeader.size), commits: 0, committedFrames: 0,
                discardedFrames: 0, validFrames: 0, pages: [], pageRanges: "", databaseSize: nil,
                recoveryStopsAtFrame: nil,
                firstInvalidFrame: nil,
                recoveryStopReason: "the log header is invalid (\(headerReport.problem ?? "")): ignored as a whole")
            return
        }
        var scanner = try LogScanner(file: log, header: reading, pageSize: pageSize)
        let (firstInvalid, lastCommit) = try listFrames(&scanner, headerProblem: headerReport.problem)
        summarize(
            frameCount: scanner.frameCount, tornBytes: scanner.tornBytes, validFrames: scanner.validFrames,
            firstInvalid: firstInvalid, lastCommit: lastCommit, headerValid: reading.isValid)
    }

    /// The size of the page images in the frames: the header's page size when it is usable, else
    /// the database's (to list the frames of an ignored log), else nil: nothing can be listed.
    private func framePageSize(_ reading: LogHeaderReading) -> Int? {
        if reading.isValid || PageLayout.isValidPageSize(Int(reading.pageSize)) && databasePageSize == nil {
            return Int(reading.pageSize)
        }
        if let databasePageSize, PageLayout.isValidPageSize(Int(databasePageSize)) { return Int(databasePageSize) }
        return nil
    }

    /// Appends every complete frame of the log to `frames` (each marked committed for now), and
    /// returns the first frame that fails validation with why, and the last commit frame of the
    /// valid prefix (-1 when there is none).
    private mutating func listFrames(
        _ scanner: inout LogScanner, headerProblem: String?
    ) throws -> (firstInvalid: (index: Int, reason: String)?, lastCommit: Int) {
        var firstInvalid: (index: Int, reason: String)? = nil
        var lastCommit = -1
        for index in 0..<scanner.frameCount {
            guard let frame = try scanner.next() else { throw CLIError("\(wal): short read of frame \(index)") }
            if firstInvalid == nil, let problem = frame.problem {
                firstInvalid = (index, WALReport.describe(problem, headerProblem: headerProblem))
            }
            frames.append(
                WALFrameReport(
                    index: index, offset: frame.offset, page: frame.header.page,
                    commitSize: frame.header.isCommit ? frame.header.commitSize : nil,
                    saltsMatch: frame.saltsMatch, checksumValid: frame.checksumValid, status: "committed",
                    reason: nil))
            if frame.endsCommit { lastCommit = index }
        }
        return (firstInvalid, lastCommit)
    }

    /// Why a frame fails validation, in words.
    private static func describe(_ problem: LogFrameProblem, headerProblem: String?) -> String {
        switch problem {
        case .headerInvalid: "the log header is invalid (\(headerProblem ?? ""))"
        case .saltsDiffer: "salts differ from the header's (a frame of an earlier log generation)"
        case .pageZero: "page number 0"
        case .checksumMismatch: "cumulative checksum mismatch (damaged or torn frame)"
        }
    }

    /// Marks the frames recovery discards, with why, and sums up where recovery stops.
    private mutating func summarize(
        frameCount: Int, tornBytes: Int64, validFrames: Int, firstInvalid: (index: Int, reason: String)?,
        lastCommit: Int, headerValid: Bool
    ) {
        var pages = Set<UInt32>()
        var commits = 0
        for i in frames.indices {
            if i <= lastCommit {
                pages.insert(frames[i].page)
                if frames[i].commitSize != nil { commits += 1 }
                continue
            }
            frames[i].status = "discarded"
            if !headerValid {
                frames[i].reason = "the log header is invalid"
            } else if let firstInvalid, i > firstInvalid.index {
                frames[i].reason = "after invalid frame \(firstInvalid.index)"
            } else if let firstInvalid, i == firstInvalid.index {
                frames[i].reason = "invalid: " + firstInvalid.reason
            } else {
                frames[i].reason = "no commit frame follows"
            }
        }
        let stop = lastCommit + 1
        let sortedPages = pages.sorted()
        summary = WALSummary(
            frames: frameCount, tornBytes: tornBytes, commits: commits, committedFrames: stop,
            discardedFrames: frameCount - stop, validFrames: validFrames, pages: sortedPages,
            pageRanges: compactRanges(sortedPages), databaseSize: lastCommit >= 0 ? frames[lastCommit].commitSize : nil,
            recoveryStopsAtFrame: stop < frameCount ? stop : nil, firstInvalidFrame: firstInvalid?.index,
            recoveryStopReason: WALReport.stopReason(
                stop: stop, frameCount: frameCount, tornBytes: tornBytes, validFrames: validFrames,
                firstInvalid: firstInvalid, headerValid: headerValid))
    }

    /// Why recovery stops at frame `stop`.
    private static func stopReason(
        stop: Int, frameCount: Int, tornBytes: Int64, validFrames: Int, firstInvalid: (index: Int, reason: String)?,
        headerValid: Bool
    ) -> String {
        if let firstInvalid, firstInvalid.index == 0 && !headerValid {
            return "\(firstInvalid.reason): ignored as a whole"
        }
        if stop == frameCount {
            return frameCount == 0
                ? "the log has no frames" + (tornBytes > 0 ? " (\(tornBytes) bytes of a torn frame)" : "")
                : "end of the log after the last commit frame"
                    + (tornBytes > 0 ? " (then \(tornBytes) bytes of a torn frame)" : "")
        }
        if let firstInvalid, firstInvalid.index == stop {
            return "frame \(stop) is invalid: \(firstInvalid.reason)"
        }
        let end =
            firstInvalid.map { "frame \($0.index), invalid: \($0.reason)" }
            ?? (tornBytes > 0 ? "a torn frame at the end" : "the end of the log")
        return "frames \(stop)...\(validFrames - 1) are valid but no commit frame follows them "
            + "(an unfinished or rolled-back transaction), then \(end)"
    }

    func printText(frames showFrames: Bool) {
        print("database \(database)" + (databasePageSize.map { " (page size \(grouped($0)))" } ?? ""))
        if let databaseProblem { print("  (\(databaseProblem))") }
        guard present else {
            print("no write-ahead log: \(wal) does not exist (every committed change is in the database file)")
            return
        }
        print("log \(wal): \(grouped(walFileSize)) bytes (\(byteSize(Int(walFileSize))))")
        if let header {
            print("header: " + (header.valid ? "valid" : "INVALID: \(header.problem ?? "")"))
            printLines(
                aligned([
                    ("magic", "\"\(header.magic)\""),
                    ("format version", "\(header.formatVersion)"),
                    ("page size", grouped(header.pageSize)),
                    ("checkpoint sequence", "\(header.checkpointSequence)"),
                    ("salt 1", hex32(header.salt1)),
                    ("salt 2", hex32(header.salt2)),
                    ("checksum", hex32(header.checksum)),
                ]))
        }
        if showFrames && !frames.isEmpty {
            print("frames (\(grouped(frames.count)))")
            var table = TextTable(
                header: ["frame", "page", "commit", "salts", "checksum", "status"], rightAligned: [0, 1, 2])
            for frame in frames {
                table.rows.append([
                    "\(frame.index)", "\(frame.page)", frame.commitSize.map { "\($0)" } ?? "-",
                    frame.saltsMatch ? "ok" : "differ", frame.checksumValid ? "ok" : "BAD",
                    frame.status + (frame.reason.map { " (\($0))" } ?? ""),
                ])
            }
            printLines(table.render(indent: "  "))
        }
        guard let summary else { return }
        print("summary")
        var lines = [
            ("frames", grouped(summary.frames) + (summary.tornBytes > 0 ? " + \(summary.tornBytes) torn bytes" : "")),
            ("commits", grouped(summary.commits)),
            ("valid frames", grouped(summary.validFrames)),
            ("committed", grouped(summary.committedFrames)),
            ("discarded", grouped(summary.discardedFrames)),
            (
                "pages",
                "\(grouped(summary.pages.count)) distinct" + (summary.pages.isEmpty ? "" : ": \(summary.pageRanges)")
            ),
        ]
        if let size = summary.databaseSize {
            lines.append(("database size", "\(grouped(size)) pages after the last commit"))
        }
        lines.append(
            (
                "recovery",
                (summary.recoveryStopsAtFrame.map { "stops at frame \($0): " } ?? "keeps every frame: ")
                    + summary.recoveryStopReason
            ))
        printLines(aligned(lines))
    }
}

/// Ascending numbers as ranges: [1, 2, 3, 5, 7, 8] → "1-3, 5, 7-8".
func compactRanges(_ numbers: [UInt32]) -> String {
    var parts: [String] = []
    var i = 0
    while i < numbers.count {
        var j = i
        while j + 1 < numbers.count && numbers[j + 1] == numbers[j] + 1 { j += 1 }
        parts.append(i == j ? "\(numbers[i])" : "\(numbers[i])-\(numbers[j])")
        i = j + 1
    }
    return parts.joined(separator: ", ")
}

/// A 32-bit value as 0x-prefixed hex with eight digits.
func hex32(_ value: UInt32) -> String {
    "0x" + String(format: "%08x", value)
}
