// VACUUM's two ways of using a compact rebuild (TreeCompaction.swift): written as a new database file
// (`VACUUM INTO`), or installed over this database's pages as one commit (`VACUUM`).
//
// The in-place form owes its crash safety to the write-ahead log: the compact image reaches the log as the frames
// of one transaction whose commit frame carries the smaller page count (FORMAT.md § "The write-ahead log",
// "Beyond the database size"). Until that frame is synced, recovery finds the old database; once it is, the new
// one, and a checkpoint copies the frames and cuts the file to the new size. Readers on older snapshots keep
// reading the old pages from the file, which no checkpoint overwrites while they live.

extension StorageEngine {
    /// The file system this database's files live in (the operating system's for explicit files).
    package var fileSystem: any FileSystem { shared.fileSystem ?? POSIXFileSystem() }

    /// Whether a file with content exists at `path` (in this database's file system): `VACUUM INTO` refuses to
    /// overwrite it.
    package func fileHasContent(at path: String) throws -> Bool {
        let fileSystem = fileSystem
        guard fileSystem.exists(path) else { return false }
        let file = try fileSystem.open(path, mode: .readOnly).file
        defer { file.close() }
        return try file.size() > 0
    }
}

extension StorageTransaction {
    /// Writes a compact copy of the database this transaction sees to a new database at `path` (created in the
    /// same file system, with the same page size), synced and closed when this returns: `VACUUM INTO`.
    ///
    /// The caller checks that no file with content is at `path` (``StorageEngine/fileHasContent(at:)``). When the
    /// copy fails (a damaged page of this database, a full disk, `progress` throwing), the files it created are
    /// removed, and an empty file that was at `path` is emptied again, so that the same copy can be tried again.
    /// - Throws: I/O errors; the errors of reading this database's pages; what `rewrite` and `progress` throw.
    public func writeCompactCopy(
        toPath path: String, rewrite: CompactionPayloadRewrite? = nil,
        progress: ((CompactionProgress) throws -> Void)? = nil
    ) throws {
        try checkActive()
        var options = StorageOptions()
        options.pageSize = engine.pager.pageSize
        let fileSystem = engine.fileSystem
        let leftovers = CopyLeftovers(path: path, fileSystem: fileSystem)
        do {
            let copy = try StorageEngine(path: path, options: options, fileSystem: fileSystem)
            do {
                try commitCompactTrees(into: copy, rewrite: rewrite, progress: progress)
                // The last connection's close copies every frame into the file, syncs it and removes the log.
                try copy.close()
            } catch {
                try? copy.close()
                throw error
            }
        } catch {
            leftovers.remove()
            throw error
        }
    }
}

/// What was at the destination of a compact copy before it began, so that a failed copy removes what it
/// created and nothing else: a failed `VACUUM INTO` or `granite backup` must leave no half-written database in
/// the way of the next try.
private struct CopyLeftovers {
    let path: String
    let fileSystem: any FileSystem
    /// Whether an empty file was at `path` (the destination may be an empty file made for the purpose).
    let wasEmptyFile: Bool
    /// Whether the file, its log and its shared-memory file were absent.
    let absent: (file: Bool, log: Bool, shared: Bool)

    init(path: String, fileSystem: any FileSystem) {
        self.path = path
        self.fileSystem = fileSystem
        absent = (!fileSystem.exists(path), !fileSystem.exists(path + "-wal"), !fileSystem.exists(path + "-shm"))
        if absent.file {
            wasEmptyFile = false
        } else if let file = try? fileSystem.open(path, mode: .readOnly).file {
            wasEmptyFile = (try? file.size()) == 0
            file.close()
        } else {
            wasEmptyFile = false
        }
    }

    /// Removes the files the copy created and empties a file that was empty; a file that held bytes before is
    /// never touched.
    func remove() {
        if absent.log { try? fileSystem.remove(path + "-wal") }
        if absent.shared { try? fileSystem.remove(path + "-shm") }
        if absent.file {
            try? fileSystem.remove(path)
        } else if wasEmptyFile, let file = try? fileSystem.open(path, mode: .readWrite).file {
            try? file.truncate(to: 0)
            try? file.sync()
            file.close()
        }
    }
}

extension StorageTransaction {
    /// Copies every tree of this database, compacted, into `target` in one write transaction of `target`,
    /// committed when the copy completes and rolled back when it throws.
    fileprivate func commitCompactTrees(
        into target: StorageEngine, rewrite: CompactionPayloadRewrite?,
        progress: ((CompactionProgress) throws -> Void)?
    ) throws {
        let write = try target.beginWrite()
        do {
            try copyTrees(into: write, rewrite: rewrite, progress: progress)
            try write.commit()
        } catch {
            try? write.rollback()
            throw error
        }
    }
}

extension WriteTransaction {
    /// Rebuilds the database compactly and replaces every page of this transaction by the rebuilt image, whose
    /// page count (usually smaller) becomes the database's: the work of `VACUUM` before its commit. The user
    /// version is kept and the schema cookie moves on, so other connections reload the schema.
    ///
    /// The image is built in memory. After the commit, the caller drops the connection's page cache
    /// (``Pager/dropCache()``): pages past the new end may linger in it.
    ///
    /// - Parameters:
    ///   - rewrite: rewrites table payloads on the way (see ``CompactionPayloadRewrite``).
    ///   - progress: the rebuild's progress.
    ///   - pagesPerStep: the pages written between two calls of `installProgress`.
    ///   - installProgress: called with the pages left to write and the image's page count after each step of
    ///     `pagesPerStep` pages but the last.
    public func replaceWithCompactImage(
        rewrite: CompactionPayloadRewrite? = nil, progress: ((CompactionProgress) throws -> Void)? = nil,
        pagesPerStep: Int = 1024, installProgress: ((_ remaining: Int, _ total: Int) throws -> Void)? = nil
    ) throws {
        try checkActive()
        var options = StorageOptions()
        options.pageSize = engine.pager.pageSize
        options.durability = .off
        let image = try StorageEngine(file: MemoryFile(), options: options)
        defer { try? image.close() }
        try commitCompactTrees(into: image, rewrite: rewrite, progress: progress)
        let read = try image.beginRead()
        defer { try? read.commit() }
        try engine.copyPageImages(from: image, pagesPerStep: pagesPerStep) { remaining, total in
            try installProgress?(remaining, total)
        }
    }
}
