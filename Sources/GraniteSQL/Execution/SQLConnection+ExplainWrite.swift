// EXPLAIN QUERY PLAN of UPDATE and DELETE: the plan of the query that finds the rows the statement changes.

import GraniteStorage

extension SQLConnection {
    /// The `EXPLAIN QUERY PLAN` rows of `statement`, an UPDATE or DELETE of a table: the plan of the query finding
    /// its rows (naming the target by its alias, as SQLite does), with the subqueries of its `SET` values after
    /// those of its `WHERE`. Nothing is read or changed.
    ///
    /// Granite reads each changed row whole, so an index search of the target is never reported as covering where
    /// SQLite, collecting the rowids first, reports one; the subqueries of `RETURNING` are not listed.
    func explainWrite(_ statement: Statement) throws -> [[Value]] {
        switch statement.kind {
        case .update(let update) where !isWrittenView(update.table, returning: update.returning != nil):
            let table = try tableDefinition(update.table)
            let assignments = try Self.singleColumnAssignments(update.assignments)
            if let from = update.from {
                return try joinProgram(update, from, assignments, table, statement).explainRows()
            }
            return try setValuesProgram(update, assignments, table, statement).explainRows()
        case .delete(let delete) where !isWrittenView(delete.table, returning: delete.returning != nil):
            let table = try tableDefinition(delete.table)
            if delete.whereClause == nil, delete.returning == nil, emptiesWhole(table) { return [] }
            let select = matchingQuery(table, WriteTarget(delete), delete.whereClause, statement)
            return try compileSelect(select, statement: statement).explainRows()
        default:
            throw SQLExecutionError.unsupported("EXPLAIN")
        }
    }

    /// The query finding the rows of a plain UPDATE, followed by the values of its assignments that hold a
    /// subquery (which the statement evaluates per row on their own; listed here for their plan lines).
    private func setValuesProgram(
        _ update: UpdateStatement, _ assignments: [Assignment], _ table: TableDefinition, _ statement: Statement
    ) throws -> SelectProgram {
        let width = table.columns.count + 1
        var values: [ResultColumn] = []
        var rowSubqueries: [Int: Int] = [:]
        for assignment in assignments where WriteSubqueries.needed(for: assignment.value) {
            if assignment.isRow { rowSubqueries[width + values.count] = assignment.columns.count }
            values.append(.expression(assignment.value, alias: nil))
        }
        let select = matchingQuery(table, WriteTarget(update), update.whereClause, statement, extra: values)
        return rowSubqueries.isEmpty
            ? try compileSelect(select, statement: statement)
            : try selectCompiler(statement).compileAssigning(select, rowSubqueries: rowSubqueries)
    }

    /// Whether `DELETE FROM table` with no `WHERE` empties the table's trees at once, reading no row: the rule
    /// of ``truncates(hasDeleteTriggers:hasForeignKeys:isReferenced:)`` over the catalog.
    private func emptiesWhole(_ table: TableDefinition) -> Bool {
        let hasDeleteTriggers = catalog.triggers(of: table).contains {
            if case .delete = $0.event { return true }
            return false
        }
        return truncates(
            hasDeleteTriggers: hasDeleteTriggers, hasForeignKeys: !table.foreignKeys.isEmpty,
            isReferenced: { !cachedReferences(table).isEmpty })
    }
}
