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
    public private(set) var catalog: SchemaCatalog

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
        case .explain, .pragma:
            throw SQLExecutionError.unsupported("\(statement.kind)".split(separator: "(").first.map(String.init) ?? "")
        default:
            try atomically { try write(statement, parameters: parameters) }
            return ([], [])
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
    private func atomically(_ body: () throws -> Void) throws {
        if isInTransaction {
            try engine.savepoint(Self.statementSavepoint)
            do {
                try body()
                try engine.releaseSavepoint(Self.statementSavepoint)
            } catch {
                try? engine.rollback(toSavepoint: Self.statementSavepoint)
                try? engine.releaseSavepoint(Self.statementSavepoint)
                try? reloadCatalog()
                throw error
            }
        } else {
            try engine.beginWrite()
            do {
                try body()
                try engine.commit()
            } catch {
                try? engine.rollback()
                try? reloadCatalog()
                throw error
            }
        }
    }

    // MARK: Writing statements

    private func tableDefinition(_ name: QualifiedName) throws -> TableDefinition {
        if let schema = name.schema, !SchemaNames.equal(schema, "main") {
            throw SQLExecutionError.noSuchTable("\(schema).\(name.name)")
        }
        guard let table = catalog.table(named: name.name) else { throw SQLExecutionError.noSuchTable(name.name) }
        return table
    }

    private func writer(_ name: QualifiedName, _ parameters: BoundParameters) throws -> TableWriter {
        try TableWriter(table: try tableDefinition(name), catalog: catalog, engine: engine, parameters: parameters)
    }

    private func write(_ statement: Statement, parameters: BoundParameters) throws {
        switch statement.kind {
        case .createIndex(let create):
            try catalog.execute(statement, engine: engine)
            guard let table = catalog.table(named: create.table) else { return }
            let writer = try TableWriter(table: table, catalog: catalog, engine: engine, parameters: parameters)
            try writer.fill(index: create.name.name)
        case .createTable, .dropTable, .dropIndex, .alterTable:
            try catalog.execute(statement, engine: engine)
        case .insert(let insert):
            try self.insert(insert, statement: statement, parameters: parameters)
        case .update(let update):
            try self.update(update, parameters: parameters)
        case .delete(let delete):
            try self.delete(delete, parameters: parameters)
        default:
            throw SQLExecutionError("not supported yet: \(statement.sourceText)")
        }
    }

    private func insert(_ insert: InsertStatement, statement: Statement, parameters: BoundParameters) throws {
        if insert.orAction != nil { throw SQLExecutionError.unsupported("INSERT OR …") }
        if !insert.upsert.isEmpty { throw SQLExecutionError.unsupported("ON CONFLICT") }
        if insert.returning != nil { throw SQLExecutionError.unsupported("RETURNING") }
        let writer = try writer(insert.table, parameters)
        let table = writer.table
        let targets: [Int]
        if let names = insert.columns {
            targets = try names.map { name in
                if let index = table.columnIndex(named: name) { return index }
                if TableScope.isRowidName(name), let alias = table.rowidAlias { return alias }
                throw SQLExecutionError("table \(table.name) has no column named \(name)")
            }
        } else {
            targets = Array(table.columns.indices)
        }
        var rows: [[Value]] = []
        switch insert.source {
        case .defaultValues:
            rows = [[]]
        case .select(let select):
            if case .values(let expressions) = select.first, select.compounds.isEmpty, select.orderBy.isEmpty,
                select.limit == nil, select.with == nil
            {
                let expected = expressions.first?.count ?? 0
                for tuple in expressions {
                    guard tuple.count == expected else {
                        throw SQLExecutionError("all VALUES must have the same number of terms")
                    }
                }
                if expected != targets.count {
                    throw SQLExecutionError(Self.countMismatch(table, insert, targets.count, expected))
                }
                for tuple in expressions {
                    var context = EvaluationContext(parameters: parameters)
                    rows.append(
                        try tuple.map {
                            try ExpressionCompiler.compile($0, resolver: EmptyColumnResolver()).evaluate(&context)
                        })
                }
            } else {
                let result = try self.select(select, statement: statement, parameters: parameters)
                if result.columns.count != targets.count {
                    throw SQLExecutionError(Self.countMismatch(table, insert, targets.count, result.columns.count))
                }
                rows = result.rows
            }
        }
        for supplied in rows {
            var values = writer.defaults
            for (k, value) in supplied.enumerated() {
                values[targets[k]] = table.columns[targets[k]].affinity.apply(to: value)
            }
            try writer.insert(values)
        }
    }

    private static func countMismatch(
        _ table: TableDefinition, _ insert: InsertStatement, _ columns: Int, _ values: Int
    )
        -> String
    {
        insert.columns == nil
            ? "table \(table.name) has \(columns) columns but \(values) values were supplied"
            : "\(values) values for \(columns) columns"
    }

    /// The rows of `writer`'s table matching `condition`, in rowid order.
    private func matchingRows(_ writer: TableWriter, _ condition: SQLExpression?) throws -> [[Value]] {
        let filter = try condition.map { try ExpressionCompiler.compile($0, resolver: writer.scope) }
        let plan = QueryPlanner.plan(condition, writer: writer, scope: writer.scope, parameters: writer.parameters)
        var rows: [[Value]] = []
        try writer.forEachCandidate(plan, descending: false) { row in
            if let filter {
                var context = EvaluationContext(row: row, parameters: writer.parameters)
                guard try filter.isTrue(&context) else { return true }
            }
            rows.append(row)
            return true
        }
        return rows
    }

    private func update(_ update: UpdateStatement, parameters: BoundParameters) throws {
        if update.orAction != nil { throw SQLExecutionError.unsupported("UPDATE OR …") }
        if update.returning != nil { throw SQLExecutionError.unsupported("RETURNING") }
        let writer = try writer(update.table, parameters)
        let table = writer.table
        var assignments: [(column: Int, value: CompiledExpression)] = []
        for assignment in update.assignments {
            guard assignment.columns.count == 1 else { throw SQLExecutionError.unsupported("row-value assignment") }
            let name = assignment.columns[0]
            let column: Int
            if let index = table.columnIndex(named: name) {
                column = index
            } else if TableScope.isRowidName(name), let alias = table.rowidAlias {
                column = alias
            } else {
                throw SQLExecutionError("no such column: \(name)")
            }
            assignments.append((column, try ExpressionCompiler.compile(assignment.value, resolver: writer.scope)))
        }
        for old in try matchingRows(writer, update.whereClause) {
            var context = EvaluationContext(row: old, parameters: parameters)
            var values = Array(old.prefix(table.columns.count))
            for assignment in assignments {
                values[assignment.column] = table.columns[assignment.column].affinity.apply(
                    to: try assignment.value.evaluate(&context))
            }
            try writer.update(old: old, values: values)
        }
    }

    private func delete(_ delete: DeleteStatement, parameters: BoundParameters) throws {
        if delete.returning != nil { throw SQLExecutionError.unsupported("RETURNING") }
        let writer = try writer(delete.table, parameters)
        for old in try matchingRows(writer, delete.whereClause) { try writer.delete(old: old) }
    }
}
