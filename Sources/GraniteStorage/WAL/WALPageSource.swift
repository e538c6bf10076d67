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

    /// The connection's level: whether commits sync the log, and what its checkpoints and log restarts sync.
    /// Unchecked: a connection is used from one thread at a time, and every commit reads it (a checked access
    /// cost about ten instructions per commit).
    @exclusivity(unchecked) var durability: Durability

    /// How long this connection waits for another process's writer lock (nil: the database's default);
    /// `PRAGMA busy_timeout` changes it between statements, on the connection's thread.
    var processBusyTimeout: Double?

    init(shared: SharedDatabase, durability: Durability, processBusyTimeout: Double? = nil) {
        self.shared = shared
        self.durability = durability
        self.processBusyTimeout = processBusyTimeout
    }

    deinit {
        frameBuffer?.deallocate()
    }

    // MARK: Transactions

    func beginRead() throws {
        snapshot = try shared.beginRead()
    }

    func beginWrite() throws {
        let s = try shared.beginWrite(durability: durability, processBusyTimeout: processBusyTimeout)
        snapshot = s
        isWriter = true
        writePosition = s.limit
        writeChecksum = s.limit == 0 ? (shared.walHeader?.seed ?? 0) : s.lastChecksum
        frames.removeAll(keepingCapacity: true)
        rechainFrom = nil
        forgetWrittenPages()
    }

    /// Becomes the writer on the snapshot this connection reads, as SQLite's deferred transaction does at its first
    /// write after reading. The writer lock is taken (waiting as ``beginWrite()`` does) while the read snapshot is
    /// still held, so the log cannot restart in between and the comparison of the two snapshots is exact. Returns
    /// false, still reading the same snapshot and without the writer lock, when another commit came after it.
    func upgradeToWrite() throws -> Bool {
        guard let readSnapshot = snapshot, !isWriter else {
            try beginWrite()
            return true
        }
        try beginWrite()
        // Equal frame counts of one log generation are the same commit. A snapshot of an empty log reads the
        // database file alone: the writer may have written the log's first header since (a new generation), but a
        // commit in between would have left frames, which this snapshot's reader mark keeps in the log.
        guard let writeSnapshot = snapshot, writeSnapshot.limit == readSnapshot.limit,
            readSnapshot.limit == 0 || writeSnapshot.generation == readSnapshot.generation
        else {
            isWriter = false
            if let writeSnapshot = snapshot { shared.endWrite(writeSnapshot) }
            snapshot = readSnapshot
            return false
        }
        shared.endRead(readSnapshot)
        return true
    }

    /// Empties the map and the list of the pages the transaction wrote. Their storage is kept for the next
    /// transaction, so that a one-row write allocates neither, unless a large transaction grew them: emptying a
    /// large table costs its capacity at every transaction, and the memory would stay held.
    private func forgetWrittenPages() {
        let keepsStorage = uncommitted.capacity <= 256
        uncommitted.removeAll(keepingCapacity: keepsStorage)
        pendingPages.removeAll(keepingCapacity: keepsStorage)
    }

    /// Ends the transaction (after a commit was published, or to roll back).
    func end() {
        guard let s = snapshot else { return }
        if isWriter {
            forgetWrittenPages()
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
        // A page this transaction already wrote (spilled) is overwritten in
        // its frame instead of appended again, so a large transaction's log
        // holds each page once; the checksum chain is redone at commit. The
        // frame that ends the transaction is always appended.
        var appended: [(number: PageNumber, image: UnsafeRawPointer)] = []
        appended.reserveCapacity(pages.count)
        for (i, page) in pages.enumerated() {
            let endsTransaction = commitPageCount != nil && i == pages.count - 1
            guard !endsTransaction, let frame = uncommitted[page.number] else {
                appended.append(page)
                continue
            }
            let buffer = try frameBuffer(frames: 1)
            (buffer + WALHeader.frameHeaderSize).copyMemory(from: page.image, byteCount: pageSize)
            let info = frames[frame - s.limit]
            // The stored checksum is stale until the chain is redone.
            WALFrameHeader.seal(
                frame: buffer, page: page.number, commitSize: 0, salt1: header.salt1, salt2: header.salt2,
                pageSize: pageSize, previous: info.checksum)
            try shared.walFile.write(
                UnsafeRawBufferPointer(start: buffer, count: frameSize), at: header.frameOffset(frame))
            frames[frame - s.limit].trailer = page.image.u32(pageSize - PageLayout.trailerSize)
            rechainFrom = min(rechainFrom ?? frame, frame)
        }
        if !appended.isEmpty {
            let buffer = try frameBuffer(frames: appended.count)
            var checksum = writeChecksum
            for (i, page) in appended.enumerated() {
                let frame = buffer + i * frameSize
                (frame + WALHeader.frameHeaderSize).copyMemory(from: page.image, byteCount: pageSize)
                let commitSize = i == appended.count - 1 ? (commitPageCount ?? 0) : 0
                checksum = WALFrameHeader.seal(
                    frame: frame, page: page.number, commitSize: commitSize,
                    salt1: header.salt1, salt2: header.salt2, pageSize: pageSize, previous: checksum)
                frames.append(
                    FrameInfo(
                        page: page.number, commitSize: commitSize,
                        trailer: page.image.u32(pageSize - PageLayout.trailerSize),
                        checksum: checksum))
            }
            try shared.walFile.write(
                UnsafeRawBufferPointer(start: buffer, count: frameSize * appended.count),
                at: header.frameOffset(writePosition))
            for (i, page) in appended.enumerated() {
                uncommitted[page.number] = writePosition + i
                pendingPages.append(page.number)
            }
            writePosition += appended.count
            writeChecksum = checksum
        }
        guard let databaseSize = commitPageCount else { return }
        if let first = rechainFrom {
            try rechain(from: first, header: header, snapshot: s)
            rechainFrom = nil
        }
        if durability.syncsCommits { try shared.walFile.sync() }
        checkpointDue = shared.publish(s, pages: pendingPages, databaseSize: databaseSize, checksum: writeChecksum)
    }

    /// What the writer remembers of each frame it wrote: enough to redo the
    /// checksum chain without reading the frames back.
    private struct FrameInfo {
        var page: PageNumber
        var commitSize: UInt32
        var trailer: UInt32
        var checksum: UInt64
    }
    private var frames: [FrameInfo] = []
    private var rechainFrom: Int?

    /// Recomputes the cumulative checksums from frame `first` to the end of
    /// the transaction and rewrites them (8 bytes per frame).
    private func rechain(from first: Int, header: WALHeader, snapshot s: WALSnapshot) throws {
        var previous: UInt64
        if first > s.limit {
            previous = frames[first - 1 - s.limit].checksum
        } else {
            previous = s.limit == 0 ? header.seed : s.lastChecksum
        }
        var input = [UInt8](repeating: 0, count: 20)
        var stamp = [UInt8](repeating: 0, count: 8)
        for frame in first..<writePosition {
            let info = frames[frame - s.limit]
            let checksum = input.withUnsafeMutableBytes { buffer -> UInt64 in
                let base = buffer.baseAddress!
                base.setU32(0, info.page)
                base.setU32(4, info.commitSize)
                base.setU32(8, header.salt1)
                base.setU32(12, header.salt2)
                base.setU32(16, info.trailer)
                return Checksum.xxh64(base, count: 20, seed: previous)
            }
            frames[frame - s.limit].checksum = checksum
            stamp.withUnsafeMutableBytes { $0.baseAddress!.setU64(0, checksum) }
            try shared.walFile.write(stamp, at: header.frameOffset(frame))
            previous = checksum
        }
        writeChecksum = previous
    }

    /// The reusable buffer, large enough for `count` frames.
    private func frameBuffer(frames count: Int) throws -> UnsafeMutableRawPointer {
        let needed = (WALHeader.frameHeaderSize + pageSize) * count
        if frameBufferCapacity < needed {
            frameBuffer?.deallocate()
            frameBufferCapacity = max(needed, (WALHeader.frameHeaderSize + pageSize) * 16)
            frameBuffer = .allocate(byteCount: frameBufferCapacity, alignment: 16)
        }
        return frameBuffer!
    }

    /// The frame count after this writer's frames (its commit, once published).
    var committedFrames: Int { writePosition }

    /// Set by a commit that pushed the log past the auto-checkpoint size.
    var checkpointDue = false

    /// Drops frames appended by the transaction in progress (a rollback): the
    /// next transaction overwrites them, and recovery never counts them.
    func discardUncommitted() -> Bool {
        guard let s = snapshot else { return true }
        forgetWrittenPages()
        writePosition = s.limit
        writeChecksum = s.limit == 0 ? (shared.walHeader?.seed ?? 0) : s.lastChecksum
        frames.removeAll(keepingCapacity: true)
        rechainFrom = nil
        return true
    }
}
