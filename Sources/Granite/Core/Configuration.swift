import Dispatch
import GraniteStorage

/// How a database connection is opened and behaves.
///
/// ```swift
/// var config = Configuration()
/// config.readonly = true
/// config.foreignKeysEnabled = true   // the default
/// config.label = "MyDatabase"
/// config.prepareDatabase { db in
///     try db.execute(sql: "PRAGMA user_version")
/// }
/// let dbQueue = try DatabaseQueue(path: "/path/to/db.granite", configuration: config)
/// ```
public struct Configuration: Sendable {
    /// Whether foreign keys are enforced (default true, as GRDB configures SQLite).
    public var foreignKeysEnabled = true

    /// Whether the database is opened read-only (default false).
    public var readonly = false

    /// A label for debugging; connection descriptions are built from it.
    public var label: String?

    /// Whether errors and trace events show statement arguments (default false: they may hold private data).
    public var publicStatementArguments = false

    /// Accepted for compatibility with GRDB; Granite's SQL never takes double-quoted text for a string literal.
    public var acceptsDoubleQuotedStringLiterals = false

    /// The kind of transactions opened by `write` and `inTransaction` without an explicit kind.
    public var defaultTransactionKind: Database.TransactionKind = .deferred

    /// Whether a `writeWithoutTransaction` closure may leave a transaction open (default false: an error).
    public var allowsUnsafeTransactions = false

    /// The journal mode. Granite always writes through its write-ahead log; both cases behave the same.
    public enum JournalModeConfiguration: Sendable {
        /// The default journal mode (Granite: the write-ahead log).
        case `default`
        /// The write-ahead log.
        case wal
    }

    /// The journal mode (Granite always uses its write-ahead log).
    public var journalMode = JournalModeConfiguration.default

    /// What happens when the database is locked by another connection.
    public var busyMode: Database.BusyMode = .immediateError

    /// The maximum number of concurrent readers of a ``DatabasePool`` (default 5).
    public var maximumReaderCount: Int = 5

    /// The quality of service of database accesses.
    public var qos: DispatchQoS = .userInitiated

    /// Whether the pool keeps its reader connections open (Granite keeps them; accepted for compatibility).
    public var persistentReadOnlyConnections = false

    /// Whether memory is released on memory warnings (accepted for compatibility).
    public var automaticMemoryManagement = true

    // MARK: Granite

    /// The `PRAGMA synchronous` level each connection starts with: how hard a commit works to survive a power
    /// cut (see ``Durability``).
    ///
    /// `nil` (the default) follows GRDB: a ``DatabasePool``, and a ``DatabaseQueue`` whose ``journalMode`` is
    /// `.wal`, write at NORMAL (SQLite's advice for WAL mode: a power cut may lose the latest commits, never
    /// consistency); any other ``DatabaseQueue`` writes at FULL (every commit that returned survives a power cut).
    /// A connection can change its level later with `PRAGMA synchronous = …` outside of a transaction, and
    /// `PRAGMA synchronous` reads the level in force.
    public var durability: Durability?

    /// The page size of a new database file: a power of two from 512 to 65536 (default 4096).
    public var pageSize: Int = 4096

    /// The number of pages each connection caches (default 2000).
    public var pageCacheSize: Int = 2000

    /// TEXT values (JSON columns of Codable records, raw-SQL JSON, long text) of at least this many UTF-8 bytes
    /// are stored zlib-compressed when that saves space (default 128; `nil` turns compression off). Reading is
    /// transparent. Only values written later are affected; a negative value makes opening the database fail.
    /// A connection tries texts under 256 bytes less often in a column whose recent ones did not shrink, since
    /// each failed attempt costs time (see FORMAT.md, "When a writer compresses").
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.jsonCompressionThreshold = 4096   // compress only payloads of 4 KiB or more
    /// config.jsonCompressionThreshold = nil    // store every TEXT value plain
    /// ```
    public var jsonCompressionThreshold: Int? = 128

    // MARK: GRDB scheduling and clocks (Configuration+GRDB.swift documents what they mean to Granite)

    /// Where ``Database/transactionDate`` gets its dates (default: the system clock).
    ///
    /// ```swift
    /// config.transactionClock = .custom { _ in Date(timeIntervalSince1970: 0) }
    /// ```
    public var transactionClock: any TransactionClock = .default

    /// Whether the database listens to ``Database/suspendNotification`` and ``Database/resumeNotification``
    /// (default false). Granite never holds a lock on a file between accesses, so suspension changes nothing.
    public var observesSuspensionNotifications = false

    /// The dispatch queue that database accesses target (default nil: a global queue of quality ``qos``).
    /// Granite runs its accesses on its own serial queues; the value is kept for compatibility.
    public var targetQueue: DispatchQueue?

    /// The dispatch queue that writes target (default nil: ``targetQueue``). Kept for compatibility.
    public var writeTargetQueue: DispatchQueue?

    /// Customizes schema introspection, such as the primary key of views (default nil). See
    /// ``DatabaseSchemaSource``.
    public var schemaSource: (any DatabaseSchemaSource)?

    /// Functions run on each new connection, in order.
    var setups: [@Sendable (Database) throws -> Void] = []

    /// Creates the default configuration.
    public init() {}

    /// Runs `setup` on each connection when it opens (before any access).
    public mutating func prepareDatabase(_ setup: @escaping @Sendable (Database) throws -> Void) {
        setups.append(setup)
    }

    /// The storage options for this configuration; `defaultDurability` is the level GRDB gives the connection
    /// when ``durability`` is nil.
    func storageOptions(defaultDurability: Durability) -> StorageOptions {
        var options = StorageOptions()
        options.readOnly = readonly
        options.pageSize = pageSize
        options.cacheSize = pageCacheSize
        options.durability = durability ?? defaultDurability
        // In-process connections share the writer lock, and a checkpoint waits for readers briefly: the engine's
        // short default wait stays under `.immediateError`, so that a pool never fails spuriously.
        // Another process's lock is waited for as the busy mode says.
        switch busyMode {
        case .timeout(let seconds):
            options.busyTimeout = seconds
            options.crossProcessBusyTimeout = seconds
        case .immediateError: options.crossProcessBusyTimeout = 0
        case .callback: break
        }
        return options
    }
}

extension Configuration {
    /// The storage options of a ``DatabaseQueue``: GRDB runs a queue at NORMAL in WAL mode, else at FULL.
    var queueStorageOptions: StorageOptions {
        storageOptions(defaultDurability: journalMode == .wal ? .normal : .full)
    }
}

/// How hard a commit works to survive a power cut: SQLite's `PRAGMA synchronous` levels, with the syncs of
/// SQLite's WAL mode.
public typealias Durability = GraniteStorage.Durability

extension Database {
    /// What a connection does when another holds the lock it needs.
    public enum BusyMode: Sendable {
        /// Fail at once with `SQLITE_BUSY`.
        case immediateError
        /// Retry for up to the given number of seconds.
        case timeout(Double)
        /// Ask `callback`, with the number of tries so far, whether to try again. Granite's connections of one
        /// process wait for each other inside the engine (up to its default busy time-out) without calling
        /// back; the callback is accepted for compatibility and not called.
        case callback(BusyCallback)
    }
}
