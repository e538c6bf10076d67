// Filters pushed into views: a WHERE term that reads only a view's columns is also tested inside the view's
// query, where the planner can use it (an index lookup instead of reading the whole view).

extension SelectCompiler {
    /// Recompiles each view of `scope` whose query can take them with a copy of the terms that read only it.
    ///
    /// The terms stay in the outer query too: the copy only lets the view's query skip rows the outer query
    /// would drop anyway. A copy is made only where it is exactly the same test: the view's query is a plain
    /// `SELECT` (no aggregate, window function, `DISTINCT` or `LIMIT`, whose rows would change with fewer input
    /// rows), the view is
    /// not on the right of a `LEFT JOIN` (whose NULL row the outer term must see), the term has no subquery or
    /// function call (which may not be repeatable), and each column it reads is a plain column of the view's
    /// query (so it has the same affinity and collation inside).
    func pushTermsIntoViews(_ terms: [Term], from: inout FromSources, scope: QueryScope) throws {
        for (k, source) in scope.sources.enumerated() {
            guard let view = source.view, let program = from.subqueries[k], !from.leftJoined.contains(k),
                !program.isAggregate, !program.distinct, program.bounds == nil, !program.computesWindows
            else { continue }
            let origins = Self.columnOrigins(of: program, select: view.select).map { $0?.expression }
            var pushed: [SQLExpression] = []
            for term in terms where term.onOf == nil && !term.hasSubquery && term.sources == [k] {
                if let copy = Self.substitute(term.expression, of: source, by: origins) { pushed.append(copy) }
            }
            guard !pushed.isEmpty else { continue }
            from.subqueries[k] = try compileView(view, pushing: pushed).program
        }
    }

    /// `expression` with each reference to a column of `source` replaced by the expression that names it in the
    /// view's query (`origins`, by column); nil when some part cannot be copied into the view's query.
    static func substitute(_ expression: SQLExpression, of source: QuerySource, by origins: [SQLExpression?])
        -> SQLExpression?
    {
        func copy(_ e: SQLExpression) -> SQLExpression? { substitute(e, of: source, by: origins) }
        var result = expression
        switch expression.kind {
        case .literal, .parameter:
            return expression
        case .column(let reference):
            guard reference.schema == nil,
                reference.table.map({ SchemaNames.equal($0, source.name) }) ?? true,
                let c = source.columns.firstIndex(where: { SchemaNames.equal($0.name, reference.column) }),
                c < origins.count, let origin = origins[c]
            else { return nil }
            return origin
        case .unary(let op, let operand):
            guard let operand = copy(operand) else { return nil }
            result.kind = .unary(op, operand)
        case .binary(let op, let lhs, let rhs):
            guard let lhs = copy(lhs), let rhs = copy(rhs) else { return nil }
            result.kind = .binary(op, lhs, rhs)
        case .collate(let operand, let collation):
            guard let operand = copy(operand) else { return nil }
            result.kind = .collate(operand, collation: collation)
        case .cast(let operand, let type):
            guard let operand = copy(operand) else { return nil }
            result.kind = .cast(operand, type)
        case .between(let operand, let low, let high, let negated):
            guard let operand = copy(operand), let low = copy(low), let high = copy(high) else { return nil }
            result.kind = .between(operand, low: low, high: high, negated: negated)
        case .inList(let operand, let list, let negated):
            guard let operand = copy(operand) else { return nil }
            var copied: [SQLExpression] = []
            for element in list {
                guard let element = copy(element) else { return nil }
                copied.append(element)
            }
            result.kind = .inList(operand, copied, negated: negated)
        case .isNull(let operand, let negated):
            guard let operand = copy(operand) else { return nil }
            result.kind = .isNull(operand, negated: negated)
        case .function, .caseWhen, .inSelect, .inTable, .like, .exists, .subquery, .row:
            return nil
        }
        return result
    }
}
