// A pragma function's hidden `arg`/`schema` columns that its call leaves unbound take their values from the query's
// `WHERE`/`ON` terms, as SQLite's pragma virtual table does in its xBestIndex: an equality (or an `IN` list, or
// an `OR` of equalities, which SQLite's planner turns into one) on the first unbound hidden column, then on the
// next, each value read from sources placed before the function (or from enclosing queries), passes that value
// as the next argument; the term is then not tested again.

extension SelectCompiler {
    /// What a term can do for a pragma function's hidden column.
    private enum HiddenConstraint {
        /// It binds the column to one of these values (one: `=`; several: `IN` or `OR`).
        case values([SQLExpression])
        /// It would, but not as Granite can run it: it reads a source after the function (SQLite's planner would
        /// move the function after it), or it is an `OR` reading other sources (which SQLite's planner may run as
        /// one scan per equality, keeping only the rows whose rowid a former scan did not give).
        case unplaceable
        /// It is not a constraint the function takes (it is tested as it stands).
        case none
    }

    /// Binds the unbound hidden columns of the pragma functions of `from` from `terms`, removing the terms used.
    /// - Throws: an unsupported error for a term binding one that Granite cannot place as SQLite would.
    func bindPragmaConstraints(_ from: inout FromSources, terms: inout [Term], scope: QueryScope) throws {
        for k in from.tableFunctions.keys.sorted() {
            guard var program = from.tableFunctions[k], case .pragma(let pragma) = program.function else { continue }
            let source = scope.sources[k]
            var column = pragma.resultColumns.count + program.arguments.count
            while column < pragma.columnNames.count, source.used.contains(column) {
                var chosen: (term: Int, values: [SQLExpression])?
                for (t, term) in terms.enumerated() where term.sources.contains(k) {
                    // A WHERE term on a LEFT JOIN's right side, which SQLite might make an inner join.
                    let uncertain = term.onOf == nil && from.leftJoined.contains(k)
                    if let on = term.onOf, on != k { continue }
                    switch try constraint(term.expression, on: source.base + column, of: k, scope) {
                    case .values(let values) where !uncertain: chosen = (t, values)  // SQLite uses the last one
                    case .values, .unplaceable:
                        throw SQLExecutionError.unsupported(
                            "this constraint on a hidden column a pragma function's call leaves unbound")
                    case .none: continue
                    }
                }
                guard let (t, values) = chosen else { break }
                program.constrainedArguments.append(try values.map { try compileExpression($0, scope) })
                terms.remove(at: t)
                column += 1
            }
            from.tableFunctions[k] = program
        }
    }

    /// Whether `expression` constrains the column in `slot` (of source `k`) to values known before `k`'s rows.
    private func constraint(_ expression: SQLExpression, on slot: Int, of k: Int, _ scope: QueryScope) throws
        -> HiddenConstraint
    {
        var values: [SQLExpression] = []
        var isOr = false
        switch expression.kind {
        case .binary(.equal, let l, let r):
            if try reads(l, slot, scope) {
                values = [r]
            } else if try reads(r, slot, scope) {
                values = [l]
            } else {
                return .none
            }
        case .inList(let x, let list, negated: false) where !list.isEmpty:
            guard try reads(x, slot, scope) else { return .none }
            values = list
        case .binary(.or, _, _):
            var parts: [SQLExpression] = []
            Self.flattenOr(expression, into: &parts)
            for part in parts {
                guard case .values(let more) = try constraint(part, on: slot, of: k, scope), more.count == 1 else {
                    return .none
                }
                values += more
            }
            isOr = true
        default:
            return .none
        }
        var result = HiddenConstraint.values(values)
        for value in values {
            let (sources, hasSubquery) = try sourcesRead(by: value, scope)
            if sources.contains(k) { return .none }
            // A subquery's correlations are not known yet: it may read any source.
            if sources.contains(where: { $0 > k }) || (hasSubquery && k + 1 < scope.sources.count)
                || (isOr && (!sources.isEmpty || hasSubquery))
            {
                result = .unplaceable
            }
        }
        return result
    }

    /// Whether `expression` is a reference to the column in `slot`.
    private func reads(_ expression: SQLExpression, _ slot: Int, _ scope: QueryScope) throws -> Bool {
        var expression = expression
        while case .collate(let x, _) = expression.kind { expression = x }
        guard case .column(let reference) = expression.kind, let resolved = try? scope.resolveLocally(reference)
        else { return false }
        return resolved.slot == slot
    }

    /// The sources of the query that `expression` reads, and whether it holds a subquery.
    private func sourcesRead(by expression: SQLExpression, _ scope: QueryScope) throws
        -> (sources: Set<Int>, hasSubquery: Bool)
    {
        scope.trace = []
        scope.tracedSubquery = false
        defer { scope.trace = nil }
        _ = try compileExpression(expression, scope)
        return (scope.trace ?? [], scope.tracedSubquery)
    }

    /// The operands of a chain of `OR`s, left to right (without recursion: a chain may be long).
    private static func flattenOr(_ e: SQLExpression, into parts: inout [SQLExpression]) {
        var pending = [e]
        while let next = pending.popLast() {
            if case .binary(.or, let l, let r) = next.kind {
                pending.append(r)
                pending.append(l)
            } else {
                parts.append(next)
            }
        }
    }
}
