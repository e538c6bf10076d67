// UPDATE … FROM (SQLite 3.33+): the target table joined with the FROM sources; each target row the join matches is
// updated once, with the values computed from its first matching join row (SQLite leaves which one unspecified).

import GraniteStorage

extension SQLConnection {
    /// Runs `UPDATE target SET … FROM from WHERE …`.
    ///
    /// Phases: compile the join as one query (the target's columns and rowid, then each assigned value), run it to
    /// the end (every value is computed from the database as it was before the statement, as SQLite computes them
    /// into a temporary table first), then update the matched rows in rowid order.
    func updateFrom(
        _ update: UpdateStatement, _ from: FromClause, statement: Statement, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        let parameters = session.parameters
        let writer = try target(update.table, session, cache)
        // One assignment per column, but for `SET (a, b) = (SELECT …)`, which assigns its columns from one row.
        let assignments = try Self.singleColumnAssignments(update.assignments)
        let assignedNames = assignments.flatMap(\.columns)
        if let triggers = writer.triggers {
            try prepare(triggers, update: true, updated: assignedNames)
        }
        let n = writer.columnCount
        let targets = try assignedNames.map { try assignedSlot($0, writer.table) }
        let returning = try cache.returning ?? update.returning.map { try returningList($0, writer, statement, cache) }
        cache.returning = returning
        try cache.returningSubqueries?.start(parameters: parameters)
        if !cache.foreignKeysPrepared {
            try session.prepareForeignKeys(writer.table, asChild: true, asParent: true, assigned: Set(targets))
            cache.foreignKeysPrepared = true
        }
        let matches = try joinedRows(update, from, assignments, writer, statement, parameters, cache)
        if matches.count > 1 || !(cache.singleRowSafe ?? isSingleRowSafe(writer.table, update.orAction, cache)) {
            try ensureStatementSavepoint()
        }
        session.started = true
        var output: [[Value]] = []
        for (position, match) in matches.enumerated() {
            // A row deleted or changed by an earlier REPLACE or foreign key action is read again.
            guard case .integer(let rowid) = match[n],
                let old = position == 0 ? Array(match[0...n]) : try writer.fetch(rowid: rowid)
            else { continue }
            var values = Array(old[0..<n])
            for (k, column) in targets.enumerated() {
                values[column] = writer.affinities[column].apply(to: match[n + 1 + k])
            }
            if let new = try session.update(
                writer, old: old, values: values, resolution: update.orAction, assigned: targets),
                let returning
            {
                output.append(try returning.evaluate(new, parameters: parameters))
            }
        }
        try session.finish()
        return (returning?.names ?? [], output)
    }

    /// The column an assignment of `UPDATE … FROM` sets (not the rowid: SQLite's `SET rowid` has no FROM form
    /// here), with the errors of the plain UPDATE.
    private func assignedSlot(_ name: String, _ table: TableDefinition) throws -> Int {
        guard let slot = Self.writableSlot(name, table), slot < table.columns.count else {
            throw SQLExecutionError(.noSuchColumn(ColumnReference(column: name)))
        }
        if table.columns[slot].generated != nil {
            throw SQLExecutionError("cannot UPDATE generated column \"\(table.columns[slot].name)\"")
        }
        return slot
    }

    /// The join of `UPDATE … FROM` compiled as one query: the target's columns, its rowid, then the value of each
    /// of `assignments` (a row assignment from a subquery giving one value per column it assigns).
    func joinProgram(
        _ update: UpdateStatement, _ from: FromClause, _ assignments: [Assignment], _ table: TableDefinition,
        _ statement: Statement
    ) throws -> SelectProgram {
        let target = WriteTarget(update)
        // The target's columns are read from the join's first source whatever the FROM sources are named.
        let qualifier = QueryScope.pinnedQualifier(0)
        var columns: [ResultColumn] = table.columns.map {
            let column = ColumnReference(table: qualifier, column: $0.name)
            return .expression(SQLExpression(.column(column)), alias: nil)
        }
        let rowid = ColumnReference(table: qualifier, column: SchemaNames.storageRowidName)
        columns.append(.expression(SQLExpression(.column(rowid)), alias: nil))
        var rowSubqueries: [Int: Int] = [:]
        for assignment in assignments {
            if assignment.isRow { rowSubqueries[columns.count] = assignment.columns.count }
            columns.append(.expression(assignment.value, alias: nil))
        }
        var sources = FromClause(
            first: .table(target.name, alias: target.alias, indexHint: target.indexHint),
            joins: [JoinClause(op: .comma, source: from.first)] + from.joins)
        sources.constraintsStart = 1
        let clause = SelectClause(
            distinct: false, columns: columns, from: sources, whereClause: update.whereClause, groupBy: [],
            having: nil)
        let select = SelectStatement(first: .select(clause), compounds: [], orderBy: [], limit: nil, with: nil)
        let program =
            rowSubqueries.isEmpty
            ? try compileSelect(select, statement: statement)
            : try selectCompiler(statement).compileAssigning(select, rowSubqueries: rowSubqueries)
        // SQLite refuses this once the statement's names are resolved.
        if target.alias == nil, Self.names(update.table.name, in: from) {
            throw SQLExecutionError("target object/alias may not appear in FROM clause: \(update.table.name)")
        }
        return program
    }

    /// Whether `from`, or a parenthesised join in it, names the table `name` without an alias, which SQLite
    /// refuses for the target of an `UPDATE` that has no alias of its own.
    static func names(_ name: String, in from: FromClause) -> Bool {
        ([from.first] + from.joins.map(\.source)).contains { source in
            switch source {
            case .table(let table, nil, _): return SchemaNames.equal(table.name, name)
            case .subquery(let select, _):
                guard case .select(let clause) = select.first, clause.isNestedFrom, let inner = clause.from else {
                    return false
                }
                return names(name, in: inner)
            default: return false
            }
        }
    }

    /// The rows of the join, one per target row (its first match), in rowid order: the target's columns, its rowid,
    /// then the value of each assignment.
    private func joinedRows(
        _ update: UpdateStatement, _ from: FromClause, _ assignments: [Assignment], _ writer: TableWriter,
        _ statement: Statement, _ parameters: BoundParameters, _ cache: WriteCache
    ) throws -> [[Value]] {
        let n = writer.columnCount
        let cursor: SelectCursor
        if let cached = cache.matchingCursor {
            cursor = cached
        } else {
            let program = try joinProgram(update, from, assignments, writer.table, statement)
            cursor = SelectCursor(program: program)
            cursor.sortMemoryLimit = sortMemoryLimit
            cache.matching = program
            cache.matchingCursor = cursor
        }
        try cursor.open(parameters: parameters)
        var rows: [[Value]] = []
        var seen = Set<Int64>()
        while let row = try cursor.next() {
            guard case .integer(let rowid) = row[n], seen.insert(rowid).inserted else { continue }
            rows.append(row)
        }
        rows.sort { a, b in
            guard case .integer(let x) = a[n], case .integer(let y) = b[n] else { return false }
            return x < y
        }
        return rows
    }
}
