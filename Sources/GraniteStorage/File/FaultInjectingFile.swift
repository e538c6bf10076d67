// A StorageFile for failure tests: injected I/O errors and simulated power loss.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An in-memory ``StorageFile`` that injects I/O errors and simulates power loss.
///
/// It models a disk as a *durable image* plus a list of *pending* operations: every ``write(_:at:)``
/// and ``truncate(to:)`` is appended to the list, reads see the durable image with the pending
/// operations applied in order, and ``sync()`` makes every pending operation durable.
/// ``crashImage(_:)`` returns what the disk could hold after a power cut at this moment.
///
/// Injected faults throw ``StorageError/io(_:path:errno:)`` with `EIO` and leave the content
/// unchanged: a failed write or truncation is not applied, a failed sync leaves the pending
/// operations pending. Each `fail…(after:)` fault fires once and is then cleared.
///
/// Locks always succeed: the file behaves like a single ``MemoryFile`` handle.
///
/// ```swift
/// let file = FaultInjectingFile()
/// try file.write([1, 2, 3], at: 0)
/// try file.sync()
/// try file.write([9, 9], at: 1)
/// file.crashImage(.dropUnsynced)   // [1, 2, 3]
/// file.crashImage(.keepUnsynced)   // [1, 9, 9]
/// ```
package final class FaultInjectingFile: StorageFile, @unchecked Sendable {
    /// What survives of the unsynced operations when the power is cut.
    package enum CrashMode: Sendable, Equatable {
        /// Every pending operation is lost: the last synced image.
        case dropUnsynced
        /// Every pending operation made it to disk: the current content.
        case keepUnsynced
        /// Each pending operation, in order and independently, is applied fully, dropped, or (for a
        /// write spanning several sectors) torn: only a prefix ending at a sector boundary is applied.
        /// Sector boundaries are the file offsets that are multiples of `sectorSize` (values below 1
        /// count as 1). The outcome is fully determined by `seed`.
        case random(seed: UInt64, sectorSize: Int = 512)
    }

    /// One unsynced change, in the order it was made.
    private enum PendingOperation {
        case write(offset: Int, bytes: [UInt8])
        case truncate(size: Int)
    }

    /// A label for error messages.
    package let path: String

    /// Guards every field below.
    private let lock = Lock()
    /// The content that survives a power cut.
    private var durable: [UInt8]
    /// The durable image with the pending operations applied: what reads see.
    private var current: [UInt8]
    /// The operations made since the last successful sync.
    private var pending: [PendingOperation] = []
    /// Calls of each kind that still succeed before the next injected failure, if one is armed.
    private var writeFault: Int?
    private var syncFault: Int?
    private var truncateFault: Int?
    private var readFault: Int?
    private var failingAllWrites = false
    private var writes = 0
    private var syncs = 0

    /// Creates a file whose initial content, `bytes`, is already durable.
    package init(path: String = "fault", bytes: [UInt8] = []) {
        self.path = path
        self.durable = bytes
        self.current = bytes
    }

    // MARK: - Fault control

    /// Makes the (n+1)-th write from now fail with `EIO` without being applied (`0`: the next one).
    package func failWrite(after n: Int) {
        lock.withLock { writeFault = max(0, n) }
    }

    /// Makes the (n+1)-th sync from now fail with `EIO`, leaving the pending operations pending.
    package func failSync(after n: Int) {
        lock.withLock { syncFault = max(0, n) }
    }

    /// Makes the (n+1)-th truncation from now fail with `EIO` without being applied.
    package func failTruncate(after n: Int) {
        lock.withLock { truncateFault = max(0, n) }
    }

    /// Makes the (n+1)-th read from now fail with `EIO`.
    package func failRead(after n: Int) {
        lock.withLock { readFault = max(0, n) }
    }

    /// While `true`, every write fails with `EIO` and is not applied.
    package var failAllWrites: Bool {
        get { lock.withLock { failingAllWrites } }
        set { lock.withLock { failingAllWrites = newValue } }
    }

    /// Disarms every injected fault, including ``failAllWrites``.
    package func clearFaults() {
        lock.withLock {
            writeFault = nil
            syncFault = nil
            truncateFault = nil
            readFault = nil
            failingAllWrites = false
        }
    }

    /// How many writes have succeeded.
    package var writeCount: Int {
        lock.withLock { writes }
    }

    /// How many syncs have succeeded.
    package var syncCount: Int {
        lock.withLock { syncs }
    }

    /// How many writes and truncations have not been synced yet.
    package var pendingOperationCount: Int {
        lock.withLock { pending.count }
    }

    /// Counts down an armed fault; returns `true` (and disarms it) when this call must fail.
    private static func fires(_ countdown: inout Int?) -> Bool {
        guard let remaining = countdown else { return false }
        if remaining == 0 {
            countdown = nil
            return true
        }
        countdown = remaining - 1
        return false
    }

    // MARK: - StorageFile

    /// Reads up to `buffer.count` bytes of the current content at `offset`.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try MemoryFile.checkOffset(offset, path: path)
        return try lock.withLock {
            if FaultInjectingFile.fires(&readFault) {
                throw StorageError.io("read", path: path, errno: EIO)
            }
            return MemoryFile.copy(from: current, at: offset, into: buffer)
        }
    }

    /// Records a pending write of `bytes` at `offset`, or throws an injected fault.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        try MemoryFile.checkRange(offset, count: bytes.count, operation: "write", path: path)
        try lock.withLock {
            if failingAllWrites || FaultInjectingFile.fires(&writeFault) {
                throw StorageError.io("write", path: path, errno: EIO)
            }
            writes += 1
            guard bytes.count > 0 else { return }
            MemoryFile.apply(bytes, at: Int(offset), to: &current)
            pending.append(.write(offset: Int(offset), bytes: [UInt8](bytes)))
        }
    }

    /// Makes every pending operation durable, or throws an injected fault and leaves them pending.
    package func sync() throws {
        try lock.withLock {
            if FaultInjectingFile.fires(&syncFault) {
                throw StorageError.io("sync", path: path, errno: EIO)
            }
            syncs += 1
            durable = current
            pending.removeAll()
        }
    }

    /// Records a pending change of size, or throws an injected fault.
    package func truncate(to size: Int64) throws {
        try MemoryFile.checkRange(size, count: 0, operation: "truncate", path: path)
        try lock.withLock {
            if FaultInjectingFile.fires(&truncateFault) {
                throw StorageError.io("truncate", path: path, errno: EIO)
            }
            MemoryFile.resize(&current, to: Int(size))
            pending.append(.truncate(size: Int(size)))
        }
    }

    /// The current size in bytes.
    package func size() throws -> Int64 {
        lock.withLock { Int64(current.count) }
    }

    /// Always grants the lock: there is only one handle.
    package func tryLock(_ kind: FileLockKind) throws -> Bool {
        true
    }

    /// Does nothing: there is only one handle.
    package func unlock() throws {}

    // MARK: - Power loss

    /// The bytes the disk would hold if the power were cut now, under `mode`.
    package func crashImage(_ mode: CrashMode) -> [UInt8] {
        lock.withLock {
            switch mode {
            case .dropUnsynced:
                return durable
            case .keepUnsynced:
                return current
            case .random(let seed, let sectorSize):
                return randomImage(seed: seed, sectorSize: max(1, sectorSize))
            }
        }
    }

    /// A ``MemoryFile`` (same path label) holding ``crashImage(_:)``: the disk after a power cut.
    package func crash(_ mode: CrashMode) -> MemoryFile {
        MemoryFile(path: path, bytes: crashImage(mode))
    }

    /// Applies each pending operation fully, not at all, or (writes only) as a sector-aligned prefix.
    /// Must be called with `lock` held.
    private func randomImage(seed: UInt64, sectorSize: Int) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        var image = durable
        for operation in pending {
            switch operation {
            case .truncate(let size):
                if rng.next(below: 2) == 0 {
                    MemoryFile.resize(&image, to: size)
                }
            case .write(let offset, let bytes):
                let end = offset + bytes.count
                // Sector boundaries strictly inside the write: the places where it can tear.
                let firstBoundary = (offset / sectorSize + 1) * sectorSize
                let boundaries = end > firstBoundary ? (end - 1 - firstBoundary) / sectorSize + 1 : 0
                let outcome = rng.next(below: boundaries > 0 ? 3 : 2)
                let length: Int
                switch outcome {
                case 0:
                    length = bytes.count
                case 1:
                    length = 0
                default:
                    let cut = Int(rng.next(below: UInt64(boundaries)))
                    length = firstBoundary + cut * sectorSize - offset
                }
                bytes.withUnsafeBytes { all in
                    MemoryFile.apply(UnsafeRawBufferPointer(rebasing: all[0..<length]), at: offset, to: &image)
                }
            }
        }
        return image
    }
}
