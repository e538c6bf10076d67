// What the cross-process protocol (FORMAT.md § "Several processes") needs from a file system beyond reading and
// writing files: byte-range locks owned by one open file description, a memory region every process maps, and
// whether a log file lost its name. POSIX provides them for real; the simulated file system of the power-loss
// tests provides them in memory, so that several engines can play processes on one simulated disk.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A handle whose byte-range locks belong to it alone (an open file description): two handles on one file
/// conflict as two processes would, and closing a handle drops its locks.
package protocol ByteRangeLockingFile: AnyObject, Sendable {
    /// Whether the handle was opened without write access (exclusive locks are then refused with an error).
    var isReadOnly: Bool { get }
    /// Takes `kind` on `range` without waiting, all of it or none; false when another handle holds a conflicting
    /// lock. A lock this handle already holds on part of the range is converted.
    func tryLock(_ kind: FileLockKind, range: Range<Int64>) throws -> Bool
    /// Drops whatever this handle holds on `range`.
    func unlock(range: Range<Int64>) throws
    /// One lock held through another handle that would refuse `kind` on `range` (not necessarily the lowest).
    func conflictingLock(_ kind: FileLockKind, range: Range<Int64>) throws -> (range: Range<Int64>, kind: FileLockKind)?
    /// Gives up the handle and every lock held through it.
    func close()
}

/// Memory shared by every process that maps the same name: stores by one are loads by the others.
package protocol SharedMemoryMapping: AnyObject, Sendable {
    /// The first byte of the mapping, aligned for 64-bit words, valid as long as this object lives.
    var baseAddress: UnsafeMutableRawPointer { get }
}

/// A log or database handle that can tell whether the file it reaches still has a name.
package protocol UnlinkDetectingFile: StorageFile {
    /// Whether the file's last name was removed since the handle was opened.
    var isUnlinked: Bool { get throws }
}

/// A file system on which several processes can open one database together.
package protocol ProcessSharingFileSystem: FileSystem {
    /// Opens a new handle (a new open file description) on the existing file at `path`, for its locks.
    func openLockHandle(_ path: String, readOnly: Bool) throws -> any ByteRangeLockingFile
    /// Maps `size` bytes of the memory named `path`, creating it zero-filled (or growing it) unless `readOnly`.
    /// - Throws: ``StorageError/io(_:path:errno:)``: `ENOENT` when it is missing, `EINVAL` when a read-only
    ///   mapping would reach beyond its end.
    func mapSharedMemory(_ path: String, size: Int, readOnly: Bool) throws -> any SharedMemoryMapping
}

extension POSIXFile: ByteRangeLockingFile, UnlinkDetectingFile {}

extension POSIXFileSystem: ProcessSharingFileSystem {
    package func openLockHandle(_ path: String, readOnly: Bool) throws -> any ByteRangeLockingFile {
        try POSIXFile(path: path, create: false, readOnly: readOnly)
    }

    package func mapSharedMemory(_ path: String, size: Int, readOnly: Bool) throws -> any SharedMemoryMapping {
        try MappedFile(path: path, size: size, readOnly: readOnly)
    }
}

/// `size` bytes of a file mapped shared (`MAP_SHARED`): the `-shm` of a database on a real file system.
final class MappedFile: SharedMemoryMapping, @unchecked Sendable {
    let baseAddress: UnsafeMutableRawPointer
    private let size: Int

    init(path: String, size: Int, readOnly: Bool) throws {
        let fd = systemOpen(path, (readOnly ? O_RDONLY : O_RDWR | O_CREAT) | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError.io("open", path: path, errno: errno) }
        defer { _ = systemClose(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError.io("size", path: path, errno: errno) }
        if Int(info.st_size) < size {
            // Mapping beyond the end of the file would fault on the first access.
            guard !readOnly else { throw StorageError.io("map", path: path, errno: EINVAL) }
            while ftruncate(fd, off_t(size)) != 0 {
                if errno == EINTR { continue }
                throw StorageError.io("truncate", path: path, errno: errno)
            }
        }
        let protection = readOnly ? PROT_READ : PROT_READ | PROT_WRITE
        guard let mapped = mmap(nil, size, protection, MAP_SHARED, fd, 0),
            mapped != UnsafeMutableRawPointer(bitPattern: -1)
        else { throw StorageError.io("map", path: path, errno: errno) }
        baseAddress = mapped
        self.size = size
    }

    deinit {
        munmap(baseAddress, size)
    }
}
