// Implements the rules of FORMAT.md § "The write-ahead log" (valid frames) that decide which
// part of a write-ahead log counts: whether its header is accepted, and which
// frames form the valid prefix. Recovery and `granite wal` both read the log
// through this file, so the inspector can never disagree with what an open keeps.

/// Why recovery ignores a log header (and with it the whole log).
package enum LogHeaderProblem: Equatable, Sendable {
    /// The first eight bytes are not "GraniteW".
    case badMagic
    /// The header's own checksum does not match its bytes.
    case badChecksum
    /// A format version this build does not read.
    case unsupportedVersion(UInt32)
    /// The log's page size is not the database file's: the log belongs to another file.
    case pageSizeDiffers(log: UInt32, database: UInt32)
    /// The page size is not a power of two in 512...65536.
    case invalidPageSize(UInt32)
}

/// The 32 bytes at the start of a log, decoded field by field whether or not
/// recovery accepts them, with the verdict.
package struct LogHeaderReading: Sendable {
    /// The header as recovery uses it; nil when its magic, checksum or version is wrong.
    package var header: WALHeader?
    /// Why recovery ignores the log, nil when it accepts the header.
    package var problem: LogHeaderProblem?
    /// The raw fields, meaningful only as far as the bytes are a header.
    package var magic: [UInt8]
    package var formatVersion: UInt32
    package var pageSize: UInt32
    package var checkpointSequence: UInt32
    package var salt1: UInt32
    package var salt2: UInt32
    package var checksum: UInt32

    /// Whether recovery reads the frames that follow.
    package var isValid: Bool { problem == nil }

    /// Judges the header at `pointer` (32 bytes). `databasePageSize` is the page size in the
    /// database file's header when that header is readable: a log of another page size is refused.
    package init(_ pointer: UnsafeRawPointer, databasePageSize: UInt32?) {
        header = WALHeader(reading: pointer)
        magic = (0..<8).map { pointer.u8($0) }
        formatVersion = pointer.u32(8)
        pageSize = pointer.u32(12)
        checkpointSequence = pointer.u32(16)
        salt1 = pointer.u32(20)
        salt2 = pointer.u32(24)
        checksum = pointer.u32(28)
        if header == nil {
            if magic != WALHeader.magic {
                problem = .badMagic
            } else if checksum != Checksum.checksum32(pointer, count: 28) {
                problem = .badChecksum
            } else {
                problem = .unsupportedVersion(formatVersion)
            }
        } else if let databasePageSize, databasePageSize != pageSize {
            problem = .pageSizeDiffers(log: pageSize, database: databasePageSize)
        } else if !PageLayout.isValidPageSize(Int(pageSize)) {
            problem = .invalidPageSize(pageSize)
        }
    }

    /// Reads and judges the header of the log in `file`; nil when the file is shorter than a header
    /// (recovery then treats the log as empty).
    package static func read(_ file: any StorageFile, databasePageSize: UInt32?) throws -> LogHeaderReading? {
        guard try file.size() >= Int64(WALHeader.size) else { return nil }
        var bytes = [UInt8](repeating: 0, count: WALHeader.size)
        guard try bytes.withUnsafeMutableBytes({ try file.readFully(into: $0, at: 0) }) else { return nil }
        return bytes.withUnsafeBytes { LogHeaderReading($0.baseAddress!, databasePageSize: databasePageSize) }
    }
}

/// Why a frame fails its own checks, in the order recovery tests them.
package enum LogFrameProblem: Equatable, Sendable {
    /// The log header is refused, so no frame counts.
    case headerInvalid
    /// The frame's salts are not the header's: a frame of an earlier log generation.
    case saltsDiffer
    /// Page number 0, which no page has.
    case pageZero
    /// The cumulative checksum or the page image's own checksum is wrong: a damaged or torn frame.
    case checksumMismatch
}

/// One complete frame of the log, judged by recovery's rules.
package struct LogFrame: Sendable {
    /// The frame's position in the log, from 0.
    package var index: Int
    /// Where the frame starts in the log file.
    package var offset: Int64
    package var header: WALFrameHeader
    /// Whether the frame repeats the log header's salts.
    package var saltsMatch: Bool
    /// Whether the cumulative checksum is right given the previous frame's stored checksum (or
    /// the header, for frame 0) and the page image matches its trailer: false pinpoints the frame
    /// whose bytes are damaged, even after the valid prefix has ended.
    package var checksumValid: Bool
    /// Why the frame fails its own checks, nil when it passes them.
    package var problem: LogFrameProblem?
    /// Whether the frame belongs to the valid prefix: it and every frame before it pass.
    package var isValid: Bool
    /// Whether the frame is valid and ends a transaction: recovery keeps every frame up to the
    /// last such frame.
    package var endsCommit: Bool { isValid && header.isCommit }
}

/// Walks the complete frames of a log in order, reading each once.
///
/// A frame is valid while it and every frame before it carry the header's salts, a page number
/// and a cumulative checksum that chains from the header through each stored checksum; the first
/// frame that fails ends the valid prefix. Recovery stops there; an inspector may read on to show
/// what the rest holds, each frame's checksum chained from its predecessor's stored value.
package struct LogScanner {
    /// The page size of every frame's image.
    package let pageSize: Int
    /// Complete frames in the file when the scan began.
    package let frameCount: Int
    /// Bytes after the last complete frame (a frame torn by a crash).
    package let tornBytes: Int64
    /// Frames of the valid prefix seen so far.
    package private(set) var validFrames = 0

    private let file: any StorageFile
    private let salt1: UInt32
    private let salt2: UInt32
    private let headerIsValid: Bool
    private var previousChecksum: UInt64
    private var position = 0
    private var prefixEnded = false
    private var buffer: [UInt8]

    /// A scanner of the frames after an accepted header: what recovery replays.
    package init(file: any StorageFile, header: WALHeader) throws {
        try self.init(
            file: file, pageSize: Int(header.pageSize), salt1: header.salt1, salt2: header.salt2,
            seed: header.seed, headerIsValid: true)
    }

    /// A scanner of the frames after any header, valid or not, with frames of `pageSize` bytes
    /// (for a refused header, a page size that lets an inspector list what the log holds).
    package init(file: any StorageFile, header: LogHeaderReading, pageSize: Int) throws {
        try self.init(
            file: file, pageSize: pageSize, salt1: header.salt1, salt2: header.salt2, seed: header.header?.seed ?? 0,
            headerIsValid: header.isValid)
    }

    private init(
        file: any StorageFile, pageSize: Int, salt1: UInt32, salt2: UInt32, seed: UInt64, headerIsValid: Bool
    ) throws {
        self.file = file
        self.pageSize = pageSize
        self.salt1 = salt1
        self.salt2 = salt2
        self.headerIsValid = headerIsValid
        previousChecksum = seed
        let frameSize = WALHeader.frameHeaderSize + pageSize
        let frameBytes = max(0, try file.size() - Int64(WALHeader.size))
        frameCount = Int(frameBytes / Int64(frameSize))
        tornBytes = frameBytes - Int64(frameCount) * Int64(frameSize)
        buffer = [UInt8](repeating: 0, count: frameSize)
    }

    /// The next complete frame, nil at the end of the log (or when the file has become shorter).
    package mutating func next() throws -> LogFrame? {
        guard position < frameCount else { return nil }
        let frameSize = buffer.count
        let offset = Int64(WALHeader.size) + Int64(position) * Int64(frameSize)
        guard try buffer.withUnsafeMutableBytes({ try file.readFully(into: $0, at: offset) }) else { return nil }
        var frame = buffer.withUnsafeBytes { judge($0.baseAddress!, offset: offset) }
        if frame.problem != nil { prefixEnded = true }
        frame.isValid = !prefixEnded
        if frame.isValid { validFrames += 1 }
        previousChecksum = frame.header.checksum
        position += 1
        return frame
    }

    /// The next frame of the valid prefix, nil where the prefix ends.
    package mutating func nextValid() throws -> LogFrame? {
        guard let frame = try next(), frame.isValid else { return nil }
        return frame
    }

    /// Applies the frame checks, in recovery's order, to the frame at `frame`.
    private func judge(_ frame: UnsafeRawPointer, offset: Int64) -> LogFrame {
        let header = WALFrameHeader(reading: frame)
        let saltsMatch = header.salt1 == salt1 && header.salt2 == salt2
        let checksumValid =
            header.checksum == WALFrameHeader.checksum(frame: frame, pageSize: pageSize, previous: previousChecksum)
            && WALFrameHeader.imageIsIntact(frame: frame, pageSize: pageSize)
        let problem: LogFrameProblem?
        if !headerIsValid {
            problem = .headerInvalid
        } else if !saltsMatch {
            problem = .saltsDiffer
        } else if header.page == 0 {
            problem = .pageZero
        } else if !checksumValid {
            problem = .checksumMismatch
        } else {
            problem = nil
        }
        return LogFrame(
            index: position, offset: offset, header: header, saltsMatch: saltsMatch, checksumValid: checksumValid,
            problem: problem, isValid: false)
    }
}
