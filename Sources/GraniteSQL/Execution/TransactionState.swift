import GraniteStorage

/// What transaction an ``SQLConnection`` is in, and the running `SELECT` statements that read through it.
///
/// Every case but ``idle`` counts the running statement reads (`SELECT` cursors between their first step and
/// their end): they share the connection's read snapshot, and whichever transaction is open, they need the
/// engine to keep reading when it ends (see ``SQLConnection/acquireStatementRead()``).
///
/// The transitions are the `mutating` functions below; ``SQLConnection`` performs them, with the storage engine
/// calls that go with them, in its extension in this file.
package enum TransactionState: Equatable {
    /// No transaction, no running statement.
    case idle
    /// Outside a transaction, `count` (one or more) running statements share one read snapshot.
    case statementReads(count: Int)
    /// A read-only snapshot begun by ``SQLConnection/beginSnapshotRead()``.
    case snapshot(statementReads: Int)
    /// A writing statement running in its own transaction (autocommit); `insideSnapshot` when a snapshot read was
    /// open when it began, which is the state it returns to.
    case autocommit(statementReads: Int, insideSnapshot: Bool)
    /// An explicit transaction, begun by `BEGIN` or by an outermost `SAVEPOINT`.
    case explicit(ExplicitTransaction)

    /// Whether there is no transaction and no running statement.
    package var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }

    /// Whether an explicit transaction is open.
    package var isInTransaction: Bool {
        if case .explicit = self { return true }
        return false
    }

    /// Whether a read snapshot begun by ``SQLConnection/beginSnapshotRead()`` is open (possibly with an explicit
    /// transaction or an autocommit statement begun inside it).
    package var isInSnapshotRead: Bool {
        switch self {
        case .idle, .statementReads: return false
        case .snapshot: return true
        case .autocommit(_, let insideSnapshot): return insideSnapshot
        case .explicit(let transaction): return transaction.insideSnapshot
        }
    }

    /// Whether the connection is in a transaction as GRDB's `isInsideTransaction` means it: an explicit
    /// transaction or a snapshot read.
    package var isInsideTransaction: Bool { isInTransaction || isInSnapshotRead }

    /// The number of running statement reads.
    package var statementReads: Int {
        switch self {
        case .idle: return 0
        case .statementReads(let count): return count
        case .snapshot(let count): return count
        case .autocommit(let count, _): return count
        case .explicit(let transaction): return transaction.statementReads
        }
    }

    /// The state with `statementReads` running statement reads and no transaction, or the snapshot if
    /// `insideSnapshot`.
    private static func outsideTransaction(statementReads: Int, insideSnapshot: Bool) -> TransactionState {
        if insideSnapshot { return .snapshot(statementReads: statementReads) }
        return statementReads != 0 ? .statementReads(count: statementReads) : .idle
    }

    // MARK: Transitions

    /// A `SELECT` starts (`delta` 1) or ends (`delta` -1).
    mutating func countStatementRead(_ delta: Int) {
        switch self {
        case .idle, .statementReads:
            self = Self.outsideTransaction(statementReads: statementReads + delta, insideSnapshot: false)
        case .snapshot(let count):
            self = .snapshot(statementReads: count + delta)
        case .autocommit(let count, let insideSnapshot):
            self = .autocommit(statementReads: count + delta, insideSnapshot: insideSnapshot)
        case .explicit(var transaction):
            self = .idle
            transaction.statementReads += delta
            self = .explicit(transaction)
        }
    }

    /// ``SQLConnection/beginSnapshotRead()``; the caller has checked that no snapshot or explicit transaction
    /// is open.
    mutating func beginSnapshot() {
        switch self {
        case .idle, .statementReads, .snapshot:
            self = .snapshot(statementReads: statementReads)
        case .autocommit(let count, _):
            self = .autocommit(statementReads: count, insideSnapshot: true)
        case .explicit:
            break
        }
    }

    /// ``SQLConnection/endSnapshotRead()``.
    mutating func endSnapshot() {
        switch self {
        case .idle, .statementReads:
            break
        case .snapshot(let count):
            self = Self.outsideTransaction(statementReads: count, insideSnapshot: false)
        case .autocommit(let count, _):
            self = .autocommit(statementReads: count, insideSnapshot: false)
        case .explicit(var transaction):
            self = .idle
            transaction.insideSnapshot = false
            self = .explicit(transaction)
        }
    }

    /// A writing statement begins its own transaction.
    mutating func beginAutocommit() {
        self = .autocommit(statementReads: statementReads, insideSnapshot: isInSnapshotRead)
    }

    /// The writing statement's own transaction ended.
    mutating func endAutocommit() {
        guard case .autocommit(let count, let insideSnapshot) = self else { return }
        self = Self.outsideTransaction(statementReads: count, insideSnapshot: insideSnapshot)
    }

    /// `BEGIN` (`start` ``ExplicitTransaction/Start/begin(_:)``) or an outermost `SAVEPOINT`
    /// (``ExplicitTransaction/Start/savepoint``); the caller has checked that no explicit transaction is open.
    mutating func beginExplicit(_ start: ExplicitTransaction.Start) {
        self = .explicit(
            ExplicitTransaction(
                start: start, savepoints: [], statementReads: statementReads, insideSnapshot: isInSnapshotRead))
    }

    /// `COMMIT`, `ROLLBACK`, or the `RELEASE` of the savepoint that began the transaction.
    mutating func endExplicit() {
        guard case .explicit(let transaction) = self else { return }
        self = Self.outsideTransaction(
            statementReads: transaction.statementReads, insideSnapshot: transaction.insideSnapshot)
    }

    /// `SAVEPOINT` inside the explicit transaction.
    mutating func pushSavepoint(_ savepoint: UserSavepoint) {
        guard case .explicit(var transaction) = self else { return }
        self = .idle
        transaction.savepoints.append(savepoint)
        self = .explicit(transaction)
    }

    /// Closes the savepoints after position `position` (`ROLLBACK TO`, which keeps savepoint `position` open),
    /// or from position `position` on (`RELEASE`, with `including`).
    mutating func popSavepoints(after position: Int, including: Bool) {
        guard case .explicit(var transaction) = self else { return }
        self = .idle
        let kept = including ? position : position + 1
        transaction.savepoints.removeLast(transaction.savepoints.count - kept)
        self = .explicit(transaction)
    }

    /// Notes that the storage savepoint of the user savepoint at `position` is open.
    mutating func markSavepointInStorage(at position: Int) {
        guard case .explicit(var transaction) = self, transaction.savepoints.indices.contains(position) else { return }
        self = .idle
        transaction.savepoints[position].isInStorage = true
        self = .explicit(transaction)
    }

    /// The position of the innermost open savepoint named `name`.
    func savepointPosition(_ name: String) -> Int? {
        guard case .explicit(let transaction) = self else { return nil }
        return transaction.savepoints.lastIndex { SchemaNames.equal($0.name, name) }
    }

    /// The open savepoint at `position`.
    func savepoint(at position: Int) -> UserSavepoint? {
        guard case .explicit(let transaction) = self, transaction.savepoints.indices.contains(position) else {
            return nil
        }
        return transaction.savepoints[position]
    }
}

/// A savepoint opened by `SAVEPOINT`.
package struct UserSavepoint: Equatable {
    /// The name as written.
    var name: String
    /// The name of the storage savepoint that implements it.
    var storageName: String
    /// Whether that storage savepoint is open: it is opened when the transaction begins writing.
    var isInStorage: Bool
}

/// An explicit transaction of an ``SQLConnection``.
package struct ExplicitTransaction: Equatable {
    /// What began the transaction.
    package enum Start: Equatable {
        /// `BEGIN`, with its mode as written.
        case begin(TransactionMode?)
        /// An outermost `SAVEPOINT`: releasing that savepoint commits the transaction.
        case savepoint
    }

    package var start: Start
    /// The open user savepoints, outermost first.
    package var savepoints: [UserSavepoint]
    /// The running statement reads (see ``TransactionState``).
    package var statementReads: Int
    /// Whether a snapshot read was open when the transaction began: the transaction's end returns to it.
    package var insideSnapshot: Bool
}

/// The savepoint that makes the running statement atomic inside an explicit transaction.
///
/// It is not part of ``TransactionState``: it lives for one statement, is created and closed by
/// ``SQLConnection/atomically(deferringSavepoint:_:)`` around it, and changes on every statement, which the
/// transaction state (holding the user savepoint stack) should not be copied for.
enum StatementSavepoint {
    /// No statement savepoint: no writing statement runs inside a transaction, or its savepoint is not opened yet.
    case none
    /// The statement opens its savepoint only when it asks (``SQLConnection/ensureStatementSavepoint()``).
    case deferred
    /// The statement's savepoint is open.
    case open
}

extension SQLConnection {
    static let statementSavepointName = "granite_statement"

    /// Runs `body` in a read transaction of the engine unless the connection or the engine is already in one
    /// (pragmas, integrity checks).
    func readingEngine<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction && !engineIsInTransaction { try beginDeferredTransactionRead() }
        if isInTransaction || engineIsInTransaction { return try body() }
        try engineBeginRead()
        defer { try? engineEndRead() }
        return try body()
    }

    /// Loads the catalog (and the temporary schema's), in a read transaction of its own unless the engine is in one.
    func reloadCatalog() throws {
        if let temporaryStore {
            var temporary = SchemaCatalog.temporary()
            try temporary.load(transaction: temporaryStore.transaction)
            catalog.setTemporarySchema(temporary)
        }
        if engineIsInTransaction {
            try catalog.load(transaction: currentTransaction())
        } else {
            try engineBeginRead()
            defer { try? engineEndRead() }
            try catalog.load(transaction: currentTransaction())
        }
    }

    /// Reloads the catalog when another connection changed the schema; call inside a transaction.
    func refreshCatalog() throws {
        let transaction = try currentTransaction()
        if try transaction.schemaCookie != catalog.cookie { try catalog.load(transaction: transaction) }
    }

    // MARK: Read snapshots of running statements

    /// Runs `body` in a read transaction: the current transaction if there is one, else a new one.
    func withReadTransaction<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction && !engineIsInTransaction { try beginDeferredTransactionRead() }
        if isInTransaction || transactionState.statementReads > 0 || engineIsInTransaction { return try body() }
        try engineBeginRead()
        defer { try? engineEndRead() }
        try refreshCatalog()
        return try body()
    }

    /// Called when a `SELECT` starts: outside an explicit transaction the first running statement begins a read
    /// snapshot that lasts until the last one finishes; in a deferred transaction that has not read yet, the
    /// transaction's read begins.
    func acquireStatementRead() throws {
        if !engineIsInTransaction {
            if isInTransaction {
                try beginDeferredTransactionRead()
            } else if transactionState.statementReads == 0 {
                try engineBeginRead()
                try refreshCatalog()
            }
        }
        transactionState.countStatementRead(1)
    }

    /// Called when a `SELECT` finishes or is reset.
    func releaseStatementRead() {
        transactionState.countStatementRead(-1)
        if transactionState.isIdle && engineIsInTransaction && !engineIsWriting {
            try? engineEndRead()
        }
    }

    /// Begins a read-only snapshot: until ``endSnapshotRead()``, every statement reads the same commit, and
    /// no lock is taken, so writers go on (this is how a pool's readers isolate their reads).
    public func beginSnapshotRead() throws {
        guard !isInTransaction, !isInSnapshotRead else {
            throw SQLExecutionError("cannot start a transaction within a transaction")
        }
        if !engineIsInTransaction { try engineBeginRead() }
        do {
            try refreshCatalog()
        } catch {
            if transactionState.statementReads == 0 { try? engineEndRead() }
            throw error
        }
        transactionState.beginSnapshot()
    }

    /// Ends the read snapshot begun by ``beginSnapshotRead()``.
    public func endSnapshotRead() throws {
        guard isInSnapshotRead else { return }
        transactionState.endSnapshot()
        if transactionState.isIdle && engineIsInTransaction && !engineIsWriting {
            try engineEndRead()
        }
    }

    // MARK: Write transactions

    /// Begins a write transaction, first ending the read snapshot of running statements (they continue on the
    /// newer snapshot).
    func beginWriteTransaction() throws {
        if engineIsInTransaction && !engineIsWriting { try engineEndRead() }
        try engineBeginWrite()
        do {
            try refreshCatalog()
        } catch {
            try? engineRollback()
            throw error
        }
    }

    /// After a transaction ends: running statements get a read snapshot again.
    private func resumeStatementReads() {
        if transactionState.statementReads > 0 && !isInTransaction && !engineIsInTransaction {
            try? engineBeginRead()
        }
    }

    /// `BEGIN`: `IMMEDIATE` and `EXCLUSIVE` take the writer lock now; a deferred transaction (the default) takes
    /// nothing until its first statement reads or writes (see ``beginDeferredTransactionRead()`` and
    /// ``ensureWriteTransaction()``), so that an open transaction that only reads keeps no writer waiting, and a
    /// read-only database accepts it.
    func beginTransaction(_ mode: TransactionMode?) throws {
        guard !isInTransaction else { throw SQLExecutionError("cannot start a transaction within a transaction") }
        switch mode {
        case nil, .deferred?: break
        case .immediate?, .exclusive?: try beginWriteTransaction()
        }
        transactionState.beginExplicit(.begin(mode))
    }

    /// `COMMIT`.
    func commitTransaction() throws {
        guard isInTransaction else { throw SQLExecutionError("cannot commit - no transaction is active") }
        try endTransaction(commit: true)
    }

    /// `ROLLBACK` (without `TO`).
    func rollbackTransaction() throws {
        guard isInTransaction else { throw SQLExecutionError("cannot rollback - no transaction is active") }
        try endTransaction(commit: false)
    }

    /// `SAVEPOINT name`, beginning a transaction when none is open. As in SQLite, that transaction is deferred like
    /// `BEGIN`'s: it takes no lock until a statement reads or writes. The storage savepoint that implements `name`
    /// exists only once the transaction writes (``openDeferredSavepoints()``): nothing before needs undoing.
    func openSavepoint(_ name: String) throws {
        if !isInTransaction { transactionState.beginExplicit(.savepoint) }
        guard case .explicit(let transaction) = transactionState else { return }
        let storageName = "user:\(transaction.savepoints.count):\(SchemaNames.key(name))"
        let writing = engineIsWriting
        if writing { try engineSavepoint(storageName) }
        transactionState.pushSavepoint(UserSavepoint(name: name, storageName: storageName, isInStorage: writing))
        report { $0.savepointDidBegin(named: name) }
    }

    /// Opens the storage savepoints of the user savepoints begun before the transaction wrote, outermost first,
    /// once it holds the write transaction.
    func openDeferredSavepoints() throws {
        guard case .explicit(let transaction) = transactionState else { return }
        for (position, savepoint) in transaction.savepoints.enumerated() where !savepoint.isInStorage {
            try engineSavepoint(savepoint.storageName)
            transactionState.markSavepointInStorage(at: position)
        }
    }

    /// Replaces the database, which holds nothing, by a new one with pages of `pageSize` bytes (`PRAGMA
    /// page_size`). Outside a transaction, or at the start of an explicit one (no savepoint, no running
    /// statement): the explicit transaction's write transaction, which holds nothing, ends and begins again on
    /// the new database.
    /// - Throws: ``SQLExecutionError`` when statements run, a savepoint is open, or the engine refuses (another
    ///   connection is open).
    func reformatStorage(pageSize: Int) throws {
        switch transactionState {
        case .idle:
            try engine.reformat(pageSize: pageSize)
        case .explicit(let transaction)
        where transaction.savepoints.isEmpty && transaction.statementReads == 0 && !transaction.insideSnapshot:
            try engineRollback()
            defer { try? beginWriteTransaction() }
            try engine.reformat(pageSize: pageSize)
        default:
            throw SQLExecutionError("page_size cannot change while statements run or inside a savepoint")
        }
        clearStatementCache()
        try reloadCatalog()
    }

    /// `RELEASE name`: commits when `name` is the savepoint that began the transaction.
    func releaseSavepoint(_ name: String) throws {
        guard let position = transactionState.savepointPosition(name),
            case .explicit(let transaction) = transactionState
        else { throw SQLExecutionError("no such savepoint: \(name)") }
        if position == 0 && transaction.start == .savepoint {
            try endTransaction(commit: true)
        } else {
            let savepoint = transaction.savepoints[position]
            if savepoint.isInStorage { try engineReleaseSavepoint(savepoint.storageName) }
            transactionState.popSavepoints(after: position, including: true)
            report { $0.savepointDidRelease(named: name) }
        }
    }

    /// `ROLLBACK TO name`.
    func rollbackToSavepoint(_ name: String) throws {
        guard let position = transactionState.savepointPosition(name),
            let savepoint = transactionState.savepoint(at: position)
        else { throw SQLExecutionError("no such savepoint: \(name)") }
        do {
            // A savepoint not in storage yet has seen no write to undo.
            if savepoint.isInStorage { try engineRollback(toSavepoint: savepoint.storageName) }
        } catch {
            try? reloadCatalog()
            throw error
        }
        transactionState.popSavepoints(after: position, including: false)
        report { $0.savepointDidRollback(named: name) }
        try reloadCatalog()
    }

    /// Ends the explicit transaction. A commit the change observer vetoes rolls back instead and throws.
    private func endTransaction(commit: Bool) throws {
        if commit, changeObserver != nil {
            do {
                try report { try $0.transactionWillCommit() }
            } catch {
                try? endTransaction(commit: false)
                throw error
            }
        }
        transactionState.endExplicit()
        defer { resumeStatementReads() }
        if commit {
            do {
                try engineCommit()
            } catch {
                // The engine rolls a failed commit back.
                report { $0.transactionDidRollback() }
                try? reloadCatalog()
                throw error
            }
            report { $0.transactionDidCommit() }
        } else {
            defer { report { $0.transactionDidRollback() } }
            try engineRollback()
            try reloadCatalog()
        }
    }

    // MARK: Statements

    /// Calls `event` on the change observer, if there is one. The test comes first so that without an observer
    /// no reference is copied (copying even a nil one costs a retain call on every statement).
    @inline(__always)
    func report(_ event: (any SQLChangeObserver) throws -> Void) rethrows {
        if changeObserver != nil, let changeObserver { try event(changeObserver) }
    }

    /// Opens the running statement's deferred savepoint, if it is deferred and not open yet.
    func ensureStatementSavepoint() throws {
        guard case .deferred = statementSavepoint else { return }
        try engineSavepoint(Self.statementSavepointName)
        statementSavepoint = .open
    }

    /// Runs a writing statement atomically: its own transaction in autocommit mode, else under a savepoint.
    ///
    /// With `deferringSavepoint`, the savepoint inside a transaction is opened only when the statement asks for
    /// it with ``ensureStatementSavepoint()``: a statement that does not ask (a one-row write whose checks all come
    /// before its writes, see ``needsNoSavepoint(_:_:)``) fails without having written anything, unless storage
    /// failed, which then rolls the transaction back, as SQLite does on I/O errors.
    ///
    /// With `keepingPartialWrites`, a statement inside a transaction that fails on an SQL error keeps what it
    /// wrote before, as SQLite's statement without a statement journal does
    /// (``SQLConnection/runsWithoutStatementJournal(_:)``); a storage failure (an interrupt among them) still
    /// undoes the statement alone.
    func atomically<T>(
        deferringSavepoint: Bool = false, keepingPartialWrites: Bool = false, _ body: () throws -> T
    ) throws -> T {
        if isInTransaction {
            return try underStatementSavepoint(
                deferred: deferringSavepoint, keepingPartialWrites: keepingPartialWrites, body)
        }
        return try inAutocommitTransaction(body)
    }

    /// Runs a writing statement inside the explicit transaction, under its statement savepoint.
    private func underStatementSavepoint<T>(
        deferred: Bool, keepingPartialWrites: Bool, _ body: () throws -> T
    ) throws -> T {
        statementSavepoint = deferred ? .deferred : .none
        defer { statementSavepoint = .none }
        if !deferred {
            try engineSavepoint(Self.statementSavepointName)
            statementSavepoint = .open
        }
        do {
            let result = try body()
            if statementSavepoint == .open { try engineReleaseSavepoint(Self.statementSavepointName) }
            report { $0.statementDidEnd(.changesKept) }
            return result
        } catch {
            let resolution = (error as? SQLExecutionError)?.resolution
            let open = statementSavepoint == .open
            if resolution == .rollback || (!open && error is StorageError) {
                // `OR ROLLBACK`, or a storage failure with nothing to roll back to: the transaction ends. Any other
                // error of a statement whose savepoint is still deferred came before its first write.
                report { $0.statementDidEnd(.changesUndone) }
                try? endTransaction(commit: false)
            } else if open {
                if resolution == .fail || (keepingPartialWrites && !(error is StorageError)) {
                    // `OR FAIL`, or a statement SQLite runs without a statement journal: the earlier changes stay.
                    try engineReleaseSavepoint(Self.statementSavepointName)
                    report { $0.statementDidEnd(.changesKept) }
                } else {
                    try? engineRollback(toSavepoint: Self.statementSavepointName)
                    try? engineReleaseSavepoint(Self.statementSavepointName)
                    report { $0.statementDidEnd(.changesUndone) }
                    try? reloadCatalog()
                }
            } else {
                report { $0.statementDidEnd(.changesUndone) }
            }
            throw error
        }
    }

    /// Runs a writing statement in a transaction of its own, committed when it succeeds (or fails under
    /// `OR FAIL`), rolled back otherwise.
    private func inAutocommitTransaction<T>(_ body: () throws -> T) throws -> T {
        try beginWriteTransaction()
        transactionState.beginAutocommit()
        defer {
            transactionState.endAutocommit()
            resumeStatementReads()
        }
        var statementEnded = false
        do {
            let result = try body()
            statementEnded = true
            report { $0.statementDidEnd(.changesKept) }
            try commitAutocommit()
            return result
        } catch {
            if !statementEnded && (error as? SQLExecutionError)?.resolution == .fail {
                report { $0.statementDidEnd(.changesKept) }
                do {
                    try commitAutocommit()
                } catch {
                    if changeObserver != nil { rollbackAutocommit() }
                    throw error
                }
                throw error
            }
            if !statementEnded { report { $0.statementDidEnd(.changesUndone) } }
            rollbackAutocommit()
            throw error
        }
    }

    /// Commits the running statement's own transaction, once the change observer allows it.
    private func commitAutocommit() throws {
        try report { try $0.transactionWillCommit() }
        try engineCommit()
        report { $0.transactionDidCommit() }
    }

    /// Rolls back the running statement's own transaction.
    private func rollbackAutocommit() {
        try? engineRollback()
        try? reloadCatalog()
        report { $0.transactionDidRollback() }
    }
}
