// INSERT: target columns, VALUES or query rows, upserts (ON CONFLICT), and the plan later runs of the same
// statement reuse.

import GraniteStorage

/// Resolves the names of an upsert's `DO UPDATE`: the existing row under the table's name (slots `0...n`) and
/// the proposed row under `excluded` (slots `n+1...2n+1`).
private struct UpsertScope: ColumnResolver {
    let scope: TableScope
    let width: Int

    var connectionCounters: ConnectionCounters? { scope.connectionCounters }

    func resolve(_ reference: ColumnReference) throws -> ResolvedColumn {
        if let qualifier = reference.table, SchemaNames.equal(qualifier, "excluded"), reference.schema == nil {
            var unqualified = reference
            unqualified.table = nil
            var resolved = try scope.resolve(unqualified)
            resolved.slot += width
            return resolved
        }
        return try scope.resolve(reference)
    }
}

extension SQLConnection {
    /// Runs an INSERT … VALUES planned by an earlier run (``WriteCache/insertPlan``) for the same schema: its
    /// checks are done and its values compiled.
    func insert(
        _ plan: WriteCache.InsertPlan, _ writer: TableWriter, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        let parameters = session.parameters
        session.adopt(writer)
        session.returning = cache.returning
        session.singleRowInsert = plan.singleRowInsert
        session.started = true
        var context: EvaluationContext?
        for tuple in plan.tuples {
            var values: [Value]
            if plan.targetsEveryColumnInOrder {
                // The row is the tuple's values: no copy of the defaults to overwrite one by one (and, as in SQLite,
                // no default evaluated when no column takes it). Room for the rowid slot.
                values = []
                swap(&values, &plan.spareRow)
                values.reserveCapacity(tuple.count + 1)
                for k in tuple.indices {
                    values.append(plan.affinities[k].apply(to: try value(of: tuple[k], parameters, &context)))
                }
            } else {
                values = try writer.newRowDefaults()
                values.reserveCapacity(values.count + 1)
                if plan.explicitRowid { values.append(.null) }
                for k in tuple.indices {
                    values[plan.targets[k]] = plan.affinities[k].apply(
                        to: try value(of: tuple[k], parameters, &context))
                }
            }
            let stored = try session.insert(writer, consume values, resolution: plan.resolution, upsert: plan.upsert)
            if var stored, plan.targetsEveryColumnInOrder {
                stored.removeAll(keepingCapacity: true)
                plan.spareRow = stored
            }
        }
        try session.finish()
        return (session.returning?.names ?? [], session.returnedRows)
    }

    /// The value `source` gives a planned INSERT, the context made on the first expression that needs one.
    @inline(__always)
    private func value(
        of source: WriteCache.ValueSource, _ parameters: BoundParameters, _ context: inout EvaluationContext?
    ) throws -> Value {
        switch source {
        case .parameter(let index): return parameters[index]
        case .constant(let constant): return constant
        case .expression(let expression):
            if context == nil { context = EvaluationContext(parameters: parameters) }
            return try expression.evaluate(&context!)
        }
    }

    func insert(
        _ insert: InsertStatement, statement: Statement, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        let parameters = session.parameters
        let writer = try target(insert.table, session, cache)
        let table = writer.table
        if let triggers = writer.triggers {
            let updates = insert.upsert.contains { if case .update = $0.action { return true } else { return false } }
            try prepare(triggers, insert: true, update: updates)
        }
        let targets = try cache.targets ?? insertTargets(insert, table)
        cache.targets = targets
        let upsert = try cache.upsert ?? insert.upsert.map { try upsertPlan($0, writer, statement, cache) }
        cache.upsert = upsert
        let returning = try cache.returning ?? insert.returning.map { try returningList($0, writer, statement, cache) }
        cache.returning = returning
        let (rows, tuples, streamed) = try insertSource(
            insert, writer, targets: targets, statement: statement, parameters: parameters, cache: cache)
        defer { streamed?.close() }
        try prepareInsert(insert, writer, targets: targets, upsert: upsert, session: session)
        session.started = true
        session.returning = returning
        let affinities =
            cache.targetAffinities
            ?? targets.map { $0 < table.columns.count ? table.columns[$0].affinity : SQLAffinity.integer }
        cache.targetAffinities = affinities
        let firesInsertTriggers = writer.triggers.map { !$0.beforeInsert.isEmpty || !$0.afterInsert.isEmpty } ?? false
        let computesRowsFirst = (tuples?.count ?? 0) > 1 && (returning != nil || firesInsertTriggers)
        if let tuples, !table.isAutoincrement, cache.valuesSubqueries == nil, cache.upsertSubqueries == nil,
            !computesRowsFirst
        {
            // The next runs skip the checks above (their outcome depends only on the statement and the schema)
            // and evaluate the cached VALUES directly.
            cache.insertPlan = WriteCache.InsertPlan(
                tuples: tuples, targets: targets, affinities: affinities, resolution: insert.orAction, upsert: upsert,
                singleRowInsert: session.singleRowInsert, explicitRowid: targets.contains(table.columns.count),
                columnCount: table.columns.count)
        }
        func insertRow(_ values: consuming [Value]) throws {
            _ = try session.insert(writer, consume values, resolution: insert.orAction, upsert: upsert)
        }
        // An explicit hidden rowid goes after the declared columns (see ``Self/writableSlot(_:_:)``).
        let explicitRowid = targets.contains(table.columns.count)
        let subqueries = try startSubqueries(cache, parameters).values
        if let tuples {
            var context = EvaluationContext(parameters: parameters, subqueries: subqueries)
            func row(_ tuple: [CompiledExpression]) throws -> [Value] {
                var values = try writer.newRowDefaults()
                values.reserveCapacity(values.count + 1)
                if explicitRowid { values.append(.null) }
                for k in tuple.indices {
                    values[targets[k]] = affinities[k].apply(to: try tuple[k].evaluate(&context))
                }
                return values
            }
            if subqueries != nil || computesRowsFirst {
                // As SQLite when a subquery may read the table, or rows of several VALUES fire INSERT triggers
                // (RETURNING is one): every row is computed before the first is inserted (SQLite reads the VALUES
                // into a temporary table first), so none sees what inserting an earlier one changed.
                for values in try tuples.map(row) { try insertRow(values) }
            } else {
                for tuple in tuples { try insertRow(try row(tuple)) }
            }
        } else {
            func values(_ supplied: [Value]) throws -> [Value] {
                var values = try writer.newRowDefaults()
                values.reserveCapacity(values.count + 1)
                if explicitRowid { values.append(.null) }
                for (k, value) in supplied.enumerated() {
                    values[targets[k]] = affinities[k].apply(to: value)
                }
                return values
            }
            if let streamed {
                while let supplied = try streamed.next() { try insertRow(try values(supplied)) }
            } else {
                for supplied in rows { try insertRow(try values(supplied)) }
            }
        }
        try session.finish()
        return (returning?.names ?? [], session.returnedRows)
    }

    /// The slots an INSERT writes, in the order of its values: the named columns, else every declared column.
    private func insertTargets(_ insert: InsertStatement, _ table: TableDefinition) throws -> [Int] {
        // Generated columns take no value: they are computed from the others.
        guard let names = insert.columns else {
            return table.columns.indices.filter { table.columns[$0].generated == nil }
        }
        return try names.map { name in
            guard let slot = Self.writableSlot(name, table) else {
                throw SQLExecutionError(.noColumnNamed(table: table.name, column: name))
            }
            if slot < table.columns.count, table.columns[slot].generated != nil {
                throw SQLExecutionError("cannot INSERT into generated column \"\(table.columns[slot].name)\"")
            }
            return slot
        }
    }

    /// The rows an INSERT writes: `VALUES` tuples compiled (and cached), to be evaluated row by row as they are
    /// inserted (as SQLite does), the rows of `DEFAULT VALUES` or of a query computed now, or the open cursor of
    /// a query whose rows are inserted as it yields them (``streamsQuery(of:into:)``).
    private func insertSource(
        _ insert: InsertStatement, _ writer: TableWriter, targets: [Int], statement: Statement,
        parameters: BoundParameters, cache: WriteCache
    ) throws -> (rows: [[Value]], tuples: [[CompiledExpression]]?, streamed: SelectCursor?) {
        let table = writer.table
        var rows: [[Value]] = []
        var streamed: SelectCursor?
        /// `VALUES` tuples, evaluated row by row as they are inserted (as SQLite does).
        var tuples: [[CompiledExpression]]?
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
                let compiled =
                    try cache.values
                    ?? expressions.map { tuple in
                        try tuple.map { expression in
                            guard WriteSubqueries.needed(for: expression) else {
                                return try ExpressionCompiler.compile(
                                    expression, resolver: EmptyColumnResolver(counters: counters))
                            }
                            return try writeSubqueries(&cache.valuesSubqueries, nil, statement).compile(expression)
                        }
                    }
                cache.values = compiled
                tuples = compiled
            } else {
                let program = try compileSelect(select, statement: statement)
                if program.columnNames.count != targets.count {
                    throw SQLExecutionError(
                        Self.countMismatch(table, insert, targets.count, program.columnNames.count))
                }
                let cursor = SelectCursor(program: program)
                cursor.sortMemoryLimit = sortMemoryLimit
                try cursor.open(parameters: parameters)
                if streamsQuery(of: insert, into: writer) {
                    streamed = cursor
                } else {
                    defer { cursor.close() }
                    while let row = try cursor.next() { rows.append(row) }
                }
            }
        }
        return (rows, tuples, streamed)
    }

    /// Prepares `session` for an INSERT into `writer`'s table: its foreign keys and AUTOINCREMENT sequence, and
    /// whether it inserts a single row that fails at once on a missing parent.
    private func prepareInsert(
        _ insert: InsertStatement, _ writer: TableWriter, targets: [Int], upsert: [UpsertPlan],
        session: WriteSession
    ) throws {
        let table = writer.table
        try session.prepareForeignKeys(table, asChild: true, asParent: false)
        try session.insertTarget(table)
        // SQLite fails a single-row INSERT on a missing parent at once, unless the statement may write several
        // rows (REPLACE conflict handling, RETURNING).
        var singleRow = false
        if case .select(let select) = insert.source, case .values(let tuples) = select.first, tuples.count == 1 {
            singleRow = true
        } else if case .defaultValues = insert.source {
            singleRow = true
        }
        let mayWriteSeveral =
            insert.returning != nil
            || session.constraintOrder(
                writer, insert.orAction, upsert, explicitRowid: targets.contains(table.columns.count)
            ).contains {
                if case .resolution(.replace) = $0.1 { return true }
                return false
            }
        session.singleRowInsert = singleRow && !mayWriteSeveral
        // Rows inserted into a parent table matter only when the statement may write several rows.
        try session.prepareForeignKeys(table, asChild: false, asParent: !session.singleRowInsert)
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

    /// Compiles one `ON CONFLICT` clause, finding the constraint its target names.
    private func upsertPlan(
        _ clause: UpsertClause, _ writer: TableWriter, _ statement: Statement, _ cache: WriteCache
    ) throws -> UpsertPlan {
        var plan = UpsertPlan(target: nil, assignments: nil, condition: nil)
        if let target = clause.target { plan.target = try upsertTarget(target, clause.targetWhere, writer) }
        if case .update(let assignments, let condition) = clause.action {
            let resolver = UpsertScope(scope: writer.scope, width: writer.table.columns.count + 1)
            func subqueries() throws -> WriteSubqueries {
                let made = try writeSubqueries(&cache.upsertSubqueries, writer.table, statement, excluded: true)
                plan.subqueries = made
                return made
            }
            plan.assignments = try compileAssignments(assignments, writer.table, resolver, subqueries: subqueries)
            plan.condition = try condition.map {
                WriteSubqueries.needed(for: $0)
                    ? try subqueries().compile($0) : try ExpressionCompiler.compile($0, resolver: resolver)
            }
        }
        return plan
    }

    private func upsertTarget(
        _ columns: [IndexedColumn], _ condition: SQLExpression?, _ writer: TableWriter
    ) throws -> UniqueTarget {
        let table = writer.table
        // A term without COLLATE matches an index column of any collation (SQLite compares the target with
        // `sqlite3ExprCompare`, for which a COLLATE on one side only is a near match); a written one must agree.
        var terms: [(column: Int, collation: String?)] = []
        for indexed in columns {
            guard let name = indexed.columnName else { continue }
            guard let position = Self.writableSlot(name, table) else {
                throw SQLExecutionError(.noSuchColumn(ColumnReference(column: name)))
            }
            terms.append((position, indexed.collation.map(SchemaNames.key)))
        }
        if terms.count == columns.count {
            if terms.count == 1, terms[0].column == table.rowidAlias ?? table.columns.count { return .rowid }
            for (k, entry) in writer.indexes.enumerated() {
                let index = entry.definition
                guard index.unique, index.columns.count == terms.count else { continue }
                if let partial = index.whereClause {
                    guard let condition, condition.description == partial.description else { continue }
                }
                let matches = index.columns.allSatisfy { column in
                    guard case .column(let c) = column.target else { return false }
                    let collation = SchemaNames.key(column.collation ?? "binary")
                    return terms.contains { $0.column == c && ($0.collation ?? collation) == collation }
                }
                if matches { return .index(k) }
            }
        }
        throw SQLExecutionError("ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint")
    }
}
