// The directory operations under a database: opening (and creating) its files,
// removing the log, and making those changes durable.

/// How ``FileSystem/open(_:mode:)`` opens a file.
public enum FileOpenMode: Sendable, Equatable {
    /// Reading only; the file must exist.
    case readOnly
    /// Reading and writing; the file must exist.
    case readWrite
    /// Reading and writing, creating the file when it does not exist.
    case readWriteCreate
}

/// The directory side of storage: which files exist under which names.
///
/// A ``StorageFile`` makes a file's *content* durable with `sync()`. Its
/// *name* is a separate matter: under POSIX a newly created file, and the
/// removal of one, survive a power cut only once the directory holding it has
/// been synced. The engine therefore creates and removes files through this
/// protocol and calls ``syncDirectory(containing:)`` after creating one.
///
/// Implementations: ``POSIXFileSystem`` (production) and
/// ``SimulatedFileSystem`` (power-loss tests).
public protocol FileSystem: Sendable {
    /// Names this file system in the registry of open databases, so that the
    /// same path in two file systems names two databases.
    var identity: String { get }

    /// Opens the file at `path`.
    ///
    /// - Returns: the file, and whether this call created it (so that the
    ///   caller knows the directory must be synced).
    /// - Throws: ``StorageError/io(_:path:errno:)`` with operation `"open"`
    ///   (`ENOENT` when the file is missing and `mode` does not create it).
    func open(_ path: String, mode: FileOpenMode) throws -> (file: any StorageFile, created: Bool)

    /// Whether a file exists at `path`.
    func exists(_ path: String) -> Bool

    /// Removes the file at `path`; a missing file is not an error.
    func remove(_ path: String) throws

    /// Makes the creation and removal of files in the directory holding
    /// `path` durable.
    func syncDirectory(containing path: String) throws

    /// The name under which `path` is registered: the same file reached by
    /// two spellings of its path must get the same name.
    func canonicalPath(_ path: String) -> String
}

extension FileSystem {
    /// The directory part of `path`: everything before its last `/`, `/` for a
    /// file in the root, `.` for a bare name.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = path[..<slash]
        return parent.isEmpty ? "/" : String(parent)
    }
}
