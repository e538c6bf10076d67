// UPDATE and DELETE: finding the rows a statement changes (by rowid when it can), then changing or deleting them.

import GraniteStorage

extension SQLConnection {
    /// The rows of `writer`'s table matching `condition` (each: the column values, then the rowid), found by the
    /// query planner with `SELECT *, rowid FROM t WHERE condition`, compiled once per cache.
    ///
    /// With `keysOnly`, a row found by its rowid may hold only its rowid and the columns of its index keys (see
    /// ``TableWriter/fetch(rowid:keysOnly:)``). `target` is the table as the statement names it: its alias
    /// qualifies the condition's columns, and its `INDEXED BY` / `NOT INDEXED` steers the search.
    private func matchingRows(
        _ writer: TableWriter, _ target: @autoclosure () -> WriteTarget,
        _ condition: @autoclosure () -> SQLExpression?, _ statement: Statement, _ parameters: BoundParameters,
        _ cache: WriteCache, keysOnly: Bool = false, unread: [Bool]? = nil
    ) throws -> MatchingRows {
        // The target and the condition are read only on the statement's first run, which compiles what the later
        // runs reuse: copying them out of the statement on every run costs more than a one-row write's lookup.
        if !cache.rowidLookupChecked {
            let target = target()
            // Under INDEXED BY the planner reads the named index even for a rowid term, and checks the name.
            let readsNamedIndex = if case .indexedBy = target.indexHint { true } else { false }
            cache.rowidLookup = readsNamedIndex ? nil : rowidLookup(writer.scope(alias: target.alias), condition())
            cache.rowidLookupChecked = true
        }
        if let lookup = cache.rowidLookup {
            // The rowid the query planner would look up (`AccessKeys.rowid`), then the whole condition on its row
            // unless the key is that integer already (`rowid = i` holds for the row of rowid i).
            let key: Value
            switch lookup.key {
            case .parameter(let index): key = parameters[index]
            case .constant(let constant): key = constant
            case .expression(let expression):
                var context = EvaluationContext(parameters: parameters)
                key = try expression.evaluate(&context)
            }
            guard let rowid = AccessKeys.rowid(key),
                let row = try writer.fetch(rowid: rowid, keysOnly: keysOnly, unread: unread)
            else { return .one(nil) }
            if case .integer = key { return .one(row) }
            var rowContext = EvaluationContext(row: row, parameters: parameters)
            return try lookup.condition.isTrue(&rowContext) ? .one(row) : .one(nil)
        }
        let cursor: SelectCursor
        if let cached = cache.matchingCursor {
            cursor = cached
        } else {
            let select = matchingQuery(writer.table, target(), condition(), statement)
            let program = try compileSelect(select, statement: statement)
            cursor = SelectCursor(program: program)
            cursor.sortMemoryLimit = sortMemoryLimit
            cache.matching = program
            cache.matchingCursor = cursor
        }
        try cursor.open(parameters: parameters)
        var rows: [[Value]] = []
        while let row = try cursor.next() { rows.append(row) }
        // Rows are changed in rowid order, whatever order the search found them in; those of a WITHOUT ROWID
        // table in the order found, which a full scan gives in primary-key order as SQLite's does.
        let n = writer.table.columns.count
        if rows.count > 1 && writer.hasRowid {
            rows.sort { a, b in
                guard case .integer(let x) = a[n], case .integer(let y) = b[n] else { return false }
                return x < y
            }
        }
        return .list(rows)
    }

    /// `SELECT *, rowid FROM target WHERE condition`: the query finding the rows an UPDATE or DELETE changes, each
    /// with the values of `extra` after its rowid.
    func matchingQuery(
        _ table: TableDefinition, _ target: WriteTarget, _ condition: SQLExpression?, _ statement: Statement,
        extra: [ResultColumn] = []
    ) -> SelectStatement {
        var columns: [ResultColumn] = table.columns.map {
            .expression(SQLExpression(.column(ColumnReference(column: $0.name))), alias: nil)
        }
        let rowid = ColumnReference(
            column: table.rowidAlias.map { table.columns[$0].name } ?? SchemaNames.storageRowidName)
        columns.append(.expression(SQLExpression(.column(rowid)), alias: nil))
        // The changed table is the stored one, even where a common table of the statement has its name.
        var name = target.name
        if name.schema == nil && statement.writeCommonTables != nil { name.schema = "main" }
        let clause = SelectClause(
            distinct: false, columns: columns + extra,
            from: FromClause(first: .table(name, alias: target.alias, indexHint: target.indexHint), joins: []),
            whereClause: condition, groupBy: [], having: nil)
        return SelectStatement(first: .select(clause), compounds: [], orderBy: [], limit: nil, with: nil)
    }

    /// For a condition `rowid = constant` (the rowid or its alias compared with a parameter or a literal): the
    /// constant and the condition, compiled with `scope` (the target's names); nil for any other condition.
    private func rowidLookup(_ scope: TableScope, _ condition: SQLExpression?) -> WriteCache.RowidLookup? {
        guard let condition, case .binary(.equal, let left, let right) = condition.kind else { return nil }
        func isRowid(_ e: SQLExpression) -> Bool {
            guard case .column(let reference) = e.kind, let resolved = try? scope.resolve(reference) else {
                return false
            }
            return resolved.slot == scope.rowidSlot || resolved.slot == scope.table?.rowidAlias
        }
        func isConstant(_ e: SQLExpression) -> Bool {
            switch e.kind {
            case .parameter, .literal: return true
            default: return false
            }
        }
        let key: SQLExpression
        if isRowid(left) && isConstant(right) {
            key = right
        } else if isRowid(right) && isConstant(left) {
            key = left
        } else {
            return nil
        }
        guard let compiledKey = try? ExpressionCompiler.compile(key, resolver: EmptyColumnResolver()),
            let compiledCondition = try? ExpressionCompiler.compile(condition, resolver: scope)
        else { return nil }
        return WriteCache.RowidLookup(key: .init(compiledKey), condition: compiledCondition)
    }

    func update(
        _ update: UpdateStatement, statement: Statement, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        if let from = update.from {
            return try updateFrom(update, from, statement: statement, session: session, cache: cache)
        }
        let parameters = session.parameters
        let writer = try target(update.table, session, cache)
        if let triggers = writer.triggers {
            try prepare(triggers, update: true, updated: try Self.assignedColumnNames(update.assignments))
        }
        let assignments =
            try cache.assignments
            ?? compileAssignments(
                update.assignments, writer.table, writer.scope(alias: update.alias),
                subqueries: {
                    try self.writeSubqueries(&cache.rowSubqueries, writer.table, statement, alias: update.alias)
                })
        cache.assignments = assignments
        let sources = cache.assignmentSources ?? assignments.map { ($0.column, WriteCache.ValueSource($0.value)) }
        cache.assignmentSources = sources
        let returning = try cache.returning ?? update.returning.map { try returningList($0, writer, statement, cache) }
        cache.returning = returning
        let subqueries = try startSubqueries(cache, parameters).row
        if !cache.foreignKeysPrepared {
            let assigned = Set(assignments.map(\.column))
            try session.prepareForeignKeys(writer.table, asChild: true, asParent: true, assigned: assigned)
            cache.foreignKeysPrepared = true
        }
        let n = writer.columnCount
        // `SET rowid = …` on a table without INTEGER PRIMARY KEY: the new rowid follows the declared columns.
        let movesRowid = sources.contains { $0.column == n }
        let unread = cache.unreadColumns ?? unreadColumns(writer, sources, returning: returning != nil)
        cache.unreadColumns = unread
        let rows = try matchingRows(
            writer, WriteTarget(update), update.whereClause, statement, parameters, cache, unread: unread)
        if rows.count > 1 || !(cache.singleRowSafe ?? isSingleRowSafe(writer.table, update.orAction, cache)) {
            try ensureStatementSavepoint()
        }
        session.started = true
        session.returning = returning
        // Triggers and change observers see the assigned columns; without either, skip building the list per row.
        let passesAssigned = writer.triggers != nil || session.changeObserver != nil
        try rows.forEach { position, row in
            // A row deleted or changed by an earlier REPLACE or foreign key action is read again.
            guard let old = position == 0 ? row : try session.storedRow(writer, matched: row) else { return }
            var context: EvaluationContext?
            var values: [Value] = []
            values.reserveCapacity(n + 1)
            values.append(contentsOf: old[0..<(movesRowid ? n + 1 : n)])
            for (column, source) in sources {
                let value: Value
                switch source {
                case .parameter(let index): value = parameters[index]
                case .constant(let constant): value = constant
                case .expression(let expression):
                    // Every assignment sees the old row.
                    if context == nil {
                        context = EvaluationContext(row: old, parameters: parameters, subqueries: subqueries)
                    }
                    value = try expression.evaluate(&context!)
                }
                values[column] = (column < n ? writer.affinities[column] : .integer).apply(to: value)
            }
            _ = try session.update(
                writer, old: old, values: consume values, resolution: update.orAction,
                assigned: passesAssigned ? assignments.map(\.column) : nil)
        }
        try session.finish()
        return (returning?.names ?? [], session.returnedRows)
    }

    /// The columns an UPDATE need not read from the old row: those it sets to a parameter or a constant, when
    /// nothing else looks at their old values (no index key uses them, the index keys are plain columns, no
    /// RETURNING, no foreign key from or to the table). Reading a row is then cheaper: no text is decoded for a
    /// column that is about to be overwritten.
    private func unreadColumns(
        _ writer: TableWriter, _ sources: [(column: Int, value: WriteCache.ValueSource)], returning: Bool
    ) -> [Bool] {
        var unread = [Bool](repeating: false, count: writer.columnCount)
        let foreignKeys =
            foreignKeysEnabled && (!writer.table.foreignKeys.isEmpty || !cachedReferences(writer.table).isEmpty)
        guard !returning, !foreignKeys, writer.keysCannotFail, writer.triggers == nil else { return unread }
        for (column, source) in sources {
            if case .expression = source { return [Bool](repeating: false, count: writer.columnCount) }
            if column < unread.count, !writer.isKeyColumn(column) { unread[column] = true }
        }
        return unread
    }

    func delete(
        _ delete: DeleteStatement, statement: Statement, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        let writer = try target(delete.table, session, cache)
        // The index an INDEXED BY names must exist even where no search reads it, as in SQLite. (Only then: listing
        // the table's indexes on every DELETE costs more than a one-row delete's own work.)
        if delete.indexHint != nil {
            _ = try IndexRestriction(delete.indexHint, table: writer.table, indexes: catalog.indexes(of: writer.table))
        }
        let deletesEveryRow = cache.deletesEveryRow ?? (delete.whereClause == nil && delete.returning == nil)
        cache.deletesEveryRow = deletesEveryRow
        if deletesEveryRow, try deletesAllRowsAtOnce(writer, session) {
            return try deleteAllRows(writer, session: session)
        }
        if let triggers = writer.triggers { try prepare(triggers, delete: true) }
        let returning = try cache.returning ?? delete.returning.map { try returningList($0, writer, statement, cache) }
        cache.returning = returning
        try startSubqueries(cache, session.parameters)
        if !cache.foreignKeysPrepared {
            try session.prepareForeignKeys(writer.table, asChild: false, asParent: true)
            cache.foreignKeysPrepared = true
        }
        // Without RETURNING or foreign keys, removing a row needs only its index keys.
        let singleRowSafe = cache.singleRowSafe ?? isSingleRowSafe(writer.table, nil, cache)
        let rows = try matchingRows(
            writer, WriteTarget(delete), delete.whereClause, statement, session.parameters, cache,
            keysOnly: returning == nil && singleRowSafe)
        // SQLite's RETURNING runs as an AFTER trigger (see ``WriteSession/returning``): its subqueries see the
        // table without the row, and its failure comes after the row's removal, which the statement savepoint
        // undoes.
        if rows.count > 1 || !singleRowSafe || returning != nil { try ensureStatementSavepoint() }
        session.started = true
        session.returning = returning
        try rows.forEach { position, row in
            guard let old = position == 0 ? row : try session.storedRow(writer, matched: row) else { return }
            try session.delete(writer, old, direct: true)
        }
        try session.finish()
        return (returning?.names ?? [], session.returnedRows)
    }
}
