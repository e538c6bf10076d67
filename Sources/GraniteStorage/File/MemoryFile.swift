// An in-memory StorageFile for tests and in-memory databases, with per-handle advisory locks.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``StorageFile`` held in memory as a byte array.
///
/// Writes past the end zero-fill the gap; ``sync()`` does nothing. The file grows to at most
/// ``maximumSize`` bytes; beyond that writes and truncations throw `EFBIG`, like a real file system.
///
/// Handles and locks: `MemoryFile(sharing: other)` opens a second *handle* on the same content. Handles
/// share the bytes and one lock table, but each holds its own lock, so two handles conflict exactly like
/// two ``POSIXFile`` objects opened on one path (open-file-description locks): an exclusive lock excludes
/// every other handle, shared locks coexist, and a handle's lock is released when it is unlocked or
/// deallocated. A single handle never conflicts with itself; asking it for `.exclusive` while it holds
/// `.shared` upgrades its lock.
///
/// ```swift
/// let writer = MemoryFile()
/// let reader = MemoryFile(sharing: writer)
/// try writer.write([1, 2, 3], at: 0)
/// _ = try writer.tryLock(.exclusive)         // true
/// _ = try reader.tryLock(.shared)            // false until the writer unlocks
/// ```
public final class MemoryFile: StorageFile, @unchecked Sendable {
    /// The largest size, in bytes, an in-memory file may reach (4 GiB; 2 GiB on 32-bit platforms).
    public static let maximumSize: Int64 = MemoryLayout<Int>.size >= 8 ? 1 << 32 : Int64(Int32.max)

    /// A label for error messages (`":memory:"` unless given).
    public let path: String

    /// The content, shared by every handle made with ``init(sharing:)``.
    private let storage: MemoryFileStorage
    /// The locks, shared by every handle made with ``init(sharing:)``.
    private let locks: MemoryLockTable

    /// Creates an in-memory file holding `bytes`.
    public init(path: String = ":memory:", bytes: [UInt8] = []) {
        self.path = path
        self.storage = MemoryFileStorage(bytes: bytes)
        self.locks = MemoryLockTable()
    }

    /// Opens a new handle on `other`'s content: same bytes and lock table, but a lock of its own.
    public init(sharing other: MemoryFile) {
        self.path = other.path
        self.storage = other.storage
        self.locks = other.locks
    }

    deinit {
        locks.release(holder: ObjectIdentifier(self))
    }

    /// A copy of the current content.
    public var bytes: [UInt8] {
        storage.lock.withLock { storage.bytes }
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns fewer only at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try MemoryFile.checkOffset(offset, path: path)
        return storage.lock.withLock {
            MemoryFile.copy(from: storage.bytes, at: offset, into: buffer)
        }
    }

    /// Writes all of `bytes` at `offset`, zero-filling any gap past the current end.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        try MemoryFile.checkRange(offset, count: bytes.count, operation: "write", path: path)
        storage.lock.withLock {
            MemoryFile.apply(bytes, at: Int(offset), to: &storage.bytes)
        }
    }

    /// Does nothing: memory is as durable as it gets.
    public func sync() throws {}

    /// Sets the size, dropping bytes at the end or appending zeros.
    public func truncate(to size: Int64) throws {
        try MemoryFile.checkRange(size, count: 0, operation: "truncate", path: path)
        storage.lock.withLock {
            MemoryFile.resize(&storage.bytes, to: Int(size))
        }
    }

    /// The current size in bytes.
    public func size() throws -> Int64 {
        storage.lock.withLock { Int64(storage.bytes.count) }
    }

    /// Takes a lock for this handle without waiting; `false` when another handle prevents it.
    public func tryLock(_ kind: FileLockKind) throws -> Bool {
        locks.tryLock(kind, holder: ObjectIdentifier(self))
    }

    /// Releases this handle's lock, if any.
    public func unlock() throws {
        locks.release(holder: ObjectIdentifier(self))
    }

    // MARK: - Byte-image helpers shared with FaultInjectingFile

    /// Throws ``StorageError/invalidArgument(_:)`` for a negative offset.
    static func checkOffset(_ offset: Int64, path: String) throws {
        guard offset >= 0 else {
            throw StorageError.invalidArgument("negative file offset \(offset) on '\(path)'")
        }
    }

    /// Checks that `offset..<offset+count` is a valid range ending within ``maximumSize``.
    static func checkRange(_ offset: Int64, count: Int, operation: String, path: String) throws {
        try checkOffset(offset, path: path)
        guard Int64(count) <= maximumSize, offset <= maximumSize - Int64(count) else {
            throw StorageError.io(operation, path: path, errno: EFBIG)
        }
    }

    /// Copies the bytes of `image` at `offset` into `buffer`; returns how many were copied.
    static func copy(from image: [UInt8], at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard offset < Int64(image.count), buffer.count > 0 else { return 0 }
        let start = Int(offset)
        let end = start + min(buffer.count, image.count - start)
        image.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<end]))
        }
        return end - start
    }

    /// Writes `bytes` into `image` at `offset`, zero-filling any gap; an empty write changes nothing.
    static func apply(_ bytes: UnsafeRawBufferPointer, at offset: Int, to image: inout [UInt8]) {
        guard bytes.count > 0 else { return }
        let end = offset + bytes.count
        if end > image.count {
            image.append(contentsOf: repeatElement(0, count: end - image.count))
        }
        image.withUnsafeMutableBytes { target in
            UnsafeMutableRawBufferPointer(rebasing: target[offset..<end]).copyMemory(from: bytes)
        }
    }

    /// Sets `image`'s size to `size`, dropping bytes or appending zeros.
    static func resize(_ image: inout [UInt8], to size: Int) {
        if size < image.count {
            image.removeSubrange(size...)
        } else if size > image.count {
            image.append(contentsOf: repeatElement(0, count: size - image.count))
        }
    }
}

/// The bytes behind one or more ``MemoryFile`` handles.
final class MemoryFileStorage: @unchecked Sendable {
    /// Guards `bytes`.
    let lock = Lock()
    /// The file's content.
    var bytes: [UInt8]

    /// Creates storage holding `bytes`.
    init(bytes: [UInt8]) {
        self.bytes = bytes
    }
}

/// Advisory locks among the handles of one in-memory file, with open-file-description semantics.
///
/// Each holder (a handle's identity) holds at most one lock. A shared lock is granted unless another
/// holder has the exclusive lock; the exclusive lock is granted only when no other holder has any lock.
/// Re-requesting converts the holder's lock (upgrade or downgrade); a refused upgrade keeps the old lock.
final class MemoryLockTable: @unchecked Sendable {
    /// Guards the two fields below.
    private let lock = Lock()
    /// Holders of a shared lock.
    private var sharedHolders: Set<ObjectIdentifier> = []
    /// The holder of the exclusive lock, if any.
    private var exclusiveHolder: ObjectIdentifier?

    /// Creates a table with no locks held.
    init() {}

    /// Grants `kind` to `holder` if no other holder conflicts; returns whether it was granted.
    func tryLock(_ kind: FileLockKind, holder: ObjectIdentifier) -> Bool {
        lock.withLock {
            if let owner = exclusiveHolder, owner != holder {
                return false
            }
            switch kind {
            case .shared:
                exclusiveHolder = nil
                sharedHolders.insert(holder)
            case .exclusive:
                if sharedHolders.contains(where: { $0 != holder }) {
                    return false
                }
                sharedHolders.remove(holder)
                exclusiveHolder = holder
            }
            return true
        }
    }

    /// Drops whatever lock `holder` has.
    func release(holder: ObjectIdentifier) {
        lock.withLock {
            sharedHolders.remove(holder)
            if exclusiveHolder == holder {
                exclusiveHolder = nil
            }
        }
    }
}
