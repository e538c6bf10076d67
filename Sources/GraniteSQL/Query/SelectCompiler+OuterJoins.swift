// What SQLite 3.40 does to a query's LEFT JOINs before it plans them: a LEFT JOIN whose NULL row the query's
// conditions reject becomes an inner join, and a LEFT JOIN that stays one may not read, in its ON clause, a table
// joined after it.

extension SelectCompiler {
    /// The conditions of a query as SQLite holds them when it simplifies joins: the `WHERE` clause, then each
    /// join's `ON` (or `USING`) terms in `FROM` order, each added with an `AND` around all before it. Which of them
    /// a `NOTNULL` test counts in depends on that shape (see ``implies(_:notNullRowOf:scope:)``).
    private indirect enum JoinedConditions {
        case and(JoinedConditions, JoinedConditions)
        /// A condition, and the `LEFT JOIN` whose `ON` clause holds it (such a term never counts).
        case condition(SQLExpression, outerJoin: Int?)

        /// The two operands when this is an `AND`.
        var operands: (JoinedConditions, JoinedConditions)? {
            switch self {
            case .and(let left, let right): return (left, right)
            case .condition(let e, let outerJoin):
                guard case .binary(.and, let left, let right) = e.kind else { return nil }
                return (.condition(left, outerJoin: outerJoin), .condition(right, outerJoin: outerJoin))
            }
        }
    }

    /// Turns each `LEFT JOIN` whose NULL row the query's conditions reject into an inner join, as SQLite's join
    /// simplification does, then records SQLite's failure for an `ON` term of a remaining `LEFT JOIN` that reads a
    /// source joined after it (`ON clause references tables to its right`, reported once the statement's names
    /// are all resolved: see ``DeferredCompileChecks``).
    ///
    /// The joins are looked at in `FROM` order, each against the conditions as they are then: the `ON` terms of a
    /// `LEFT JOIN` turned inner count for the joins after it, not for those before (SQLite's single pass). The
    /// rows are the same either way; the planner may then reorder the joins.
    func simplifyOuterJoins(
        _ terms: inout [Term], whereClause: SQLExpression?, from: inout FromSources, scope: QueryScope
    ) throws {
        let originallyLeft = from.leftJoined
        for k in from.leftJoined.sorted() {
            guard let conditions = Self.joinedConditions(whereClause, from: from),
                Self.implies(conditions, notNullRowOf: k, scope: scope)
            else { continue }
            from.leftJoined.remove(k)
            scope.sources[k].isLeftJoined = false
            for t in terms.indices where terms[t].onOf == k { terms[t].onOf = nil }
        }
        // Terms are the WHERE terms, then `from.onTerms` in order.
        let whereCount = terms.count - from.onTerms.count
        for t in terms.indices {
            guard let k = terms[t].onOf, terms[t].sources.contains(where: { $0 > k }) else { continue }
            let folded = Self.foldingNullTests(of: terms[t].expression, scope: scope, leftJoined: originallyLeft)
            if folded != terms[t].expression {
                scope.firstVisible = from.onTerms[t - whereCount].visibleFrom
                defer { scope.firstVisible = 0 }
                terms[t] = try term(folded, scope, onOf: k)
            }
            if terms[t].sources.contains(where: { $0 > k }) {
                deferredChecks.record(SQLExecutionError("ON clause references tables to its right"))
            }
        }
    }

    /// Records the failure ``simplifyOuterJoins(_:whereClause:from:scope:)`` records for an `ON` term of a
    /// `LEFT JOIN` whose subqueries read a source joined after it: `reads` gives, by subquery position, the
    /// query's sources each reads.
    func checkOnTermSubqueries(_ terms: [Term], reads: [Int: Set<Int>]) {
        for term in terms {
            guard let k = term.onOf else { continue }
            for position in term.subqueries where reads[position]?.contains(where: { $0 > k }) ?? false {
                deferredChecks.record(SQLExecutionError("ON clause references tables to its right"))
            }
        }
    }

    /// The query's conditions in SQLite's shape (see ``JoinedConditions``), the `ON` terms of the joins still in
    /// `from.leftJoined` marked as theirs; nil when there are none.
    private static func joinedConditions(_ whereClause: SQLExpression?, from: FromSources) -> JoinedConditions? {
        var result = whereClause.map { JoinedConditions.condition($0, outerJoin: nil) }
        var n = 0
        while n < from.onTerms.count {
            // One join's terms, chained with AND as its clause's chain is parsed.
            let k = from.onTerms[n].source
            let outerJoin = from.leftJoined.contains(k) ? k : nil
            var group = JoinedConditions.condition(from.onTerms[n].expression, outerJoin: outerJoin)
            n += 1
            while n < from.onTerms.count && from.onTerms[n].source == k {
                group = .and(group, .condition(from.onTerms[n].expression, outerJoin: outerJoin))
                n += 1
            }
            result = result.map { .and($0, group) } ?? group
        }
        return result
    }

    /// Whether `conditions` are false or NULL whenever source `k`'s row is the NULL row of a `LEFT JOIN`, as
    /// SQLite's `sqlite3ExprImpliesNonNullRow` decides it: a `NOTNULL` test counts where it begins an `AND`
    /// chain (the whole, or a left operand met along the chain), any other condition through
    /// ``readsNullPropagating(_:of:in:)``.
    private static func implies(_ conditions: JoinedConditions, notNullRowOf k: Int, scope: QueryScope) -> Bool {
        var current = conditions
        if case .condition(var e, let outerJoin) = current {
            while case .collate(let operand, _) = e.kind { e = operand }
            if let operand = notNullOperand(e) {
                return outerJoin == nil && readsNullPropagating(operand, of: k, in: scope)
            }
            current = .condition(e, outerJoin: outerJoin)
        }
        while let (left, right) = current.operands {
            if implies(left, notNullRowOf: k, scope: scope) { return true }
            current = right
        }
        guard case .condition(let e, nil) = current else { return false }
        return readsNullPropagating(e, of: k, in: scope)
    }

    /// The operand of `x NOTNULL` (`x IS NOT NULL`), else nil.
    private static func notNullOperand(_ e: SQLExpression) -> SQLExpression? {
        switch e.kind {
        case .isNull(let operand, negated: true): return operand
        case .binary(.isNot, let operand, let right) where right.kind == .literal(.null): return operand
        default: return nil
        }
    }

    /// Whether `expression` reads a column of source `k` where a NULL makes the whole NULL, as SQLite's walk
    /// decides it: comparisons (but those with a table-valued function's column), arithmetic, `NOT`, `CAST`,
    /// `COLLATE` and the tested operand of `BETWEEN` pass a NULL on; `IS`, `IS NULL`, `OR`, `IN`, `CASE`, function
    /// calls (`LIKE`, `->` and `->>` among them), row values and subqueries are not looked into; both sides of an
    /// inner `AND` must read one.
    private static func readsNullPropagating(_ expression: SQLExpression, of k: Int, in scope: QueryScope) -> Bool {
        func reads(_ e: SQLExpression) -> Bool { readsNullPropagating(e, of: k, in: scope) }
        switch expression.kind {
        case .column(let reference):
            return (try? scope.locate(reference)).map { $0.column?.source == k || $0.rowid == k } ?? false
        case .unary(_, let operand), .collate(let operand, _), .cast(let operand, _):
            return reads(operand)
        case .between(let operand, _, _, _):
            return reads(operand)
        case .binary(let op, let left, let right):
            switch op {
            case .and: return reads(left) && reads(right)
            case .or, .is, .isNot, .extract, .extractValue: return false
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
                // A table-valued function (a virtual table to SQLite) may take a comparison with NULL as its
                // argument, so a comparison with one of its columns proves nothing.
                if isFunctionColumn(left, in: scope) || isFunctionColumn(right, in: scope) { return false }
                return reads(left) || reads(right)
            default: return reads(left) || reads(right)
            }
        case .literal, .parameter, .function, .caseWhen, .inList, .inSelect, .inTable, .like, .isNull, .exists,
            .subquery, .row:
            return false
        }
    }

    /// Whether `e` is a column of a table-valued function.
    private static func isFunctionColumn(_ e: SQLExpression, in scope: QueryScope) -> Bool {
        guard case .column(let reference) = e.kind, let location = try? scope.locate(reference),
            let s = location.column?.source ?? location.rowid
        else { return false }
        return scope.sources[s].numbersRows
    }

    /// `expression` with each `IS [NOT] NULL` test of a column that cannot be NULL (declared NOT NULL, or the
    /// rowid, of a source not on the right of a `LEFT JOIN`) replaced by its constant result, as SQLite's name
    /// resolution does: such a test then reads no source. Subqueries are left as they are.
    private static func foldingNullTests(
        of expression: SQLExpression, scope: QueryScope, leftJoined: Set<Int>
    ) -> SQLExpression {
        func isNeverNull(_ operand: SQLExpression) -> Bool {
            guard case .column(let reference) = operand.kind, let location = try? scope.locate(reference) else {
                return false
            }
            if let (s, c) = location.column {
                guard !leftJoined.contains(s), let table = scope.sources[s].table, c < table.columns.count else {
                    return false
                }
                return table.columns[c].notNull || table.rowidAlias == c
            }
            return location.rowid.map { !leftJoined.contains($0) && scope.sources[$0].table != nil } ?? false
        }
        return expression.rewritten { e in
            let test: (operand: SQLExpression, isNull: Bool)
            switch e.kind {
            case .isNull(let operand, let negated): test = (operand, !negated)
            case .binary(.is, let operand, let right) where right.kind == .literal(.null): test = (operand, true)
            case .binary(.isNot, let operand, let right) where right.kind == .literal(.null): test = (operand, false)
            default: return nil
            }
            guard isNeverNull(test.operand) else { return nil }
            return SQLExpression(.literal(test.isNull ? .false : .true), range: e.range)
        }
    }
}
