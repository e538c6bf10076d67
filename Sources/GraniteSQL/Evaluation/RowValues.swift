// Row values (`(a, b) = (1, 2)`, `(a, b) < (c, d)`, `(a, b) BETWEEN (…) AND (…)`): compared pair by pair as SQLite
// compares vectors, each pair with the affinity and collation a scalar comparison of the two would use.

import GraniteStorage

extension EvalNode {
    /// SQLite's vector comparison of `pairs` (left operand, right operand, rule) by `op`; nil is NULL.
    ///
    /// `=` is false as soon as a pair differs, else NULL if a pair holds a NULL, else true; `<>` is its negation.
    /// `IS` / `IS NOT` compare every pair with IS. The orderings compare pairs left to right: the first pair that is
    /// not equal decides; a NULL before that makes the result NULL; when every earlier pair is equal the last pair
    /// is compared by `op` itself.
    static func compareRows(
        _ op: SQLComparisonOperator, _ pairs: [(EvalNode, EvalNode, ComparisonRule)], _ c: inout EvaluationContext
    ) throws -> Bool? {
        switch op {
        case .equal, .notEqual:
            var sawNull = false
            var differs = false
            for (l, r, rule) in pairs {
                switch compare(.equal, try l.evaluate(&c), try r.evaluate(&c), rule) {
                case false?: differs = true
                case nil: sawNull = true
                case true?: break
                }
            }
            let equal: Bool? = differs ? false : sawNull ? nil : true
            return op == .equal ? equal : equal.map { !$0 }
        case .is, .isNot:
            var same = true
            for (l, r, rule) in pairs where compare(.is, try l.evaluate(&c), try r.evaluate(&c), rule) != true {
                same = false
            }
            return op == .is ? same : !same
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            for (k, (l, r, rule)) in pairs.enumerated() {
                let a = try l.evaluate(&c)
                let b = try r.evaluate(&c)
                if k == pairs.count - 1 { return compare(op, a, b, rule) }
                guard let equal = compare(.equal, a, b, rule) else { return nil }
                if !equal {
                    let strict: SQLComparisonOperator = op == .less || op == .lessOrEqual ? .less : .greater
                    return compare(strict, a, b, rule)
                }
            }
            return nil
        }
    }
}

extension ExpressionCompiler.Session {
    /// `l op r` where an operand is a row value: both must be rows of the same size holding no row, else SQLite's
    /// `row value misused`.
    mutating func rowComparison(_ op: SQLComparisonOperator, _ l: SQLExpression, _ r: SQLExpression) throws -> EvalNode
    {
        guard case .row(let left) = l.kind, case .row(let right) = r.kind, left.count == right.count else {
            throw SQLEvaluationError("row value misused")
        }
        var pairs: [(EvalNode, EvalNode, ComparisonRule)] = []
        var children: [EvalNode] = []
        for (x, y) in zip(left, right) {
            if Self.isRow(x) || Self.isRow(y) { throw SQLEvaluationError("row value misused") }
            let a = try operand(x)
            let b = try operand(y)
            pairs.append((a, b, try rule(x, y)))
            children += [a, b]
        }
        return fold(.rowCompare(op, pairs), children)
    }

    /// `x [NOT] BETWEEN lo AND hi` over row values: `x >= lo AND x <= hi` (NOT: `x < lo OR x > hi`), as SQLite
    /// expands it.
    mutating func rowBetween(_ x: SQLExpression, _ lo: SQLExpression, _ hi: SQLExpression, negated: Bool) throws
        -> EvalNode
    {
        let low = try rowComparison(negated ? .less : .greaterOrEqual, x, lo)
        let high = try rowComparison(negated ? .greater : .lessOrEqual, x, hi)
        return fold(negated ? .or(low, high) : .and(low, high), [low, high])
    }
}
