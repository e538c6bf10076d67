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
public final class SQLConnection {
    /// The storage engine the connection runs on.
    public let engine: StorageEngine
    /// The schema catalog, reloaded after rollbacks.
    public internal(set) var catalog: SchemaCatalog

    /// The rowid of the most recent successful INSERT on this connection (SQLite's `last_insert_rowid()`).
    public internal(set) var lastInsertedRowid: Int64 = 0
    /// The rows inserted, updated or deleted by the most recent INSERT, UPDATE or DELETE (`changes()`).
    public internal(set) var changes = 0
    /// The rows inserted, updated or deleted since the connection opened (`total_changes()`).
    public internal(set) var totalChanges = 0
    /// Whether foreign key constraints are enforced (`PRAGMA foreign_keys`; on by default, as GRDB configures it).
    public var foreignKeysEnabled = true

    private static let statementSavepoint = "granite_statement"

    /// Whether an explicit transaction (`BEGIN` or an outermost `SAVEPOINT`) is open.
    public private(set) var isInTransaction = false
    /// User savepoints, outermost first: (name as written, storage savepoint name).
    private var savepoints: [(name: String, storageName: String)] = []
    /// Whether the open transaction was started by `SAVEPOINT` (so releasing the outermost one commits).
    private var transactionStartedBySavepoint = false

    /// Opens a session on `engine`, loading its schema.
    public init(engine: StorageEngine) throws {
        self.engine = engine
        catalog = SchemaCatalog()
        try reloadCatalog()
    }

    private func reloadCatalog() throws {
        if engine.isInTransaction {
            try catalog.load(engine: engine)
        } else {
            try engine.beginRead()
            defer { try? engine.endRead() }
            try catalog.load(engine: engine)
        }
    }

    // MARK: Public API

    /// Executes every statement of `sql`, discarding any result rows. `arguments` are bound, by position, to each
    /// statement that uses parameters (their number must match).
    public func execute(_ sql: String, arguments: [Value] = []) throws {
        let statements = try Parser.parseScript(sql)
        if !arguments.isEmpty, !statements.contains(where: { $0.parameters.count > 0 }) {
            throw SQLExecutionError(
                .misuse, "wrong number of arguments: the SQL uses 0 parameters, \(arguments.count) given")
        }
        for statement in statements {
            _ = try run(statement, arguments: statement.parameters.count > 0 ? arguments : [])
        }
    }

    /// Executes one statement and returns its result columns and rows (empty for statements other than `SELECT`).
    public func query(_ sql: String, arguments: [Value] = []) throws -> (columns: [String], rows: [[Value]]) {
        let statements = try Parser.parseScript(sql)
        guard statements.count == 1 else {
            throw SQLExecutionError(.misuse, "query expects exactly one statement, got \(statements.count)")
        }
        return try run(statements[0], arguments: arguments)
    }

    // MARK: Transactions

    private func run(_ statement: Statement, arguments: [Value]) throws -> (columns: [String], rows: [[Value]]) {
        guard arguments.count == statement.parameters.count else {
            throw SQLExecutionError(
                .misuse,
                "wrong number of arguments: the statement uses \(statement.parameters.count) parameters, "
                    + "\(arguments.count) given")
        }
        let parameters = BoundParameters(arguments)
        switch statement.kind {
        case .begin:
            guard !isInTransaction else {
                throw SQLExecutionError("cannot start a transaction within a transaction")
            }
            try engine.beginWrite()
            isInTransaction = true
            transactionStartedBySavepoint = false
            return ([], [])
        case .commit:
            guard isInTransaction else { throw SQLExecutionError("cannot commit - no transaction is active") }
            try endTransaction(commit: true)
            return ([], [])
        case .rollback(let name?):
            guard let position = savepointPosition(name) else { throw SQLExecutionError("no such savepoint: \(name)") }
            do {
                try engine.rollback(toSavepoint: savepoints[position].storageName)
            } catch {
                try? reloadCatalog()
                throw error
            }
            savepoints.removeLast(savepoints.count - position - 1)
            try reloadCatalog()
            return ([], [])
        case .rollback(nil):
            guard isInTransaction else { throw SQLExecutionError("cannot rollback - no transaction is active") }
            try endTransaction(commit: false)
            return ([], [])
        case .savepoint(let name):
            if !isInTransaction {
                try engine.beginWrite()
                isInTransaction = true
                transactionStartedBySavepoint = true
            }
            let storageName = "user:\(savepoints.count):\(SchemaNames.key(name))"
            try engine.savepoint(storageName)
            savepoints.append((name, storageName))
            return ([], [])
        case .release(let name):
            guard let position = savepointPosition(name) else { throw SQLExecutionError("no such savepoint: \(name)") }
            if position == 0 && transactionStartedBySavepoint {
                try endTransaction(commit: true)
            } else {
                try engine.releaseSavepoint(savepoints[position].storageName)
                savepoints.removeLast(savepoints.count - position)
            }
            return ([], [])
        case .select(let select):
            if isInTransaction { return try self.select(select, statement: statement, parameters: parameters) }
            try engine.beginRead()
            defer { try? engine.endRead() }
            return try self.select(select, statement: statement, parameters: parameters)
        case .explain(queryPlan: true, let inner):
            guard case .select(let select) = inner.kind else { throw SQLExecutionError.unsupported("EXPLAIN") }
            if isInTransaction {
                return try self.select(select, statement: inner, parameters: parameters, explain: true)
            }
            try engine.beginRead()
            defer { try? engine.endRead() }
            return try self.select(select, statement: inner, parameters: parameters, explain: true)
        case .pragma(let pragma):
            return try self.pragma(pragma, parameters: parameters)
        case .explain:
            throw SQLExecutionError.unsupported("\(statement.kind)".split(separator: "(").first.map(String.init) ?? "")
        default:
            return try atomically { try write(statement, parameters: parameters) }
        }
    }

    private func savepointPosition(_ name: String) -> Int? {
        savepoints.lastIndex { SchemaNames.equal($0.name, name) }
    }

    private func endTransaction(commit: Bool) throws {
        isInTransaction = false
        transactionStartedBySavepoint = false
        savepoints.removeAll()
        if commit {
            do {
                try engine.commit()
            } catch {
                try? reloadCatalog()
                throw error
            }
        } else {
            try engine.rollback()
            try reloadCatalog()
        }
    }

    /// Runs a writing statement atomically: its own transaction in autocommit mode, else under a savepoint.
    func atomically<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction {
            try engine.savepoint(Self.statementSavepoint)
            do {
                let result = try body()
                try engine.releaseSavepoint(Self.statementSavepoint)
                return result
            } catch {
                switch (error as? SQLExecutionError)?.resolution {
                case .fail?:
                    // `OR FAIL`: the statement's earlier changes stay.
                    try engine.releaseSavepoint(Self.statementSavepoint)
                    throw error
                case .rollback?:
                    // `OR ROLLBACK`: the whole transaction ends.
                    try? endTransaction(commit: false)
                    throw error
                default:
                    break
                }
                try? engine.rollback(toSavepoint: Self.statementSavepoint)
                try? engine.releaseSavepoint(Self.statementSavepoint)
                try? reloadCatalog()
                throw error
            }
        } else {
            try engine.beginWrite()
            do {
                let result = try body()
                try engine.commit()
                return result
            } catch {
                if (error as? SQLExecutionError)?.resolution == .fail {
                    try engine.commit()
                    throw error
                }
                try? engine.rollback()
                try? reloadCatalog()
                throw error
            }
        }
    }
}
