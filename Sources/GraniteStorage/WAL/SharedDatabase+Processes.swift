// The cross-process side of a database's shared state: joining the shared index, bringing this process's frame
// map up to it, reader marks, log restarts and checkpoints that respect other processes' readers, and the
// repair of an index that a killed process left half-written. FORMAT.md § "Several processes" gives the
// protocols and argues them.

extension SharedDatabase {
    // MARK: Opening

    /// Takes part in the cross-process protocol for the database at `path` whose files are `files`: takes the
    /// presence lock, replaces a log that the last process of an earlier session removed after `files` were
    /// opened, and maps the shared index.
    static func coordinate(
        path: String, files: inout OpenedFiles, options: StorageOptions, fileSystem: any ProcessSharingFileSystem
    ) throws -> ProcessCoordinator {
        let coordinator = try ProcessCoordinator(
            databasePath: path, readOnly: options.readOnly,
            timeout: options.crossProcessBusyTimeout ?? options.busyTimeout, fileSystem: fileSystem)
        do {
            try reopenRemovedLog(path: path, files: &files, options: options, fileSystem: fileSystem)
            // A read-only opener without a log file reads an empty stand-in, which the index cannot describe.
            try coordinator.attachRegion(usable: !options.readOnly || files.wal is any UnlinkDetectingFile)
            return coordinator
        } catch {
            coordinator.close()
            throw error
        }
    }

    /// The log `files` holds may have been removed (by the last process of the previous session) between the
    /// opening of the files and the presence lock, which keeps it from happening from then on; a read-only
    /// opener that found no log may find one now.
    private static func reopenRemovedLog(
        path: String, files: inout OpenedFiles, options: StorageOptions, fileSystem: any FileSystem
    ) throws {
        let walPath = path + "-wal"
        guard let wal = files.wal as? any UnlinkDetectingFile, try wal.isUnlinked else {
            if options.readOnly, !(files.wal is any UnlinkDetectingFile), fileSystem.exists(walPath) {
                files.wal = try fileSystem.open(walPath, mode: .readOnly).file
            }
            return
        }
        wal.close()
        if options.readOnly {
            files.wal =
                fileSystem.exists(walPath)
                ? try fileSystem.open(walPath, mode: .readOnly).file : MemoryFile(path: walPath)
            return
        }
        let reopened = try fileSystem.open(walPath, mode: .readWriteCreate)
        files.wal = reopened.file
        files.createdLog = files.createdLog || reopened.created
        if reopened.created && options.durability.syncs { try fileSystem.syncDirectory(containing: path) }
    }

    /// At open, after recovery read the files: the first process publishes what it recovered (a fresh shared
    /// index: nothing left by an earlier session is trusted); the others adopt what the shared index says.
    func joinSharedIndex() throws {
        guard let coordinator, let region = coordinator.region else { return }
        if coordinator.isFirst {
            var random = SystemRandomNumberGenerator()
            generation = random.next()
            publishLocalState()
            region.setBackfilled(0, generation: generation)
            return
        }
        let created = index.frameCount > 0
        try monitor.withLock { try refresh() }
        if !created && index.frameCount > 0 {
            throw StorageError.busy("another process is creating the database")
        }
    }

    /// Publishes this process's log state in the shared index (the writer lock or the presence lock held
    /// exclusive: one publisher at a time).
    func publishLocalState() {
        guard let region = coordinator?.region, !region.isReadOnly else { return }
        seenSequence = region.publish(
            SharedLogState(
                generation: generation,
                logHeader: walHeader.map { ($0.checkpointSequence, $0.salt1, $0.salt2) },
                frameCount: index.frameCount, lastChecksum: index.lastChecksum))
    }

    // MARK: Catching up

    /// With the monitor held: brings the frame map up to the shared index, when its sequence number moved
    /// (a memory load when it did not).
    func refresh() throws {
        guard let coordinator, let region = coordinator.region, region.sequence != seenSequence else { return }
        // A log restart or truncation rewrites the log's header, and syncs it, before it publishes the new state:
        // a process reading in between finds a header the index does not name. It waits a moment for the
        // publication, then goes for the writer lock, under which the question is settled: the restarter has
        // published by the time it lets the lock go, or died before publishing, and then the index is rebuilt.
        var waiter = LockWaiter(timeout: region.isReadOnly ? max(busyTimeout, 1) : 1)
        while true {
            switch region.read() {
            case .stable(let state, let sequence):
                if try adopt(state) {
                    seenSequence = sequence
                    return
                }
                if !waiter.pause() { return try repairSharedIndex(coordinator, region: region) }
            case .changing, .invalid:
                return try repairSharedIndex(coordinator, region: region)
            }
        }
    }

    /// Takes `state` as this process's view; false when the log's header is not the one `state` names.
    private func adopt(_ state: SharedLogState) throws -> Bool {
        if state.generation != generation || (walHeader == nil) != (state.logHeader == nil) {
            var header: WALHeader?
            if let expected = state.logHeader {
                guard let found = try SharedDatabase.readLogHeader(walFile),
                    found.checkpointSequence == expected.checkpointSequence, found.salt1 == expected.salt1,
                    found.salt2 == expected.salt2, Int(found.pageSize) == pageSize
                else { return false }
                header = found
            }
            walHeader = header
            index = WALIndex()
            generation = state.generation
        }
        if state.frameCount < index.frameCount { index = WALIndex() }
        if state.frameCount > index.frameCount {
            try appendCommittedFrames(upTo: state.frameCount, lastChecksum: state.lastChecksum)
        }
        return true
    }

    /// Reads the headers of the frames from the map's end to `count` (all committed: a writer publishes only
    /// frames it wrote completely) and appends them, commit by commit.
    private func appendCommittedFrames(upTo count: Int, lastChecksum: UInt64) throws {
        guard let header = walHeader, count <= Int(Int32.max) else {
            throw StorageError.corrupt(page: 0, "the shared index names frames of a log without a header")
        }
        var pending: [PageNumber] = []
        var bytes = [UInt8](repeating: 0, count: WALHeader.frameHeaderSize)
        for frame in index.frameCount..<count {
            let complete = try bytes.withUnsafeMutableBytes {
                try walFile.readFully(into: $0, at: header.frameOffset(frame))
            }
            let frameHeader = bytes.withUnsafeBytes { WALFrameHeader(reading: $0.baseAddress!) }
            guard complete, frameHeader.salt1 == header.salt1, frameHeader.salt2 == header.salt2,
                frameHeader.page >= 1
            else { throw StorageError.corrupt(page: 0, "write-ahead log frame \(frame) is not the one published") }
            pending.append(frameHeader.page)
            if frameHeader.isCommit {
                index.commit(
                    pages: pending, databaseSize: frameHeader.commitSize,
                    checksum: frame == count - 1 ? lastChecksum : frameHeader.checksum)
                pending.removeAll()
            }
        }
        guard pending.isEmpty else {
            throw StorageError.corrupt(page: 0, "the published frames of the log end inside a transaction")
        }
    }

    /// The shared index is half-updated (its publisher died, or is publishing right now) or unreadable:
    /// under the writer lock, either the publisher finished meanwhile, or this process rebuilds the index
    /// from the log, as recovery at open does. A rebuild starts a new generation, so that every process
    /// rebuilds its frame map; the log itself is not touched, so live snapshots read on unchanged.
    private func repairSharedIndex(_ coordinator: ProcessCoordinator, region: SharedIndexRegion) throws {
        guard !region.isReadOnly else {
            throw StorageError.busy("another process left the shared index half-updated")
        }
        // This process's writer owns the lock already (or is about to: the lock descriptor is shared, so a try
        // now would seem to succeed while that writer waits).
        let ownsWriterLock = writerActive
        if ownsWriterLock, try !coordinator.tryLock(ProcessCoordinator.writer) {
            throw StorageError.busy("another process is updating the shared index")
        }
        if !ownsWriterLock {
            guard try coordinator.waitForLock(ProcessCoordinator.writer, timeout: max(processBusyTimeout, 1)) else {
                throw StorageError.busy("another process is updating the shared index")
            }
        }
        defer { if !ownsWriterLock { coordinator.unlock(ProcessCoordinator.writer) } }
        if case .stable(let state, let sequence) = region.read(spins: 1), try adopt(state) {
            seenSequence = sequence
            return
        }
        var header = try SharedDatabase.readLogHeader(walFile)
        if let found = header, Int(found.pageSize) != pageSize { header = nil }
        index = try header.map { try SharedDatabase.replayLog(walFile, header: $0) } ?? WALIndex()
        walHeader = header
        var random = SystemRandomNumberGenerator()
        generation = random.next()
        publishLocalState()
    }

    // MARK: Snapshots

    /// With the monitor held: begins a snapshot of the latest commit of any process, holding its reader mark.
    ///
    /// SQLite's read-mark re-check: the frame count is read, its mark taken, and the shared index read again.
    /// A checkpoint that looked for marks before this one existed had read the frame count before; if the
    /// count is still the same after the mark is taken (nothing was published meanwhile), that checkpoint can
    /// copy no frame beyond it, and every later checkpoint sees the mark. If something was published, the
    /// mark may be too late: it is dropped and the snapshot begins again on the newer state.
    func beginSharedRead() throws -> WALSnapshot {
        guard let region = coordinator?.region else { throw StorageError.invalidArgument("no shared index") }
        // A mark is refused only while another process restarts the log, which takes moments.
        var waiter = LockWaiter(timeout: max(busyTimeout, 10))
        while true {
            try refresh()
            let limit = index.frameCount
            let sequence = seenSequence
            if try registerReader(limit) {
                if region.sequence == sequence {
                    return WALSnapshot(limit: limit, generation: generation, lastChecksum: index.lastChecksum)
                }
                dropReader(limit)
            } else if !waiter.pause() {
                throw StorageError.busy("another process is restarting the log")
            }
        }
    }

    /// With the monitor held: counts one more snapshot of `limit` frames, taking its reader mark for the first;
    /// false when the mark is refused (a log restart in another process holds the marks).
    @discardableResult
    func registerReader(_ limit: Int) throws -> Bool {
        if let count = readers[limit] {
            readers[limit] = count + 1
            return true
        }
        if let coordinator, try !coordinator.takeMark(limit) { return false }
        readers[limit] = 1
        return true
    }

    // MARK: Restarting the log

    /// With the monitor and the writer lock held: starts a new log generation when there is no log, or when
    /// every frame is in the file and no snapshot in any process reads the log (the checkpoint lock and every
    /// reader mark from 1 up are taken exclusive while the new header is written and published).
    func restartSharedLogIfPossible(_ coordinator: ProcessCoordinator, durability: Durability) throws {
        guard let region = coordinator.region else { return }
        if walHeader != nil {
            // Most writes find frames not copied yet. The count, read first without the checkpoint lock, spares them
            // two lock calls: it only says that no restart is possible now (a checkpoint that completes meanwhile
            // lets the next write restart), and it is read again under the lock.
            guard index.frameCount > 0, !checkpointRunning,
                region.backfilled(generation: generation) == index.frameCount,
                try coordinator.tryLock(ProcessCoordinator.checkpointer)
            else { return }
            defer { coordinator.unlock(ProcessCoordinator.checkpointer) }
            guard region.backfilled(generation: generation) == index.frameCount,
                try coordinator.tryLock(ProcessCoordinator.logReaders)
            else { return }
            defer { coordinator.unlock(ProcessCoordinator.logReaders) }
            try startNewLog(durability: durability)
        } else {
            try startNewLog(durability: durability)
        }
    }

    private func startNewLog(durability: Durability) throws {
        walHeader = try writeNewLogHeader(durability: durability)
        index = WALIndex()
        generation &+= 1
        publishLocalState()
    }

    // MARK: Checkpoints

    /// ``checkpoint(_:durability:)`` across processes: under the checkpoint lock, copies the frames that no
    /// snapshot of any process needs from the log (below the lowest reader mark), and records the count.
    func sharedCheckpoint(
        _ mode: CheckpointMode, coordinator: ProcessCoordinator, durability: Durability, timeout: Double
    ) throws -> CheckpointResult {
        guard let region = coordinator.region else { throw StorageError.invalidArgument("no shared index") }
        let deadline = Monitor.deadline(after: busyTimeout)
        try monitor.withLock {
            try waitWhile({ checkpointRunning }, until: deadline, busy: "another checkpoint is running")
            checkpointRunning = true
        }
        defer {
            monitor.withLock {
                checkpointRunning = false
                monitor.broadcast()
            }
        }
        guard try coordinator.waitForLock(ProcessCoordinator.checkpointer, timeout: timeout) else {
            throw StorageError.busy("another process is checkpointing")
        }
        defer { coordinator.unlock(ProcessCoordinator.checkpointer) }
        let plan = try planCheckpoint(mode, coordinator: coordinator, region: region)
        if plan.safe > plan.done, let header = plan.header {
            try copyFrames(plan.work, header: header, databaseSize: plan.databaseSize, durability: durability)
            region.setBackfilled(plan.safe, generation: plan.generation)
        }
        let done = max(plan.safe, plan.done)
        if mode != .passive && done < plan.target {
            throw StorageError.busy("a reader still uses the log (\(done) of \(plan.target) frames copied)")
        }
        let truncated =
            try mode == .truncate
            && monitor.withLock { try truncateSharedLog(coordinator, region: region, durability: durability) }
        return CheckpointResult(logFrames: plan.target, backfilledFrames: done, truncated: truncated)
    }

    private struct CheckpointPlan {
        var target: Int
        var safe: Int
        var done: Int
        var generation: UInt64
        var header: WALHeader?
        var work: [(page: PageNumber, frame: Int)]
        var databaseSize: UInt32?
    }

    /// What to copy: every frame below the lowest reader mark (in any process) not copied yet. A `full` or
    /// `truncate` checkpoint waits (up to the busy time-out) for the marks below the last commit to go.
    private func planCheckpoint(
        _ mode: CheckpointMode, coordinator: ProcessCoordinator, region: SharedIndexRegion
    ) throws -> CheckpointPlan {
        var waiter = LockWaiter(timeout: busyTimeout)
        while true {
            let plan = try monitor.withLock { () -> CheckpointPlan in
                try refresh()
                let target = index.frameCount
                var safe = min(target, readers.keys.min() ?? target)
                if let lowest = try coordinator.lowestMark(below: safe) { safe = lowest }
                let done = region.backfilled(generation: generation)
                let work = safe > done ? index.latestFrames(below: safe).filter { $0.frame >= done } : []
                return CheckpointPlan(
                    target: target, safe: safe, done: done, generation: generation, header: walHeader, work: work,
                    databaseSize: index.databaseSize(below: safe))
            }
            if mode == .passive || plan.safe >= plan.target || !waiter.pause() { return plan }
        }
    }

    /// With the monitor and the checkpoint lock held: empties the log when every frame is in the file, no
    /// writer (in any process) is active and no snapshot reads the log.
    ///
    /// The empty log is published before the file is truncated: a process that dies in between leaves an index
    /// that names no log over a file that still holds frames, all of them copied, which nobody reads and the next
    /// writer's new header disowns. In the other order, a death in between would leave an index naming frames
    /// that are gone, which no other process could read.
    private func truncateSharedLog(
        _ coordinator: ProcessCoordinator, region: SharedIndexRegion, durability: Durability
    ) throws -> Bool {
        guard !writerActive, try coordinator.tryLock(ProcessCoordinator.writer) else { return false }
        defer { coordinator.unlock(ProcessCoordinator.writer) }
        try refresh()
        guard region.backfilled(generation: generation) == index.frameCount,
            try coordinator.tryLock(ProcessCoordinator.logReaders)
        else { return false }
        defer { coordinator.unlock(ProcessCoordinator.logReaders) }
        walHeader = nil
        index = WALIndex()
        generation &+= 1
        publishLocalState()
        try walFile.truncate(to: 0)
        if durability.syncs { try walFile.sync() }
        return true
    }
}
