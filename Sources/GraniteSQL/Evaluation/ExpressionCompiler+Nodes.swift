// The expression kinds whose nodes take more than a line to compile: CASE, BETWEEN, IN (list or subquery),
// LIKE and GLOB.

import GraniteStorage

extension ExpressionCompiler.Session {
        /// A `CASE` expression, simple (with a base) or searched: results and `ELSE` are compiled with ``lazy(_:)``,
        /// and the conditions after the first as reached only when the earlier ones fail.
        mutating func caseNode(_ c: CaseExpression) throws -> EvalNode {
            var children: [EvalNode] = []
            let otherwise = try c.elseResult.map { try lazy($0) }
            if let o = otherwise { children.append(o) }
            if let base = c.base {
                if isRowValue(base) { return try rowCase(c, base: base) }
                let b = try operand(base)
                children.append(b)
                var branches: [(EvalNode, EvalNode, ComparisonRule)] = []
                for (k, br) in c.branches.enumerated() {
                    if k > 0 { lazyDepth += 1 }
                    let w = try operand(br.condition)
                    if k > 0 { lazyDepth -= 1 }
                    let t = try lazy(br.result)
                    children += [w, t]
                    branches.append((w, t, try rule(base, br.condition)))
                }
                return fold(.simpleCase(b, branches, otherwise), children)
            }
            var branches: [(EvalNode, EvalNode)] = []
            for (k, br) in c.branches.enumerated() {
                if k > 0 { lazyDepth += 1 }
                let w = try condition(br.condition)
                if k > 0 { lazyDepth -= 1 }
                let t = try lazy(br.result)
                children += [w, t]
                branches.append((w, t))
            }
            return fold(.searchedCase(branches, otherwise), children)
        }

        /// `x [NOT] BETWEEN lo AND hi` (`e`); `jump` when it is in jump position.
        mutating func betweenNode(
            _ e: SQLExpression, _ x: SQLExpression, _ lo: SQLExpression, _ hi: SQLExpression, negated: Bool, jump: Bool
        ) throws -> EvalNode {
            if isRowValue(x) { return try rowBetween(x, lo, hi, negated: negated) }
            // SQLite's NOT BETWEEN is NOT(BETWEEN): the BETWEEN is an operand and may be factored (see
            // ``operand(_:)``), which switches factoring off inside it.
            let factored = negated && !jump && factoring && isRuntimeConstant(e)
            if factored { factoring = false }
            let a = try operand(x)
            let b = try operand(lo)
            let c = try operand(hi)
            if factored { factoring = true }
            let n = fold(.between(a, b, c, try rule(x, lo), try rule(x, hi), negated: negated), [a, b, c])
            if factored, lazyDepth > 0, n.constantValue == nil, !sqliteHasFunction(e), containsCall(e) {
                prelude.append(n)
            }
            return n
        }

        /// `x [NOT] IN (list)`.
        mutating func inListNode(_ x: SQLExpression, _ list: [SQLExpression], negated: Bool) throws -> EvalNode {
            if list.isEmpty { return .constant(.integer(negated ? 1 : 0)) }
            if case .row = x.kind { return try rowInList(x, list, negated: negated) }
            if list.count == 1, isParseConstant(list[0]) {
                // The parser rewrites `x IN (c)` to `x = +c`: the unary plus drops c's affinity.
                return try binary(negated ? .notEqual : .equal, x, SQLExpression(.unary(.plus, list[0])))
            }
            // A subquery of several columns stays a scalar operand here (only a parenthesized row turns the list
            // into VALUES), which SQLite's name resolution refuses before any item is looked at.
            if isRowValue(x), let width = rowWidth(x) {
                throw SQLExecutionError("sub-select returns \(width) columns - expected 1")
            }
            let lhs = try operand(x)
            let eager = list.count > 2 && list.allSatisfy(isRuntimeConstant)
            var items: [EvalNode] = []
            for (k, item) in list.enumerated() {
                if eager {
                    // Coded directly into the ephemeral index (no operand hoisting).
                    items.append(try node(item))
                    continue
                }
                if k > 0 { lazyDepth += 1 }
                items.append(try operand(item))
                if k > 0 { lazyDepth -= 1 }
            }
            // A constant list of more than two items becomes an ephemeral index in SQLite: every item is
            // evaluated (before the left operand). Otherwise items are evaluated in order up to the first match.
            let leftAffinity = try affinity(x)
            let collation = try collation(x) ?? .binary
            if eager, let sorted = SortedInList(items: items, leftAffinity: leftAffinity, collation: collation) {
                return fold(.inSortedList(lhs, sorted, negated: negated), [lhs] + items)
            }
            return fold(
                .inList(lhs, items, leftAffinity, collation, negated: negated, eager: eager), [lhs] + items)
        }

        /// `x [NOT] IN (SELECT …)`, with the affinity and collation SQLite compares under.
        mutating func inSelectNode(_ x: SQLExpression, _ select: SelectStatement, negated: Bool) throws -> EvalNode {
            if isRowValue(x) { return try rowInSelect(x, select, negated: negated) }
            let lhs = try operand(x)
            let id = try resolver.registerSubquery(select, kind: .inSelect)
            // exprINAffinity: both sides' affinities combine like a comparison's; the collation is the left
            // operand's unless only the right one has an explicit COLLATE (sqlite3BinaryCompareCollSeq).
            let right = resolver.subqueryColumn(select, at: 0)
            let left = try affinity(x)
            var combined = left ?? right.affinity
            if let l = left, let r = right.affinity { combined = l.isNumeric || r.isNumeric ? .numeric : .blob }
            var coll = try collation(x)
            if right.explicitCollation && !hasCollate(x) || coll == nil { coll = right.collation ?? coll }
            return .inSubquery(lhs, id, combined, coll ?? .binary, negated: negated)
        }

        /// `x [NOT] LIKE|GLOB pattern [ESCAPE escape]` (`e`); MATCH and REGEXP are errors, as in SQLite without them.
        mutating func likeNode(
            _ e: SQLExpression, _ x: SQLExpression, _ op: LikeOperator, _ pattern: SQLExpression,
            _ escape: SQLExpression?, negated: Bool
        ) throws -> EvalNode {
            // LIKE and GLOB are function calls in SQLite: a constant one is factored as a whole.
            let factored = factoring && isRuntimeConstant(e)
            if factored { factoring = false }
            defer { if factored { factoring = true } }
            switch op {
            case .like:
                let v = try operand(x)
                let p = try operand(pattern)
                let esc = try escape.map { try operand($0) }
                return fold(
                    .like(v, pattern: p, escape: esc, negated: negated, blobsNeverMatch: likeBlobsNeverMatch),
                    [v, p] + (esc.map { [$0] } ?? []))
            case .glob:
                if escape != nil { throw SQLEvaluationError("wrong number of arguments to function glob()") }
                let v = try operand(x)
                let p = try operand(pattern)
                return fold(.glob(v, pattern: p, negated: negated, blobsNeverMatch: likeBlobsNeverMatch), [v, p])
            case .match:
                throw SQLEvaluationError("unable to use function MATCH in the requested context")
            case .regexp:
                throw SQLEvaluationError(.noSuchFunction("REGEXP"))
            }
        }
}
