// Splits the expressions of a SELECT with window functions between two queries, as SQLite does
// (sqlite3WindowRewrite): the inner query (FROM, WHERE, GROUP BY, HAVING) computes every window-free part, and
// the outer query, reading the inner's rows with the window functions' results beside them, computes the rest.

/// Rewrites a `SELECT`'s result and `ORDER BY` expressions over the rows of its inner query.
struct WindowRewriter {
    /// The window-free expressions the inner query computes, in the order of its extra result columns.
    private(set) var pushed: [SQLExpression] = []
    /// The window function calls, in the order of their result columns.
    private(set) var calls: [FunctionCall] = []

    /// The name the outer query reads the inner query's `k`th extra column by. It holds a NUL, which no
    /// statement's identifier can, so it never meets a name the statement wrote.
    static func pushedName(_ k: Int) -> String { "\u{0}p\(k)" }
    /// The name the outer query reads the result of window call `k` by.
    static func windowName(_ k: Int) -> String { "\u{0}w\(k)" }

    /// `e` over the inner query's row: each window call becomes a read of its result, each window-free part
    /// other than a literal or parameter a read of an inner column. An unqualified name in `aliases` (a result
    /// column alias an `ORDER BY` term may name) is left for the outer query to resolve.
    mutating func rewrite(_ e: SQLExpression, aliases: Set<String> = []) throws -> SQLExpression {
        if case .function(let call) = e.kind, call.over != nil {
            if let nested = Self.firstWindowCall(inArgumentsOf: call) {
                throw SQLExecutionError(.misuseOfWindowFunction(nested.name))
            }
            calls.append(call)
            return SQLExpression(.column(ColumnReference(column: Self.windowName(calls.count - 1))), range: e.range)
        }
        guard let window = Self.firstWindowCall(in: e) else {
            switch e.kind {
            case .literal, .parameter: return e
            case .column(let reference)
            where reference.table == nil && aliases.contains(SchemaNames.key(reference.column)):
                return e
            default: return push(e)
            }
        }
        if case .function(let call) = e.kind, WindowFunction.isAggregateCall(call) {
            throw SQLExecutionError(.misuseOfWindowFunction(window.name))
        }
        return try e.mappingChildren { try rewrite($0, aliases: aliases) }
    }

    /// Adds `e` to the inner query's columns (once); returns the outer query's read of it.
    mutating func push(_ e: SQLExpression) -> SQLExpression {
        let k = pushIndex(e)
        return SQLExpression(.column(ColumnReference(column: Self.pushedName(k))), range: e.range)
    }

    /// The first window call in `e`, outside its subqueries (which are queries of their own).
    static func firstWindowCall(in e: SQLExpression) -> FunctionCall? {
        if case .function(let call) = e.kind, call.over != nil { return call }
        for child in e.children {
            if let found = firstWindowCall(in: child) { return found }
        }
        return nil
    }

    /// The first aggregate call (not a window call) in `e`, outside its subqueries.
    static func firstAggregateCall(in e: SQLExpression) -> FunctionCall? {
        if case .function(let call) = e.kind, call.over == nil, WindowFunction.isAggregateCall(call) { return call }
        for child in e.children {
            if let found = firstAggregateCall(in: child) { return found }
        }
        return nil
    }

    /// The first window call in the arguments or `FILTER` of `call`.
    static func firstWindowCall(inArgumentsOf call: FunctionCall) -> FunctionCall? {
        var operands: [SQLExpression] = []
        if case .list(let arguments, _) = call.arguments { operands = arguments }
        if let filter = call.filter { operands.append(filter) }
        for operand in operands {
            if let found = firstWindowCall(in: operand) { return found }
        }
        return nil
    }

    /// Whether the result columns or `ORDER BY` terms of a `SELECT` call window functions.
    static func hasWindowCalls(_ core: SelectClause, orderBy: [OrderingTerm]) -> Bool {
        for column in core.columns {
            if case .expression(let e, _) = column, firstWindowCall(in: e) != nil { return true }
        }
        return orderBy.contains { firstWindowCall(in: $0.expression) != nil }
    }
}

extension SQLExpression {
    /// The operands evaluated as part of this expression (a subquery's own expressions are not among them; an
    /// `OVER` clause's expressions are not either).
    var children: [SQLExpression] {
        switch kind {
        case .literal, .parameter, .column, .exists, .subquery: return []
        case .unary(_, let x), .collate(let x, _), .cast(let x, _), .isNull(let x, _), .inSelect(let x, _, _),
            .inTable(let x, _, _):
            return [x]
        case .binary(_, let l, let r): return [l, r]
        case .function(let call):
            var all: [SQLExpression] = []
            if case .list(let arguments, _) = call.arguments { all = arguments }
            if let filter = call.filter { all.append(filter) }
            return all
        case .caseWhen(let c):
            var all = c.base.map { [$0] } ?? []
            for branch in c.branches { all += [branch.condition, branch.result] }
            if let e = c.elseResult { all.append(e) }
            return all
        case .between(let x, let low, let high, _): return [x, low, high]
        case .inList(let x, let list, _): return [x] + list
        case .like(let x, _, let pattern, let escape, _): return [x, pattern] + (escape.map { [$0] } ?? [])
        case .row(let list): return list
        }
    }

    /// This expression with each of its ``children`` replaced by `transform` of it.
    func mappingChildren(_ transform: (SQLExpression) throws -> SQLExpression) rethrows -> SQLExpression {
        var copy = self
        switch kind {
        case .literal, .parameter, .column, .exists, .subquery: return self
        case .unary(let op, let x): copy.kind = .unary(op, try transform(x))
        case .collate(let x, let name): copy.kind = .collate(try transform(x), collation: name)
        case .cast(let x, let type): copy.kind = .cast(try transform(x), type)
        case .isNull(let x, let negated): copy.kind = .isNull(try transform(x), negated: negated)
        case .inSelect(let x, let select, let negated):
            copy.kind = .inSelect(try transform(x), select, negated: negated)
        case .inTable(let x, let table, let negated): copy.kind = .inTable(try transform(x), table, negated: negated)
        case .binary(let op, let l, let r): copy.kind = .binary(op, try transform(l), try transform(r))
        case .function(var call):
            if case .list(let arguments, let distinct) = call.arguments {
                call.arguments = .list(try arguments.map(transform), distinct: distinct)
            }
            call.filter = try call.filter.map(transform)
            copy.kind = .function(call)
        case .caseWhen(var c):
            c.base = try c.base.map(transform)
            c.branches = try c.branches.map {
                CaseExpression.Branch(condition: try transform($0.condition), result: try transform($0.result))
            }
            c.elseResult = try c.elseResult.map(transform)
            copy.kind = .caseWhen(c)
        case .between(let x, let low, let high, let negated):
            copy.kind = .between(try transform(x), low: try transform(low), high: try transform(high), negated: negated)
        case .inList(let x, let list, let negated):
            copy.kind = .inList(try transform(x), try list.map(transform), negated: negated)
        case .like(let x, let op, let pattern, let escape, let negated):
            copy.kind = .like(
                try transform(x), op, pattern: try transform(pattern), escape: try escape.map(transform),
                negated: negated)
        case .row(let list): copy.kind = .row(try list.map(transform))
        }
        return copy
    }
}

extension WindowRewriter {
    /// Adds `e` to the inner query's columns (once); returns its index among the extra columns.
    mutating func pushIndex(_ e: SQLExpression) -> Int {
        if let found = pushed.firstIndex(of: e) { return found }
        pushed.append(e)
        return pushed.count - 1
    }
}
