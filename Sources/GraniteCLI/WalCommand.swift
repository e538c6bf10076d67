// `granite wal FILE`: the write-ahead log `FILE-wal` decoded from its raw bytes
// (FORMAT.md § "The write-ahead log"), frame by frame, with what recovery keeps.

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
        guard let handle = FileHandle(forReadingAtPath: wal) else { throw CLIError("cannot open \(wal) for reading") }
        defer { try? handle.close() }
        walFileSize = Int64(try handle.seekToEnd())
        try analyze(handle)
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

    private mutating func analyze(_ handle: FileHandle) throws {
        guard walFileSize >= Int64(WALHeader.size) else {
            summary = WALSummary(
                frames: 0, tornBytes: walFileSize, commits: 0, committedFrames: 0, discardedFrames: 0, validFrames: 0,
                pages: [], pageRanges: "", databaseSize: nil, recoveryStopsAtFrame: nil,
                firstInvalidFrame: nil,
                recoveryStopReason: walFileSize == 0
                    ? "the log is empty" : "the log is shorter than its 32-byte header: ignored as a whole")
            return
        }
        try handle.seek(toOffset: 0)
        let headerBytes = [UInt8](try handle.read(upToCount: WALHeader.size) ?? Data())
        guard headerBytes.count == WALHeader.size else { throw CLIError("\(wal): short read of the log header") }
        let parsed = headerBytes.withUnsafeBytes { WALHeader(reading: $0.baseAddress!) }
        var headerReport = WALHeaderReport(
            valid: parsed != nil, problem: nil,
            magic: String(
                decoding: headerBytes[0..<8].map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: ".") }, as: UTF8.self),
            formatVersion: littleEndian32(headerBytes, 8), pageSize: littleEndian32(headerBytes, 12),
            checkpointSequence: littleEndian32(headerBytes, 16), salt1: littleEndian32(headerBytes, 20),
            salt2: littleEndian32(headerBytes, 24), checksum: littleEndian32(headerBytes, 28))
        if parsed == nil {
            if Array(headerBytes[0..<8]) != WALHeader.magic {
                headerReport.problem = "bad magic (not \"GraniteW\")"
            } else if headerReport.checksum != Checksum.checksum32(headerBytes, count: 28) {
                headerReport.problem = "bad header checksum"
            } else {
                headerReport.problem = "unsupported log format version \(headerReport.formatVersion)"
            }
        } else if let databasePageSize, databasePageSize != headerReport.pageSize {
            headerReport.valid = false
            headerReport.problem = "page size \(headerReport.pageSize) differs from the database's \(databasePageSize)"
        } else if !isValidPageSize(headerReport.pageSize) {
            headerReport.valid = false
            headerReport.problem = "page size \(headerReport.pageSize) is not a power of two in 512...65536"
        }
        header = headerReport

        // The frame size: the header's page size when it is usable, else the database's (to list
        // the frames of an ignored log), else nothing can be listed.
        let pageSize: Int
        if headerReport.valid || isValidPageSize(headerReport.pageSize) && databasePageSize == nil {
            pageSize = Int(headerReport.pageSize)
        } else if let databasePageSize, isValidPageSize(databasePageSize) {
            pageSize = Int(databasePageSize)
        } else {
            summary = WALSummary(
                frames: 0, tornBytes: walFileSize - Int64(WALHeader.size), commits: 0, committedFrames: 0,
                discardedFrames: 0, validFrames: 0, pages: [], pageRanges: "", databaseSize: nil,
                recoveryStopsAtFrame: nil,
                firstInvalidFrame: nil,
                recoveryStopReason: "the log header is invalid (\(headerReport.problem ?? "")): ignored as a whole")
            return
        }
        let frameSize = WALHeader.frameHeaderSize + pageSize
        let frameCount = Int((walFileSize - Int64(WALHeader.size)) / Int64(frameSize))
        let tornBytes = walFileSize - Int64(WALHeader.size) - Int64(frameCount) * Int64(frameSize)

        // Recovery's walk: frames stay valid while salts, page number and chained checksum hold.
        var previous = parsed?.seed ?? 0
        var firstInvalid: (index: Int, reason: String)? = nil
        var lastCommit = -1
        var buffer = [UInt8](repeating: 0, count: frameSize)
        try handle.seek(toOffset: UInt64(WALHeader.size))
        for index in 0..<frameCount {
            let data = try handle.read(upToCount: frameSize) ?? Data()
            guard data.count == frameSize else { throw CLIError("\(wal): short read of frame \(index)") }
            buffer.withUnsafeMutableBytes { _ = data.copyBytes(to: $0) }
            let frameHeader = buffer.withUnsafeBytes { WALFrameHeader(reading: $0.baseAddress!) }
            let computed = buffer.withUnsafeBytes {
                WALFrameHeader.checksum(frame: $0.baseAddress!, pageSize: pageSize, previous: previous)
            }
            let saltsMatch = frameHeader.salt1 == headerReport.salt1 && frameHeader.salt2 == headerReport.salt2
            let imageIntact = buffer.withUnsafeBytes {
                WALFrameHeader.imageIsIntact(frame: $0.baseAddress!, pageSize: pageSize)
            }
            let checksumValid = computed == frameHeader.checksum && imageIntact
            previous = frameHeader.checksum
            if firstInvalid == nil {
                if !headerReport.valid {
                    firstInvalid = (index, "the log header is invalid (\(headerReport.problem ?? ""))")
                } else if !saltsMatch {
                    firstInvalid = (index, "salts differ from the header's (a frame of an earlier log generation)")
                } else if frameHeader.page == 0 {
                    firstInvalid = (index, "page number 0")
                } else if !checksumValid {
                    firstInvalid = (index, "cumulative checksum mismatch (damaged or torn frame)")
                } else if frameHeader.isCommit {
                    lastCommit = index
                }
            }
            frames.append(
                WALFrameReport(
                    index: index, offset: Int64(WALHeader.size) + Int64(index) * Int64(frameSize),
                    page: frameHeader.page, commitSize: frameHeader.isCommit ? frameHeader.commitSize : nil,
                    saltsMatch: saltsMatch, checksumValid: checksumValid, status: "committed", reason: nil))
        }
        let validFrames = firstInvalid?.index ?? frameCount
        var pages = Set<UInt32>()
        var commits = 0
        for i in frames.indices {
            if i <= lastCommit {
                pages.insert(frames[i].page)
                if frames[i].commitSize != nil { commits += 1 }
                continue
            }
            frames[i].status = "discarded"
            if !headerReport.valid {
                frames[i].reason = "the log header is invalid"
            } else if let firstInvalid, i > firstInvalid.index {
                frames[i].reason = "after invalid frame \(firstInvalid.index)"
            } else if let firstInvalid, i == firstInvalid.index {
                frames[i].reason = "invalid: " + firstInvalid.reason
            } else {
                frames[i].reason = "no commit frame follows"
            }
        }
        let stopReason: String
        let stop = lastCommit + 1
        if let firstInvalid, firstInvalid.index == 0 && !headerReport.valid {
            stopReason = "\(firstInvalid.reason): ignored as a whole"
        } else if stop == frameCount {
            stopReason =
                frameCount == 0
                ? "the log has no frames" + (tornBytes > 0 ? " (\(tornBytes) bytes of a torn frame)" : "")
                : "end of the log after the last commit frame"
                    + (tornBytes > 0 ? " (then \(tornBytes) bytes of a torn frame)" : "")
        } else if let firstInvalid, firstInvalid.index == stop {
            stopReason = "frame \(stop) is invalid: \(firstInvalid.reason)"
        } else {
            let end =
                firstInvalid.map { "frame \($0.index), invalid: \($0.reason)" }
                ?? (tornBytes > 0 ? "a torn frame at the end" : "the end of the log")
            stopReason =
                "frames \(stop)...\(validFrames - 1) are valid but no commit frame follows them "
                + "(an unfinished or rolled-back transaction), then \(end)"
        }
        let sortedPages = pages.sorted()
        summary = WALSummary(
            frames: frameCount, tornBytes: tornBytes, commits: commits, committedFrames: stop,
            discardedFrames: frameCount - stop, validFrames: validFrames, pages: sortedPages,
            pageRanges: compactRanges(sortedPages), databaseSize: lastCommit >= 0 ? frames[lastCommit].commitSize : nil,
            recoveryStopsAtFrame: stop < frameCount ? stop : nil, firstInvalidFrame: firstInvalid?.index,
            recoveryStopReason: stopReason)
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

/// The little-endian UInt32 at `offset` in `bytes`.
func littleEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
}

/// Whether `size` is a page size Granite accepts.
func isValidPageSize(_ size: UInt32) -> Bool {
    size >= 512 && size <= 65536 && size & (size - 1) == 0
}
