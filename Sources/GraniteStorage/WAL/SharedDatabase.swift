// The state every connection to one database file shares: the file and its
// write-ahead log, the WAL index, the writer lock, the live snapshots, and
// checkpoints. FORMAT.md § "The write-ahead log" describes the log's bytes.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The log's state, for inspection (`granite info`).
public struct WALStatus: Sendable, Equatable {
    /// The log header, nil when the log is absent, empty or ignored.
    package var header: WALHeader?
    /// Committed frames and commits in the log.
    public var frames: Int
    public var commits: Int
    /// Frames already copied into the database file.
    public var backfilledFrames: Int
    /// Live read snapshots.
    public var readers: Int
    /// The log file's size in bytes.
    public var fileSize: Int64
}

/// A read snapshot: the committed frames visible to one transaction. The
/// shared index only grows while a snapshot that reads the log is alive (the
/// log restarts only when none is), so a frame count is all a snapshot needs.
struct WALSnapshot {
    /// Frames `0 ..< limit` are visible.
    var limit: Int
    /// The log generation the snapshot belongs to.
    var generation: UInt64
    /// The cumulative checksum of frame `limit − 1` (where a writer continues).
    var lastChecksum: UInt64
}

/// Shared state of one open database, used by all its connections.
final class SharedDatabase: @unchecked Sendable {
    let path: String
    let dbFile: any StorageFile
    let walFile: any StorageFile
    /// The page size of the database: fixed once the database holds anything (``reformat(pageSize:durability:)``
    /// changes it only while a single connection is open and nothing reads or writes).
    private(set) var pageSize: Int
    let readOnly: Bool
    /// Whether the state is read-only because the files could not be opened for writing (rather than because
    /// the first connection asked for it): any connection may then attach, read-only.
    private let writeDenied: Bool
    let autoCheckpointFrames: Int
    let busyTimeout: Double
    /// Seconds to wait for a lock another process holds (its writer, its checkpoint).
    let processBusyTimeout: Double
    /// This process's side of the cross-process protocol: nil for files no other process can open
    /// (in-memory and explicit files), which a whole-file lock keeps to this process.
    let coordinator: ProcessCoordinator?
    private let reproducibleSalts: Bool
    /// How a database opened by path is found again and closed: nil for explicit files.
    private let registration: Registration?

    /// The registry entry of a database opened by path.
    struct Registration {
        /// The key in the registry: the file system's identity and the canonical path.
        var key: String
        /// Where the files live; the last connection removes the log through it.
        var fileSystem: any FileSystem
        var walPath: String
    }

    /// The file system of a database opened by path; nil for explicit files.
    var fileSystem: (any FileSystem)? { registration?.fileSystem }

    let monitor = Monitor()
    // Guarded by `monitor`:
    var walHeader: WALHeader?
    var index = WALIndex()
    /// Frames copied into the file; with a ``coordinator``, the shared index holds the count instead.
    var backfilled = 0
    /// Live snapshots by frame count; with a ``coordinator``, each key's reader mark is held.
    var readers: [Int: Int] = [:]
    var writerActive = false
    var checkpointRunning = false
    var generation: UInt64 = 0
    /// The shared index's sequence number when this process last brought its frame map up to it.
    var seenSequence = UInt64.max
    private var connections = 0
    /// The commits published since the database was opened in this process.
    private var commits: UInt64 = 0
    /// The objects the layers above keep per database, by type (see ``attachment(makingIfAbsent:)``).
    private var attachments: [ObjectIdentifier: AnyObject] = [:]

    // MARK: Opening

    private static let registryLock = Lock()
    nonisolated(unsafe) private static var registry: [String: SharedDatabase] = [:]

    /// The shared state for the file at `path`, opened on first use.
    static func open(path: String, options: StorageOptions, fileSystem: any FileSystem) throws -> SharedDatabase {
        let key = options.simulatedProcess + fileSystem.identity + fileSystem.canonicalPath(path)
        return try registryLock.withLock {
            if let existing = registry[key] {
                guard options.readOnly || !existing.readOnly || existing.writeDenied else {
                    throw StorageError.locked(path + " (already open read-only in this process)")
                }
                existing.monitor.withLock { existing.connections += 1 }
                return existing
            }
            var files = try openFiles(path: path, options: options, fileSystem: fileSystem)
            var options = options
            let writeDenied = files.readOnly && !options.readOnly
            options.readOnly = options.readOnly || files.readOnly
            var coordinator: ProcessCoordinator?
            var locking = true
            do {
                if let sharing = fileSystem as? any ProcessSharingFileSystem {
                    do {
                        coordinator = try coordinate(path: path, files: &files, options: options, fileSystem: sharing)
                    } catch let error as StorageError where options.readOnly && error.refusesLocks {
                        // FORMAT.md § "Several processes", "Without working locks": nobody can write here.
                        locking = false
                    }
                }
                let shared = try SharedDatabase(
                    dbFile: files.db, walFile: files.wal, options: options, writeDenied: writeDenied,
                    registration: Registration(key: key, fileSystem: fileSystem, walPath: path + "-wal"), path: path,
                    coordinator: coordinator, locking: locking)
                registry[key] = shared
                return shared
            } catch {
                coordinator?.close()
                files.abandon(path: path, fileSystem: fileSystem)
                throw error
            }
        }
    }

    /// Opens shared state over explicit files (in-memory and fault-injecting
    /// tests); not registered, so each call is its own database.
    ///
    /// Reads the files as ``recoverState(dbFile:walFile:)`` describes, and creates the database
    /// through the log (``createDatabase(durability:)``) when there is none and `options` allow it.
    /// Without a `coordinator`, a whole-file lock keeps other engines out, unless `locking` is false (a read-only
    /// open on a file system that refuses locks).
    init(
        dbFile: any StorageFile, walFile: any StorageFile, options: StorageOptions, writeDenied: Bool = false,
        registration: Registration? = nil, path: String? = nil, coordinator: ProcessCoordinator? = nil,
        locking: Bool = true
    ) throws {
        self.path = path ?? dbFile.path
        self.dbFile = dbFile
        self.walFile = walFile
        self.readOnly = options.readOnly
        self.writeDenied = writeDenied
        self.autoCheckpointFrames = options.autoCheckpointFrames
        self.busyTimeout = options.busyTimeout
        self.processBusyTimeout = options.crossProcessBusyTimeout ?? options.busyTimeout
        self.coordinator = coordinator
        self.reproducibleSalts = options.reproducibleSalts
        self.registration = registration
        guard try coordinator != nil || !locking || dbFile.tryLock(options.readOnly ? .shared : .exclusive) else {
            throw StorageError.locked(dbFile.path)
        }
        do {
            let recovered = try SharedDatabase.recoverState(dbFile: dbFile, walFile: walFile)
            if let recovered {
                pageSize = recovered.pageSize
                walHeader = recovered.walHeader
                index = recovered.index
                try joinSharedIndex()
            } else {
                guard options.create, !options.readOnly else { throw StorageError.notADatabase("the file is empty") }
                guard PageLayout.isValidPageSize(options.pageSize) else {
                    throw StorageError.invalidArgument(
                        "page size \(options.pageSize) is not a power of two in 512...65536")
                }
                pageSize = options.pageSize
                // A log without a committed database belongs to no database: a creation cut short, or
                // the leftover of an earlier file of the same name. It must not apply to this one.
                if coordinator?.isFirst ?? true { try walFile.truncate(to: 0) }
                try joinSharedIndex()
                try createDatabase(durability: options.durability)
            }
            try coordinator?.endInitialisation()
            connections = 1
        } catch {
            if coordinator == nil { try? dbFile.unlock() }
            throw error
        }
    }

    // MARK: Connections

    /// Registers another connection on this state.
    func retain() { monitor.withLock { connections += 1 } }

    /// Unregisters a connection; the last one checkpoints the log into the
    /// file (unless `checkpointing` is false: a connection whose open failed
    /// must change nothing), removes the log, and releases the file lock. For
    /// a registered file this happens under the registry lock, so that no new
    /// connection can attach to state that is closing, nor open the file
    /// before it is closed.
    ///
    /// `durability` is the level of the connection that leaves: it governs the syncs of that last checkpoint.
    func release(checkpointing: Bool = true, durability: Durability = .full) {
        if let registration {
            SharedDatabase.registryLock.withLock {
                guard dropConnection() else { return }
                SharedDatabase.registry[registration.key] = nil
                close(checkpointing: checkpointing, durability: durability)
            }
        } else if dropConnection() {
            close(checkpointing: checkpointing, durability: durability)
        }
    }

    private func dropConnection() -> Bool {
        monitor.withLock { () -> Bool in
            connections -= 1
            return connections == 0
        }
    }

    /// Closes the files. The log is removed only once a checkpoint has copied every frame, synced the
    /// database file, and emptied and synced the log: removing a name is not durable until the
    /// directory is synced, and this one need not be, because a log that a power cut brings back is
    /// empty and holds no commit.
    private func close(checkpointing: Bool, durability: Durability) {
        // With other processes still there, the log stays: they use it.
        let last = coordinator?.becomeLast() ?? true
        if checkpointing, !readOnly, last, let result = try? checkpoint(.truncate, durability: durability),
            result.truncated, let registration
        {
            walFile.close()
            try? registration.fileSystem.remove(registration.walPath)
        }
        if let coordinator {
            if last && !readOnly { try? registration?.fileSystem.remove(coordinator.shmPath) }
            coordinator.close()
        } else {
            try? dbFile.unlock()
        }
        dbFile.close()
        walFile.close()
    }

    // MARK: Attachments

    /// The object of type `T` that the layers above keep for this database, made by `make` on first request:
    /// every connection of this process to the database gets the same one, for as long as one is open.
    func attachment<T: AnyObject>(makingIfAbsent make: () -> T) -> T {
        monitor.withLock {
            let key = ObjectIdentifier(T.self)
            if let existing = attachments[key] as? T { return existing }
            let made = make()
            attachments[key] = made
            return made
        }
    }

    // MARK: Reformatting

    /// Replaces the database by a new, empty one with pages of `newPageSize` bytes (`PRAGMA page_size` on a
    /// database that holds nothing yet). The caller has checked that the database holds nothing: the old
    /// pages are discarded.
    ///
    /// The database file is emptied and synced first, then the log is emptied and the new database written as
    /// its first commit, as at creation. Every state a power cut can leave is an empty database: the old one
    /// (the old log, or the old file with a log of another page size, which recovery ignores), or none at all
    /// (created again at the next open). The file's truncation is synced before the new log holds anything
    /// that could be acknowledged, so a later commit is never paired with the old file's header.
    /// - Throws: ``StorageError/busy(_:)`` when another connection is open or a transaction is in progress
    ///   (the database must not change under them), ``StorageError/readOnly``, and I/O errors.
    func reformat(pageSize newPageSize: Int, durability: Durability) throws {
        guard !readOnly else { throw StorageError.readOnly }
        guard PageLayout.isValidPageSize(newPageSize) else {
            throw StorageError.invalidArgument("page size \(newPageSize) is not a power of two in 512...65536")
        }
        // A registered file is held under the registry lock, so that no connection attaches half-way.
        if registration != nil {
            try SharedDatabase.registryLock.withLock {
                try discardPages(newPageSize: newPageSize, durability: durability)
            }
        } else {
            try discardPages(newPageSize: newPageSize, durability: durability)
        }
    }

    private func discardPages(newPageSize: Int, durability: Durability) throws {
        try monitor.withLock {
            guard connections == 1, !writerActive, !checkpointRunning, readers.values.allSatisfy({ $0 == 0 }),
                coordinator?.becomeLast() ?? true
            else {
                throw StorageError.busy("the page size can change only while one connection is open and idle")
            }
            defer { try? coordinator?.rejoin() }
            if try dbFile.size() > 0 {
                try dbFile.truncate(to: 0)
                if durability.syncs { try dbFile.sync() }
            }
            try walFile.truncate(to: 0)
            walHeader = nil
            index = WALIndex()
            backfilled = 0
            readers = [:]
            generation &+= 1
            pageSize = newPageSize
            publishLocalState()
        }
        try createDatabase(durability: durability)
    }

    // MARK: Snapshots and the writer lock

    /// With the monitor held: waits while `isTaken` holds (another connection of this process has the writer
    /// role or runs a checkpoint), until `deadline`.
    /// - Throws: ``StorageError/busy(_:)`` with `reason` when the deadline passes first.
    func waitWhile(_ isTaken: () -> Bool, until deadline: timespec, busy reason: String) throws {
        while isTaken() {
            guard monitor.wait(until: deadline) || !isTaken() else { throw StorageError.busy(reason) }
        }
    }

    /// Begins a read snapshot on the latest committed state (in any process).
    func beginRead() throws -> WALSnapshot {
        try monitor.withLock {
            guard coordinator?.region != nil else {
                readers[index.frameCount, default: 0] += 1
                return WALSnapshot(limit: index.frameCount, generation: generation, lastChecksum: index.lastChecksum)
            }
            return try beginSharedRead()
        }
    }

    /// Ends a read snapshot.
    func endRead(_ snapshot: WALSnapshot) {
        monitor.withLock {
            dropReader(snapshot.limit)
            monitor.broadcast()
        }
    }

    /// With the monitor held: forgets one snapshot of `limit` frames, and its reader mark with the last one.
    func dropReader(_ limit: Int) {
        guard let count = readers[limit] else { return }
        if count > 1 {
            readers[limit] = count - 1
        } else {
            readers[limit] = nil
            coordinator?.releaseMark(limit)
        }
    }

    /// Takes the writer lock (waiting up to the busy time-out) and returns a
    /// snapshot of the latest state. Restarts the log first when every frame
    /// is in the file and no snapshot still reads the log (syncing the new log header unless `durability` is
    /// ``Durability/off``).
    ///
    /// `processBusyTimeout` is how long the connection waits for another process's writer (nil: the
    /// database's ``processBusyTimeout``).
    func beginWrite(durability: Durability, processBusyTimeout: Double? = nil) throws -> WALSnapshot {
        guard !readOnly else { throw StorageError.readOnly }
        let deadline = Monitor.deadline(after: busyTimeout)
        try monitor.withLock {
            try waitWhile({ writerActive }, until: deadline, busy: "another connection is writing")
            writerActive = true
        }
        do {
            // Another process's writer is waited for outside the monitor, so that this process's readers go on.
            let timeout = processBusyTimeout ?? self.processBusyTimeout
            if let coordinator, try !coordinator.waitForLock(ProcessCoordinator.writer, timeout: timeout) {
                throw StorageError.busy("another process is writing")
            }
            return try monitor.withLock {
                try refresh()
                try restartLogIfPossible(durability: durability)
                if !writerSnapshotIsUnmarked { try registerReader(index.frameCount) }
                return WALSnapshot(limit: index.frameCount, generation: generation, lastChecksum: index.lastChecksum)
            }
        } catch {
            monitor.withLock {
                releaseWriterLock()
                monitor.broadcast()
            }
            throw error
        }
    }

    /// With the monitor held: gives up the writer lock, in this process and across processes.
    private func releaseWriterLock() {
        coordinator?.unlock(ProcessCoordinator.writer)
        writerActive = false
    }

    /// With the monitor held and the writer lock taken: starts a new log
    /// generation when the log is absent, or fully copied and unread.
    private func restartLogIfPossible(durability: Durability) throws {
        if let coordinator, coordinator.region != nil {
            return try restartSharedLogIfPossible(coordinator, durability: durability)
        }
        if walHeader != nil {
            guard index.frameCount > 0, backfilled == index.frameCount, !checkpointRunning,
                readers.keys.allSatisfy({ $0 == 0 })
            else { return }
        }
        walHeader = try writeNewLogHeader(durability: durability)
        index = WALIndex()
        backfilled = 0
        generation &+= 1
    }

    /// Writes the header of a new log generation (the next checkpoint sequence, new salts), synced unless
    /// `durability` is ``Durability/off``.
    func writeNewLogHeader(durability: Durability) throws -> WALHeader {
        let sequence = (walHeader?.checkpointSequence ?? 0) &+ 1
        var salts = (UInt32(0), UInt32(0))
        if reproducibleSalts {
            var rng = SplitMix64(seed: UInt64(sequence))
            salts = (UInt32(truncatingIfNeeded: rng.next()), UInt32(truncatingIfNeeded: rng.next()))
        } else {
            var rng = SystemRandomNumberGenerator()
            salts = (UInt32.random(in: .min ... .max, using: &rng), UInt32.random(in: .min ... .max, using: &rng))
        }
        let header = WALHeader(pageSize: pageSize, checkpointSequence: sequence, salt1: salts.0, salt2: salts.1)
        var bytes = [UInt8](repeating: 0, count: WALHeader.size)
        bytes.withUnsafeMutableBytes { header.write(to: $0.baseAddress!) }
        try walFile.write(bytes, at: 0)
        // The new header must be durable before any new frame: otherwise a
        // crash could pair the old header with a prefix of the old frames
        // (those not yet overwritten), a state older than the database file.
        if durability.syncs { try walFile.sync() }
        return header
    }

    /// Publishes the writer's frames as a commit: snapshots begun from now on
    /// see them. The writer keeps its snapshot and the writer lock until
    /// ``endWrite(_:)``. Returns whether a checkpoint is due.
    func publish(
        _ snapshot: WALSnapshot, pages: [PageNumber], databaseSize: UInt32, checksum: UInt64
    ) -> Bool {
        monitor.withLock {
            index.commit(pages: pages, databaseSize: databaseSize, checksum: checksum)
            commits &+= 1
            if let region = coordinator?.region {
                publishLocalState()
                return index.frameCount - region.backfilled(generation: generation) >= autoCheckpointFrames
            }
            return index.frameCount - backfilled >= autoCheckpointFrames
        }
    }

    /// Whether the writer's snapshot goes without a reader mark and out of ``readers``: with the shared index, the
    /// writer lock protects it. Its snapshot is the latest commit (no checkpoint, in any process, may copy a frame
    /// it does not see: only committed frames are copied, and only pages with frames, which it reads from the log or
    /// from its own frames), and restarting or emptying the log takes the writer lock, held from before the
    /// snapshot begins until after it ends. This spares every write transaction two lock calls.
    private var writerSnapshotIsUnmarked: Bool { coordinator?.region != nil }

    /// Ends the writer's snapshot and releases the writer lock.
    func endWrite(_ snapshot: WALSnapshot) {
        monitor.withLock {
            if !writerSnapshotIsUnmarked { dropReader(snapshot.limit) }
            releaseWriterLock()
            monitor.broadcast()
        }
    }

    /// The newest frame below `limit` holding `page`.
    func frame(for page: PageNumber, below limit: Int) -> Int? {
        guard limit > 0 else { return nil }
        return monitor.withLock { index.frame(for: page, below: limit) }
    }

    /// The pages written by frames `start ..< end`.
    func pages(inFrames range: Range<Int>) -> [PageNumber] {
        monitor.withLock { Array(index.framePages[range]) }
    }

    /// The number of commits published since the database was opened in this process.
    var commitSequence: UInt64 { monitor.withLock { commits } }

    /// The latest committed state's frame count and generation.
    var latest: (frames: Int, generation: UInt64) {
        monitor.withLock { (index.frameCount, generation) }
    }

    /// The log's state.
    func status() -> WALStatus {
        let size = (try? walFile.size()) ?? 0
        return monitor.withLock {
            WALStatus(
                header: walHeader, frames: index.frameCount, commits: index.commits.count,
                backfilledFrames: coordinator?.region?.backfilled(generation: generation) ?? backfilled,
                readers: readers.values.reduce(0, +), fileSize: size)
        }
    }

    // MARK: Frames

    /// Reads the page image of committed or pending frame `frame`.
    func readFrame(_ frame: Int, into buffer: UnsafeMutableRawPointer) throws {
        guard let header = monitor.withLock({ walHeader }) else {
            throw StorageError.corrupt(page: 0, "the write-ahead log has no header")
        }
        let offset = header.frameOffset(frame) + Int64(WALHeader.frameHeaderSize)
        guard try walFile.readFully(into: UnsafeMutableRawBufferPointer(start: buffer, count: pageSize), at: offset)
        else {
            throw StorageError.corrupt(page: 0, "write-ahead log frame \(frame) lies beyond the end of the log")
        }
    }

    /// Reads page `number` from the database file; false beyond its end.
    func readFilePage(_ number: PageNumber, into buffer: UnsafeMutableRawPointer) throws -> Bool {
        let offset = Int64(number - 1) * Int64(pageSize)
        return try dbFile.readFully(into: UnsafeMutableRawBufferPointer(start: buffer, count: pageSize), at: offset)
    }

    // MARK: Checkpoints

    /// Copies committed frames into the database file, never one that a live
    /// snapshot might still need from the log. Unless `durability` (the level of the connection that runs it) is
    /// ``Durability/off``, the log is synced before the copy and the database file after it, so that the copy
    /// never outruns the commits it copies: this is what makes ``Durability/normal`` consistent.
    @discardableResult
    func checkpoint(
        _ mode: CheckpointMode, durability: Durability, processBusyTimeout: Double? = nil
    ) throws -> CheckpointResult {
        guard !readOnly else { throw StorageError.readOnly }
        if let coordinator, coordinator.region != nil {
            return try sharedCheckpoint(
                mode, coordinator: coordinator, durability: durability,
                timeout: processBusyTimeout ?? self.processBusyTimeout)
        }
        let deadline = Monitor.deadline(after: busyTimeout)
        // Only one checkpoint at a time; the writer does not restart the log meanwhile.
        let (target, safe, work, databaseSize, alreadyDone, header):
            (Int, Int, [(page: PageNumber, frame: Int)], UInt32?, Int, WALHeader?) = try monitor.withLock {
                try waitWhile({ checkpointRunning }, until: deadline, busy: "another checkpoint is running")
                var safe = min(index.frameCount, readers.keys.min() ?? index.frameCount)
                if mode != .passive {
                    while safe < index.frameCount {
                        if !monitor.wait(until: deadline) { break }
                        safe = min(index.frameCount, readers.keys.min() ?? index.frameCount)
                    }
                }
                checkpointRunning = true
                let work = index.latestFrames(below: safe).filter { $0.frame >= backfilled }
                return (index.frameCount, safe, work, index.databaseSize(below: safe), backfilled, walHeader)
            }
        defer {
            monitor.withLock {
                checkpointRunning = false
                monitor.broadcast()
            }
        }
        var done = alreadyDone
        if safe > alreadyDone, let header {
            try copyFrames(work, header: header, databaseSize: databaseSize, durability: durability)
            done = safe
            monitor.withLock { backfilled = max(backfilled, safe) }
        }
        if mode != .passive && done < target {
            throw StorageError.busy("a reader still uses the log (\(done) of \(target) frames copied)")
        }
        var truncated = false
        if mode == .truncate {
            truncated = try monitor.withLock { () -> Bool in
                guard !writerActive, backfilled == index.frameCount, readers.keys.allSatisfy({ $0 == 0 }) else {
                    return false
                }
                try walFile.truncate(to: 0)
                if durability.syncs { try walFile.sync() }
                walHeader = nil
                index = WALIndex()
                backfilled = 0
                generation &+= 1
                return true
            }
        }
        return CheckpointResult(logFrames: target, backfilledFrames: done, truncated: truncated)
    }

    /// Copies each page's frame in `work` into the database file and sets its size to `databaseSize` pages:
    /// the log synced before, the file after (unless `durability` is ``Durability/off``).
    func copyFrames(
        _ work: [(page: PageNumber, frame: Int)], header: WALHeader, databaseSize: UInt32?, durability: Durability
    ) throws {
        if durability.syncs { try walFile.sync() }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 16)
        defer { buffer.deallocate() }
        for (page, frame) in work {
            let offset = header.frameOffset(frame) + Int64(WALHeader.frameHeaderSize)
            guard
                try walFile.readFully(into: UnsafeMutableRawBufferPointer(start: buffer, count: pageSize), at: offset)
            else { throw StorageError.corrupt(page: page, "write-ahead log frame \(frame) is missing") }
            try dbFile.write(
                UnsafeRawBufferPointer(start: buffer, count: pageSize), at: Int64(page - 1) * Int64(pageSize))
        }
        if let size = databaseSize {
            let bytes = Int64(size) * Int64(pageSize)
            if try dbFile.size() != bytes { try dbFile.truncate(to: bytes) }
        }
        if durability.syncs { try dbFile.sync() }
    }
}
