// Row values (`(a, b) = (1, 2)`, `(a, b) < (SELECT x, y …)`, `(a, b) BETWEEN (…) AND (…)`, `(a, b) IN (SELECT …)`,
// `(a, b) IN ((1, 2), (3, 4))`): compared pair by pair as SQLite compares vectors, each pair with the affinity and
// collation a scalar comparison of the two would use. A subquery of more than one column is a row value: its
// first row (or NULLs when it has none) in a comparison, every row after IN.

import GraniteStorage

/// One side of a row-value comparison: its elements, or a subquery that returns the row.
enum RowOperand: Sendable {
    case elements([EvalNode])
    case subquery(SubqueryID)

    /// The subquery's row, evaluated once before any pair is compared; nil for a list of elements.
    func subqueryRow(_ c: inout EvaluationContext) throws -> [Value]? {
        guard case .subquery(let id) = self else { return nil }
        guard let provider = c.subqueries else { throw SQLEvaluationError("subqueries are not supported here") }
        return try provider.row(id, context: &c)
    }

    /// Element `k`: from the subquery's `row`, or its node evaluated now.
    func value(_ k: Int, _ row: [Value]?, _ c: inout EvaluationContext) throws -> Value {
        if let row { return k < row.count ? row[k] : .null }
        guard case .elements(let nodes) = self, k < nodes.count else { return .null }
        return try nodes[k].evaluate(&c)
    }

    /// Every element, in order.
    func values(count: Int, _ c: inout EvaluationContext) throws -> [Value] {
        let row = try subqueryRow(&c)
        var values: [Value] = []
        values.reserveCapacity(count)
        for k in 0..<count { values.append(try value(k, row, &c)) }
        return values
    }
}

extension EvalNode {
    /// SQLite's vector comparison of `left` and `right` by `op`, pair `k` under `rules[k]`; nil is NULL.
    ///
    /// `=` is false as soon as a pair differs, else NULL if a pair holds a NULL, else true; `<>` is its negation.
    /// `IS` / `IS NOT` compare every pair with IS. The orderings compare pairs left to right: the first pair that is
    /// not equal decides; a NULL before that makes the result NULL; when every earlier pair is equal the last pair
    /// is compared by `op` itself. Elements are evaluated pair by pair, up to the deciding one; a subquery side is
    /// evaluated once, first.
    static func compareRows(
        _ op: SQLComparisonOperator, _ left: RowOperand, _ right: RowOperand, _ rules: [ComparisonRule],
        _ c: inout EvaluationContext
    ) throws -> Bool? {
        let leftRow = try left.subqueryRow(&c)
        let rightRow = try right.subqueryRow(&c)
        switch op {
        case .equal, .notEqual:
            var sawNull = false
            var differs = false
            for (k, rule) in rules.enumerated() {
                let a = try left.value(k, leftRow, &c)
                let b = try right.value(k, rightRow, &c)
                switch compare(.equal, a, b, rule) {
                case false?: differs = true
                case nil: sawNull = true
                case true?: break
                }
            }
            let equal: Bool? = differs ? false : sawNull ? nil : true
            return op == .equal ? equal : equal.map { !$0 }
        case .is, .isNot:
            var same = true
            for (k, rule) in rules.enumerated() {
                let a = try left.value(k, leftRow, &c)
                let b = try right.value(k, rightRow, &c)
                if compare(.is, a, b, rule) != true { same = false }
            }
            return op == .is ? same : !same
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            for (k, rule) in rules.enumerated() {
                let a = try left.value(k, leftRow, &c)
                let b = try right.value(k, rightRow, &c)
                if k == rules.count - 1 { return compare(op, a, b, rule) }
                guard let equal = compare(.equal, a, b, rule) else { return nil }
                if !equal {
                    let strict: SQLComparisonOperator = op == .less || op == .lessOrEqual ? .less : .greater
                    return compare(strict, a, b, rule)
                }
            }
            return nil
        }
    }

    /// `left [NOT] IN rows`, as SQLite codes a vector IN (`sqlite3ExprCodeIN`):
    /// 1. When `left` holds no NULL, the affinities are applied to it and it is looked up among the rows (whose
    ///    values carry the affinities too, as SQLite stores them in the IN's ephemeral index), each column under
    ///    its search collation: a row equal in every column makes the result true.
    /// 2. Otherwise each row is compared column by column under the left element's own collation only, and with
    ///    a left operand holding a NULL, before any affinity is applied to it: the first row in which no column
    ///    is definitely different (equal or NULL) makes the result NULL.
    /// 3. Else the result is false. No row: false (NOT IN: true).
    static func rowMembership(
        _ left: [Value], _ rows: [[Value]], _ columns: [RowMembershipColumn], _ negated: Bool
    ) -> Value {
        if rows.isEmpty { return .integer(negated ? 1 : 0) }
        func stored(_ v: Value, _ k: Int) -> Value { columns[k].affinity?.apply(to: v) ?? v }
        func value(_ row: [Value], _ k: Int) -> Value { k < row.count ? stored(row[k], k) : .null }
        var probe = left
        if !left.contains(where: \.isNull) {
            probe = left.indices.map { stored(left[$0], $0) }
            for row in rows {
                let equal = columns.indices.allSatisfy { k in
                    let rule = ComparisonRule(leftAffinity: nil, rightAffinity: nil, collation: columns[k].searchCollation)
                    return compare(.equal, probe[k], value(row, k), rule) == true
                }
                if equal { return .integer(negated ? 0 : 1) }
            }
        }
        for row in rows {
            let differs = columns.indices.contains { k in
                let rule = ComparisonRule(leftAffinity: nil, rightAffinity: nil, collation: columns[k].leftCollation)
                return compare(.notEqual, probe[k], value(row, k), rule) == true
            }
            if !differs { return .null }
        }
        return .integer(negated ? 1 : 0)
    }
}

/// How one column of a vector IN compares (see ``EvalNode/rowMembership(_:_:_:_:)``).
struct RowMembershipColumn: Sendable {
    /// The affinity both sides take (`exprINAffinity`), nil for none.
    var affinity: SQLAffinity?
    /// The collation the lookup compares under (`sqlite3BinaryCompareCollSeq` of the two sides).
    var searchCollation: SQLCollation
    /// The left element's own collation (`sqlite3ExprCollSeq`), under which the NULL-seeking pass compares.
    var leftCollation: SQLCollation
}

extension ExpressionCompiler.Session {
    /// What one element of a row value carries into comparisons.
    struct RowElement {
        var affinity: SQLAffinity?
        var collation: SQLCollation?
        /// Whether the collation comes from an explicit `COLLATE` (`EP_Collate`).
        var explicitCollation: Bool
    }

    /// How many elements `e` has as a row value: a row's count, a subquery's column count (nil when that is not
    /// known before the subquery is compiled), 1 for any other expression.
    func rowWidth(_ e: SQLExpression) -> Int? {
        switch e.kind {
        case .row(let xs): return xs.count
        case .subquery(let select): return resolver.subqueryWidth(select)
        default: return 1
        }
    }

    /// What the scalar `e` carries into comparisons as a row value's element.
    func element(_ e: SQLExpression) throws -> RowElement {
        RowElement(affinity: try affinity(e), collation: try collation(e), explicitCollation: hasCollate(e))
    }

    /// Whether `e` is a row value (a row, or a subquery known to return more than one column).
    func isRowValue(_ e: SQLExpression) -> Bool {
        (rowWidth(e) ?? 1) > 1
    }

    /// The width two operands compared as row values share: the known width, which the other side (when known)
    /// must have; else SQLite's `row value misused`.
    private func sharedWidth(_ l: SQLExpression, _ r: SQLExpression) throws -> Int {
        let lw = rowWidth(l)
        let rw = rowWidth(r)
        guard let width = lw ?? rw, width > 1, (lw ?? width) == width, (rw ?? width) == width else {
            throw SQLEvaluationError("row value misused")
        }
        return width
    }

    /// `e` as one side of a row-value comparison of `width` elements: its elements compiled (each a scalar), or
    /// its subquery registered to return one row.
    mutating func rowOperand(_ e: SQLExpression, width: Int) throws -> (RowOperand, [RowElement]) {
        switch e.kind {
        case .row(let xs):
            var nodes: [EvalNode] = []
            var elements: [RowElement] = []
            for x in xs {
                if isRowValue(x) { throw SQLEvaluationError("row value misused") }
                nodes.append(try operand(x))
                elements.append(try element(x))
            }
            return (.elements(nodes), elements)
        case .subquery(let select):
            let id = try resolver.registerSubquery(select, kind: .row(width: width))
            let elements = (0..<width).map { k in
                let column = resolver.subqueryColumn(select, at: k)
                return RowElement(
                    affinity: column.affinity, collation: column.collation,
                    explicitCollation: column.explicitCollation)
            }
            return (.subquery(id), elements)
        default:
            throw SQLEvaluationError("row value misused")
        }
    }

    /// The rule a comparison of two elements uses (``rule(_:_:)`` for elements): the left operand's explicit
    /// collation, else the right one's, else the left's, else the right's.
    static func rule(_ l: RowElement, _ r: RowElement) -> ComparisonRule {
        let collation =
            l.explicitCollation ? l.collation : r.explicitCollation ? r.collation : l.collation ?? r.collation
        return ComparisonRule(leftAffinity: l.affinity, rightAffinity: r.affinity, collation: collation ?? .binary)
    }

    /// `l op r` where an operand is a row value: both must be row values of the same size holding no row, else
    /// SQLite's `row value misused`.
    mutating func rowComparison(_ op: SQLComparisonOperator, _ l: SQLExpression, _ r: SQLExpression) throws -> EvalNode
    {
        let width = try sharedWidth(l, r)
        let (left, leftElements) = try rowOperand(l, width: width)
        let (right, rightElements) = try rowOperand(r, width: width)
        let rules = zip(leftElements, rightElements).map { Self.rule($0, $1) }
        let node = EvalNode.rowCompare(op, left, right, rules)
        guard case .elements(let a) = left, case .elements(let b) = right else { return node }
        return fold(node, a + b)
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

    /// `x [NOT] IN (SELECT …)` where `x` is a row value: the subquery must return as many columns. Column `k`
    /// takes the affinity a scalar IN would (`exprINAffinity`) and looks up under the collation a comparison of
    /// the two would use. `rightElements` describe the subquery's columns when the caller knows them better than
    /// ``ColumnResolver/subqueryColumn(_:at:)`` (a VALUES list, whose terms are the caller's expressions).
    mutating func rowInSelect(
        _ x: SQLExpression, _ select: SelectStatement, rightElements: [RowElement]? = nil, negated: Bool
    ) throws -> EvalNode {
        guard let width = rowWidth(x), width > 1 else { throw SQLEvaluationError("row value misused") }
        let (lhs, elements) = try rowOperand(x, width: width)
        let id = try resolver.registerSubquery(select, kind: .inRows(width: width))
        var columns: [RowMembershipColumn] = []
        for (k, left) in elements.enumerated() {
            let right = rightElements?[k] ?? {
                let column = resolver.subqueryColumn(select, at: k)
                return RowElement(
                    affinity: column.affinity, collation: column.collation, explicitCollation: column.explicitCollation)
            }()
            var combined = left.affinity ?? right.affinity
            if let l = left.affinity, let r = right.affinity { combined = l.isNumeric || r.isNumeric ? .numeric : .blob }
            columns.append(
                RowMembershipColumn(
                    affinity: combined, searchCollation: Self.rule(left, right).collation,
                    leftCollation: left.collation ?? .binary))
        }
        return .inRows(lhs, id, columns, negated: negated)
    }

    /// `x [NOT] IN (list)` where `x` is a parenthesized row: SQLite's parser turns the list into a `VALUES`
    /// subquery, each item a row of `x`'s width (`IN(...) element has 1 term - expected 2` otherwise).
    mutating func rowInList(_ x: SQLExpression, _ list: [SQLExpression], negated: Bool) throws -> EvalNode {
        guard let width = rowWidth(x), width > 1 else { throw SQLEvaluationError("row value misused") }
        var rows: [[SQLExpression]] = []
        for item in list {
            guard case .row(let xs) = item.kind, xs.count == width else {
                let count = if case .row(let xs) = item.kind { xs.count } else { 1 }
                throw SQLEvaluationError("IN(...) element has \(count) term\(count == 1 ? "" : "s") - expected \(width)")
            }
            rows.append(xs)
        }
        // SQLite reads a compound's columns from its rightmost term: the last row.
        let rightElements = try rows[rows.count - 1].map { try element($0) }
        return try rowInSelect(
            x, SelectStatement(first: .values(rows)), rightElements: rightElements, negated: negated)
    }

    /// A simple `CASE` whose base is a row value: each `WHEN` is compared with it as a row (`base = when`).
    mutating func rowCase(_ c: CaseExpression, base: SQLExpression) throws -> EvalNode {
        var children: [EvalNode] = []
        let otherwise = try c.elseResult.map { try lazy($0) }
        if let o = otherwise { children.append(o) }
        var branches: [(EvalNode, EvalNode)] = []
        for (k, branch) in c.branches.enumerated() {
            if k > 0 { lazyDepth += 1 }
            let w = try rowComparison(.equal, base, branch.condition)
            if k > 0 { lazyDepth -= 1 }
            let t = try lazy(branch.result)
            children += [w, t]
            branches.append((w, t))
        }
        return fold(.searchedCase(branches, otherwise), children)
    }
}
