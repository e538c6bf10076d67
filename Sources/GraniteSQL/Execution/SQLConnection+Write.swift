import GraniteStorage

extension SQLConnection {
    // MARK: Writing statements

    func tableDefinition(_ name: QualifiedName) throws -> TableDefinition {
        guard let table = catalog.table(name) else {
            if let view = catalog.view(name) {
                throw SQLExecutionError("cannot modify \(view.name) because it is a view")
            }
            throw SQLExecutionError.noSuchTable(unboundTableName(name))
        }
        return table
    }

    func makeSession(_ parameters: BoundParameters) -> WriteSession {
        let session = WriteSession(
            catalog: catalog, parameters: parameters, foreignKeys: foreignKeysEnabled)
        session.connection = self
        session.counters = counters
        session.changeObserver = changeObserver
        return session
    }

    /// Whether `statement` is a one-row INSERT that checks every constraint before its only write (no upsert, no
    /// RETURNING, and ``isSingleRowSafe(_:_:_:)``), so that a failure other than storage's leaves nothing to undo.
    func needsNoSavepoint(_ statement: Statement, _ cache: WriteCache) -> Bool {
        cache.validate(version: catalog.schemaVersion, foreignKeys: foreignKeysEnabled)
        if let known = cache.singleWrite { return known }
        var result = false
        // RETURNING is evaluated after the write, and may fail there. An AUTOINCREMENT sequence is stored at the
        // statement's end, where only storage can fail.
        if case .insert(let insert) = statement.kind, insert.upsert.isEmpty, insert.returning == nil,
            insert.orAction == nil || insert.orAction == .abort || insert.orAction == .ignore,
            insert.table.schema == nil, let table = catalog.table(named: insert.table.name)
        {
            var oneRow = false
            switch insert.source {
            case .defaultValues: oneRow = true
            case .select(let select):
                if case .values(let tuples) = select.first, tuples.count == 1, select.compounds.isEmpty {
                    oneRow = true
                }
            }
            result = oneRow && isSingleRowSafe(table, insert.orAction, cache)
        }
        cache.singleWrite = result
        return result
    }

    /// Whether changing or deleting one row of `table` checks everything before it writes: no foreign key
    /// involves the table and no REPLACE resolution can delete other rows.
    func isSingleRowSafe(_ table: TableDefinition, _ resolution: ConflictResolution?, _ cache: WriteCache)
        -> Bool
    {
        if let known = cache.singleRowSafe { return known }
        let foreignKeys = foreignKeysEnabled && (!table.foreignKeys.isEmpty || !cachedReferences(table).isEmpty)
        let replaces =
            resolution == .replace
            || (resolution == nil
                && (table.primaryKeyConflict == .replace || table.columns.contains { $0.notNullConflict == .replace }
                    || catalog.indexes(of: table).contains { $0.onConflict == .replace }))
        // A trigger may write anything before the statement's own checks fail.
        let safe = !foreignKeys && !replaces && tableTriggers(table) == nil
        cache.singleRowSafe = safe
        return safe
    }

    /// The foreign keys referencing `table`, kept while the schema stays the same.
    func cachedReferences(_ table: TableDefinition) -> [(child: TableDefinition, key: Int)] {
        if referenceCacheVersion != catalog.schemaVersion {
            referenceCache.removeAll()
            referenceCacheVersion = catalog.schemaVersion
        }
        // Temporary tables' schema rowids count apart from the main schema's: their keys are negative.
        let key = table.isTemporary ? -table.schemaRowid : table.schemaRowid
        if let cached = referenceCache[key] { return cached }
        let references = WriteSession.references(to: table, in: catalog)
        referenceCache[key] = references
        return references
    }

    /// The writer of `table`, kept while the schema stays the same (its compiled index keys, defaults and
    /// checks are the costly part of a small write).
    func cachedWriter(_ table: TableDefinition) throws -> TableWriter {
        if writerCacheVersion != catalog.schemaVersion {
            writerCache.removeAll()
            writerCacheVersion = catalog.schemaVersion
        }
        let key = table.isTemporary ? "temp." + SchemaNames.key(table.name) : SchemaNames.key(table.name)
        if let writer = writerCache[key] { return writer }
        let writer = try TableWriter(
            table: table, catalog: catalog, transaction: transaction(for: table) ?? ensureTemporaryStore().transaction,
            parameters: BoundParameters(), counters: counters)
        writer.compressionThreshold = textCompressionThreshold
        writer.triggers = tableTriggers(table)
        writerCache[key] = writer
        return writer
    }

    /// Runs a writing statement (DDL, INSERT, UPDATE, DELETE), returning its `RETURNING` rows if it has any.
    func write(_ statement: Statement, parameters: BoundParameters, cache: WriteCache? = nil) throws -> (
        columns: [String], rows: [[Value]]
    ) {
        let cache = cache ?? WriteCache()
        let version = catalog.schemaVersion
        cache.validate(version: version, foreignKeys: foreignKeysEnabled)
        if let plan = cache.insertPlan, let writer = cache.writer {
            return try counting(parameters, cache, version: version) {
                try self.insert(plan, writer, session: $0, cache: cache)
            }
        }
        if let update = cache.update {
            return try counting(parameters, cache, version: version) {
                try self.update(update.value, statement: statement, session: $0, cache: cache)
            }
        }
        if let delete = cache.delete {
            return try counting(parameters, cache, version: version) {
                try self.delete(delete.value, statement: statement, session: $0, cache: cache)
            }
        }
        switch statement.kind {
        case .createTable(let create) where create.asSelect != nil:
            guard let select = create.asSelect else { break }
            return try createTableAsSelect(create, select: select, statement: statement, parameters: parameters)
        case .createTable, .createIndex, .createView, .createTrigger, .dropTable, .dropView, .dropIndex, .dropTrigger,
            .alterTable:
            if try changesTemporarySchema(statement) {
                if case .dropTable(let drop) = statement.kind { try dropTable(drop, parameters: parameters) }
                try executeInTemporarySchema(statement, parameters: parameters)
                return ([], [])
            }
            try checkMainObjectReferences(statement)
            if catalog.hasTemporarySchema {
                // The main schema's statements see the main schema alone (`CREATE TABLE t` while `temp.t` exists).
                let result = try onMainSchema { try write(statement, parameters: parameters, cache: cache) }
                switch statement.kind {
                case .dropTable(let drop): try dropTemporaryTriggers(onMainTable: drop.name.name)
                case .dropView(let drop): try dropTemporaryTriggers(onMainView: drop.name.name)
                default: break
                }
                return result
            }
        default:
            break
        }
        switch statement.kind {
        case .createIndex(let create):
            try catalog.execute(statement, transaction: currentWriteTransaction())
            guard let table = catalog.table(named: create.table) else { return ([], []) }
            let writer = try TableWriter(
                table: table, catalog: catalog, transaction: currentTransaction(), parameters: parameters,
                counters: counters)
            try writer.fill(index: create.name.name)
        case .createTable(let create):
            try catalog.execute(statement, transaction: currentWriteTransaction())
            if let table = catalog.table(named: create.name.name), table.isAutoincrement {
                try createSequenceTable()
            }
        case .dropTable(let drop):
            try dropTable(drop, parameters: parameters)
            try catalog.execute(statement, transaction: currentWriteTransaction())
        case .alterTable(let alter):
            if catalog.checksViewsBefore(alter) { try checkViewsCompile() }
            let oldCatalog = catalog
            let old = catalog.table(named: alter.table.name)
            if case .addColumn(let column) = alter.action, let old, Self.isStoredGenerated(column),
                try currentTransaction().table(named: old.storageName).count() > 0
            {
                throw SQLExecutionError("cannot add a STORED column")
            }
            try catalog.execute(statement, transaction: currentWriteTransaction())
            switch alter.action {
            case .renameTable, .renameColumn: try checkTriggersCompile(after: "rename")
            default: break
            }
            switch alter.action {
            case .renameTable(let newName) where old?.isAutoincrement == true:
                // Like sqlite_sequence, the sequence row follows the table's new name.
                try makeSession(parameters).renameSequence(from: old!.name, to: newName)
            case .dropColumn(let column):
                guard let old, let position = old.columnIndex(named: column) else { break }
                try checkViewsCompile(after: "drop column")
                try checkTriggersCompile(after: "drop column")
                try rewriteRows(of: old, in: oldCatalog, droppingColumn: position, parameters: parameters)
            case .addColumn(let column) where column.constraints.contains(where: Self.isGenerated):
                guard let old else { break }
                try computeAddedColumn(of: old, parameters: parameters)
            default:
                break
            }
        case .dropIndex, .createView, .dropView, .createTrigger, .dropTrigger:
            try catalog.execute(statement, transaction: currentWriteTransaction())
        case .insert(let insert) where isWrittenView(insert.table, returning: insert.returning != nil):
            return try writeView(statement, parameters: parameters)
        case .update(let update) where isWrittenView(update.table, returning: update.returning != nil):
            return try writeView(statement, parameters: parameters)
        case .delete(let delete) where isWrittenView(delete.table, returning: delete.returning != nil):
            return try writeView(statement, parameters: parameters)
        case .insert(let insert):
            // Databases created before `granite_sequence` existed get it on their first AUTOINCREMENT insert.
            if !cache.sequenceChecked, insert.table.schema == nil,
                let table = catalog.table(named: insert.table.name), table.isAutoincrement, !table.isTemporary
            {
                try createSequenceTable()
            }
            cache.sequenceChecked = true
            return try counting(parameters, cache, version: version) {
                try self.insert(insert, statement: statement, session: $0, cache: cache)
            }
        case .update(let update):
            let boxed = Boxed(update)
            cache.update = boxed
            return try counting(parameters, cache, version: version) {
                try self.update(boxed.value, statement: statement, session: $0, cache: cache)
            }
        case .delete(let delete):
            let boxed = Boxed(delete)
            cache.delete = boxed
            return try counting(parameters, cache, version: version) {
                try self.delete(boxed.value, statement: statement, session: $0, cache: cache)
            }
        default:
            throw SQLExecutionError("not supported yet: \(statement.sourceText)")
        }
        return ([], [])
    }

    /// Runs an INSERT, UPDATE or DELETE in a fresh session, then updates the change counters and the last
    /// inserted rowid as SQLite does: a failing statement counts no change unless it failed with `FAIL` and is not
    /// a statement of a trigger program (SQLite counts a trigger's statement once it completes, so the one a
    /// failure stops counts nothing; the statement that fired the trigger keeps its own changes).
    private func counting(
        _ parameters: BoundParameters, _ cache: WriteCache, version: Int,
        _ body: (WriteSession) throws -> (columns: [String], rows: [[Value]])
    ) throws -> (columns: [String], rows: [[Value]]) {
        // The statement's previous session, when it is for the same schema version, is reset rather than rebuilt.
        let session: WriteSession
        if let previous = cache.session, previous.catalog.schemaVersion == version {
            previous.reset(parameters: parameters)
            // Copying even a nil observer costs a retain call: skip it in the usual case of none.
            if changeObserver != nil || previous.changeObserver != nil { previous.changeObserver = changeObserver }
            session = previous
        } else {
            session = makeSession(parameters)
            cache.session = session
        }
        defer {
            if let rowid = session.lastInsertedRowid { lastInsertedRowid = rowid }
            session.releaseParameters()
        }
        do {
            let result = try body(session)
            changes = session.changes
            totalChanges += session.changes
            return result
        } catch {
            var failure = error
            // A statement stopped by FAIL still checks its foreign keys, which then abort it.
            if (error as? SQLExecutionError)?.resolution == .fail, session.foreignKeys, session.violations > 0 {
                failure = SQLExecutionError.foreignKeyFailure
            }
            if session.started {
                let kept =
                    (failure as? SQLExecutionError)?.resolution == .fail && triggerDepth == 0 ? session.changes : 0
                changes = kept
                totalChanges += kept
            }
            throw failure
        }
    }

    /// After `ALTER TABLE … DROP COLUMN`: every row of `old` (the table as `oldCatalog` defined it) is written again
    /// without the value of column `position`. Rows are read whole (defaults of columns added later filled in)
    /// and encoded for the new definition; index entries hold no column positions and stay as they are.
    /// A temporary table's rows are in `transaction`, the temporary store's.
    func rewriteRows(
        of old: TableDefinition, in oldCatalog: SchemaCatalog, droppingColumn position: Int,
        parameters: BoundParameters, transaction: WriteTransaction? = nil
    ) throws {
        guard let reduced = catalog.table(named: old.name) else { return }
        let transaction = try transaction ?? currentWriteTransaction()
        let reader = try TableWriter(
            table: old, catalog: oldCatalog, transaction: transaction, parameters: parameters, counters: counters)
        let writer = try TableWriter(
            table: reduced, catalog: catalog, transaction: transaction, parameters: parameters, counters: counters)
        writer.compressionThreshold = textCompressionThreshold
        let tree = try transaction.table(named: reduced.storageName)
        try reader.scan(inBatches: { rows in
            for var row in rows {
                guard case .integer(let rowid) = row[old.columns.count] else { continue }
                row.remove(at: position)
                _ = try tree.replace(rowid: rowid, payload: writer.payload(row))
            }
        })
    }

    /// After `ALTER TABLE … ADD COLUMN … AS (…)`: every row of `old` is written again with the new generated column
    /// computed (rows written before hold no value for it, which would read as its default, NULL).
    /// A temporary table's rows are in `transaction`, the temporary store's.
    func computeAddedColumn(
        of old: TableDefinition, parameters: BoundParameters, transaction: WriteTransaction? = nil
    ) throws {
        guard let extended = catalog.table(named: old.name) else { return }
        let transaction = try transaction ?? currentWriteTransaction()
        let writer = try TableWriter(
            table: extended, catalog: catalog, transaction: transaction, parameters: parameters, counters: counters)
        writer.compressionThreshold = textCompressionThreshold
        let tree = try transaction.table(named: extended.storageName)
        let added = extended.columns.count - 1
        try writer.scan(inBatches: { rows in
            for var row in rows {
                guard case .integer(let rowid) = row[extended.columns.count] else { continue }
                try writer.generatedColumns.compute(&row, parameters: parameters)
                if extended.columns[added].notNull && row[added].isNull {
                    throw SQLExecutionError.constraint(.notNull, "NOT NULL constraint failed")
                }
                _ = try tree.replace(rowid: rowid, payload: writer.payload(row))
            }
        })
    }

    static func isGenerated(_ constraint: ColumnConstraint) -> Bool {
        if case .generated = constraint.kind { return true }
        return false
    }

    static func isStoredGenerated(_ column: ColumnDefinition) -> Bool {
        column.constraints.contains { constraint in
            if case .generated(_, stored: true) = constraint.kind { return true }
            return false
        }
    }

    /// Creates `granite_sequence` (Granite's `sqlite_sequence`) if it does not exist yet.
    func createSequenceTable() throws {
        guard catalog.table(QualifiedName(schema: "main", name: WriteSession.sequenceTable)) == nil else { return }
        let sql = "CREATE TABLE \(WriteSession.sequenceTable)(name,seq)"
        guard case .createTable(let create) = try Parser.parseStatement(sql).kind else { return }
        try catalog.createTable(
            create, sql: sql, transaction: currentWriteTransaction(), allowingReservedName: true)
    }

    /// Before `DROP TABLE`: with foreign keys enabled, deletes the rows of a parent table (running the foreign
    /// key actions, failing on remaining references), and forgets an AUTOINCREMENT table's sequence.
    private func dropTable(_ drop: DropStatement, parameters: BoundParameters) throws {
        guard let table = catalog.table(drop.name) else { return }
        let session = makeSession(parameters)
        if foreignKeysEnabled, !(try session.referencing(table)).isEmpty {
            try session.prepareForeignKeys(table, asChild: false, asParent: true)
            let writer = try session.writer(table)
            try writer.scan(inBatches: { rows in
                for row in rows {
                    guard case .integer(let rowid) = row[table.columns.count],
                        let current = try writer.fetch(rowid: rowid)
                    else { continue }
                    // As in SQLite, the implicit DELETE of DROP TABLE fires none of the table's triggers.
                    try session.delete(writer, current, direct: true, firesTriggers: false)
                }
            })
            try session.finish()
            // SQLite counts the implicit DELETE's rows as the changes of the DROP TABLE.
            changes = session.changes
            totalChanges += session.changes
        }
        try session.dropSequence(table)
    }

    /// The writer of the statement's table, from the statement's cache when it has it; the writer is registered
    /// with `session`.
    func target(_ name: QualifiedName, _ session: WriteSession, _ cache: WriteCache) throws -> TableWriter {
        if let writer = cache.writer {
            session.adopt(writer)
            return writer
        }
        let table = try cache.table ?? tableDefinition(name)
        cache.table = table
        let writer = try session.writer(table)
        cache.writer = writer
        session.adopt(writer)
        return writer
    }

    // MARK: Shared by INSERT and UPDATE

    /// The evaluation slot a column list or `SET` names with `name`: a declared column; else, for `rowid`, `oid`
    /// or `_rowid_`, the INTEGER PRIMARY KEY or (the slot after the declared columns) the hidden rowid.
    static func writableSlot(_ name: String, _ table: TableDefinition) -> Int? {
        if let index = table.columnIndex(named: name) { return index }
        guard SchemaNames.isRowidName(name, of: table) else { return nil }
        return table.rowidAlias ?? table.columns.count
    }

    /// `assignments` with each row-value assignment `(a, b) = (x, y)` split into `a = x, b = y`, in place. An
    /// assignment from a subquery `(a, b) = (SELECT …)` is kept whole (its subquery runs once for all its
    /// columns).
    /// - Throws: SQLite's `2 columns assigned 3 values` when the sizes differ.
    static func singleColumnAssignments(_ assignments: [Assignment]) throws -> [Assignment] {
        guard assignments.contains(where: \.isRow) else { return assignments }
        var split: [Assignment] = []
        for assignment in assignments {
            guard assignment.isRow else {
                split.append(assignment)
                continue
            }
            let values: [SQLExpression]
            switch assignment.value.kind {
            case .row(let xs): values = xs
            case .subquery:
                split.append(assignment)
                continue
            default: values = [assignment.value]
            }
            guard values.count == assignment.columns.count else {
                throw SQLExecutionError("\(assignment.columns.count) columns assigned \(values.count) values")
            }
            for (column, value) in zip(assignment.columns, values) {
                var single = assignment
                single.columns = [column]
                single.value = value
                single.isRow = false
                split.append(single)
            }
        }
        return split
    }

    /// The names of the columns `assignments` set, in order.
    static func assignedColumnNames(_ assignments: [Assignment]) throws -> [String] {
        try singleColumnAssignments(assignments).flatMap(\.columns)
    }

    /// Compiles `SET` assignments with `resolver`, or with `subqueries` those holding a subquery: one
    /// value per assigned column, in order; those of a row assignment from a subquery must be evaluated in that
    /// order (see ``WriteSubqueries/compileRow(_:width:)``).
    func compileAssignments(
        _ assignments: [Assignment], _ table: TableDefinition, _ resolver: some ColumnResolver,
        subqueries: () throws -> WriteSubqueries
    ) throws -> [(column: Int, value: CompiledExpression)] {
        var compiled: [(column: Int, value: CompiledExpression)] = []
        for assignment in try Self.singleColumnAssignments(assignments) {
            var columns: [Int] = []
            for name in assignment.columns {
                guard let column = Self.writableSlot(name, table) else {
                    throw SQLExecutionError(.noSuchColumn(ColumnReference(column: name)))
                }
                if column < table.columns.count, table.columns[column].generated != nil {
                    throw SQLExecutionError("cannot UPDATE generated column \"\(table.columns[column].name)\"")
                }
                columns.append(column)
            }
            if assignment.isRow, case .subquery(let select) = assignment.value.kind {
                let values = try subqueries().compileRow(select, width: columns.count)
                compiled += zip(columns, values).map { ($0, $1) }
            } else if WriteSubqueries.needed(for: assignment.value) {
                compiled.append((columns[0], try subqueries().compile(assignment.value)))
            } else {
                compiled.append((columns[0], try ExpressionCompiler.compile(assignment.value, resolver: resolver)))
            }
        }
        return compiled
    }
}
