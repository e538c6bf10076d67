// Several processes on one simulated disk: handles that hold byte-range locks of their own (open file
// descriptions), memory that every process maps by name (the `-shm`), and the death of a process (its locks
// dropped, its handles dead, nothing closed, flushed or removed).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The byte-range locks and shared memory of one ``SimulatedFileSystem``: what the kernel keeps, not the disk,
/// so a power cut keeps no lock, and of the shared memory only what ``survivingImage(_:_:_:)`` says.
final class SimulatedSharing: @unchecked Sendable {
    private struct HeldLock {
        var inode: Int
        /// The handle (open file description) holding it.
        var holder: ObjectIdentifier
        /// The process whose handle it is; nil for handles opened on the disk itself.
        var owner: ObjectIdentifier?
        var range: Range<Int64>
        var kind: FileLockKind
    }

    private let lock = Lock()
    private var held: [HeldLock] = []
    private var segments: [String: SimulatedSharedMemory] = [:]

    // MARK: Locks

    /// Grants `kind` on `range` to `holder`, all of it or nothing; what `holder` held there is replaced.
    func tryLock(
        _ kind: FileLockKind, range: Range<Int64>, inode: Int, holder: ObjectIdentifier, owner: ObjectIdentifier?
    ) -> Bool {
        lock.withLock {
            guard !range.isEmpty else { return true }
            if conflict(kind, range: range, inode: inode, holder: holder) != nil { return false }
            drop(range, inode: inode, holder: holder)
            held.append(HeldLock(inode: inode, holder: holder, owner: owner, range: range, kind: kind))
            return true
        }
    }

    func unlock(range: Range<Int64>, inode: Int, holder: ObjectIdentifier) {
        lock.withLock { drop(range, inode: inode, holder: holder) }
    }

    /// One lock of another handle that refuses `kind` on `range`.
    func conflicting(
        _ kind: FileLockKind, range: Range<Int64>, inode: Int, holder: ObjectIdentifier
    ) -> (range: Range<Int64>, kind: FileLockKind)? {
        lock.withLock {
            conflict(kind, range: range, inode: inode, holder: holder).map { ($0.range, $0.kind) }
        }
    }

    /// Drops every lock of one handle (closed or deallocated).
    func release(holder: ObjectIdentifier) {
        lock.withLock { held.removeAll { $0.holder == holder } }
    }

    /// Drops every lock of one process's handles (it died).
    func release(owner: ObjectIdentifier) {
        lock.withLock { held.removeAll { $0.owner == owner } }
    }

    private func conflict(_ kind: FileLockKind, range: Range<Int64>, inode: Int, holder: ObjectIdentifier) -> HeldLock?
    {
        held.first {
            $0.inode == inode && $0.holder != holder && $0.range.overlaps(range)
                && (kind == .exclusive || $0.kind == .exclusive)
        }
    }

    /// Removes `holder`'s locks on `range`, keeping the parts of them outside it.
    private func drop(_ range: Range<Int64>, inode: Int, holder: ObjectIdentifier) {
        var kept: [HeldLock] = []
        for entry in held {
            guard entry.inode == inode, entry.holder == holder, entry.range.overlaps(range) else {
                kept.append(entry)
                continue
            }
            if entry.range.lowerBound < range.lowerBound {
                var below = entry
                below.range = entry.range.lowerBound..<range.lowerBound
                kept.append(below)
            }
            if entry.range.upperBound > range.upperBound {
                var above = entry
                above.range = range.upperBound..<entry.range.upperBound
                kept.append(above)
            }
        }
        held = kept
    }

    // MARK: Shared memory

    /// The memory named `path`, created zero-filled (or grown) unless `readOnly`.
    func map(_ path: String, size: Int, readOnly: Bool) throws -> SimulatedSharedMemory {
        try lock.withLock {
            if let existing = segments[path], existing.size >= size { return existing }
            guard !readOnly else {
                throw StorageError.io(
                    segments[path] == nil ? "open" : "map", path: path,
                    errno: segments[path] == nil ? ENOENT : EINVAL)
            }
            let made = SimulatedSharedMemory(size: size, copying: segments[path]?.image ?? [])
            segments[path] = made
            return made
        }
    }

    /// Forgets the memory named `path` (its name was removed); mappings keep what they map.
    func unlink(_ path: String) {
        lock.withLock { segments[path] = nil }
    }

    /// The content of every named memory.
    var images: [String: [UInt8]] {
        lock.withLock { segments.mapValues { $0.image } }
    }

    /// Names `bytes` as the memory `path` (a disk rebuilt after a power cut).
    func install(_ path: String, bytes: [UInt8]) {
        lock.withLock { segments[path] = SimulatedSharedMemory(size: bytes.count, copying: bytes) }
    }

    /// What a reboot finds of a shared memory file that was never synced: nothing (`dropUnsynced`), the last
    /// content (`keepUnsynced`: a stale index that looks valid), or at random nothing, zeros, the last content,
    /// or the last content with words of garbage (pages the kernel wrote back at different times).
    static func survivingImage(
        _ image: [UInt8], _ outcome: SimulatedFileSystem.CrashOutcome, _ rng: inout SplitMix64
    ) -> [UInt8]? {
        switch outcome {
        case .dropUnsynced: return nil
        case .keepUnsynced: return image
        case .random:
            switch rng.next(below: 4) {
            case 0: return nil
            case 1: return [UInt8](repeating: 0, count: image.count)
            case 2: return image
            default:
                var garbled = image
                for word in stride(from: 0, to: garbled.count - 7, by: 8) where rng.next(below: 4) == 0 {
                    for i in word..<(word + 8) { garbled[i] = UInt8(truncatingIfNeeded: rng.next()) }
                }
                return garbled
            }
        }
    }
}

/// Memory that every simulated process mapping one name shares.
final class SimulatedSharedMemory: SharedMemoryMapping, @unchecked Sendable {
    let baseAddress: UnsafeMutableRawPointer
    let size: Int

    init(size: Int, copying bytes: [UInt8]) {
        self.size = size
        baseAddress = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 16)
        baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        bytes.withUnsafeBytes { baseAddress.copyMemory(from: $0.baseAddress!, byteCount: min(size, $0.count)) }
    }

    deinit { baseAddress.deallocate() }

    /// A copy of the content (tests run this while no process stores into it).
    var image: [UInt8] {
        [UInt8](UnsafeRawBufferPointer(start: baseAddress, count: size))
    }

    /// Replaces the content, as a process that died half-way through storing would leave it.
    func overwrite(with bytes: [UInt8]) {
        bytes.withUnsafeBytes { baseAddress.copyMemory(from: $0.baseAddress!, byteCount: min(size, $0.count)) }
    }
}

/// One process on a ``SimulatedFileSystem``: the files it opens, the locks it takes and the memory it maps are
/// its own, and ``die()`` ends it as SIGKILL would (its locks go, its handles fail, nothing is cleaned up).
///
/// Its ``identity`` differs from every other process's, so that an engine opened through it keeps shared state
/// of its own and takes part in the cross-process protocol with the engines of the other processes.
///
/// ```swift
/// let disk = SimulatedFileSystem()
/// let a = disk.process("A"), b = disk.process("B")
/// let writer = try StorageEngine(path: "/db", fileSystem: a)
/// let reader = try StorageEngine(path: "/db", fileSystem: b)
/// a.die(afterOperations: 3)   // the fourth changing call of A fails, and A is dead
/// ```
package final class SimulatedProcess: ProcessSharingFileSystem, @unchecked Sendable {
    package let name: String
    let disk: SimulatedFileSystem
    private let state = Lock()
    private var alive = true
    private var operations = 0
    private var deathAfter: Int?

    init(disk: SimulatedFileSystem, name: String) {
        self.disk = disk
        self.name = name
    }

    package var identity: String { disk.identity + "/" + name }

    /// Whether the process still runs.
    package var isAlive: Bool { state.withLock { alive } }

    /// How many changing calls (write, truncate, sync, create, remove, directory sync) the process made.
    package var operationCount: Int { state.withLock { operations } }

    /// Kills the process now: its locks are dropped and every later call through its handles fails with `EIO`.
    package func die() {
        state.withLock { alive = false }
        disk.sharing.release(owner: ObjectIdentifier(self))
    }

    /// Kills the process when it attempts its next `count`-th changing call from now (which does not happen).
    package func die(afterOperations count: Int) {
        state.withLock { deathAfter = operations + max(0, count) }
    }

    /// Counts one changing call, or throws `EIO` when the process is dead or dies at this call.
    func countOperation(_ operation: String, path: String) throws {
        let diesNow: Bool = try state.withLock {
            guard alive else { throw StorageError.io(operation, path: path, errno: EIO) }
            if let limit = deathAfter, operations >= limit {
                alive = false
                return true
            }
            operations += 1
            return false
        }
        if diesNow {
            disk.sharing.release(owner: ObjectIdentifier(self))
            throw StorageError.io(operation, path: path, errno: EIO)
        }
    }

    /// Throws `EIO` when the process is dead.
    func checkAlive(_ operation: String, path: String) throws {
        guard isAlive else { throw StorageError.io(operation, path: path, errno: EIO) }
    }

    // MARK: FileSystem

    package func open(_ path: String, mode: FileOpenMode) throws -> (file: any StorageFile, created: Bool) {
        try checkAlive("open", path: path)
        return try disk.open(path, mode: mode, owner: self)
    }

    package func exists(_ path: String) -> Bool { disk.exists(path) }

    package func remove(_ path: String) throws {
        try countOperation("remove", path: path)
        try disk.remove(path)
    }

    package func syncDirectory(containing path: String) throws {
        try countOperation("sync directory", path: path)
        try disk.syncDirectory(containing: path)
    }

    package func canonicalPath(_ path: String) -> String { disk.canonicalPath(path) }

    package func openLockHandle(_ path: String, readOnly: Bool) throws -> any ByteRangeLockingFile {
        try checkAlive("open", path: path)
        return try disk.openHandle(path, mode: readOnly ? .readOnly : .readWrite, owner: self)
    }

    package func mapSharedMemory(_ path: String, size: Int, readOnly: Bool) throws -> any SharedMemoryMapping {
        try checkAlive("map", path: path)
        return try disk.sharing.map(path, size: size, readOnly: readOnly)
    }
}

/// A handle on one file of a ``SimulatedFileSystem`` (an open file description): it keeps reaching the same
/// file after the file's name is removed, holds byte-range locks of its own, and fails once closed (`EBADF`) or
/// once its process died (`EIO`).
final class SimulatedFile: UnlinkDetectingFile, ByteRangeLockingFile, @unchecked Sendable {
    let path: String
    let isReadOnly: Bool
    private let disk: SimulatedFileSystem
    private let inode: Int
    private let owner: SimulatedProcess?
    private let state = Lock()
    private var closed = false

    init(disk: SimulatedFileSystem, inode: Int, path: String, readOnly: Bool, owner: SimulatedProcess?) {
        self.disk = disk
        self.inode = inode
        self.path = path
        self.isReadOnly = readOnly
        self.owner = owner
    }

    deinit {
        disk.sharing.release(holder: ObjectIdentifier(self))
    }

    private func checkUsable(_ operation: String) throws {
        if state.withLock({ closed }) { throw StorageError.io(operation, path: path, errno: EBADF) }
        try owner?.checkAlive(operation, path: path)
    }

    /// Checks the handle for a byte-range lock call, which a disk that refuses locks fails.
    private func checkLocking() throws {
        try checkUsable("lock")
        if disk.refusesLocks { throw StorageError.io("lock", path: path, errno: ENOLCK) }
    }

    /// Checks the handle and counts one changing call of its process.
    private func beginChange(_ operation: String) throws {
        try checkUsable(operation)
        try owner?.countOperation(operation, path: path)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try checkUsable("read")
        try MemoryFile.checkOffset(offset, path: path)
        return disk.read(inode, into: buffer, at: offset)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        guard !isReadOnly else { throw StorageError.io("write", path: path, errno: EBADF) }
        try MemoryFile.checkRange(offset, count: bytes.count, operation: "write", path: path)
        try beginChange("write")
        try disk.write(inode, bytes, at: offset, path: path)
    }

    func sync() throws {
        try beginChange("sync")
        try disk.sync(inode, path: path)
    }

    func truncate(to size: Int64) throws {
        guard !isReadOnly else { throw StorageError.io("truncate", path: path, errno: EBADF) }
        try MemoryFile.checkRange(size, count: 0, operation: "truncate", path: path)
        try beginChange("truncate")
        try disk.truncate(inode, to: Int(size), path: path)
    }

    func size() throws -> Int64 {
        try checkUsable("size")
        return disk.size(inode)
    }

    /// Always granted: whole-file locks keep one process's engines apart on explicit files, which no other
    /// simulated process opens (path-opened databases use the byte-range locks below).
    func tryLock(_ kind: FileLockKind) throws -> Bool { true }

    func unlock() throws {}

    func tryLock(_ kind: FileLockKind, range: Range<Int64>) throws -> Bool {
        try checkLocking()
        if kind == .exclusive && isReadOnly { throw StorageError.io("lock", path: path, errno: EBADF) }
        return disk.sharing.tryLock(
            kind, range: range, inode: inode, holder: ObjectIdentifier(self), owner: owner.map(ObjectIdentifier.init))
    }

    func unlock(range: Range<Int64>) throws {
        try checkLocking()
        disk.sharing.unlock(range: range, inode: inode, holder: ObjectIdentifier(self))
    }

    func conflictingLock(_ kind: FileLockKind, range: Range<Int64>) throws -> (range: Range<Int64>, kind: FileLockKind)?
    {
        try checkLocking()
        return disk.sharing.conflicting(kind, range: range, inode: inode, holder: ObjectIdentifier(self))
    }

    var isUnlinked: Bool {
        get throws {
            try checkUsable("size")
            return disk.isUnlinked(inode)
        }
    }

    /// Gives up the handle and its locks; later calls fail with `EBADF`.
    func close() {
        state.withLock { closed = true }
        disk.sharing.release(holder: ObjectIdentifier(self))
    }
}

extension SimulatedFileSystem: ProcessSharingFileSystem {
    /// A new process on this disk, named `name` (one name per process: the name makes its identity).
    package func process(_ name: String) -> SimulatedProcess {
        SimulatedProcess(disk: self, name: name)
    }

    package func openLockHandle(_ path: String, readOnly: Bool) throws -> any ByteRangeLockingFile {
        try openHandle(path, mode: readOnly ? .readOnly : .readWrite, owner: nil)
    }

    package func mapSharedMemory(_ path: String, size: Int, readOnly: Bool) throws -> any SharedMemoryMapping {
        try sharing.map(path, size: size, readOnly: readOnly)
    }

    /// The content of the shared memory named `path`, nil when there is none.
    package func sharedMemory(_ path: String) -> [UInt8]? {
        sharing.images[path]
    }

    /// Replaces the content of the shared memory named `path` (what a process killed half-way through its
    /// stores leaves); does nothing when there is none.
    package func overwriteSharedMemory(_ path: String, with bytes: [UInt8]) {
        _ = try? sharing.map(path, size: 0, readOnly: true).overwrite(with: bytes)
    }
}
