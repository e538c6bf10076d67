import GraniteStorage

// The temporary schema (`temp`): its store, made on first use, which schema a schema statement changes, and the
// statements run on it. Objects there are private to the connection and vanish with it.

extension SQLConnection {
    /// The temporary store, made now if the connection has none: its transaction then opens the savepoints of the
    /// connection's running transaction, so that rolling any of them back undoes what the store holds.
    func ensureTemporaryStore() throws -> TemporaryStore {
        if let temporaryStore { return temporaryStore }
        let store = try TemporaryStore()
        if engineIsWriting {
            try store.begin()
            if case .explicit(let transaction) = transactionState {
                for savepoint in transaction.savepoints where savepoint.isInStorage {
                    try store.transaction.savepoint(savepoint.storageName)
                }
            }
            if statementSavepoint == .open { try store.transaction.savepoint(Self.statementSavepointName) }
        }
        temporaryStore = store
        if !catalog.hasTemporarySchema { catalog.setTemporarySchema(.temporary()) }
        return store
    }

    /// The storage transaction the trees of `table` are read and written through: the temporary store's for a
    /// temporary table, else the connection's. Nil for the temporary schema's table while the connection has no
    /// temporary schema (reading it does not make one: it is empty).
    @inline(__always)
    func transaction(for table: TableDefinition) throws -> StorageTransaction? {
        guard table.isTemporary else { return try currentTransaction() }
        if let temporaryStore { return temporaryStore.transaction }
        if table.storageName == SchemaCatalog.schemaTableName { return nil }
        return try ensureTemporaryStore().transaction
    }

    /// Whether the schema statement `statement` changes the temporary schema: it says `TEMP` or `temp.`, or names
    /// (unqualified) an object that the temporary schema holds, as SQLite resolves names temp first.
    func changesTemporarySchema(_ statement: Statement) throws -> Bool {
        switch statement.kind {
        case .createTable(let create):
            if create.temporary {
                if let schema = create.name.schema, SchemaCatalog.Qualifier(schema) == .main {
                    throw SQLExecutionError("temporary table name must be unqualified")
                }
                return true
            }
            return SchemaCatalog.Qualifier(create.name.schema) == .temp
        case .createIndex(let create):
            switch SchemaCatalog.Qualifier(create.name.schema) {
            case .temp: return true
            case .any: return catalog.table(named: create.table)?.isTemporary == true
            case .main, .unknown: return false
            }
        case .createView(let create):
            if create.temporary, SchemaCatalog.Qualifier(create.name.schema) == .main {
                throw SQLExecutionError("temporary table name must be unqualified")
            }
            return create.temporary || SchemaCatalog.Qualifier(create.name.schema) == .temp
        case .createTrigger(let create):
            if create.temporary || SchemaCatalog.Qualifier(create.name.schema) == .temp { return true }
            // A trigger on a temporary table or view is temporary itself.
            let target = SchemaCatalog.triggerTarget(create.table)
            guard target.schema == nil, let temporary = catalog.temporarySchema else { return false }
            return temporary.table(named: target.name) != nil || temporary.view(named: target.name) != nil
        case .dropTable(let drop):
            return resolvesToTemporary(drop.name) { $0.table(named: $1) != nil || $0.view(named: $1) != nil }
        case .dropView(let drop):
            return resolvesToTemporary(drop.name) { $0.view(named: $1) != nil || $0.table(named: $1) != nil }
        case .dropIndex(let drop):
            return resolvesToTemporary(drop.name) { $0.index(named: $1) != nil }
        case .dropTrigger(let drop):
            return resolvesToTemporary(drop.name) { $0.trigger(named: $1) != nil }
        case .alterTable(let alter):
            return resolvesToTemporary(alter.table) { $0.table(named: $1) != nil || $0.view(named: $1) != nil }
        default:
            return false
        }
    }

    /// Whether `name` is `temp.x`, or an unqualified `x` that `holds` finds in the temporary schema.
    private func resolvesToTemporary(_ name: QualifiedName, _ holds: (SchemaCatalog, String) -> Bool) -> Bool {
        switch SchemaCatalog.Qualifier(name.schema) {
        case .temp: return true
        case .any: return catalog.temporarySchema.map { holds($0, name.name) } ?? false
        case .main, .unknown: return false
        }
    }

    /// Runs a schema statement on the temporary schema, in the temporary store, filling a new index from its
    /// table's rows.
    func executeInTemporarySchema(_ statement: Statement, parameters: BoundParameters) throws {
        if case .alterTable(let alter) = statement.kind {
            try alterTemporaryTable(alter, statement, parameters: parameters)
            return
        }
        if case .createIndex(let create) = statement.kind, catalog.temporarySchema?.table(named: create.table) == nil,
            let table = catalog.mainSchema.table(named: create.table)
        {
            throw SQLExecutionError("cannot create a TEMP index on non-TEMP table \"\(table.name)\"")
        }
        let store = try ensureTemporaryStore()
        var temporary = catalog.temporarySchema ?? .temporary()
        if case .createTrigger(let create) = statement.kind {
            try temporary.createTrigger(
                create, sql: SchemaCatalog.storedSQL(statement.sourceText, keyword: "TRIGGER"),
                transaction: store.transaction, mainSchema: catalog.mainSchema)
        } else {
            try temporary.execute(statement, transaction: store.transaction)
        }
        if case .createTable(let create) = statement.kind,
            temporary.table(named: create.name.name)?.isAutoincrement == true
        {
            try Self.createSequenceTable(in: &temporary, transaction: store.transaction)
        }
        catalog.setTemporarySchema(temporary)
        if case .createIndex(let create) = statement.kind,
            let table = catalog.table(QualifiedName(schema: "temp", name: create.table))
        {
            let writer = try TableWriter(
                table: table, catalog: catalog, transaction: store.transaction, parameters: parameters,
                counters: counters)
            try writer.fill(index: create.name.name)
        }
    }

    /// Creates the temporary schema's own `granite_sequence` (`temp.sqlite_sequence` in SQLite) if it does not
    /// exist yet: the sequences of the temporary AUTOINCREMENT tables.
    private static func createSequenceTable(in temporary: inout SchemaCatalog, transaction: WriteTransaction) throws {
        guard temporary.table(named: WriteSession.sequenceTable) == nil else { return }
        let sql = "CREATE TABLE \(WriteSession.sequenceTable)(name,seq)"
        guard case .createTable(let create) = try Parser.parseStatement(sql).kind else { return }
        try temporary.createTable(create, sql: sql, transaction: transaction, allowingReservedName: true)
    }

    /// Runs `body` with the catalog reduced to the main schema, then puts the temporary schema back.
    func onMainSchema<T>(_ body: () throws -> T) throws -> T {
        guard let temporary = catalog.temporarySchema else { return try body() }
        catalog = catalog.mainSchema
        defer { catalog.setTemporarySchema(temporary) }
        return try body()
    }

    /// Refuses a main view or trigger whose query reads `temp.x` (SQLite's "view v cannot reference objects in
    /// database temp"): a main object must not depend on one connection's temporary schema. The test is on the
    /// text: `temp` `.` right after `FROM` or `JOIN`.
    func checkMainObjectReferences(_ statement: Statement) throws {
        let kind: String
        let name: String
        switch statement.kind {
        case .createView(let create):
            (kind, name) = ("view", create.name.name)
        case .createTrigger(let create):
            (kind, name) = ("trigger", create.name.name)
        default:
            return
        }
        guard let tokens = try? Lexer.tokenize(statement.sourceText), tokens.count >= 3 else { return }
        for k in 1..<(tokens.count - 1) where tokens[k].kind == .word && SchemaNames.equal(tokens[k].text, "temp") {
            let before = tokens[k - 1]
            guard before.kind == .word, before.keyword == "FROM" || before.keyword == "JOIN",
                tokens[k + 1].kind == .symbol, tokens[k + 1].text == "."
            else { continue }
            throw SQLExecutionError("\(kind) \(name) cannot reference objects in database temp")
        }
    }

    /// After `DROP VIEW` of main view `name`: the temporary triggers on it go with it, as in SQLite.
    func dropTemporaryTriggers(onMainView name: String) throws {
        guard catalog.mainSchema.view(named: name) == nil else { return }
        try dropTemporaryTriggers(onMain: name)
    }

    /// After `DROP TABLE` of main table `name`: the temporary triggers on it go with it, as in SQLite.
    func dropTemporaryTriggers(onMainTable name: String) throws {
        guard catalog.mainSchema.table(named: name) == nil else { return }
        try dropTemporaryTriggers(onMain: name)
    }

    /// Drops the temporary triggers on the main table or view `name`, which is gone.
    private func dropTemporaryTriggers(onMain name: String) throws {
        guard let store = temporaryStore, var temporary = catalog.temporarySchema else { return }
        let triggers = temporary.triggers(on: name).filter(\.isOnMainTable)
        guard !triggers.isEmpty else { return }
        for trigger in triggers { try temporary.dropTrigger(named: trigger.name, transaction: store.transaction) }
        catalog.setTemporarySchema(temporary)
    }

    // MARK: Temporary writes of read-only connections

    /// Whether `statement` changes the temporary schema, or writes a temporary table that no trigger is on, and
    /// nothing else: a connection that may not write the database (a pool's reader, a read-only file) may still
    /// run it, as SQLite lets a read-only connection change its temporary schema.
    package func changesOnlyTemporarySchema(_ statement: Statement) -> Bool {
        switch statement.kind {
        case .createTable, .createIndex, .createView, .createTrigger, .dropTable, .dropView, .dropIndex,
            .dropTrigger:
            return (try? changesTemporarySchema(statement)) ?? false
        case .insert(let insert): return writesOnlyTemporaryTable(insert.table)
        case .update(let update): return writesOnlyTemporaryTable(update.table)
        case .delete(let delete): return writesOnlyTemporaryTable(delete.table)
        default: return false
        }
    }

    /// Whether `name` is a temporary table no trigger is on (a trigger's program may write main tables).
    private func writesOnlyTemporaryTable(_ name: QualifiedName) -> Bool {
        guard catalog.hasTemporarySchema, let table = catalog.table(name), table.isTemporary else { return false }
        return catalog.triggers(of: table).isEmpty
    }

    /// Whether a writing statement outside a transaction may not take the database's write lock here: on a
    /// read-only connection or file, or inside a read snapshot (which a write transaction would end).
    var writesOnlyInTemporaryStore: Bool {
        isReadOnlyConnection || isInSnapshotRead
    }

    /// Runs a statement that changes the temporary schema only (see ``changesOnlyTemporarySchema(_:)``) without a
    /// write transaction of the database: under a savepoint of the temporary store, reading the database in the
    /// connection's read snapshot (or one of its own). A failure undoes the statement's temporary changes. The
    /// change observer hears of it as of an autocommit statement.
    func inTemporaryOnlyTransaction<T>(_ body: () throws -> T) throws -> T {
        let store = try ensureTemporaryStore()
        let ownsRead = !engineIsInTransaction
        if ownsRead { try engineBeginRead() }
        defer { if ownsRead { try? engineEndRead() } }
        try store.begin()
        var statementEnded = false
        do {
            let result = try body()
            statementEnded = true
            report { $0.statementDidEnd(.changesKept) }
            try report { try $0.transactionWillCommit() }
            try store.commit()
            report { $0.transactionDidCommit() }
            return result
        } catch {
            if !statementEnded { report { $0.statementDidEnd(.changesUndone) } }
            try? store.rollback()
            try? reloadCatalog()
            report { $0.transactionDidRollback() }
            throw error
        }
    }
}
