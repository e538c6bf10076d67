// A connection's view of the pages: its snapshot of the log over the file,
// and, for the writer, the frames it has appended but not yet committed.

/// The page source of one connection in WAL mode.
///
/// Reads consult the writer's own uncommitted frames, then the snapshot's
/// committed frames, then the database file. Writes append frames to the log;
/// the frame that ends a transaction carries the database size.
final class WALPageSource: PageSource {
    let shared: SharedDatabase
    var pageSize: Int { shared.pageSize }
    /// The current snapshot, nil between transactions.
    private(set) var snapshot: WALSnapshot?
    /// Whether this connection holds the writer lock.
    private(set) var isWriter = false
    private var uncommitted: [PageNumber: Int] = [:]
    private var pendingPages: [PageNumber] = []
    private var writePosition = 0
    private var writeChecksum: UInt64 = 0

    /// Reused buffer where frames are assembled before one write.
    private var frameBuffer: UnsafeMutableRawPointer?
    private var frameBufferCapacity = 0

    init(shared: SharedDatabase) {
        self.shared = shared
    }

    deinit {
        frameBuffer?.deallocate()
    }

    // MARK: Transactions

    func beginRead() {
        snapshot = shared.beginRead()
    }

    func beginWrite() throws {
        let s = try shared.beginWrite()
        snapshot = s
        isWriter = true
        writePosition = s.limit
        writeChecksum = s.limit == 0 ? (shared.walHeader?.seed ?? 0) : s.lastChecksum
        uncommitted.removeAll()
        pendingPages.removeAll()
    }

    /// Ends the transaction (after a commit was published, or to roll back).
    func end() {
        guard let s = snapshot else { return }
        if isWriter {
            uncommitted.removeAll()
            pendingPages.removeAll()
            isWriter = false
            shared.endWrite(s)
        } else {
            shared.endRead(s)
        }
        snapshot = nil
    }

    // MARK: PageSource

    func readPage(_ number: PageNumber, into buffer: UnsafeMutableRawPointer) throws -> Bool {
        if let frame = uncommitted[number] {
            try shared.readFrame(frame, into: buffer)
            return true
        }
        guard let s = snapshot else {
            throw StorageError.invalidArgument("page read outside a transaction")
        }
        if let frame = shared.frame(for: number, below: s.limit) {
            try shared.readFrame(frame, into: buffer)
            return true
        }
        return try shared.readFilePage(number, into: buffer)
    }

    func writePages(_ pages: [(number: PageNumber, image: UnsafeRawPointer)], commitPageCount: UInt32?) throws {
        guard isWriter, let s = snapshot, let header = shared.walHeader else {
            throw StorageError.invalidArgument("page write outside a write transaction")
        }
        guard !pages.isEmpty else { return }
        let frameSize = WALHeader.frameHeaderSize + pageSize
        if frameBufferCapacity < frameSize * pages.count {
            frameBuffer?.deallocate()
            frameBufferCapacity = max(frameSize * pages.count, frameSize * 16)
            frameBuffer = .allocate(byteCount: frameBufferCapacity, alignment: 16)
        }
        let buffer = frameBuffer!
        var checksum = writeChecksum
        for (i, page) in pages.enumerated() {
            let frame = buffer + i * frameSize
            (frame + WALHeader.frameHeaderSize).copyMemory(from: page.image, byteCount: pageSize)
            let isLast = i == pages.count - 1
            checksum = WALFrameHeader.seal(
                frame: frame, page: page.number, commitSize: isLast ? (commitPageCount ?? 0) : 0,
                salt1: header.salt1, salt2: header.salt2, pageSize: pageSize, previous: checksum)
        }
        try shared.walFile.write(
            UnsafeRawBufferPointer(start: buffer, count: frameSize * pages.count), at: header.frameOffset(writePosition))
        for (i, page) in pages.enumerated() {
            uncommitted[page.number] = writePosition + i
            pendingPages.append(page.number)
        }
        writePosition += pages.count
        writeChecksum = checksum
        guard let databaseSize = commitPageCount else { return }
        if shared.durability == .full { try shared.walFile.sync() }
        checkpointDue = shared.publish(s, pages: pendingPages, databaseSize: databaseSize, checksum: checksum)
    }

    /// The frame count after this writer's frames (its commit, once published).
    var committedFrames: Int { writePosition }

    /// Set by a commit that pushed the log past the auto-checkpoint size.
    var checkpointDue = false

    /// Drops frames appended by the transaction in progress (a rollback): the
    /// next transaction overwrites them, and recovery never counts them.
    func discardUncommitted() -> Bool {
        guard let s = snapshot else { return true }
        uncommitted.removeAll()
        pendingPages.removeAll()
        writePosition = s.limit
        writeChecksum = s.limit == 0 ? (shared.walHeader?.seed ?? 0) : s.lastChecksum
        return true
    }
}
