// How the processes that open one database file coordinate: byte-range locks far beyond the database's pages
// and the shared index `-shm`. FORMAT.md § "Several processes" gives the byte map and the protocols.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One process's side of the cross-process protocol for one database file.
///
/// It holds two descriptors of the database file of its own. Locks of one open file description merge and
/// replace each other, so the locks that must coexist are split: `markFile` holds the presence lock and the
/// reader marks (shared locks that live as long as what they protect); `lockFile` takes the exclusive locks
/// (writer, checkpoint, log) and asks who holds what. Because the two descriptors are distinct, the marks of
/// this process's own readers conflict with `lockFile`'s requests exactly as another process's marks do.
final class ProcessCoordinator: @unchecked Sendable {
    /// The first locked byte: far beyond any page (2^62 bytes), so that no read or write ever touches it.
    static let lockBase: Int64 = 1 << 62
    /// Shared by every process that has the database open; exclusive only for the last to close (which
    /// empties and removes the log).
    static let presence = lockBase..<(lockBase + 1)
    /// Exclusive while a process writes, publishes or rebuilds the shared index.
    static let writer = (lockBase + 1)..<(lockBase + 2)
    /// Exclusive while a process checkpoints (copies frames or records how many it copied).
    static let checkpointer = (lockBase + 2)..<(lockBase + 3)
    /// Shared by every process that uses the shared index; exclusive for the one that finds no other user:
    /// it rebuilds the index from the log (what a previous session left is not trusted).
    static let indexUsers = (lockBase + 3)..<(lockBase + 4)
    /// Reader marks: a snapshot of the first `L` committed frames holds byte `markBase + L` shared.
    static let markBase = lockBase + 256
    /// More than any frame count (frame numbers are 32-bit).
    static let markCount: Int64 = 1 << 32

    /// The mark of a snapshot of the first `frames` committed frames.
    static func mark(_ frames: Int) -> Range<Int64> { (markBase + Int64(frames))..<(markBase + Int64(frames) + 1) }
    /// Every mark of a snapshot that reads the log (one frame or more): a process that holds this exclusive
    /// knows that no snapshot anywhere reads the log, so the log may start over.
    static let logReaders = (markBase + 1)..<(markBase + markCount)
    /// Every mark: a process that reads without the shared index pins this range, so that no checkpoint copies
    /// anything while it is open.
    static let allMarks = markBase..<(markBase + markCount)

    let markFile: any ByteRangeLockingFile
    let lockFile: any ByteRangeLockingFile
    /// The mapped shared index, nil when this process reads without it (``pinned``).
    private(set) var region: SharedIndexRegion?
    /// Whether this process found no other user of the shared index: it rebuilds the index from the log.
    private(set) var isFirst = false
    /// Whether this read-only process reads a private index (no usable shared index) and pins every mark.
    var pinned: Bool { region == nil }
    let shmPath: String
    /// Where the descriptors and the shared index come from.
    private let fileSystem: any ProcessSharingFileSystem

    /// Opens the descriptors and takes the presence lock, waiting up to `timeout` seconds while another
    /// process closes the database. ``attachRegion(usable:)`` comes next.
    init(databasePath: String, readOnly: Bool, timeout: Double, fileSystem: any ProcessSharingFileSystem) throws {
        self.fileSystem = fileSystem
        markFile = try fileSystem.openLockHandle(databasePath, readOnly: readOnly)
        do {
            lockFile = try fileSystem.openLockHandle(databasePath, readOnly: readOnly)
        } catch {
            markFile.close()
            throw error
        }
        shmPath = databasePath + "-shm"
        self.timeout = max(timeout, 10)
        do {
            var waiter = LockWaiter(timeout: self.timeout)
            // Refused only while the last process of a session empties and removes the log.
            while try !markFile.tryLock(.shared, range: ProcessCoordinator.presence) {
                guard waiter.pause() else { throw StorageError.busy("another process is closing the database") }
            }
        } catch {
            markFile.close()
            lockFile.close()
            throw error
        }
    }

    /// How long opening waits for another process that initialises the shared index or closes the database.
    private let timeout: Double

    /// Maps the shared index. A writer that finds no other user of the index becomes its initialiser
    /// (``isFirst``) until ``endInitialisation()``. A read-only opener never initialises it: when no other
    /// process uses it (what it holds may be stale) or `usable` is false (no log file to read), the opener
    /// reads without it and pins every reader mark, so that no process checkpoints or restarts the log
    /// until it closes.
    func attachRegion(usable: Bool) throws {
        var waiter = LockWaiter(timeout: timeout)
        while true {
            if !lockFile.isReadOnly {
                if try markFile.tryLock(.exclusive, range: ProcessCoordinator.indexUsers) {
                    isFirst = true
                    region = try SharedIndexRegion(path: shmPath, readOnly: false, fileSystem: fileSystem)
                    return
                }
                if try markFile.tryLock(.shared, range: ProcessCoordinator.indexUsers) {
                    region = try SharedIndexRegion(path: shmPath, readOnly: false, fileSystem: fileSystem)
                    return
                }
            } else if usable, try lockFile.conflictingLock(.exclusive, range: ProcessCoordinator.indexUsers) != nil {
                if try markFile.tryLock(.shared, range: ProcessCoordinator.indexUsers) {
                    if let mapped = try? SharedIndexRegion(path: shmPath, readOnly: true, fileSystem: fileSystem),
                        case .stable = mapped.read()
                    {
                        region = mapped
                        return
                    }
                    try markFile.unlock(range: ProcessCoordinator.indexUsers)
                    return try pinMarks()
                }
            } else {
                return try pinMarks()
            }
            // Another process is initialising the index.
            guard waiter.pause() else { throw StorageError.busy("another process is opening the database") }
        }
    }

    private func pinMarks() throws {
        guard try markFile.tryLock(.shared, range: ProcessCoordinator.allMarks) else {
            throw StorageError.busy("another process is restarting the log")
        }
    }

    /// After initialising the shared index: lets other processes join.
    func endInitialisation() throws {
        guard isFirst else { return }
        _ = try markFile.tryLock(.shared, range: ProcessCoordinator.indexUsers)
        isFirst = false
    }

    /// Takes the presence lock back to shared after ``becomeLast()`` (the database stays open).
    func rejoin() throws {
        _ = try markFile.tryLock(.shared, range: ProcessCoordinator.presence)
    }

    /// Whether this process is the last to have the database open: its presence lock then becomes exclusive,
    /// so that nobody joins while it empties and removes the log.
    func becomeLast() -> Bool {
        guard !lockFile.isReadOnly else { return false }
        return (try? markFile.tryLock(.exclusive, range: ProcessCoordinator.presence)) ?? false
    }

    /// Gives up every lock and the mapping.
    func close() {
        markFile.close()
        lockFile.close()
    }

    // MARK: Reader marks

    /// Holds the mark of a snapshot of `frames` frames; false when a restart of the log holds it.
    func takeMark(_ frames: Int) throws -> Bool {
        if pinned { return true }
        return try markFile.tryLock(.shared, range: ProcessCoordinator.mark(frames))
    }

    func releaseMark(_ frames: Int) {
        if pinned { return }
        try? markFile.unlock(range: ProcessCoordinator.mark(frames))
    }

    /// The smallest frame count that a snapshot in any process (this one included) holds a mark for, among
    /// those below `limit`; nil when none does. Each test names one conflicting lock, not necessarily the
    /// lowest, so it repeats below what it found.
    func lowestMark(below limit: Int) throws -> Int? {
        var lowest: Int?
        var end = ProcessCoordinator.markBase + Int64(limit)
        while end > ProcessCoordinator.markBase,
            let found = try lockFile.conflictingLock(.exclusive, range: ProcessCoordinator.markBase..<end)
        {
            let start = max(found.range.lowerBound, ProcessCoordinator.markBase)
            lowest = Int(start - ProcessCoordinator.markBase)
            end = start
        }
        return lowest
    }

    // MARK: Exclusive locks

    /// Takes `range` exclusive through the lock descriptor, waiting up to `timeout` seconds (none: one try).
    func waitForLock(_ range: Range<Int64>, timeout: Double) throws -> Bool {
        var waiter = LockWaiter(timeout: timeout)
        while true {
            if try lockFile.tryLock(.exclusive, range: range) { return true }
            guard waiter.pause() else { return false }
        }
    }

    func tryLock(_ range: Range<Int64>) throws -> Bool {
        try lockFile.tryLock(.exclusive, range: range)
    }

    func unlock(_ range: Range<Int64>) {
        try? lockFile.unlock(range: range)
    }

    /// Whether some process holds the writer lock (a test: nothing is taken).
    func writerLockIsHeld() -> Bool {
        ((try? lockFile.conflictingLock(.exclusive, range: ProcessCoordinator.writer)) ?? nil) != nil
    }
}

/// Polls for a lock another process holds: short sleeps that grow to a few milliseconds, until a deadline.
struct LockWaiter {
    private var remaining: Double
    private var interval = 0.0001

    init(timeout: Double) { remaining = max(0, timeout) }

    /// Sleeps a little; false once the time-out is spent (then without sleeping).
    mutating func pause() -> Bool {
        guard remaining > 0 else { return false }
        let nap = min(interval, remaining)
        var request = timespec(tv_sec: Int(nap), tv_nsec: Int((nap - Double(Int(nap))) * 1e9))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
        remaining -= nap
        interval = min(interval * 2, 0.005)
        return true
    }
}
