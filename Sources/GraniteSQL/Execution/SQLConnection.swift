import GraniteStorage

/// A SQL session over one ``StorageEngine``: parses, plans (trivially) and executes statements.
///
/// Outside an explicit transaction each statement runs in its own transaction (autocommit). Inside one, each
/// statement runs under a storage savepoint so that a failing statement leaves the data as it was before it.
///
/// ```swift
/// let db = try SQLConnection(engine: try StorageEngine.inMemory())
/// try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
/// try db.execute("INSERT INTO t(name) VALUES (?)", arguments: [.text("Ada")])
/// let result = try db.query("SELECT id, name FROM t")
/// ```
///
/// The connection's scalar state (change counters, transaction state) is never accessed through overlapping
/// `inout`s, so those properties skip dynamic exclusivity checks, which the per-statement path would pay many times.
public final class SQLConnection {
    /// The storage engine the connection runs on.
    public let engine: StorageEngine
    /// The schema catalog, reloaded after rollbacks.
    @exclusivity(unchecked) package internal(set) var catalog: SchemaCatalog

    /// The counters below, which the SQL functions reading them hold.
    package let counters = ConnectionCounters()
    /// The rowid of the most recent successful INSERT on this connection (SQLite's `last_insert_rowid()`).
    public internal(set) var lastInsertedRowid: Int64 {
        get { counters.lastInsertedRowid }
        set { counters.lastInsertedRowid = newValue }
    }
    /// The rows inserted, updated or deleted by the most recent INSERT, UPDATE or DELETE (`changes()`).
    public internal(set) var changes: Int {
        get { counters.changes }
        set { counters.changes = newValue }
    }
    /// The rows inserted, updated or deleted since the connection opened (`total_changes()`).
    public internal(set) var totalChanges: Int {
        get { counters.totalChanges }
        set { counters.totalChanges = newValue }
    }
    /// Table writers by table name, valid for catalog version ``writerCacheVersion``.
    var writerCache: [String: TableWriter] = [:]
    var writerCacheVersion = -1
    /// Foreign keys referencing each table, valid for catalog version ``referenceCacheVersion``.
    var referenceCache: [Int64: [(child: TableDefinition, key: Int)]] = [:]
    var referenceCacheVersion = -1

    /// How many trigger programs are running, nested (see SQLConnection+Triggers.swift).
    var triggerDepth = 0
    /// The triggers of views by view name, valid for catalog version ``viewTriggerCacheVersion``.
    var viewTriggerCache: [String: TableTriggers] = [:]
    var viewTriggerCacheVersion = -1

    /// The memory (in bytes, estimated) one sort may use before it spills sorted runs to temporary files.
    @exclusivity(unchecked) public var sortMemoryLimit = 64 << 20
    /// Whether foreign key constraints are enforced (`PRAGMA foreign_keys`; on by default, as GRDB configures it).
    @exclusivity(unchecked) public var foreignKeysEnabled = true
    /// Whether a trigger may fire itself, and REPLACE's deletions fire DELETE triggers
    /// (`PRAGMA recursive_triggers`; off by default, as in SQLite).
    @exclusivity(unchecked) public var recursiveTriggers = false
    /// The UTF-8 length from which TEXT values written to tables are stored zlib-compressed, when that saves
    /// space (default 128; `nil`: never). Reading is unaffected: compressed and plain text read alike.
    ///
    /// ```swift
    /// db.textCompressionThreshold = 1024   // compress only TEXT of 1 KiB or more
    /// db.textCompressionThreshold = nil    // store every TEXT plain
    /// ```
    ///
    /// A threshold of 0 or less tries to compress every TEXT value. Texts under 256 bytes of a column whose
    /// recent ones did not shrink are tried less often (FORMAT.md § "When a writer compresses"); setting this
    /// property, even to its current value, makes writers try every eligible text again.
    public var textCompressionThreshold: Int? = 128 {
        didSet {
            // Writers already made (some held by cached statements) switch to the new threshold.
            for writer in writerCache.values { writer.compressionThreshold = textCompressionThreshold }
        }
    }

    /// What transaction the connection is in (see ``TransactionState``, whose file holds every transition).
    @exclusivity(unchecked) package internal(set) var transactionState = TransactionState.idle
    /// The running writing statement's savepoint inside an explicit transaction.
    @exclusivity(unchecked) var statementSavepoint = StatementSavepoint.none
    /// The storage transaction the connection began and has not ended yet: the read snapshot of running
    /// statements, or the write transaction of an explicit transaction or autocommit statement (see
    /// ``TransactionState``, whose file begins and ends it).
    @exclusivity(unchecked) var storageTransaction = HeldStorageTransaction.none

    /// The storage of the temporary schema, made on its first use (see SQLConnection+Temporary.swift); nil while
    /// the connection never used it, which is the only test the transaction calls make.
    @exclusivity(unchecked) var temporaryStore: TemporaryStore?

    /// Whether the connection may not write the database (a read-only file, or a pool's reader): it still writes
    /// its temporary schema, without taking the database's write lock, as a read-only SQLite connection does.
    @exclusivity(unchecked) package var isReadOnlyConnection: Bool

    /// Whether an explicit transaction (`BEGIN` or an outermost `SAVEPOINT`) is open.
    public var isInTransaction: Bool { transactionState.isInTransaction }
    /// Whether a read snapshot begun by ``beginSnapshotRead()`` is open.
    public var isInSnapshotRead: Bool { transactionState.isInSnapshotRead }

    /// Receives every row change and the end of every writing statement, savepoint and transaction (see
    /// ``SQLChangeObserver``); nil, the default, reports nothing. The connection holds the observer strongly.
    ///
    /// Set it between statements: a statement reports to the observer that was set when it began.
    @exclusivity(unchecked) public var changeObserver: (any SQLChangeObserver)?
    /// While a read region is computed (ReadRegion.swift), the stored table sources the select compiler adds.
    @exclusivity(unchecked) var readSourceRecorder: [QuerySource]?

    /// Opens a session on `engine`, loading its schema.
    public init(engine: StorageEngine) throws {
        self.engine = engine
        isReadOnlyConnection = engine.pager.isReadOnly
        catalog = SchemaCatalog()
        try reloadCatalog()
    }

    /// Opens a session that reads in `transaction`, which the caller began and ends: the schema is loaded, and
    /// integrity checks run, on that transaction's snapshot (`granite check`, whose report is of one snapshot).
    /// Only for reading the catalog and checking: a statement run on it would end the caller's transaction as
    /// its own.
    package init(readingIn transaction: ReadTransaction) throws {
        engine = transaction.engine
        isReadOnlyConnection = engine.pager.isReadOnly
        catalog = SchemaCatalog()
        storageTransaction = .read(transaction)
        try reloadCatalog()
    }

    // MARK: Statements

    /// The most recently used prepared statements, by SQL text (see ``cachedStatement(_:)``).
    private var statementCache: [String: PreparedStatement] = [:]
    private var statementCacheOrder: [String] = []
    /// The maximum number of statements ``cachedStatement(_:)`` keeps.
    public var statementCacheCapacity = 128
    /// Parsed and compiled `SELECT` statements, by SQL text: a statement prepared again from the same text
    /// skips parsing, and planning while the schema is unchanged (each statement still runs its own cursor).
    private var selectCache: [String: (statement: Statement, program: SelectProgram, version: Int)] = [:]
    /// The maximum number of entries of ``selectCache`` (it is emptied when full).
    private static let selectCacheCapacity = 64
    /// Parsed scripts run by ``execute(_:arguments:)``, by SQL text.
    private var scriptCache: [String: [(statement: Statement, cache: WriteCache)]] = [:]
    /// The functions and collations the application registered (see SQLConnection+Functions.swift).
    let functionScope = SQLFunctionScope()

    /// Parses and plans the single statement in `sql`. Throws when `sql` holds no statement or several.
    public func prepare(_ sql: String) throws -> PreparedStatement {
        do {
            return try withFunctionRegistry { try prepareWithoutSuggestions(sql) }
        } catch {
            throw withSuggestion(error)
        }
    }

    private func prepareWithoutSuggestions(_ sql: String) throws -> PreparedStatement {
        if let cached = selectCache[sql] {
            let prepared = try PreparedStatement(
                connection: self, statement: cached.statement, compiled: (cached.program, cached.version))
            if let (program, version) = prepared.compiledProgram, program !== cached.program {
                selectCache[sql] = (cached.statement, program, version)
            }
            return prepared
        }
        let statements = try Parser.parseScript(sql)
        guard statements.count == 1 else {
            var error = SQLExecutionError(
                .misuse,
                statements.isEmpty ? "no statement in SQL" : "multiple statements found in SQL: use execute")
            error.statementCount = statements.isEmpty ? SQLExecutionError.StatementCount.none : .several
            throw error
        }
        let prepared = try PreparedStatement(connection: self, statement: statements[0])
        if case .select = statements[0].kind, let (program, version) = prepared.compiledProgram {
            if selectCache.count >= Self.selectCacheCapacity { selectCache.removeAll() }
            selectCache[sql] = (statements[0], program, version)
        }
        return prepared
    }

    /// Plans an already parsed statement (one element of ``Parser/parseScript(_:)``).
    package func prepare(parsed statement: Statement) throws -> PreparedStatement {
        do {
            return try withFunctionRegistry { try PreparedStatement(connection: self, statement: statement) }
        } catch {
            throw withSuggestion(error)
        }
    }

    /// Prepares each statement of `sql`, in order.
    public func prepareScript(_ sql: String) throws -> [PreparedStatement] {
        try withFunctionRegistry {
            try Parser.parseScript(sql).map { try PreparedStatement(connection: self, statement: $0) }
        }
    }

    /// A prepared statement for `sql`, reused across calls with the same text (reset, arguments kept until
    /// rebound). Returns a fresh statement when the cached one is still running.
    public func cachedStatement(_ sql: String) throws -> PreparedStatement {
        if let cached = statementCache[sql], !cached.isActive {
            cached.reset()
            return cached
        }
        let statement = try prepare(sql)
        if statementCache[sql] == nil {
            statementCacheOrder.append(sql)
            if statementCacheOrder.count > statementCacheCapacity {
                statementCache[statementCacheOrder.removeFirst()] = nil
            }
        }
        statementCache[sql] = statement
        return statement
    }

    /// Empties the statement cache.
    public func clearStatementCache() {
        statementCache.removeAll()
        selectCache.removeAll()
        statementCacheOrder.removeAll()
        scriptCache.removeAll()
    }

    /// Executes every statement of `sql`, discarding any result rows. `arguments` are bound, by position, to each
    /// statement that uses parameters (their number must match).
    public func execute(_ sql: String, arguments: [Value] = []) throws {
        let statements: [(statement: Statement, cache: WriteCache)]
        if let cached = scriptCache[sql] {
            statements = cached
        } else {
            statements = try Parser.parseScript(sql).map { ($0, WriteCache()) }
            if scriptCache.count >= 64 { scriptCache.removeAll() }
            scriptCache[sql] = statements
        }
        if !arguments.isEmpty, !statements.contains(where: { $0.statement.parameters.count > 0 }) {
            throw SQLExecutionError(
                .misuse, "wrong number of arguments: the SQL uses 0 parameters, \(arguments.count) given")
        }
        for (statement, cache) in statements {
            do {
                _ = try withFunctionRegistry {
                    try run(statement, arguments: statement.parameters.count > 0 ? arguments : [], cache: cache)
                }
            } catch {
                throw withSuggestion(error)
            }
        }
    }

    /// Executes one statement and returns its result columns and rows (empty for statements other than `SELECT`).
    public func query(_ sql: String, arguments: [Value] = []) throws -> (columns: [String], rows: [[Value]]) {
        let statement = try prepare(sql)
        if !arguments.isEmpty { try statement.bind(arguments) }
        let rows = try statement.all()
        return (statement.columnNames, rows)
    }

    /// The result column names of `statement` before it runs.
    func resultColumns(of prepared: PreparedStatement) throws -> [String] {
        switch prepared.statement.kind {
        case .select(let select):
            return try withReadTransaction { try prepared.selectProgram(select).columnNames }
        case .explain(queryPlan: true, _):
            return Self.explainColumns
        case .insert(let s): return try returningNames(s.returning, s.table, prepared.statement)
        case .update(let s): return try returningNames(s.returning, s.table, prepared.statement)
        case .delete(let s): return try returningNames(s.returning, s.table, prepared.statement)
        default: return []
        }
    }

    private func returningNames(_ columns: [ResultColumn]?, _ table: QualifiedName, _ statement: Statement) throws
        -> [String]
    {
        guard let columns else { return [] }
        let definition = catalog.table(table)
        var names: [String] = []
        for column in columns {
            switch column {
            case .all, .allOf:
                if definition == nil, let view = catalog.view(table) {
                    names += try viewColumnNames(view)
                    continue
                }
                guard let definition else { throw SQLExecutionError.noSuchTable(table.name) }
                names += definition.columns.map(\.name)
            case .expression(let e, let alias):
                names.append(alias ?? Self.returningName(e, definition, statement))
            }
        }
        return names
    }

    // MARK: Running statements

    private func run(_ statement: Statement, arguments: [Value], cache: WriteCache? = nil) throws -> (
        columns: [String], rows: [[Value]]
    ) {
        // No arguments at all leaves every parameter unbound (NULL), as SQLite does; a wrong count is an error.
        guard arguments.isEmpty || arguments.count == statement.parameters.count else {
            throw SQLExecutionError(
                .misuse,
                "wrong number of arguments: the statement uses \(statement.parameters.count) parameters, "
                    + "\(arguments.count) given")
        }
        return try run(statement, parameters: BoundParameters(arguments), cache: cache)
    }

    /// Runs one statement with bound parameters.
    func run(_ statement: Statement, parameters: BoundParameters, cache: WriteCache? = nil) throws -> (
        columns: [String], rows: [[Value]]
    ) {
        switch statement.kind {
        case .begin(let mode):
            try beginTransaction(mode)
            return ([], [])
        case .commit:
            try commitTransaction()
            return ([], [])
        case .rollback(let name?):
            try rollbackToSavepoint(name)
            return ([], [])
        case .rollback(nil):
            try rollbackTransaction()
            return ([], [])
        case .savepoint(let name):
            try openSavepoint(name)
            return ([], [])
        case .release(let name):
            try releaseSavepoint(name)
            return ([], [])
        case .select(let select):
            return try withReadTransaction { try self.select(select, statement: statement, parameters: parameters) }
        case .explain(queryPlan: true, let inner):
            guard case .select(let select) = inner.kind else {
                return try withReadTransaction { (Self.explainColumns, try self.explainWrite(inner)) }
            }
            return try withReadTransaction {
                try self.select(select, statement: inner, parameters: parameters, explain: true)
            }
        case .pragma(let pragma):
            return try self.pragma(pragma, parameters: parameters)
        case .explain:
            throw SQLExecutionError.unsupported("EXPLAIN")
        case .reindex(let name):
            try reindex(name)
            return ([], [])
        case .vacuum(let schema, let file):
            try vacuum(schema: schema, into: file, parameters: parameters)
            return ([], [])
        default:
            // UPDATE and DELETE open the savepoint themselves once they know it is needed; a one-row INSERT that
            // checks everything before writing never needs one.
            // A read-only connection may still change its temporary schema, as in SQLite.
            if !isInTransaction, writesOnlyInTemporaryStore, changesOnlyTemporarySchema(statement) {
                return try inTemporaryOnlyTransaction { try write(statement, parameters: parameters, cache: cache) }
            }
            if isInTransaction { try ensureWriteTransaction() }
            var deferred = false
            var keepsPartialWrites = false
            if isInTransaction, let cache {
                // A one-row INSERT that needs no savepoint never opens one: what a failure would keep is moot, and
                // working it out costs more than the insert (a script runs each statement once).
                var opensNoSavepoint = false
                switch statement.kind {
                case .update, .delete: deferred = true
                default:
                    deferred = needsNoSavepoint(statement, cache)
                    opensNoSavepoint = deferred
                }
                cache.validate(version: catalog.schemaVersion, foreignKeys: foreignKeysEnabled)
                if !opensNoSavepoint {
                    if cache.withoutJournal == nil || cache.withoutJournalRecursiveTriggers != recursiveTriggers {
                        cache.withoutJournal = runsWithoutStatementJournal(statement)
                        cache.withoutJournalRecursiveTriggers = recursiveTriggers
                    }
                    keepsPartialWrites = cache.withoutJournal ?? false
                }
            }
            return try atomically(deferringSavepoint: deferred, keepingPartialWrites: keepsPartialWrites) {
                try write(statement, parameters: parameters, cache: cache)
            }
        }
    }
}
