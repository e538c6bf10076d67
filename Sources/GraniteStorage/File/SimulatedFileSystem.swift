// A FileSystem for power-loss tests: files and names in memory, each change
// durable only once the call that makes it durable on a real disk was made.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An in-memory ``FileSystem`` that models what a power cut leaves on a disk.
///
/// Every file (an *inode*) keeps a durable image and the writes and truncations
/// made since its last `sync()`, like ``FaultInjectingFile``. Names are kept the
/// same way: creating and removing a file changes the live directory at once,
/// but what survives a power cut depends on the ``CrashModel``:
///
/// - ``CrashModel/posix``: a name change is durable only after
///   ``syncDirectory(containing:)``; a file's `sync()` makes its content
///   durable, never its name. Each pending name change independently survives
///   or not.
/// - ``CrashModel/ordered``: like ext4 with `data=ordered`: name changes reach
///   the disk in the order they were made, and any `sync()` (of a file or the
///   directory) commits every earlier one. A prefix of the pending changes survives.
///
/// Processes: ``process(_:)`` makes a view of the disk for one simulated process. Its handles hold byte-range
/// locks of their own (open file descriptions), every process maps the same shared memory by name (the
/// `-shm`), and ``SimulatedProcess/die()`` ends a process as SIGKILL would. Locks do not survive a power cut;
/// shared memory is never durable: a reboot finds it gone, zeroed, stale or garbled.
///
/// ``cutPower(afterOperations:)`` arms a power cut: when that many changing
/// calls (write, truncate, sync, create, remove, directory sync) have been
/// made, the state is frozen and every later changing call throws `EIO`.
/// ``crash(_:_:)`` then builds the disk a reboot would find, as a new file system.
///
/// ```swift
/// let disk = SimulatedFileSystem()
/// let (file, _) = try disk.open("/db", mode: .readWriteCreate)
/// try file.write([1, 2, 3], at: 0)
/// try file.sync()
/// disk.crash(.posix, .dropUnsynced).exists("/db")   // false: the directory was never synced
/// disk.crash(.ordered, .dropUnsynced).exists("/db") // true: the sync committed the name
/// ```
package final class SimulatedFileSystem: FileSystem, @unchecked Sendable {
    /// Which rules decide what survives of unsynced name changes.
    package enum CrashModel: Sendable, CaseIterable {
        /// POSIX to the letter: names are durable only after a directory sync.
        case posix
        /// Ordered metadata: names persist in order, and every sync commits them.
        case ordered
    }

    /// What survives of the changes that were not made durable.
    package enum CrashOutcome: Sendable, Equatable {
        /// Nothing unsynced survives.
        case dropUnsynced
        /// Everything survives (the live state).
        case keepUnsynced
        /// Each pending write is applied, dropped, or torn at a sector boundary (the sectors after the
        /// tear keep their old bytes or hold garbage); each truncation applied or not; name changes as
        /// the model allows. Determined by `seed`.
        case random(seed: UInt64, sectorSize: Int = 512)
    }

    /// One unsynced change to a file's content.
    enum ContentChange {
        case write(offset: Int, bytes: [UInt8])
        case truncate(size: Int)
    }

    /// One file's content: what a power cut keeps for sure, and what it may keep.
    struct Inode {
        var durable: [UInt8] = []
        var current: [UInt8] = []
        var pending: [ContentChange] = []
    }

    /// One unsynced change of the directory.
    enum NameChange {
        case create(name: String, inode: Int)
        case remove(name: String)
    }

    /// The directory as one model sees it: durable names and the changes not yet durable.
    struct Directory {
        var durable: [String: Int] = [:]
        var pending: [NameChange] = []
    }

    /// Everything a power cut looks at.
    struct State {
        var inodes: [Int: Inode] = [:]
        var names: [String: Int] = [:]
        var directories: [CrashModel: Directory] = [.posix: Directory(), .ordered: Directory()]
        var nextInode = 1
    }

    private static let counterLock = Lock()
    nonisolated(unsafe) private static var instances = 0

    package let identity: String
    private let lock = Lock()
    private var state = State()
    private var operations = 0
    private var powerCutAfter: Int?
    private var frozen: State?
    /// The shared memory when the power was cut: what the processes stored after it is lost with them.
    private var frozenMemory: [String: [UInt8]]?
    private var permissions = Permissions()
    /// Byte-range locks and shared memory: what the kernel keeps for the processes, not the disk.
    let sharing = SimulatedSharing()

    /// What the disk refuses, as a file's mode, a directory's mode or a read-only mount would.
    private struct Permissions {
        /// Files that cannot be opened for writing (`EACCES`).
        var writeProtected: Set<String> = []
        /// Whether files can be created and removed (`EACCES` when not).
        var directoryWritable = true
        /// Whether the whole disk refuses writes (`EROFS`).
        var readOnlyMedium = false
        /// Whether byte-range locks fail (`ENOLCK`).
        var locksRefused = false

        /// The error code of opening `path` for writing, creating it when `creating`; nil when allowed.
        func denial(opening path: String, creating: Bool) -> Int32? {
            if readOnlyMedium { return EROFS }
            if creating ? !directoryWritable : writeProtected.contains(path) { return EACCES }
            return nil
        }
    }

    /// An empty disk.
    package init() {
        identity = SimulatedFileSystem.newIdentity()
    }

    /// A disk holding `files` (path → content), all durable.
    package convenience init(files: [String: [UInt8]]) {
        self.init()
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let inode = state.nextInode
            state.nextInode += 1
            state.inodes[inode] = Inode(durable: bytes, current: bytes)
            state.names[name] = inode
            for model in CrashModel.allCases { state.directories[model]!.durable[name] = inode }
        }
    }

    private static func newIdentity() -> String {
        counterLock.withLock {
            instances += 1
            return "simulated-\(instances)"
        }
    }

    // MARK: - Power cuts

    /// Arms a power cut after `count` more changing calls; `nil` disarms it.
    package func cutPower(afterOperations count: Int?) {
        lock.withLock { powerCutAfter = count.map { operations + max(0, $0) } }
    }

    /// How many changing calls have been made.
    package var operationCount: Int {
        lock.withLock { operations }
    }

    /// Whether an armed power cut has happened.
    package var isPowerCut: Bool {
        lock.withLock { frozen != nil }
    }

    /// The disk a reboot would find after a power cut now (or at the armed cut, once it happened).
    package func crash(_ model: CrashModel, _ outcome: CrashOutcome) -> SimulatedFileSystem {
        let (snapshot, memory) = lock.withLock { (frozen ?? state, frozenMemory ?? sharing.images) }
        var rng = SplitMix64(seed: { if case .random(let seed, _) = outcome { return seed } else { return 0 } }())
        let names = SimulatedFileSystem.survivingNames(snapshot.directories[model]!, model, outcome, &rng)
        let disk = SimulatedFileSystem()
        var imageOf: [Int: [UInt8]] = [:]
        for (name, inode) in names.sorted(by: { $0.key < $1.key }) {
            if imageOf[inode] == nil, let content = snapshot.inodes[inode] {
                imageOf[inode] = SimulatedFileSystem.survivingContent(content, outcome, &rng)
            }
            disk.addDurableFile(name, bytes: imageOf[inode] ?? [])
        }
        for (name, image) in memory.sorted(by: { $0.key < $1.key }) {
            if let survivor = SimulatedSharing.survivingImage(image, outcome, &rng) {
                disk.sharing.install(name, bytes: survivor)
            }
        }
        return disk
    }

    /// The content of every file, by name (the live state).
    package var files: [String: [UInt8]] {
        lock.withLock { state.names.mapValues { state.inodes[$0]?.current ?? [] } }
    }

    private func addDurableFile(_ name: String, bytes: [UInt8]) {
        let inode = state.nextInode
        state.nextInode += 1
        state.inodes[inode] = Inode(durable: bytes, current: bytes)
        state.names[name] = inode
        for model in CrashModel.allCases { state.directories[model]!.durable[name] = inode }
    }

    /// The names a reboot finds under `model`.
    private static func survivingNames(
        _ directory: Directory, _ model: CrashModel, _ outcome: CrashOutcome, _ rng: inout SplitMix64
    ) -> [String: Int] {
        let kept: Int
        switch outcome {
        case .dropUnsynced: kept = 0
        case .keepUnsynced: kept = directory.pending.count
        case .random: kept = Int(rng.next(below: UInt64(directory.pending.count + 1)))
        }
        var names = directory.durable
        for (i, change) in directory.pending.enumerated() {
            let survives: Bool
            switch (model, outcome) {
            case (.posix, .random): survives = rng.next(below: 2) == 0
            default: survives = i < kept
            }
            guard survives else { continue }
            switch change {
            case .create(let name, let inode): names[name] = inode
            case .remove(let name): names[name] = nil
            }
        }
        return names
    }

    /// The bytes a reboot finds in a file.
    private static func survivingContent(_ inode: Inode, _ outcome: CrashOutcome, _ rng: inout SplitMix64) -> [UInt8] {
        switch outcome {
        case .dropUnsynced: return inode.durable
        case .keepUnsynced: return inode.current
        case .random(_, let sectorSize):
            var image = inode.durable
            for change in inode.pending {
                apply(change, to: &image, sectorSize: max(1, sectorSize), &rng)
            }
            return image
        }
    }

    /// Applies one unsynced change fully, not at all, or (a write over a sector boundary) torn.
    private static func apply(
        _ change: ContentChange, to image: inout [UInt8], sectorSize: Int, _ rng: inout SplitMix64
    ) {
        switch change {
        case .truncate(let size):
            if rng.next(below: 2) == 0 { resize(&image, to: size) }
        case .write(let offset, let bytes):
            let end = offset + bytes.count
            let firstBoundary = (offset / sectorSize + 1) * sectorSize
            let boundaries = end > firstBoundary ? (end - 1 - firstBoundary) / sectorSize + 1 : 0
            switch rng.next(below: boundaries > 0 ? 4 : 2) {
            case 0:
                overwrite(&image, at: offset, with: bytes[...])
            case 1:
                break
            case let tear:
                let cut = firstBoundary + Int(rng.next(below: UInt64(boundaries))) * sectorSize - offset
                overwrite(&image, at: offset, with: bytes[0..<cut])
                if tear == 3 {
                    // The sectors after the tear were being written when the power failed: garbage.
                    let garbage = (cut..<bytes.count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    overwrite(&image, at: offset + cut, with: garbage[...])
                }
            }
        }
    }

    private static func overwrite(_ image: inout [UInt8], at offset: Int, with bytes: ArraySlice<UInt8>) {
        if image.count < offset + bytes.count { resize(&image, to: offset + bytes.count) }
        image.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    }

    private static func resize(_ image: inout [UInt8], to size: Int) {
        if size < image.count {
            image.removeLast(image.count - size)
        } else {
            image.append(contentsOf: repeatElement(0, count: size - image.count))
        }
    }

    // MARK: - Permissions

    /// Makes `path` a file that can be read but not opened for writing (`EACCES`), as a file of mode 0444 is to
    /// a user without privileges.
    package func denyWriting(_ path: String) {
        lock.withLock { _ = permissions.writeProtected.insert(path) }
    }

    /// Makes the directory refuse new files and removals (`EACCES`), as a directory without write permission.
    package func denyDirectoryChanges() {
        lock.withLock { permissions.directoryWritable = false }
    }

    /// Makes the whole disk refuse writes (`EROFS`), as a read-only mount or file-system snapshot.
    package func mountReadOnly() {
        lock.withLock { permissions.readOnlyMedium = true }
    }

    /// Makes every byte-range lock request fail with `ENOLCK`, as a network file system without a lock service
    /// answers.
    package func refuseLocks() {
        lock.withLock { permissions.locksRefused = true }
    }

    /// Whether byte-range locks fail (``refuseLocks()``).
    var refusesLocks: Bool {
        lock.withLock { permissions.locksRefused }
    }

    // MARK: - FileSystem

    package func open(_ path: String, mode: FileOpenMode) throws -> (file: any StorageFile, created: Bool) {
        try open(path, mode: mode, owner: nil)
    }

    /// Opens `path` for `owner` (nil: no process of its own); creating the file counts as a changing call of both
    /// the disk and `owner`.
    func open(
        _ path: String, mode: FileOpenMode, owner: SimulatedProcess?
    ) throws -> (file: any StorageFile, created: Bool) {
        try lock.withLock {
            if mode != .readOnly,
                let code = permissions.denial(
                    opening: path, creating: state.names[path] == nil && mode == .readWriteCreate)
            {
                throw StorageError.io("open", path: path, errno: code)
            }
            if let inode = state.names[path] {
                return (
                    SimulatedFile(disk: self, inode: inode, path: path, readOnly: mode == .readOnly, owner: owner),
                    false
                )
            }
            guard mode == .readWriteCreate else { throw StorageError.io("open", path: path, errno: ENOENT) }
            try owner?.countOperation("open", path: path)
            try countOperation("open", path)
            let inode = state.nextInode
            state.nextInode += 1
            state.inodes[inode] = Inode()
            state.names[path] = inode
            for model in CrashModel.allCases {
                state.directories[model]!.pending.append(.create(name: path, inode: inode))
            }
            return (SimulatedFile(disk: self, inode: inode, path: path, readOnly: false, owner: owner), true)
        }
    }

    /// A new handle on the existing file at `path`, for `owner`.
    func openHandle(_ path: String, mode: FileOpenMode, owner: SimulatedProcess?) throws -> SimulatedFile {
        try lock.withLock {
            if mode != .readOnly, let code = permissions.denial(opening: path, creating: false) {
                throw StorageError.io("open", path: path, errno: code)
            }
            guard let inode = state.names[path] else { throw StorageError.io("open", path: path, errno: ENOENT) }
            return SimulatedFile(disk: self, inode: inode, path: path, readOnly: mode == .readOnly, owner: owner)
        }
    }

    package func exists(_ path: String) -> Bool {
        lock.withLock { state.names[path] != nil }
    }

    package func remove(_ path: String) throws {
        // Shared memory has a name but no durable content: removing it forgets it at once.
        sharing.unlink(path)
        try lock.withLock {
            guard state.names[path] != nil else { return }
            if permissions.readOnlyMedium { throw StorageError.io("remove", path: path, errno: EROFS) }
            if !permissions.directoryWritable { throw StorageError.io("remove", path: path, errno: EACCES) }
            try countOperation("remove", path)
            state.names[path] = nil
            for model in CrashModel.allCases { state.directories[model]!.pending.append(.remove(name: path)) }
        }
    }

    package func syncDirectory(containing path: String) throws {
        try lock.withLock {
            try countOperation("sync directory", path)
            for model in CrashModel.allCases { commitNames(model) }
        }
    }

    package func canonicalPath(_ path: String) -> String { path }

    /// Makes every pending name change of `model` durable. Must be called with `lock` held.
    private func commitNames(_ model: CrashModel) {
        var directory = state.directories[model]!
        for change in directory.pending {
            switch change {
            case .create(let name, let inode): directory.durable[name] = inode
            case .remove(let name): directory.durable[name] = nil
            }
        }
        directory.pending.removeAll()
        state.directories[model] = directory
    }

    /// Counts a changing call, cutting the power when the armed count is reached. Must be called
    /// with `lock` held.
    private func countOperation(_ operation: String, _ path: String) throws {
        if frozen != nil { throw StorageError.io(operation, path: path, errno: EIO) }
        if let limit = powerCutAfter, operations >= limit {
            frozen = state
            frozenMemory = sharing.images
            throw StorageError.io(operation, path: path, errno: EIO)
        }
        operations += 1
    }

    // MARK: - File operations, called by SimulatedFile

    /// Whether no name reaches `inode` any more.
    func isUnlinked(_ inode: Int) -> Bool {
        lock.withLock { !state.names.values.contains(inode) }
    }

    func read(_ inode: Int, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        lock.withLock { MemoryFile.copy(from: state.inodes[inode]?.current ?? [], at: offset, into: buffer) }
    }

    func write(_ inode: Int, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws {
        try lock.withLock {
            try countOperation("write", path)
            guard bytes.count > 0 else { return }
            MemoryFile.apply(bytes, at: Int(offset), to: &state.inodes[inode, default: Inode()].current)
            state.inodes[inode, default: Inode()].pending.append(.write(offset: Int(offset), bytes: [UInt8](bytes)))
        }
    }

    func truncate(_ inode: Int, to size: Int, path: String) throws {
        try lock.withLock {
            try countOperation("truncate", path)
            MemoryFile.resize(&state.inodes[inode, default: Inode()].current, to: size)
            state.inodes[inode, default: Inode()].pending.append(.truncate(size: size))
        }
    }

    func sync(_ inode: Int, path: String) throws {
        try lock.withLock {
            try countOperation("sync", path)
            var content = state.inodes[inode, default: Inode()]
            content.durable = content.current
            content.pending.removeAll()
            state.inodes[inode] = content
            // A journalling file system commits every earlier name change with the file's data.
            commitNames(.ordered)
        }
    }

    func size(_ inode: Int) -> Int64 {
        lock.withLock { Int64(state.inodes[inode]?.current.count ?? 0) }
    }
}
