// The production FileSystem: POSIX files, with the directory synced through a descriptor of its own.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The operating system's file system.
///
/// ``syncDirectory(containing:)`` opens the directory and `fsync`s it, which
/// is what makes a new or removed name durable on file systems that follow
/// POSIX to the letter (SQLite does the same after creating its log). A file
/// system that cannot sync a directory (`EINVAL`, as some network and FUSE
/// file systems answer) is taken as one that needs no directory sync.
public struct POSIXFileSystem: FileSystem {
    /// The process's file system.
    public init() {}

    public var identity: String { "" }

    public func open(_ path: String, mode: FileOpenMode) throws -> (file: any StorageFile, created: Bool) {
        let (file, created) = try POSIXFile.open(path: path, mode: mode)
        return (file, created)
    }

    public func exists(_ path: String) -> Bool {
        POSIXFile.exists(path: path)
    }

    public func remove(_ path: String) throws {
        try POSIXFile.remove(path: path)
    }

    public func syncDirectory(containing path: String) throws {
        let directory = Self.directory(of: path)
        let fd = systemOpen(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError.io("open directory", path: directory, errno: errno) }
        defer { _ = systemClose(fd) }
        while fsync(fd) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EINVAL { return }
            throw StorageError.io("sync directory", path: directory, errno: code)
        }
    }

    public func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
