import Foundation
import GraniteSQL
import GraniteStorage

/// A connection to the database, handed to the closures of ``DatabaseQueue`` and ``DatabasePool``: it runs
/// SQL, prepares statements, and manages transactions.
///
/// ```swift
/// try dbQueue.write { db in
///     try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 1000])
///     let id = db.lastInsertedRowID
/// }
/// ```
///
/// A `Database` is used by one thread at a time, inside the closure it was handed to.
public final class Database {
    /// The engine connection.
    let connection: SQLConnection
    /// The configuration of the connection.
    public let configuration: Configuration
    /// The connection's label, for debugging (`GRDB.DatabaseQueue`, `GRDB.DatabasePool.writer`, …).
    public let description: String

    /// Whether writes are refused (a read access, or a read-only configuration).
    var isReadOnly = false
    /// Whether a ``readOnly(_:)`` block runs: it refuses the temporary schema's writes too, which a read-only
    /// connection (a pool's reader, whatever access it runs) otherwise allows, as SQLite's `query_only` does.
    var isRefusingWrites = false
    private var traceOptions: TracingOptions = []
    private var traceHandler: ((TraceEvent) -> Void)?
    private var statementCache: [String: Statement] = [:]
    private var internalStatements: [String: Statement] = [:]
    private var scripts: [String: [GraniteSQL.Statement]] = [:]
    private var savepointDepth = 0
    /// Primary and unique keys used by the query interface, and the SQL text of record statements, valid for
    /// one schema version.
    var keyCache = DatabaseKeyCache()
    /// The result code and message of the latest failure, nil after a success (Database+LastError.swift).
    var lastError: DatabaseError? {
        didSet { hasLastError = lastError != nil }
    }
    /// Whether ``lastError`` is set: a flag that each statement start tests more cheaply than the optional.
    private(set) var hasLastError = false
    /// The date of the current transaction, taken on first request (Database+TransactionDate.swift).
    var transactionDateResult: Result<Date, any Error>?
    /// The schema source that customizes schema introspection (Database+SchemaSource.swift).
    public internal(set) var schemaSource: (any DatabaseSchemaSource)?
    /// The delivery of change events to transaction observers, created with the first observer
    /// (Database+TransactionObservers.swift).
    @exclusivity(unchecked) var observationBroker: DatabaseObservationBroker?
    /// Whether a transaction ended and its observers have not been told yet.
    @exclusivity(unchecked) var hasPendingTransactionEnd = false
    /// While an observation fetches its value, the region its statements read (Database+Observation.swift).
    @exclusivity(unchecked) var recordedRegion: DatabaseRegion? {
        didSet { isRecordingRegion = recordedRegion != nil }
    }
    /// Whether ``recordedRegion`` is set: a flag that each statement start tests more cheaply than the optional.
    @exclusivity(unchecked) private(set) var isRecordingRegion = false
    /// The commits of the database file, shared with the other connections of this process to it, and this
    /// connection's view of it (Database+ChangeFeed.swift).
    let changeFeed: DatabaseChangeFeed
    @exclusivity(unchecked) var changeFeedState = ChangeFeedState()
    /// While a request dump runs its prefetches, told about each prefetch query before it runs, so that the
    /// dump prints its rows too (Database+Dump.swift).
    @exclusivity(unchecked) var prefetchWillExecute: ((QueryInterfaceRequest<Row>, [String]) throws -> Void)?
    /// Whether this connection's commits go to the change feed (it can write).
    let publishesToChangeFeed: Bool
    /// The engine's stop requests, held here so that each statement start checks it without a retain
    /// (Database+Interrupt.swift).
    let interruption: InterruptFlag

    init(connection: SQLConnection, configuration: Configuration, description: String) throws {
        self.connection = connection
        self.configuration = configuration
        self.description = description
        interruption = connection.engine.interruption
        changeFeed = connection.engine.sharedAttachment { DatabaseChangeFeed() }
        publishesToChangeFeed = !configuration.readonly
        connection.foreignKeysEnabled = configuration.foreignKeysEnabled
        if let threshold = configuration.jsonCompressionThreshold, threshold < 0 {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "invalid jsonCompressionThreshold \(threshold): use a byte count of 0 or more, or nil")
        }
        connection.textCompressionThreshold = configuration.jsonCompressionThreshold
        isReadOnly = configuration.readonly
        if configuration.readonly { connection.isReadOnlyConnection = true }
        schemaSource = configuration.schemaSource
        addStandardFunctionsAndCollations()
    }

    // MARK: Changes

    /// The rowid of the last row inserted by a successful INSERT on this connection.
    public var lastInsertedRowID: Int64 { connection.lastInsertedRowid }

    /// The number of rows changed by the last INSERT, UPDATE or DELETE.
    public var changesCount: Int { connection.changes }

    /// The number of rows changed by INSERT, UPDATE and DELETE since the connection opened.
    public var totalChangesCount: Int { connection.totalChanges }

    /// Whether a transaction is open.
    public var isInsideTransaction: Bool { connection.transactionState.isInsideTransaction }

    // MARK: Executing SQL

    /// Executes one or several statements separated by semicolons. The arguments are consumed by the
    /// statements in order; some left over is an error.
    ///
    /// ```swift
    /// try db.execute(sql: """
    ///     INSERT INTO player (name) VALUES (?);
    ///     INSERT INTO player (name) VALUES (?);
    ///     """, arguments: ["Arthur", "Barbara"])
    /// ```
    public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        var remaining = arguments
        let parsed: [GraniteSQL.Statement]
        if let cached = scripts[sql] {
            parsed = cached
        } else {
            do {
                parsed = try Parser.parseScript(sql)
            } catch {
                throw DatabaseError.from(error, sql: sql, arguments: arguments)
            }
            if scripts.count >= 64 { scripts.removeAll() }
            scripts[sql] = parsed
        }
        for ast in parsed {
            let statement: Statement
            if parsed.count == 1 {
                statement = try internalStatement(sql: sql)
            } else {
                statement = try internalStatement(sql: ast.sourceText)
            }
            let values = try remaining.extractBindings(
                for: statement.argumentNames, sql: statement.sql, allowingRemainingValues: true)
            try statement.bind(values, arguments)
            try statement.execute()
        }
        if !remaining.values.isEmpty {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.values.count)",
                sql: sql, arguments: arguments)
        }
    }

    /// Executes the statements of an SQL literal, whose interpolated values become arguments.
    ///
    /// ```swift
    /// try db.execute(literal: "UPDATE player SET name = \(name) WHERE id = \(id)")
    /// ```
    public func execute(literal sqlLiteral: SQL) throws {
        let (sql, arguments) = try sqlLiteral.build(self)
        try execute(sql: sql, arguments: arguments)
    }

    /// A new prepared statement for the single statement in `sql`.
    public func makeStatement(sql: String) throws -> Statement {
        try Statement(database: self, prepared: prepare(sql))
    }

    /// A new prepared statement for an SQL literal, with its arguments set.
    public func makeStatement(literal sqlLiteral: SQL) throws -> Statement {
        let (sql, arguments) = try sqlLiteral.build(self)
        let statement = try makeStatement(sql: sql)
        try statement.setArguments(arguments)
        return statement
    }

    /// The prepared statement for `sql`, prepared once per connection and reused.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try makeStatement(sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// The prepared statement for an SQL literal, with its arguments set.
    public func cachedStatement(literal sqlLiteral: SQL) throws -> Statement {
        let (sql, arguments) = try sqlLiteral.build(self)
        let statement = try cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        return statement
    }

    /// Forgets the cached statements (the schema changes do not require it: statements re-plan themselves).
    public func clearStatementCache() {
        statementCache.removeAll()
        internalStatements.removeAll()
        scripts.removeAll()
        connection.clearStatementCache()
    }

    /// A statement for the fetch and execute methods: cached, or fresh when the cached one is still running.
    @usableFromInline
    func internalStatement(sql: String) throws -> Statement {
        if let statement = internalStatements[sql], !statement.prepared.isActive { return statement }
        let statement = try Statement(database: self, prepared: prepare(sql))
        if internalStatements[sql] == nil {
            if internalStatements.count >= 256 { internalStatements.removeAll() }
            internalStatements[sql] = statement
        }
        return statement
    }

    private func prepare(_ sql: String) throws -> PreparedStatement {
        do {
            return try connection.prepare(sql)
        } catch let error as SQLExecutionError where error.statementCount == .several {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message:
                    "Multiple statements found. To execute multiple statements, use Database.execute(sql:) instead.",
                sql: sql)
        } catch {
            throw noteFailure(DatabaseError.from(error, sql: sql))
        }
    }

    // MARK: Statement events

    /// Called before each execution: refuses writes on read-only access, and traces. Inlined, with one test for
    /// the common statement (no error to forget, no stop request, no tracing, no refused write).
    @inline(__always)
    func statementWillExecute(_ statement: Statement) throws {
        if hasLastError || interruption.isSet || traceHandler != nil || (isReadOnly && !statement.isReadonly)
            || isRecordingRegion
        {
            try prepareUnusualExecution(statement)
        }
    }

    /// ``statementWillExecute(_:)`` for a statement that needs more than the common checks.
    private func prepareUnusualExecution(_ statement: Statement) throws {
        if hasLastError { lastError = nil }
        if interruption.isSet { withdrawInterruptIfIdle() }
        // A read-only connection (a pool's reader) may change its own temporary schema, as in SQLite; a
        // `readOnly` block refuses every write.
        let temporaryOnly = configuration.readonly && !isRefusingWrites && statement.changesOnlyTemporarySchema
        if isReadOnly && !statement.isReadonly && !temporaryOnly {
            throw DatabaseError(
                resultCode: .SQLITE_READONLY, message: "attempt to write a readonly database", sql: statement.sql,
                arguments: statement.arguments, publicStatementArguments: configuration.publicStatementArguments)
        }
        if recordedRegion != nil { recordedRegion!.formUnion(statement.databaseRegion) }
        if traceOptions.contains(.statement), let traceHandler {
            traceHandler(.statement(TraceEvent.Statement(statement, public: configuration.publicStatementArguments)))
        }
    }

    /// Called when an execution completes.
    func statementDidFinish(_ statement: Statement) {
        if transactionDateResult != nil { forgetTransactionDateOutsideTransaction() }
        if hasPendingTransactionEnd { deliverTransactionEnd() }
        noteStatementForChangeFeed()
    }

    /// Whether profile events are traced.
    var isProfiling: Bool { traceOptions.contains(.profile) && traceHandler != nil }

    func profile(_ statement: Statement, duration: Duration) {
        guard let traceHandler else { return }
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        traceHandler(
            .profile(
                statement: TraceEvent.Statement(statement, public: configuration.publicStatementArguments),
                duration: seconds))
    }

    /// The error thrown for a failed execution, with the statement's SQL and arguments.
    func failure(_ error: any Error, in statement: Statement) -> any Error {
        if transactionDateResult != nil { forgetTransactionDateOutsideTransaction() }
        if hasPendingTransactionEnd { deliverTransactionEnd() }
        noteStatementForChangeFeed()
        return noteFailure(
            DatabaseError.from(
                error, sql: statement.sql, arguments: statement.arguments,
                publicArguments: configuration.publicStatementArguments))
    }

    func noColumnError(_ statement: Statement) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE, message: "statement returns no column", sql: statement.sql)
    }

    // MARK: Tracing

    /// The kinds of events ``trace(options:_:)`` reports.
    public struct TracingOptions: OptionSet, Sendable {
        /// The raw bits.
        public let rawValue: CInt
        /// Creates options.
        public init(rawValue: CInt) { self.rawValue = rawValue }
        /// Each statement, as it starts running.
        public static let statement = TracingOptions(rawValue: 1)
        /// Each statement with its duration, when it completes.
        public static let profile = TracingOptions(rawValue: 2)
    }

    /// An event reported by ``trace(options:_:)``.
    public enum TraceEvent: CustomStringConvertible {
        /// A statement as it runs.
        public struct Statement: CustomStringConvertible {
            /// The SQL text, without its arguments.
            public let sql: String
            private let expand: () -> String
            private let isPublic: Bool

            init(_ statement: Granite.Statement, public isPublic: Bool) {
                sql = statement.sql
                let prepared = statement.prepared
                let arguments = prepared.boundValues
                expand = { ExpandedSQL.render(sql: prepared.sql, parameters: prepared.parameters, values: arguments) }
                self.isPublic = isPublic
            }

            /// The SQL text with the arguments inlined, as SQLite's expanded SQL shows them.
            public var expandedSQL: String { expand().trimmedSQLStatement }

            /// The SQL, with arguments only when the configuration makes them public.
            public var description: String { isPublic ? expandedSQL : sql }
        }

        /// A statement starts running.
        case statement(Statement)
        /// A statement completed after `duration` seconds.
        case profile(statement: Statement, duration: TimeInterval)

        /// The SQL (arguments hidden unless public), prefixed by the duration for profile events.
        public var description: String {
            switch self {
            case .statement(let statement): return statement.description
            case .profile(let statement, let duration): return String(format: "%.3f", duration) + "s \(statement)"
            }
        }

        /// The SQL with arguments inlined, prefixed by the duration for profile events.
        public var expandedDescription: String {
            switch self {
            case .statement(let statement): return statement.expandedSQL
            case .profile(let statement, let duration):
                return String(format: "%.3f", duration) + "s \(statement.expandedSQL)"
            }
        }
    }

    /// Reports statements to `trace` (nil stops tracing).
    ///
    /// ```swift
    /// db.trace { print($0.expandedDescription) }
    /// // INSERT INTO player (name) VALUES ('Arthur')
    /// ```
    public func trace(options: TracingOptions = .statement, _ trace: ((TraceEvent) -> Void)? = nil) {
        traceOptions = trace == nil ? [] : options
        traceHandler = trace
    }

    // MARK: Transactions

    /// The kind of a transaction.
    public enum TransactionKind: String, Sendable {
        /// `BEGIN DEFERRED`: no lock until the first statement. The first read takes a snapshot of the latest
        /// commit; the first write takes the writer lock on that snapshot, and fails with `SQLITE_BUSY_SNAPSHOT`
        /// when another connection committed after it (roll back, and run the transaction again).
        case deferred = "DEFERRED"
        /// `BEGIN IMMEDIATE`: takes the writer lock at once (waiting as the busy mode says), so the transaction's
        /// writes cannot fail with `SQLITE_BUSY_SNAPSHOT`.
        case immediate = "IMMEDIATE"
        /// `BEGIN EXCLUSIVE`: as `immediate` (in WAL mode, SQLite's exclusive transaction keeps no reader out
        /// either).
        case exclusive = "EXCLUSIVE"
    }

    /// How a transaction closure ends.
    @frozen
    public enum TransactionCompletion: Sendable {
        /// Commit the changes.
        case commit
        /// Roll the changes back.
        case rollback
    }

    /// Begins a transaction.
    public func beginTransaction(_ kind: TransactionKind? = nil) throws {
        let kind = kind ?? configuration.defaultTransactionKind
        try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION")
    }

    /// Commits the current transaction.
    public func commit() throws {
        if connection.isInSnapshotRead {
            transactionDateResult = nil
            try wrap { try connection.endSnapshotRead() }
            return
        }
        try execute(sql: "COMMIT TRANSACTION")
    }

    /// Rolls the current transaction back (does nothing outside a transaction).
    public func rollback() throws {
        if connection.isInSnapshotRead {
            transactionDateResult = nil
            try wrap { try connection.endSnapshotRead() }
            return
        }
        guard connection.isInTransaction else { return }
        try execute(sql: "ROLLBACK TRANSACTION")
    }

    /// Runs `block` in a transaction, committed or rolled back as it returns; rolled back when it throws.
    ///
    /// ```swift
    /// try db.inTransaction {
    ///     try db.execute(sql: "INSERT ...")
    ///     return .commit
    /// }
    /// ```
    public func inTransaction(_ kind: TransactionKind? = nil, _ block: () throws -> TransactionCompletion) throws {
        try beginTransaction(kind)
        let completion: TransactionCompletion
        do {
            completion = try block()
        } catch {
            if connection.isInTransaction { try? rollback() }
            throw error
        }
        switch completion {
        case .commit:
            do {
                // The block may have ended the transaction itself.
                if connection.isInTransaction { try commit() }
            } catch {
                try? rollback()
                throw error
            }
        case .rollback:
            try rollback()
        }
    }

    /// Runs `block` in a savepoint (in a transaction when none is open), released or rolled back as it
    /// returns; rolled back when it throws.
    public func inSavepoint(_ block: () throws -> TransactionCompletion) throws {
        guard isInsideTransaction else {
            try inTransaction(nil, block)
            return
        }
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "grdb" + (savepointDepth == 1 ? "" : String(savepointDepth))
        try execute(sql: "SAVEPOINT \(name)")
        let completion: TransactionCompletion
        do {
            completion = try block()
        } catch {
            if connection.isInTransaction {
                try? execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
                try? execute(sql: "RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
        switch completion {
        case .commit:
            try execute(sql: "RELEASE SAVEPOINT \(name)")
        case .rollback:
            try execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
            try execute(sql: "RELEASE SAVEPOINT \(name)")
        }
    }

    /// Runs `block` with writes refused: a statement that writes throws `SQLITE_READONLY` ("attempt to write a
    /// readonly database"). Calls nest; writes are allowed again when the outermost call returns.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.readOnly { try Player.fetchAll(db) }   // an insert in here would throw
    /// }
    /// ```
    ///
    /// - Parameter block: The closure that reads.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    public func readOnly<T>(_ block: () throws -> T) throws -> T {
        // GRDB's `readOnly` is SQLite's `query_only`, which refuses the temporary schema's writes too.
        let wasRefusingWrites = isRefusingWrites
        isRefusingWrites = true
        defer { isRefusingWrites = wasRefusingWrites }
        return try refusingWrites(block)
    }

    /// Runs `block` with writes refused (`SQLITE_READONLY`): ``readOnly(_:)`` for non-throwing callers.
    func refusingWrites<T>(_ block: () throws -> T) rethrows -> T {
        let wasReadOnly = isReadOnly
        isReadOnly = true
        defer { isReadOnly = wasReadOnly }
        return try block()
    }

    /// Runs `block` on a stable snapshot with writes refused: the isolation of `read`.
    func isolatedRead<T>(_ block: () throws -> T) throws -> T {
        try wrap { try connection.beginSnapshotRead() }
        defer {
            try? connection.endSnapshotRead()
            transactionDateResult = nil
        }
        return try refusingWrites(block)
    }

    /// Runs `block` with writes refused, on one snapshot when `isolated`.
    func readAccess<T>(isolated: Bool, _ block: () throws -> T) throws -> T {
        isolated ? try isolatedRead(block) : try refusingWrites(block)
    }

    /// Runs `block` in a write transaction, committed when it returns.
    func writeInTransaction<T>(_ kind: TransactionKind? = nil, _ block: () throws -> T) throws -> T {
        var result: T?
        try inTransaction(kind) {
            result = try block()
            return .commit
        }
        return result!
    }

    /// Converts engine errors thrown by `body`.
    func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw noteFailure(DatabaseError.from(error))
        }
    }
}

@available(*, unavailable)
extension Database: Sendable {}

extension Database: CustomStringConvertible {}
