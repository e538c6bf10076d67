// INSERT, UPDATE and DELETE on a view that has INSTEAD OF triggers: the statement finds the view rows it would
// change and runs the triggers for each, changing nothing itself (its changes() is 0, as in SQLite).

import GraniteStorage

extension SQLConnection {
    /// Whether `name` is a view (rather than a table) with triggers: its writes go to ``writeView(_:parameters:)``.
    func isViewWithTriggers(_ name: QualifiedName) -> Bool {
        if let schema = name.schema, !SchemaNames.equal(schema, "main") { return false }
        guard catalog.table(named: name.name) == nil, let view = catalog.view(named: name.name) else { return false }
        return !catalog.triggers(on: view.name).isEmpty
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
        let columns = try reading {
            try SelectCompiler(catalog: catalog, connection: self, sourceText: view.sql, sourceStart: 0)
                .compileView(view, forInfoOnly: true).columns
        }
        let triggers = TableTriggers(
            catalog.triggers(on: view.name), columns: columns.map(\.name), collations: [:], hasRowid: false,
            rowidSlot: columns.count)
        triggers.affinities = columns.map { $0.declaredType.map { SQLAffinity(declaredType: $0) } }
        viewTriggerCache[key] = triggers
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
        if returning != nil { throw SQLExecutionError.unsupported("RETURNING on a view") }
        // The triggers may write many rows: the statement must be undone whole if one fails.
        try ensureStatementSavepoint()
        switch statement.kind {
        case .insert(let insert):
            guard !triggers.insteadOfInsert.isEmpty, insert.upsert.isEmpty else { throw cannotModify }
            try prepare(triggers, insert: true)
            for row in try viewInsertRows(insert, view, triggers.columns, statement, parameters) {
                _ = try fire(triggers.insteadOfInsert, of: triggers, old: nil, new: row, resolution: insert.orAction)
            }
        case .update(let update):
            let assignments = try Self.singleColumnAssignments(update.assignments)
            let assignedNames = assignments.map { $0.columns[0] }
            guard triggers.insteadOfUpdate.contains(where: { $0.definition.fires(onUpdateOf: assignedNames) }),
                update.from == nil
            else { throw cannotModify }
            try prepare(triggers, update: true, updated: assignedNames)
            var positions: [Int] = []
            for assignment in assignments {
                let name = assignment.columns[0]
                guard let k = triggers.columns.firstIndex(where: { SchemaNames.equal($0, name) }) else {
                    throw SQLExecutionError(.noSuchColumn(ColumnReference(column: name)))
                }
                positions.append(k)
            }
            let values = assignments.map { ResultColumn.expression($0.value, alias: nil) }
            let rows = try viewRows(view, extra: values, update.whereClause, update.with, statement, parameters)
            let names = positions.map { triggers.columns[$0] }
            let n = triggers.columns.count
            for row in rows {
                let old = Array(row.prefix(n))
                var new = old
                for (k, position) in positions.enumerated() { new[position] = row[n + k] }
                // As in SQLite, the NEW row of a view takes the affinities of the view's columns.
                for (k, affinity) in triggers.affinities.enumerated() where k < n {
                    if let affinity { new[k] = affinity.apply(to: new[k]) }
                }
                _ = try fire(
                    triggers.insteadOfUpdate, of: triggers, old: old, new: new, assigned: names,
                    resolution: update.orAction)
            }
        case .delete(let delete):
            guard !triggers.insteadOfDelete.isEmpty else { throw cannotModify }
            try prepare(triggers, delete: true)
            for row in try viewRows(view, extra: [], delete.whereClause, delete.with, statement, parameters) {
                _ = try fire(triggers.insteadOfDelete, of: triggers, old: row, new: nil, resolution: nil)
            }
        default:
            break
        }
        changes = 0
        return ([], [])
    }

    /// The rows of `view` matching `condition`, each followed by the values of `extra` on it.
    private func viewRows(
        _ view: ViewDefinition, extra: [ResultColumn], _ condition: SQLExpression?, _ with: WithClause?,
        _ statement: Statement, _ parameters: BoundParameters
    ) throws -> [[Value]] {
        let clause = SelectClause(
            columns: [.all] + extra, from: FromClause(first: .table(QualifiedName(name: view.name), alias: nil)),
            whereClause: condition)
        let query = SelectStatement(first: .select(clause), with: with)
        return try select(query, statement: statement, parameters: parameters).rows
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
