// The queries of `UPDATE … FROM` and of an UPDATE of a view compute the values they assign as result columns; a
// `SET (a, b, …) = (SELECT …)` assignment gives one result column per assigned column, from one run of its subquery
// per row, as in SQLite.

extension SelectCompiler {
    /// Compiles `select` (one `SELECT` core, its `WITH` given to the compiler as ``commonTables``) whose result
    /// column at each position of `rowSubqueries` is a subquery assigned to that many columns: it gives as many
    /// outputs, in order, the first running the subquery (correlated to the query's row) and the others reading
    /// its row.
    /// - Throws: SQLite's `2 columns assigned 3 values` when a subquery returns another number of columns.
    func compileAssigning(_ select: SelectStatement, rowSubqueries: [Int: Int]) throws -> SelectProgram {
        try deferredChecks.compiling { try compileAssigningChecked(select, rowSubqueries: rowSubqueries) }
    }

    /// ``compileAssigning(_:rowSubqueries:)`` within its deferred checks.
    private func compileAssigningChecked(_ select: SelectStatement, rowSubqueries: [Int: Int]) throws
        -> SelectProgram
    {
        guard select.with == nil, select.compounds.isEmpty, case .select(let core) = select.first,
            !WindowRewriter.hasWindowCalls(core, orderBy: select.orderBy)
        else {
            throw SQLExecutionError.unsupported("row-value assignment from a subquery with this query")
        }
        let scope = QueryScope(outer: nil)
        scope.catalog = catalog
        scope.connectionCounters = connection.counters
        let from = try compileFrom(core.from, scope: scope, outer: nil, columns: core.columns)
        return try compileQuery(
            select, core: core, scope: scope, from: from, declaredNames: true, rowSubqueries: rowSubqueries)
    }

    /// Appends the `width` elements of the row `select` returns to `results`, the subquery registered once.
    func appendRowSubquery(
        _ select: SelectStatement, width: Int, scope: QueryScope, to results: inout ResultColumns
    ) throws {
        let count = try scope.subqueryWidth(select) ?? compile(select, outer: scope).columnNames.count
        guard count == width else { throw SQLExecutionError("\(width) columns assigned \(count) values") }
        let id = try scope.registerSubquery(select, kind: .row(width: width))
        for k in 0..<width {
            let column = scope.subqueryColumn(select, at: k)
            results.outputs.append(
                CompiledExpression(
                    root: .subqueryRowElement(id, k), prelude: [], affinity: column.affinity,
                    collation: column.collation))
            results.names.append("column\(k + 1)")
            results.expressions.append(nil)
        }
    }
}
