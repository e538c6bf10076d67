// How a database's files are opened and what recovery makes of them: the
// order of FORMAT.md § "Creating, opening and closing". Nothing here writes, so an
// open that fails, or a crash during recovery, changes nothing on disk.

/// What recovery found: the page size, the log's header and its committed frames.
struct RecoveredState {
    var pageSize: Int
    /// The log header, nil when the log is absent, torn or belongs to another page size.
    var walHeader: WALHeader?
    var index: WALIndex
}

/// The files of a database opened by path, and which of them the open created.
struct OpenedFiles {
    var db: any StorageFile
    var wal: any StorageFile
    var createdDatabase = false
    var createdLog = false
    /// Whether the files were opened without write access.
    var readOnly = false

    /// Closes both files and removes those the open created: an open that fails leaves the
    /// directory as it found it.
    func abandon(path: String, fileSystem: any FileSystem) {
        db.close()
        wal.close()
        if createdLog { try? fileSystem.remove(path + "-wal") }
        if createdDatabase { try? fileSystem.remove(path) }
    }
}

/// The first bytes of the database file, parsed.
private enum FileHeaderReading {
    /// The file holds no byte: a database never checkpointed, or none at all.
    case empty
    case valid(FileHeader)
    /// The file's header cannot be read; the error says why.
    case invalid(any Error)
}

extension SharedDatabase {
    /// Opens the database file and its log at `path` through `fileSystem`, creating both when allowed.
    ///
    /// A name created here is made durable with a directory sync before anything is acknowledged:
    /// under POSIX a new file survives a power cut only once its directory has been synced, and a
    /// brand-new log (after the last connection of an earlier process removed the old one) holds
    /// the commits about to be acknowledged.
    ///
    /// A database that exists but cannot be opened for writing (`EACCES`, `EPERM`, `EROFS`, for the file or for
    /// the log it needs) is opened read-only, and ``OpenedFiles/readOnly`` says so.
    static func openFiles(path: String, options: StorageOptions, fileSystem: any FileSystem) throws -> OpenedFiles {
        if options.readOnly { return try openFilesForReading(path: path, fileSystem: fileSystem) }
        do {
            return try openFilesForWriting(path: path, options: options, fileSystem: fileSystem)
        } catch let error as StorageError where error.deniesWriting {
            // A database the process may read but not write (the file's mode, a read-only medium, a directory
            // where the log cannot be created) opens for reading, as SQLite does; when it cannot be read
            // either, the first error is the one that names the cause.
            guard fileSystem.exists(path), let files = try? openFilesForReading(path: path, fileSystem: fileSystem)
            else { throw error }
            return files
        }
    }

    /// Opens an existing database and, when there is one, its log, both without write access: nothing is
    /// created, and a log is read but never written, so its commits are seen and never copied into the file.
    private static func openFilesForReading(path: String, fileSystem: any FileSystem) throws -> OpenedFiles {
        let walPath = path + "-wal"
        let db = try fileSystem.open(path, mode: .readOnly).file
        guard fileSystem.exists(walPath) else {
            return OpenedFiles(db: db, wal: MemoryFile(path: walPath), readOnly: true)
        }
        do {
            return OpenedFiles(db: db, wal: try fileSystem.open(walPath, mode: .readOnly).file, readOnly: true)
        } catch {
            db.close()
            throw error
        }
    }

    /// Opens the database and its log for reading and writing, creating them when allowed.
    private static func openFilesForWriting(
        path: String, options: StorageOptions, fileSystem: any FileSystem
    ) throws -> OpenedFiles {
        let walPath = path + "-wal"
        let db = try fileSystem.open(path, mode: options.create ? .readWriteCreate : .readWrite)
        do {
            let wal = try fileSystem.open(walPath, mode: .readWriteCreate)
            do {
                if (db.created || wal.created) && options.durability.syncs {
                    try fileSystem.syncDirectory(containing: path)
                }
            } catch {
                wal.file.close()
                if wal.created { try? fileSystem.remove(walPath) }
                throw error
            }
            return OpenedFiles(db: db.file, wal: wal.file, createdDatabase: db.created, createdLog: wal.created)
        } catch {
            db.file.close()
            if db.created { try? fileSystem.remove(path) }
            throw error
        }
    }

    /// Reads what the files hold, the log first when the file's header cannot be trusted.
    ///
    /// The log is the newer copy of every page it holds, page 1 included, so a header page torn by
    /// a checkpoint that the power cut short is read from the log. Returns nil for a database that
    /// was never committed: an empty file without a log commit (a creation that the power cut
    /// short leaves exactly this, so it starts again).
    /// - Throws: the file header's error when the file has bytes, its header is unreadable and the
    ///   log holds no page 1.
    static func recoverState(dbFile: any StorageFile, walFile: any StorageFile) throws -> RecoveredState? {
        let fileHeader = try readFileHeader(dbFile)
        let logHeader = try readLogHeader(walFile)
        if case .valid(let header) = fileHeader {
            let pageSize = Int(header.pageSize)
            // A log of another page size cannot belong to this file: it is ignored (and restarted).
            guard let logHeader, Int(logHeader.pageSize) == pageSize else {
                return RecoveredState(pageSize: pageSize, walHeader: nil, index: WALIndex())
            }
            let index = try replayLog(walFile, header: logHeader)
            return RecoveredState(pageSize: pageSize, walHeader: logHeader, index: index)
        }
        if let logHeader {
            let index = try replayLog(walFile, header: logHeader)
            if index.frame(for: 1, below: index.frameCount) != nil {
                return RecoveredState(pageSize: Int(logHeader.pageSize), walHeader: logHeader, index: index)
            }
        }
        switch fileHeader {
        case .empty, .valid: return nil
        case .invalid(let error): throw error
        }
    }

    /// The database file's header, or why it cannot be read.
    private static func readFileHeader(_ file: any StorageFile) throws -> FileHeaderReading {
        let size = try file.size()
        guard size > 0 else { return .empty }
        var prefix = [UInt8](repeating: 0, count: FileHeader.size)
        let complete = try prefix.withUnsafeMutableBytes { try file.readFully(into: $0, at: 0) }
        guard complete else { return .invalid(StorageError.notADatabase("file is too short (\(size) bytes)")) }
        do {
            return .valid(try prefix.withUnsafeBytes { try FileHeader(reading: $0.baseAddress!) })
        } catch {
            return .invalid(error)
        }
    }

    /// The log's header when it is complete and valid.
    static func readLogHeader(_ file: any StorageFile) throws -> WALHeader? {
        guard let reading = try LogHeaderReading.read(file, databasePageSize: nil), reading.isValid else { return nil }
        return reading.header
    }

    /// The committed frames of the log: frames count up to the last valid commit; a torn or damaged
    /// tail and frames of an older generation (other salts) end the replay.
    static func replayLog(_ walFile: any StorageFile, header: WALHeader) throws -> WALIndex {
        var index = WALIndex()
        var scanner = try LogScanner(file: walFile, header: header)
        var pending: [PageNumber] = []
        while let frame = try scanner.nextValid() {
            pending.append(frame.header.page)
            if frame.endsCommit {
                index.commit(pages: pending, databaseSize: frame.header.commitSize, checksum: frame.header.checksum)
                pending.removeAll()
            }
        }
        return index
    }

    /// Writes a new, empty database (header page and catalog root) as the log's first commit.
    ///
    /// The database file stays empty until the first checkpoint copies the pages in, so a power cut
    /// at any point of the creation leaves either that commit, complete in the log, or an empty file
    /// and no valid commit: a database that is created again on the next open.
    func createDatabase(durability: Durability) throws {
        let source = WALPageSource(shared: self, durability: durability)
        try source.beginWrite()
        defer { source.end() }
        let pager = Pager(creatingIn: source, cacheSize: 16)
        let catalogRoot = try pager.allocatePage()
        TreePage(unchecked: catalogRoot, base: try pager.writablePage(catalogRoot), geometry: pager.geometry)
            .initialize(.indexLeaf)
        pager.header.catalogRoot = catalogRoot
        try pager.commit()
    }
}
