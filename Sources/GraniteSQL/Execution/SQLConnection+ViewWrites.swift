// INSERT, UPDATE and DELETE on a view that has INSTEAD OF triggers: the statement finds the view rows it would
// change and runs the triggers for each, changing nothing itself (its changes() is 0, as in SQLite).

import GraniteStorage

extension SQLConnection {
    /// Whether a write to `name` goes to ``writeView(_:parameters:)``: `name` is a view (rather than a table) with
    /// triggers, or the statement has RETURNING (with which SQLite 3.40 runs the write on a view without a trigger
    /// for it: it changes nothing and returns the rows). A cheap test first: no trigger, no RETURNING.
    @inline(__always)
    func isWrittenView(_ name: QualifiedName, returning: Bool) -> Bool {
        if catalog.triggersByKey.isEmpty && !catalog.hasTemporarySchema && !returning { return false }
        return isView(name, returning: returning)
    }

    @inline(never)
    private func isView(_ name: QualifiedName, returning: Bool) -> Bool {
        guard catalog.table(name) == nil, let view = catalog.view(name) else { return false }
        return returning || !catalog.triggers(onView: view.name).isEmpty
    }

    /// The triggers of `view`, kept while the schema stays the same (so that a running trigger is known as such
    /// across statements).
    private func viewTriggers(_ view: ViewDefinition) throws -> TableTriggers {
        if viewTriggerCacheVersion != catalog.schemaVersion {
            viewTriggerCache.removeAll()
            viewTriggerCacheVersion = catalog.schemaVersion
        }
        let key = SchemaNames.key(view.name)
        if let cached = viewTriggerCache[key] { return cached }
        let triggers = try makeViewTriggers(view, catalog.triggers(onView: view.name))
        viewTriggerCache[key] = triggers
        return triggers
    }

    /// `definitions` (triggers on `view`) ready to fire: `NEW.x` and `OLD.x` name the view's columns, as a query
    /// reading the view sees them.
    func makeViewTriggers(_ view: ViewDefinition, _ definitions: [TriggerDefinition]) throws -> TableTriggers {
        let columns = try reading {
            try SelectCompiler(catalog: catalog, connection: self, sourceText: view.sql, sourceStart: 0)
                .compileView(view, forInfoOnly: true).columns
        }
        let triggers = TableTriggers(
            definitions, columns: columns.map(\.name), collations: [:], hasRowid: false, rowidSlot: columns.count)
        triggers.affinities = columns.map { $0.declaredType.map { SQLAffinity(declaredType: $0) } }
        return triggers
    }

    /// Runs an INSERT, UPDATE or DELETE on a view through its INSTEAD OF triggers; without a trigger for the
    /// statement's event it is SQLite's `cannot modify v because it is a view`.
    func writeView(_ statement: Statement, parameters: BoundParameters) throws -> (columns: [String], rows: [[Value]]) {
        let target: QualifiedName
        var returning: [ResultColumn]?
        switch statement.kind {
        case .insert(let insert): (target, returning) = (insert.table, insert.returning)
        case .update(let update): (target, returning) = (update.table, update.returning)
        case .delete(let delete): (target, returning) = (delete.table, delete.returning)
        default: return ([], [])
        }
        guard let view = catalog.view(named: target.name) else { throw SQLExecutionError.noSuchTable(target.name) }
        let triggers = try viewTriggers(view)
        let cannotModify = SQLExecutionError("cannot modify \(view.name) because it is a view")
        // The rows RETURNING reads: NEW rows of an INSERT or UPDATE, OLD rows of a DELETE, as in SQLite.
        var returned: [[Value]] = []
        // The triggers may write many rows: the statement must be undone whole if one fails.
        try ensureStatementSavepoint()
        switch statement.kind {
        case .insert(let insert):
            guard !triggers.insteadOfInsert.isEmpty || returning != nil, insert.upsert.isEmpty else {
                throw cannotModify
            }
            try prepare(triggers, insert: true)
            for row in try viewInsertRows(insert, view, triggers.columns, statement, parameters) {
                _ = try countingNoChangeOnFailure {
                    try fire(triggers.insteadOfInsert, of: triggers, old: nil, new: row, resolution: insert.orAction)
                }
                if returning != nil { returned.append(row) }
            }
        case .update(let update):
            let assignments = try Self.singleColumnAssignments(update.assignments)
            let assignedNames = assignments.flatMap(\.columns)
            let firing = triggers.insteadOfUpdate.filter { $0.definition.fires(onUpdateOf: assignedNames) }
            guard !firing.isEmpty || returning != nil else { throw cannotModify }
            try prepare(triggers, update: true, updated: assignedNames)
            var positions: [Int] = []
            for name in assignedNames {
                guard let k = triggers.columns.firstIndex(where: { SchemaNames.equal($0, name) }) else {
                    throw SQLExecutionError(.noSuchColumn(ColumnReference(column: name)))
                }
                positions.append(k)
            }
            let values = assignments.map { ResultColumn.expression($0.value, alias: nil) }
            // A row assignment from a subquery gives one value per column it assigns (after the view's columns).
            var rowSubqueries: [Int: Int] = [:]
            for (k, assignment) in assignments.enumerated() where assignment.isRow {
                rowSubqueries[1 + k] = assignment.columns.count
            }
            let rows =
                try update.from.map { from in
                    try viewJoinedRows(update, from, triggers.columns, assignments, statement, parameters)
                }
                ?? viewRows(
                    view, alias: update.alias, extra: values, update.whereClause, update.with, statement, parameters,
                    rowSubqueries: rowSubqueries)
            let names = positions.map { triggers.columns[$0] }
            let n = triggers.columns.count
            // SQLite's RETURNING sees NULL for a column the UPDATE does not assign, unless a trigger reads it as
            // NEW.x (it loads only those), or no trigger fires (it then loads every column).
            var loaded = Set(firing.isEmpty ? Array(0..<n) : positions)
            if returning != nil {
                for trigger in firing {
                    for binding in try triggers.program(of: trigger).bindings where binding.isNew {
                        loaded.insert(binding.slot)
                    }
                }
            }
            for row in rows {
                let old = Array(row.prefix(n))
                var new = old
                for (k, position) in positions.enumerated() { new[position] = row[n + k] }
                // As in SQLite, the NEW row of a view takes the affinities of the view's columns, for its triggers
                // (without one, RETURNING sees the values as assigned).
                for (k, affinity) in triggers.affinities.enumerated() where k < n && !firing.isEmpty {
                    if let affinity { new[k] = affinity.apply(to: new[k]) }
                }
                _ = try countingNoChangeOnFailure {
                    try fire(
                        triggers.insteadOfUpdate, of: triggers, old: old, new: new, assigned: names,
                        resolution: update.orAction)
                }
                if returning != nil {
                    returned.append(new.indices.map { loaded.contains($0) ? new[$0] : .null })
                }
            }
        case .delete(let delete):
            guard !triggers.insteadOfDelete.isEmpty || returning != nil else { throw cannotModify }
            try prepare(triggers, delete: true)
            for row in try viewRows(
                view, alias: delete.alias, extra: [], delete.whereClause, delete.with, statement, parameters)
            {
                _ = try countingNoChangeOnFailure {
                    try fire(triggers.insteadOfDelete, of: triggers, old: row, new: nil, resolution: nil)
                }
                if returning != nil { returned.append(row) }
            }
        default:
            break
        }
        changes = 0
        guard let returning else { return ([], []) }
        return try returningRows(returning, of: returned, view, triggers.columns, statement, parameters)
    }

    /// Runs `body`, the INSTEAD OF triggers of one row of a view write: when they fail, the statement ends having
    /// changed nothing, and `changes()` is then 0, as SQLite's statement rollback sets it.
    private func countingNoChangeOnFailure<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch {
            changes = 0
            throw error
        }
    }

    /// Evaluates `RETURNING` columns on rows of `view` (whose columns are `columns`): as a query reading the rows
    /// under the view's name, so that its names and `*` resolve as on the view itself.
    private func returningRows(
        _ returning: [ResultColumn], of rows: [[Value]], _ view: ViewDefinition, _ columns: [String],
        _ statement: Statement, _ parameters: BoundParameters
    ) throws -> (columns: [String], rows: [[Value]]) {
        func literal(_ value: Value) -> SQLExpression {
            switch value {
            case .null: return SQLExpression(.literal(.null))
            case .integer(let i): return SQLExpression(.literal(.integer(i)))
            case .real(let r): return SQLExpression(.literal(.real(r)))
            case .text(let t): return SQLExpression(.literal(.string(t)))
            case .invalidUTF8Text(let b):
                // No string literal holds these bytes: the cast of the blob of them gives back the same TEXT.
                return SQLExpression(.cast(SQLExpression(.literal(.blob(b))), TypeName(name: "TEXT")))
            case .blob(let b): return SQLExpression(.literal(.blob(b)))
            }
        }
        // The rows as `SELECT column1 AS a, … FROM (VALUES …)`, or one row of NULLs filtered out when there are
        // none (the query still names its columns).
        let source: SelectStatement
        if rows.isEmpty {
            let clause = SelectClause(
                columns: columns.map { .expression(SQLExpression(.literal(.null)), alias: $0) },
                whereClause: SQLExpression(.literal(.integer(0))))
            source = SelectStatement(first: .select(clause))
        } else {
            let values = SelectStatement(first: .values(rows.map { $0.map(literal) }))
            let clause = SelectClause(
                columns: columns.indices.map {
                    .expression(SQLExpression(.column(ColumnReference(column: "column\($0 + 1)"))), alias: columns[$0])
                },
                from: FromClause(first: .subquery(values, alias: nil)))
            source = SelectStatement(first: .select(clause))
        }
        let query = SelectClause(
            columns: returning, from: FromClause(first: .subquery(source, alias: view.name)))
        return try select(SelectStatement(first: .select(query)), statement: statement, parameters: parameters)
    }

    /// The rows of `view` matching `condition`, each followed by the values of `extra` on it: those at the
    /// positions of `rowSubqueries` (counting the view's `*` as the first) are subqueries, each giving the row of
    /// values it assigns (see ``SelectCompiler/compileAssigning(_:rowSubqueries:)``).
    ///
    /// With `alias` (`UPDATE v AS x`, `DELETE FROM v AS x`), SQLite 3.40 qualifies the view's columns by the alias
    /// in `SET` and by nothing in `WHERE`: the condition is first compiled alone over the view under a name SQL
    /// cannot spell, so that `x.a` and `v.a` there fail as in SQLite.
    private func viewRows(
        _ view: ViewDefinition, alias: String? = nil, extra: [ResultColumn], _ condition: SQLExpression?,
        _ with: WithClause?, _ statement: Statement, _ parameters: BoundParameters, rowSubqueries: [Int: Int] = [:]
    ) throws -> [[Value]] {
        let name = QualifiedName(name: view.name)
        if alias != nil, let condition {
            let unnamed = SelectClause(
                columns: [.all], from: FromClause(first: .table(name, alias: "\u{0}view")), whereClause: condition)
            _ = try selectCompiler(statement).compile(SelectStatement(first: .select(unnamed)))
        }
        let clause = SelectClause(
            columns: [.all] + extra, from: FromClause(first: .table(name, alias: alias)), whereClause: condition)
        guard !rowSubqueries.isEmpty else {
            let query = SelectStatement(first: .select(clause), with: with)
            return try select(query, statement: statement, parameters: parameters).rows
        }
        // The statement's `WITH` reaches the query through the compiler's common tables.
        let program = try selectCompiler(statement).compileAssigning(
            SelectStatement(first: .select(clause)), rowSubqueries: rowSubqueries)
        return try allRows(of: program, parameters: parameters)
    }

    /// The rows of `UPDATE v … FROM`'s join: for each combination of a view row and `FROM` rows that the `WHERE`
    /// clause keeps, the view's columns (`columns`), then the value of each of `assignments` (a row assignment
    /// from a subquery giving one value per column it assigns). As in SQLite, a view row matched by several
    /// `FROM` rows comes once per match (its triggers fire for each), and the names resolve as in `UPDATE t …
    /// FROM` on a table: the alias qualifies the view's columns everywhere.
    private func viewJoinedRows(
        _ update: UpdateStatement, _ from: FromClause, _ columns: [String], _ assignments: [Assignment],
        _ statement: Statement, _ parameters: BoundParameters
    ) throws -> [[Value]] {
        // The view's columns are read from the join's first source whatever the FROM sources are named.
        let qualifier = QueryScope.pinnedQualifier(0)
        var outputs: [ResultColumn] = columns.map {
            .expression(SQLExpression(.column(ColumnReference(table: qualifier, column: $0))), alias: nil)
        }
        var rowSubqueries: [Int: Int] = [:]
        for assignment in assignments {
            if assignment.isRow { rowSubqueries[outputs.count] = assignment.columns.count }
            outputs.append(.expression(assignment.value, alias: nil))
        }
        var sources = FromClause(
            first: .table(update.table, alias: update.alias),
            joins: [JoinClause(op: .comma, source: from.first)] + from.joins)
        sources.constraintsStart = 1
        let clause = SelectClause(
            distinct: false, columns: outputs, from: sources, whereClause: update.whereClause, groupBy: [],
            having: nil)
        let select = SelectStatement(first: .select(clause), compounds: [], orderBy: [], limit: nil, with: update.with)
        let program =
            rowSubqueries.isEmpty
            ? try compileSelect(select, statement: statement)
            : try selectCompiler(statement).compileAssigning(select, rowSubqueries: rowSubqueries)
        if update.alias == nil, Self.names(update.table.name, in: from) {
            throw SQLExecutionError("target object/alias may not appear in FROM clause: \(update.table.name)")
        }
        return try allRows(of: program, parameters: parameters)
    }

    /// The NEW rows of an INSERT into a view: its source's rows laid out as the view's columns (NULL for those
    /// the column list leaves out), with SQLite's errors for unknown columns and mismatched counts.
    private func viewInsertRows(
        _ insert: InsertStatement, _ view: ViewDefinition, _ columns: [String], _ statement: Statement,
        _ parameters: BoundParameters
    ) throws -> [[Value]] {
        var positions = Array(columns.indices)
        if let names = insert.columns {
            positions = try names.map { name in
                guard let k = columns.firstIndex(where: { SchemaNames.equal($0, name) }) else {
                    throw SQLExecutionError("table \(view.name) has no column named \(name)")
                }
                return k
            }
        }
        guard case .select(var source) = insert.source else {
            return [[Value](repeating: .null, count: columns.count)]
        }
        if source.with == nil { source.with = insert.with }
        let result = try select(source, statement: statement, parameters: parameters)
        if result.columns.count != positions.count {
            if insert.columns == nil {
                throw SQLExecutionError(
                    "table \(view.name) has \(columns.count) columns but \(result.columns.count) values were supplied")
            }
            throw SQLExecutionError("\(result.columns.count) values for \(positions.count) columns")
        }
        return result.rows.map { values in
            var row = [Value](repeating: .null, count: columns.count)
            for (k, position) in positions.enumerated() { row[position] = values[k] }
            return row
        }
    }
}
