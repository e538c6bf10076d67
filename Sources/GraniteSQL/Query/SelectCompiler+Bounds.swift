import GraniteStorage

extension SelectCompiler {
    /// Compiles `LIMIT` and `OFFSET` as `SELECT limit[, offset]` with no `FROM` and no enclosing query, so that
    /// their subqueries are registered with (and run by) a program of their own. (Compiled against a bare scope,
    /// their subqueries were registered nowhere the cursor looks, and evaluating one trapped.)
    func compileBounds(_ clause: LimitClause) throws -> SelectProgram {
        let expressions = [clause.limit] + (clause.offset.map { [$0] } ?? [])
        // Names and aggregates are errors here, as in SQLite: check with a scope that allows neither, since a
        // result column of the query below may hold an aggregate.
        let bare = QueryScope(outer: nil)
        bare.connectionCounters = connection.counters
        for expression in expressions { _ = try ExpressionCompiler.compile(expression, resolver: bare) }
        let columns = expressions.map { ResultColumn.expression($0, alias: nil) }
        return try compile(SelectStatement(first: .select(SelectClause(columns: columns))), outer: nil)
    }

    /// The `EXPLAIN QUERY PLAN` lines of `subqueries`, labelled from number `first` on.
    static func planLines(of subqueries: [SelectProgram.Subquery], numberedFrom first: Int) -> [(Int, String)] {
        var lines: [(Int, String)] = []
        for (k, sub) in subqueries.enumerated() {
            let label = (sub.kind.readsEveryRow ? "LIST SUBQUERY " : "SCALAR SUBQUERY ") + "\(first + k)"
            lines.append((0, (sub.correlated ? "CORRELATED " : "") + label))
            for line in sub.program.plan { lines.append((line.depth + 1, line.detail)) }
        }
        return lines
    }
}
