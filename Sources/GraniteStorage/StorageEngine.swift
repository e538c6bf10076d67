// The entry point of the storage layer: one database file and its trees.

/// Options for opening a database with ``StorageEngine``.
public struct StorageOptions: Sendable {
    /// Page size for a new database (a power of two, 512–65536); an existing
    /// file keeps the page size it was created with.
    public var pageSize: Int = PageLayout.defaultPageSize
    /// Pages kept in each connection's page cache between operations.
    public var cacheSize: Int = 2000
    /// Open without the right to change anything.
    public var readOnly = false
    /// Create the database when the file is missing or empty.
    public var create = true
    /// When commits are synced to disk (see ``Durability``).
    public var durability: Durability = .full
    /// Committed log frames that trigger an automatic passive checkpoint.
    public var autoCheckpointFrames = 1000
    /// Seconds to wait for the writer lock or for readers before `busy`.
    public var busyTimeout: Double = 5
    /// Seconds to wait for a lock that another process holds (its writer lock, its checkpoint) before `busy`;
    /// nil waits ``busyTimeout``, 0 fails at once (GRDB's `.immediateError`). Connections of one process wait
    /// for each other up to ``busyTimeout`` whatever this says.
    public var crossProcessBusyTimeout: Double?
    /// Tests only: derive log salts from the checkpoint sequence instead of
    /// drawing them at random, so that a log's bytes are reproducible.
    var reproducibleSalts = false
    /// Tests only: a name that makes this open behave as if made by another process (its own shared state,
    /// descriptors and locks), so that one test process can play several.
    var simulatedProcess = ""

    /// Whether commits sync at all: `true` is ``Durability/full``, `false` ``Durability/off``.
    public var synchronous: Bool {
        get { durability != .off }
        set { durability = newValue ? .full : .off }
    }

    /// Default options.
    public init() {}
}

/// One connection to a database file: its own page cache and transactions
/// over the file, its write-ahead log and the catalog of named trees.
///
/// ```swift
/// let engine = try StorageEngine(path: "/tmp/demo.granite")
/// let write = try engine.beginWrite()
/// let table = try write.createTable(named: "items")
/// try table.insert(rowid: 1, payload: [1, 2, 3])
/// try write.commit()
/// ```
///
/// Connections opened on the same path in one process share one writer lock
/// and one log index; another process gets ``StorageError/locked(_:)``.
/// Every read and change happens in a transaction the caller begins:
/// ``beginRead()`` returns a ``ReadTransaction`` on a snapshot of the latest
/// commit, ``beginWrite()`` a ``WriteTransaction``; one at a time per
/// connection. Touching a tree with no transaction in progress throws
/// ``StorageError/noActiveTransaction``.
/// A connection is used from one thread at a time.
public final class StorageEngine {
    /// The database file.
    public var file: any StorageFile { shared.dbFile }
    /// The pager over the connection's snapshot (replaced only by ``reformat(pageSize:)``).
    package private(set) var pager: Pager
    /// The path, buffers and hints shared by the connection's tree operations.
    private(set) var treeContext: TreeContext
    let shared: SharedDatabase
    let source: WALPageSource
    private var closed = false

    private enum State: Equatable {
        case none
        case read
        case write
    }
    @exclusivity(unchecked) private var state = State.none
    /// The serial of the transaction in progress (0 when none): a ``StorageTransaction`` is active while its
    /// serial equals it. Serials are never reused, so an ended transaction's handle stays ended.
    @exclusivity(unchecked) private(set) var activeSerial: UInt64 = 0
    @exclusivity(unchecked) private var lastSerial: UInt64 = 0
    /// The committed state the page cache reflects: frames and log generation.
    private var cacheFrames = 0
    private var cacheGeneration: UInt64 = 0
    /// The place of this connection's latest commit among the commits of every connection to the database (0 before
    /// its first): a change tells the layers above that a statement committed, without a callback on every commit.
    package private(set) var lastCommitSequence: UInt64 = 0

    /// Opens (or creates) the database at `path`, with its log at `path-wal`.
    ///
    /// - Parameters:
    ///   - path: the database file; the log is `path-wal` beside it.
    ///   - options: how to open it (``StorageOptions``).
    ///   - fileSystem: where the files live: the operating system's by default, a
    ///     ``SimulatedFileSystem`` in power-loss tests.
    /// - Throws: ``StorageError``: `io` when a file cannot be opened or created, `locked` when
    ///   another process has it open, `notADatabase` or `corrupt` when its contents cannot be read.
    ///   An open that fails writes nothing.
    public convenience init(
        path: String, options: StorageOptions = StorageOptions(), fileSystem: any FileSystem = POSIXFileSystem()
    ) throws {
        try self.init(
            shared: SharedDatabase.open(path: path, options: options, fileSystem: fileSystem), options: options)
    }

    /// Opens (or creates) the database stored in `file`, with an in-memory log.
    public convenience init(file: any StorageFile, options: StorageOptions = StorageOptions()) throws {
        try self.init(file: file, walFile: MemoryFile(path: file.path + "-wal"), options: options)
    }

    /// Opens (or creates) the database stored in `file` with its log in `walFile`.
    public convenience init(file: any StorageFile, walFile: any StorageFile, options: StorageOptions = StorageOptions())
        throws
    {
        try self.init(shared: SharedDatabase(dbFile: file, walFile: walFile, options: options), options: options)
    }

    /// Opens another connection to the same database as `other` (same writer
    /// lock and log), with its own cache and transactions.
    public convenience init(sharing other: StorageEngine, options: StorageOptions = StorageOptions()) throws {
        other.shared.retain()
        try self.init(shared: other.shared, options: options)
    }

    private init(shared: SharedDatabase, options: StorageOptions) throws {
        self.shared = shared
        source = WALPageSource(
            shared: shared, durability: options.durability, processBusyTimeout: options.crossProcessBusyTimeout)
        do {
            try source.beginRead()
            pager = try Pager(
                source: source, cacheSize: options.cacheSize, readOnly: options.readOnly || shared.readOnly)
            try StorageEngine.checkFileHoldsPages(pager: pager, shared: shared, snapshot: source.snapshot)
        } catch {
            source.end()
            shared.release(checkpointing: false)
            throw error
        }
        treeContext = TreeContext(pager: pager)
        cacheFrames = source.snapshot?.limit ?? 0
        cacheGeneration = source.snapshot?.generation ?? 0
        source.end()
        pager.hasSnapshot = false
        pager.inWriteTransaction = false
    }

    /// Without a log, every page up to the page count must be in the file: a checkpoint leaves the
    /// file exactly that long, so a shorter one was cut. With a log, pages beyond the file's end that
    /// no frame holds are normal: a transaction may grow the database by pages it frees again
    /// before committing, and never writes them.
    private static func checkFileHoldsPages(pager: Pager, shared: SharedDatabase, snapshot: WALSnapshot?) throws {
        guard (snapshot?.limit ?? 0) == 0 else { return }
        let pageSize = Int64(pager.pageSize)
        let inFile = try shared.dbFile.size() / pageSize
        guard Int64(pager.pageCount) > inFile else { return }
        for page in (inFile + 1)...Int64(pager.pageCount) {
            guard let snapshot, shared.frame(for: PageNumber(page), below: snapshot.limit) != nil else {
                throw StorageError.corrupt(
                    page: 1,
                    "header claims \(pager.pageCount) pages but the file holds \(inFile) and the log lacks page \(page)"
                )
            }
        }
    }

    /// Replaces the database, which must hold nothing yet, by a new empty one with pages of `pageSize` bytes:
    /// what `PRAGMA page_size = N` does before the first table of a new database is created (Granite writes the
    /// database file when it opens it, where SQLite waits for the first write).
    ///
    /// The caller checks that the database holds nothing: every page is discarded.
    /// - Throws: ``StorageError/invalidArgument(_:)`` when a transaction is in progress or the size is not a
    ///   power of two in 512…65536; ``StorageError/busy(_:)`` when another connection is open;
    ///   ``StorageError/readOnly``; I/O errors.
    package func reformat(pageSize: Int) throws {
        guard state == .none, !closed else {
            throw StorageError.invalidArgument("the page size cannot change inside a transaction")
        }
        guard pageSize != pager.pageSize else { return }
        try shared.reformat(pageSize: pageSize, durability: durability)
        try source.beginRead()
        defer { source.end() }
        let newPager = try Pager(
            source: source, cacheSize: pager.cache.capacity, readOnly: pager.isReadOnly,
            interruption: pager.interruption)
        newPager.hasSnapshot = false
        newPager.inWriteTransaction = false
        pager = newPager
        treeContext = TreeContext(pager: newPager)
        cacheFrames = source.snapshot?.limit ?? 0
        cacheGeneration = source.snapshot?.generation ?? 0
    }

    /// An in-memory database (nothing touches the disk).
    public static func inMemory(options: StorageOptions = StorageOptions()) throws -> StorageEngine {
        try StorageEngine(file: MemoryFile(), options: options)
    }

    deinit {
        if !closed { try? close() }
    }

    /// Whether this connection may not write: opened with ``StorageOptions/readOnly``, or opened on files the
    /// process can read but not write (their mode, a read-only medium, a directory where the log cannot be
    /// created), which open read-only instead of failing.
    public var isReadOnly: Bool { pager.isReadOnly }

    // MARK: Transactions

    /// Whether a read or write transaction is in progress.
    public var isInTransaction: Bool { state != .none }

    /// Whether a write transaction is in progress.
    public var isWriting: Bool {
        if case .write = state { return true }
        return false
    }

    /// Begins a read transaction on a snapshot of the latest commit. Throws
    /// ``StorageError/invalidArgument(_:)`` when a transaction is already in progress.
    @discardableResult
    public func beginRead() throws -> ReadTransaction {
        guard state == .none else { throw StorageError.invalidArgument("a transaction is already in progress") }
        try source.beginRead()
        state = .read
        try adoptSnapshot()
        return ReadTransaction(engine: self, serial: startSerial())
    }

    /// Takes the writer lock (waiting up to the busy time-out, then throwing ``StorageError/busy(_:)``) and begins
    /// a write transaction on the latest commit. Throws ``StorageError/invalidArgument(_:)`` when a transaction is
    /// already in progress (end a read first, or use ``ReadTransaction/upgradeToWrite()``), and
    /// ``StorageError/readOnly`` on a read-only connection.
    @discardableResult
    public func beginWrite() throws -> WriteTransaction {
        guard state == .none else { throw StorageError.invalidArgument("a transaction is already in progress") }
        guard !pager.isReadOnly else { throw StorageError.readOnly }
        try source.beginWrite()
        state = .write
        try adoptSnapshot()
        return WriteTransaction(engine: self, serial: startSerial())
    }

    /// Turns the read transaction in progress into a write transaction on the same snapshot
    /// (``ReadTransaction/upgradeToWriteOnSnapshot()``).
    func upgradeReadToWrite() throws -> WriteTransaction {
        guard state == .read else { throw StorageError.invalidArgument("no read transaction is in progress") }
        guard !pager.isReadOnly else { throw StorageError.readOnly }
        guard try source.upgradeToWrite() else { throw StorageError.busySnapshot }
        state = .write
        try adoptSnapshot()
        return WriteTransaction(engine: self, serial: startSerial())
    }

    /// Gives the transaction just begun a new serial.
    private func startSerial() -> UInt64 {
        lastSerial &+= 1
        activeSerial = lastSerial
        return lastSerial
    }

    /// Brings the page cache up to the snapshot just taken.
    private func adoptSnapshot() throws {
        guard let snapshot = source.snapshot else { return }
        pager.hasSnapshot = true
        pager.inWriteTransaction = isWriting
        do {
            if snapshot.generation != cacheGeneration || snapshot.limit < cacheFrames {
                try pager.refresh(changed: nil)
            } else if snapshot.limit > cacheFrames {
                try pager.refresh(changed: shared.pages(inFrames: cacheFrames..<snapshot.limit))
            }
        } catch {
            endTransaction()
            throw error
        }
        cacheFrames = snapshot.limit
        cacheGeneration = snapshot.generation
    }

    private func endTransaction() {
        source.end()
        state = .none
        activeSerial = 0
        pager.hasSnapshot = false
        pager.inWriteTransaction = false
    }

    /// The transaction in progress, as a new handle on it, or nil. Transactions are held by whoever began them;
    /// this is for tests that drive the engine without keeping the handle.
    package var currentTransaction: StorageTransaction? {
        switch state {
        case .none: return nil
        case .read: return ReadTransaction(engine: self, serial: activeSerial)
        case .write: return WriteTransaction(engine: self, serial: activeSerial)
        }
    }

    /// Ends the transaction in progress (``StorageTransaction/commit()``): a write transaction's pages are appended
    /// to the log (and, at ``Durability/full``, synced). On an I/O error the transaction is rolled back and the
    /// error thrown.
    func commitActiveTransaction() throws {
        switch state {
        case .none:
            return
        case .read:
            endTransaction()
        case .write:
            do {
                try pager.commit()
            } catch {
                try? rollbackActiveTransaction()
                throw error
            }
            cacheFrames = source.committedFrames
            // The writer lock is still held: no other commit came after this one.
            lastCommitSequence = shared.commitSequence
            let due = source.checkpointDue
            source.checkpointDue = false
            endTransaction()
            // An automatic checkpoint never waits for another process's checkpoint: the next commit tries again.
            if due { _ = try? shared.checkpoint(.passive, durability: durability, processBusyTimeout: 0) }
        }
    }

    /// Ends the transaction in progress dropping every change of a write transaction, with no I/O on the database
    /// file (``StorageTransaction/rollback()``).
    func rollbackActiveTransaction() throws {
        switch state {
        case .none:
            return
        case .read:
            endTransaction()
        case .write:
            defer { endTransaction() }
            try pager.rollback()
        }
    }

    /// Copies committed log frames into the database file.
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode = .passive) throws -> CheckpointResult {
        try shared.checkpoint(mode, durability: durability, processBusyTimeout: source.processBusyTimeout)
    }

    /// Frees the page cache of this connection when no transaction is in progress (pages are read again when
    /// needed); does nothing during a transaction, whose pages are in use. Returns whether memory was freed.
    @discardableResult
    public func releaseMemory() -> Bool {
        guard state == .none, !closed else { return false }
        pager.releaseMemory()
        return true
    }

    /// The stop requests of this connection: ``InterruptFlag/set()`` may be called from any thread, and makes the
    /// running operation throw ``StorageError/interrupted`` at its next tree cursor move to another page.
    public var interruption: InterruptFlag { pager.interruption }

    /// The number of pages in this connection's page cache.
    public var cachedPageCount: Int { pager.cache.count }

    /// The state of the write-ahead log.
    public var walStatus: WALStatus { shared.status() }

    /// The object of type `T` that every connection of this process to the same database shares, made by `make`
    /// on first request (each in-memory database has its own). The layers above keep their per-file state in it.
    package func sharedAttachment<T: AnyObject>(makingIfAbsent make: () -> T) -> T {
        shared.attachment(makingIfAbsent: make)
    }

    /// The number of commits made to the database by all its connections since it was opened in this process.
    package var latestCommitSequence: UInt64 { shared.commitSequence }

    /// The catalog of named trees, read and changed through the transaction in progress.
    var catalog: Catalog { Catalog(context: treeContext) }

    /// This connection's level (`PRAGMA synchronous`): whether its commits sync the log, and what its
    /// checkpoints sync. It starts as ``StorageOptions/durability`` and may change between transactions; other
    /// connections to the same file keep their own.
    public var durability: Durability {
        get { source.durability }
        set { source.durability = newValue }
    }

    /// Seconds this connection waits for a lock another process holds (its writer lock, its checkpoint) before
    /// ``StorageError/busy(_:)``: ``StorageOptions/crossProcessBusyTimeout`` at open, or the database's
    /// ``StorageOptions/busyTimeout`` when that was nil; `PRAGMA busy_timeout` sets it. 0 fails at once.
    public var processBusyTimeout: Double {
        get { source.processBusyTimeout ?? shared.processBusyTimeout }
        set { source.processBusyTimeout = max(0, newValue) }
    }

    /// Ends any transaction (rolling back uncommitted changes) and closes
    /// the connection; the last connection to a file checkpoints and removes the log.
    public func close() throws {
        guard !closed else { return }
        try? rollbackActiveTransaction()
        closed = true
        shared.release(durability: durability)
    }
}
