// The production StorageFile: a file descriptor driven with pread/pwrite/fsync/ftruncate/fcntl.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``StorageFile`` backed by a POSIX file descriptor.
///
/// Reads and writes use `pread`/`pwrite` at absolute offsets, retried on `EINTR` and looped over short
/// transfers, so several threads may read and write concurrently. Every failed system call throws
/// ``StorageError/io(_:path:errno:)`` naming the call.
///
/// Locks: on Linux, ``tryLock(_:)`` takes an open-file-description lock (`F_OFD_SETLK`) on the whole
/// file. Such a lock belongs to this object's descriptor, so two `POSIXFile` objects opened on the same
/// path conflict even inside one process, exactly as two processes would. Elsewhere it falls back to
/// classic `F_SETLK` record locks, which belong to the process: objects in one process then never
/// conflict, and closing any descriptor of the file drops the process's locks.
///
/// ```swift
/// let file = try POSIXFile(path: "/tmp/db.granite")
/// try file.write([1, 2, 3], at: 0)
/// try file.sync()
/// ```
public final class POSIXFile: StorageFile, @unchecked Sendable {
    /// The path the file was opened with.
    public let path: String

    /// Whether the file was opened without write access.
    public let isReadOnly: Bool

    /// Guards `descriptor`, so that `close()` is idempotent and never races a lookup.
    private let state = Lock()
    /// The open descriptor, or -1 once closed.
    private var descriptor: Int32

    /// Opens (and by default creates) the file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file's path.
    ///   - create: create the file (mode 0644) when it does not exist; ignored when `readOnly`.
    ///   - readOnly: open without write access; writes, truncation and exclusive locks then throw.
    /// - Throws: ``StorageError/io(_:path:errno:)`` with operation `"open"`, or
    ///   ``StorageError/invalidArgument(_:)`` for an empty path or one containing a NUL byte.
    public init(path: String, create: Bool = true, readOnly: Bool = false) throws {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw StorageError.invalidArgument("invalid file path '\(path)'")
        }
        var flags = (readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC
        if create && !readOnly {
            flags |= O_CREAT
        }
        let fd = systemOpen(path, flags)
        guard fd >= 0 else {
            throw StorageError.io("open", path: path, errno: errno)
        }
        self.path = path
        self.isReadOnly = readOnly
        self.descriptor = fd
    }

    /// Wraps a descriptor opened by ``open(path:mode:)``.
    private init(path: String, descriptor: Int32, readOnly: Bool) {
        self.path = path
        self.isReadOnly = readOnly
        self.descriptor = descriptor
    }

    /// Opens the file at `path` as `mode` asks and tells whether this call created it.
    ///
    /// With ``FileOpenMode/readWriteCreate`` the file is first created exclusively (`O_CREAT | O_EXCL`),
    /// so that "created" is exact even when another process creates the same file at the same moment.
    /// - Throws: ``StorageError/io(_:path:errno:)`` with operation `"open"`, or
    ///   ``StorageError/invalidArgument(_:)`` for an empty path or one containing a NUL byte.
    public static func open(path: String, mode: FileOpenMode) throws -> (file: POSIXFile, created: Bool) {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw StorageError.invalidArgument("invalid file path '\(path)'")
        }
        let readOnly = mode == .readOnly
        let access = (readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC
        if mode == .readWriteCreate {
            let fd = systemOpen(path, access | O_CREAT | O_EXCL)
            if fd >= 0 { return (POSIXFile(path: path, descriptor: fd, readOnly: false), true) }
            guard errno == EEXIST else { throw StorageError.io("open", path: path, errno: errno) }
        }
        let fd = systemOpen(path, access)
        if fd >= 0 { return (POSIXFile(path: path, descriptor: fd, readOnly: readOnly), false) }
        guard mode == .readWriteCreate, errno == ENOENT else { throw StorageError.io("open", path: path, errno: errno) }
        // The name exists but leads nowhere (a symbolic link to a missing file), or the file was removed
        // between the two calls: create it through the name, and count it as created.
        let created = systemOpen(path, access | O_CREAT)
        guard created >= 0 else { throw StorageError.io("open", path: path, errno: errno) }
        return (POSIXFile(path: path, descriptor: created, readOnly: false), true)
    }

    deinit {
        if descriptor >= 0 {
            _ = systemClose(descriptor)
        }
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool {
        state.withLock { descriptor < 0 }
    }

    /// Closes the descriptor, releasing any lock held through it. Calling it again does nothing.
    ///
    /// Later calls on this object throw ``StorageError/io(_:path:errno:)`` with `EBADF`. Durability
    /// comes from ``sync()``, not from closing, so `close` reports no error.
    public func close() {
        state.withLock {
            if descriptor >= 0 {
                _ = systemClose(descriptor)
                descriptor = -1
            }
        }
    }

    /// The open descriptor, or an `EBADF` error naming `operation` once closed.
    private func openDescriptor(_ operation: String) throws -> Int32 {
        let fd = state.withLock { descriptor }
        guard fd >= 0 else {
            throw StorageError.io(operation, path: path, errno: EBADF)
        }
        return fd
    }

    /// Converts an absolute offset plus a length into an `off_t`, rejecting negative or overflowing ranges.
    private func checkedOffset(_ offset: Int64, count: Int) throws -> off_t {
        guard offset >= 0 else {
            throw StorageError.invalidArgument("negative file offset \(offset)")
        }
        guard Int64(count) <= Int64.max - offset, let value = off_t(exactly: offset),
            off_t(exactly: offset + Int64(count)) != nil
        else {
            throw StorageError.invalidArgument("file range at \(offset) of \(count) bytes is too large")
        }
        return value
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns fewer only at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let start = try checkedOffset(offset, count: buffer.count)
        let fd = try openDescriptor("read")
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = pread(fd, base + done, buffer.count - done, start + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw StorageError.io("read", path: path, errno: errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `bytes` at `offset`, growing the file if needed.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        let start = try checkedOffset(offset, count: bytes.count)
        let fd = try openDescriptor("write")
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, base + done, bytes.count - done, start + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw StorageError.io("write", path: path, errno: errno)
            }
            if n == 0 {
                // No progress and no error: report it rather than spin.
                throw StorageError.io("write", path: path, errno: EIO)
            }
            done += n
        }
    }

    /// Flushes completed writes to stable storage: `fdatasync` on Linux (data
    /// and the metadata needed to read it back, such as the size, but not
    /// timestamps), `F_FULLFSYNC` then `fsync` on Darwin.
    public func sync() throws {
        let fd = try openDescriptor("sync")
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return }
            let flush = fsync
        #else
            let flush = fdatasync
        #endif
        while flush(fd) != 0 {
            if errno == EINTR { continue }
            throw StorageError.io("sync", path: path, errno: errno)
        }
    }

    /// Sets the file's size with `ftruncate`, dropping or zero-filling bytes at the end.
    public func truncate(to size: Int64) throws {
        let length = try checkedOffset(size, count: 0)
        let fd = try openDescriptor("truncate")
        while ftruncate(fd, length) != 0 {
            if errno == EINTR { continue }
            throw StorageError.io("truncate", path: path, errno: errno)
        }
    }

    /// The file's current size in bytes, from `fstat`.
    public func size() throws -> Int64 {
        let fd = try openDescriptor("size")
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw StorageError.io("size", path: path, errno: errno)
        }
        return Int64(info.st_size)
    }

    /// Takes a whole-file lock without waiting; returns `false` when another holder prevents it.
    ///
    /// Asking for `.exclusive` while holding `.shared` upgrades the lock (and `.shared` while holding
    /// `.exclusive` downgrades it); a refused upgrade keeps the shared lock. An exclusive lock needs
    /// write access, so it throws on a read-only file.
    public func tryLock(_ kind: FileLockKind) throws -> Bool {
        try setLock(type: kind == .shared ? F_RDLCK : F_WRLCK)
    }

    /// Releases the lock held through this object, if any.
    public func unlock() throws {
        _ = try setLock(type: F_UNLCK)
    }

    /// Issues one non-blocking whole-file lock request; `false` means another holder conflicts.
    private func setLock(type: Int32) throws -> Bool {
        // Length 0: to the end of the file, however large it grows.
        try setLock(type: type, start: 0, length: 0)
    }

    // MARK: Byte-range locks

    /// Takes a lock on the bytes `range` without waiting; returns `false` when another holder conflicts.
    ///
    /// The bytes need not exist: the cross-process protocol (FORMAT.md § "Several processes") locks bytes far
    /// beyond the end of the database. A lock already held through this object on part of the range is
    /// converted (shared to exclusive, or back); a refused conversion keeps what was held. An exclusive lock
    /// needs write access.
    public func tryLock(_ kind: FileLockKind, range: Range<Int64>) throws -> Bool {
        guard !range.isEmpty else { return true }
        return try setLock(
            type: kind == .shared ? F_RDLCK : F_WRLCK, start: range.lowerBound, length: range.count)
    }

    /// Releases whatever this object holds on the bytes `range`.
    public func unlock(range: Range<Int64>) throws {
        guard !range.isEmpty else { return }
        _ = try setLock(type: F_UNLCK, start: range.lowerBound, length: range.count)
    }

    /// A lock held through another descriptor (in this process or another) that would refuse a lock of
    /// `kind` on `range`: its bytes and kind, or nil when none would. When several conflict, the system names
    /// one of them, not necessarily the lowest.
    public func conflictingLock(_ kind: FileLockKind, range: Range<Int64>) throws
        -> (range: Range<Int64>, kind: FileLockKind)?
    {
        guard !range.isEmpty else { return nil }
        let fd = try openDescriptor("lock")
        var request = flock()
        request.l_type = Int16(truncatingIfNeeded: kind == .shared ? F_RDLCK : F_WRLCK)
        request.l_whence = Int16(truncatingIfNeeded: SEEK_SET)
        request.l_start = off_t(range.lowerBound)
        request.l_len = off_t(range.count)
        request.l_pid = 0
        while fcntl(fd, POSIXFile.testLockCommand, &request) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw StorageError.io("lock", path: path, errno: code)
        }
        guard Int32(request.l_type) != F_UNLCK else { return nil }
        let start = Int64(request.l_start)
        let end = request.l_len == 0 ? Int64.max : start + Int64(request.l_len)
        return (start..<end, Int32(request.l_type) == F_RDLCK ? .shared : .exclusive)
    }

    /// Whether the file's last name was removed since it was opened (another process closed the database
    /// last and removed its log): writing to it would write to no file anyone else can open.
    public var isUnlinked: Bool {
        get throws {
            let fd = try openDescriptor("size")
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw StorageError.io("size", path: path, errno: errno) }
            return info.st_nlink == 0
        }
    }

    /// Issues one non-blocking lock request on `length` bytes from `start`; `false` means another holder
    /// conflicts.
    private func setLock(type: Int32, start: Int64, length: Int) throws -> Bool {
        let fd = try openDescriptor("lock")
        var request = flock()
        request.l_type = Int16(truncatingIfNeeded: type)
        request.l_whence = Int16(truncatingIfNeeded: SEEK_SET)
        request.l_start = off_t(start)
        request.l_len = off_t(length)
        request.l_pid = 0  // required by open-file-description locks
        while fcntl(fd, POSIXFile.setLockCommand, &request) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EACCES { return false }
            throw StorageError.io("lock", path: path, errno: code)
        }
        return true
    }

    #if os(Linux)
        /// `F_OFD_SETLK` (37 on every Linux architecture); Glibc exports it only under `_GNU_SOURCE`.
        private static let setLockCommand: Int32 = 37
        /// `F_OFD_GETLK` (36 on every Linux architecture).
        private static let testLockCommand: Int32 = 36
    #else
        /// Process-owned record locks where open-file-description locks are unavailable.
        private static let setLockCommand: Int32 = F_SETLK
        private static let testLockCommand: Int32 = F_GETLK
    #endif

    /// Deletes the file at `path` (`unlink`); a missing file is not an error.
    public static func remove(path: String) throws {
        guard !path.utf8.contains(0) else {
            throw StorageError.invalidArgument("invalid file path '\(path)'")
        }
        if unlink(path) != 0 && errno != ENOENT {
            throw StorageError.io("remove", path: path, errno: errno)
        }
    }

    /// Whether a file (or directory) exists at `path`.
    public static func exists(path: String) -> Bool {
        guard !path.isEmpty, !path.utf8.contains(0) else { return false }
        return access(path, F_OK) == 0
    }
}

/// The C library's `open` with mode 0644, retried on `EINTR`; -1 with `errno` set on failure.
func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    var fd: Int32
    repeat {
        fd = open(path, flags, mode_t(0o644))
    } while fd < 0 && errno == EINTR
    return fd
}

/// The C library's `close`, reachable from inside a type that has its own `close()` method.
func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
        return Glibc.close(fd)
    #else
        return Darwin.close(fd)
    #endif
}
