// Implements FORMAT.md § "The write-ahead log": the WAL header and frame headers.

/// The 32-byte header at the start of `<db>-wal`.
///
/// Layout: magic "GraniteW" (8), format version (4), page size (4),
/// checkpoint sequence (4), salt 1 (4), salt 2 (4), checksum (4): the low
/// 32 bits of XXH64 over bytes 0 ..< 28 with seed 0.
package struct WALHeader: Equatable, Sendable {
    /// The eight magic bytes.
    package static let magic: [UInt8] = Array("GraniteW".utf8)
    /// Bytes the header occupies.
    package static let size = 32
    /// Bytes of each frame header.
    package static let frameHeaderSize = 24

    /// The WAL format version (1).
    package var formatVersion: UInt32 = 1
    /// The database page size; every frame carries one page image of this size.
    package var pageSize: UInt32
    /// Incremented each time the log restarts from its beginning.
    package var checkpointSequence: UInt32
    /// Random values chosen at each restart; every valid frame repeats them.
    package var salt1: UInt32
    package var salt2: UInt32

    /// A header for a new log generation.
    package init(pageSize: Int, checkpointSequence: UInt32, salt1: UInt32, salt2: UInt32) {
        self.pageSize = UInt32(pageSize)
        self.checkpointSequence = checkpointSequence
        self.salt1 = salt1
        self.salt2 = salt2
    }

    /// The checksum that seeds the first frame's cumulative checksum.
    package var seed: UInt64 {
        var bytes = [UInt8](repeating: 0, count: WALHeader.size)
        bytes.withUnsafeMutableBytes { write(to: $0.baseAddress!) }
        return bytes.withUnsafeBytes { Checksum.xxh64($0.baseAddress!, count: 28) }
    }

    /// Serialises the header (with its checksum) into 32 bytes at `pointer`.
    package func write(to pointer: UnsafeMutableRawPointer) {
        for (i, byte) in WALHeader.magic.enumerated() { pointer.setU8(i, byte) }
        pointer.setU32(8, formatVersion)
        pointer.setU32(12, pageSize)
        pointer.setU32(16, checkpointSequence)
        pointer.setU32(20, salt1)
        pointer.setU32(24, salt2)
        pointer.setU32(28, Checksum.checksum32(pointer, count: 28))
    }

    /// Parses a header; nil when the bytes are not a valid WAL header (a log
    /// with an invalid header is ignored, as if empty).
    package init?(reading pointer: UnsafeRawPointer) {
        for (i, byte) in WALHeader.magic.enumerated() where pointer.u8(i) != byte { return nil }
        guard pointer.u32(28) == Checksum.checksum32(pointer, count: 28), pointer.u32(8) == 1 else { return nil }
        formatVersion = 1
        pageSize = pointer.u32(12)
        checkpointSequence = pointer.u32(16)
        salt1 = pointer.u32(20)
        salt2 = pointer.u32(24)
    }

    /// The byte offset of frame `index` (0-based) in the log.
    @inline(__always)
    package func frameOffset(_ index: Int) -> Int64 {
        Int64(WALHeader.size) + Int64(index) * Int64(WALHeader.frameHeaderSize + Int(pageSize))
    }
}

/// The 24-byte header of one WAL frame, followed by a page image.
///
/// Layout: cumulative checksum (8), page number (4), commit size (4: the
/// database size in pages after the transaction this frame ends, else 0),
/// salt 1 (4), salt 2 (4). The checksum is XXH64 of the 16 header bytes
/// 8 ..< 24 followed by the page image's 4-byte trailer (itself a checksum of
/// the whole image), seeded with the previous frame's checksum, or with the
/// WAL header's XXH64 for the first frame: each frame vouches for every frame
/// before it, and a frame is valid only when its image's trailer is valid too.
package struct WALFrameHeader: Equatable, Sendable {
    /// The cumulative checksum.
    package var checksum: UInt64
    /// The page this frame holds.
    package var page: PageNumber
    /// Database size after the commit this frame ends, or 0.
    package var commitSize: UInt32
    /// Copies of the WAL header's salts.
    package var salt1: UInt32
    package var salt2: UInt32

    /// Whether the frame ends a transaction.
    package var isCommit: Bool { commitSize != 0 }

    /// Parses the 24 bytes at `pointer`.
    package init(reading pointer: UnsafeRawPointer) {
        checksum = pointer.u64(0)
        page = pointer.u32(8)
        commitSize = pointer.u32(12)
        salt1 = pointer.u32(16)
        salt2 = pointer.u32(20)
    }

    /// Fills in a frame at `frame` (header and page image contiguous): the
    /// header fields, then the checksum over them and the image. Returns the checksum.
    @discardableResult
    package static func seal(
        frame: UnsafeMutableRawPointer, page: PageNumber, commitSize: UInt32, salt1: UInt32, salt2: UInt32,
        pageSize: Int, previous: UInt64
    ) -> UInt64 {
        frame.setU32(8, page)
        frame.setU32(12, commitSize)
        frame.setU32(16, salt1)
        frame.setU32(20, salt2)
        let sum = checksum(frame: frame, pageSize: pageSize, previous: previous)
        frame.setU64(0, sum)
        return sum
    }

    /// The cumulative checksum of the frame at `frame` (header and image contiguous).
    package static func checksum(frame: UnsafeRawPointer, pageSize: Int, previous: UInt64) -> UInt64 {
        var input: (UInt64, UInt64, UInt32) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &input) { buffer in
            let base = buffer.baseAddress!
            base.copyMemory(from: frame + 8, byteCount: 16)
            (base + 16).copyMemory(
                from: frame + WALHeader.frameHeaderSize + pageSize - PageLayout.trailerSize, byteCount: 4)
            return Checksum.xxh64(base, count: 20, seed: previous)
        }
    }

    /// Whether the frame's page image matches its own trailer checksum.
    package static func imageIsIntact(frame: UnsafeRawPointer, pageSize: Int) -> Bool {
        PageLayout.verify(frame + WALHeader.frameHeaderSize, number: frame.u32(8), pageSize: pageSize)
    }
}
