// A SELECT with window functions compiles to two queries, as in SQLite: an inner one (FROM, WHERE, GROUP BY,
// HAVING) whose columns are every window-free expression needed, and an outer one reading the inner rows, with
// the window functions' results beside them, through a ``WindowProgram`` level. The outer query computes the
// result columns, DISTINCT, ORDER BY and LIMIT as any query does.

import GraniteStorage

extension SelectCompiler {
    /// How an outer result column is computed.
    private enum OuterColumn {
        /// A window-free result column (or `*`), computed by the inner query.
        case inner(ResultColumn)
        /// An expression with window calls, rewritten over the inner row, and its name.
        case rewritten(SQLExpression, name: String)
    }

    /// Compiles `select`, whose first (and only) core `core` calls window functions in its result columns or its
    /// `ORDER BY`.
    func compileWindowed(_ select: SelectStatement, core: SelectClause, outer: QueryScope?, declaredNames: Bool)
        throws -> SelectProgram
    {
        try Self.checkOrderByAggregates(select.orderBy, core: core)
        var rewriter = WindowRewriter()
        let plan = try rewriteResultColumns(core.columns, rewriter: &rewriter)
        let orderBy = try rewriteOrderBy(select.orderBy, columns: core.columns, rewriter: &rewriter)
        let pending = try pendingCalls(windows: core.windows, rewriter: &rewriter)

        // The inner query: the windows' scope has no source yet, so the inner's slots start where its would, and
        // an inner query reading an enclosing one marks it correlated (as for a compound's terms).
        let scope = QueryScope(outer: outer)
        scope.catalog = catalog
        scope.connectionCounters = connection.counters
        let inputSelect = Self.inputSelect(core, plan: plan, pushed: rewriter.pushed)
        let input = try compileInput(inputSelect, scope: scope, declaredNames: declaredNames, plan: plan)
        let firstPushed = input.outputs.count - rewriter.pushed.count
        let (outerColumns, origins) = outerResultColumns(plan, input: input, firstPushed: firstPushed)
        let program = windowProgram(
            input, inputSelect: inputSelect, pending, firstPushed: firstPushed, resultOrigins: origins)

        let columns = windowSourceColumns(input, firstPushed: firstPushed, calls: pending.count)
        let source = scope.add(name: "(window)", table: nil, columns: columns)
        source.used = Set(0..<columns.count)
        var from = FromSources()
        from.producedLevels[0] = .windowed(program)
        let outerCore = SelectClause(distinct: core.distinct, columns: outerColumns)
        let outerSelect = SelectStatement(first: .select(outerCore), orderBy: orderBy, limit: select.limit)
        return try compileQuery(outerSelect, core: outerCore, scope: scope, from: from, declaredNames: declaredNames)
    }

    /// Each result column: computed by the inner query when it has no window call, else rewritten over its row.
    private func rewriteResultColumns(_ columns: [ResultColumn], rewriter: inout WindowRewriter) throws
        -> [OuterColumn]
    {
        try columns.map { column in
            guard case .expression(let e, let alias) = column, WindowRewriter.firstWindowCall(in: e) != nil else {
                return .inner(column)
            }
            let name = alias ?? e.sourceText(in: sourceText, startingAt: sourceStart) ?? "?"
            return .rewritten(try rewriter.rewrite(e), name: name)
        }
    }

    /// The window calls with their windows resolved, their operands added to the inner query's columns.
    private func pendingCalls(windows: [NamedWindow], rewriter: inout WindowRewriter) throws -> [PendingWindowCall] {
        let resolver = WindowResolver(windows: windows)
        let definitions = try rewriter.calls.map { try resolver.definition(of: $0) }
        var pending: [PendingWindowCall] = []
        for (call, definition) in zip(rewriter.calls, definitions) {
            pending.append(try PendingWindowCall(call, definition, rewriter: &rewriter))
        }
        return pending
    }

    /// The inner query: `core` without `DISTINCT` and windows, its columns the window-free result columns, then
    /// the `pushed` expressions (a NULL when there is neither, as a query needs a column).
    private static func inputSelect(_ core: SelectClause, plan: [OuterColumn], pushed: [SQLExpression])
        -> SelectStatement
    {
        var columns: [ResultColumn] = []
        for case .inner(let column) in plan { columns.append(column) }
        columns += pushed.map { ResultColumn.expression($0, alias: nil) }
        if columns.isEmpty { columns = [.expression(SQLExpression(.literal(.null)), alias: nil)] }
        var inner = core
        inner.columns = columns
        inner.distinct = false
        inner.windows = []
        return SelectStatement(first: .select(inner))
    }

    /// Refuses, as SQLite does, an aggregate in the `ORDER BY` of a query that does not aggregate otherwise (no
    /// `GROUP BY`, no aggregate in its result columns or `HAVING`): the inner query would take it as one.
    private static func checkOrderByAggregates(_ orderBy: [OrderingTerm], core: SelectClause) throws {
        guard core.groupBy.isEmpty else { return }
        var others = core.having.map { [$0] } ?? []
        for case .expression(let e, _) in core.columns { others.append(e) }
        if others.contains(where: { WindowRewriter.firstAggregateCall(in: $0) != nil }) { return }
        for term in orderBy {
            if let call = WindowRewriter.firstAggregateCall(in: term.expression) {
                throw SQLExecutionError("misuse of aggregate: \(call.name)()")
            }
        }
    }

    /// Compiles the inner query. A name it cannot resolve that is the alias of a result column with window calls
    /// (`WHERE r > 1`, `GROUP BY r`) is SQLite's misuse of that window function.
    private func compileInput(_ select: SelectStatement, scope: QueryScope, declaredNames: Bool, plan: [OuterColumn])
        throws -> SelectProgram
    {
        do {
            return try compile(select, outer: scope, declaredNames: declaredNames)
        } catch let error as SQLExecutionError {
            guard case .noSuchColumn(let reference)? = error.subject, reference.table == nil else { throw error }
            for case .rewritten(_, let name) in plan where SchemaNames.equal(name, reference.column) {
                throw SQLExecutionError("misuse of aliased window function \(name)")
            }
            throw error
        }
    }

    /// The `ORDER BY` terms over the inner row: a position or a result column alias (possibly with a
    /// `COLLATE`) is left as it is, to name the outer query's result column.
    private func rewriteOrderBy(_ terms: [OrderingTerm], columns: [ResultColumn], rewriter: inout WindowRewriter)
        throws -> [OrderingTerm]
    {
        var aliases: Set<String> = []
        for case .expression(_, let alias?) in columns { aliases.insert(SchemaNames.key(alias)) }
        return try terms.map { term in
            var bare = term.expression
            if case .collate(let inner, _) = bare.kind { bare = inner }
            if Self.integerTerm(bare) != nil { return term }
            if case .column(let reference) = bare.kind, reference.table == nil,
                aliases.contains(SchemaNames.key(reference.column))
            {
                return term
            }
            var rewritten = term
            rewritten.expression = try rewriter.rewrite(term.expression, aliases: aliases)
            return rewritten
        }
    }

    /// The columns of the windows' source: the inner query's (its result columns by position, its extra
    /// columns by the names the rewritten expressions read), then each call's result.
    private func windowSourceColumns(_ input: SelectProgram, firstPushed: Int, calls: Int) -> [QuerySource.Column] {
        var columns: [QuerySource.Column] = []
        for (c, output) in input.outputs.enumerated() {
            let name = c < firstPushed ? "\u{0}c\(c)" : WindowRewriter.pushedName(c - firstPushed)
            columns.append(.init(name: name, affinity: output.affinity, collation: output.collation ?? .binary))
        }
        for k in 0..<calls {
            columns.append(.init(name: WindowRewriter.windowName(k), affinity: nil, collation: .binary))
        }
        return columns
    }

    /// The outer query's result columns, each named as the statement's column would be, with the inner column
    /// each one is (nil for those with window calls).
    private func outerResultColumns(_ plan: [OuterColumn], input: SelectProgram, firstPushed: Int)
        -> ([ResultColumn], [Int?])
    {
        var results: [ResultColumn] = []
        var origins: [Int?] = []
        var next = 0
        for entry in plan {
            switch entry {
            case .inner(let column):
                for c in next..<min(next + expansionCount(column, input.scope), firstPushed) {
                    let read = SQLExpression(.column(ColumnReference(column: "\u{0}c\(c)")))
                    results.append(.expression(read, alias: input.columnNames[c]))
                    origins.append(c)
                }
                next += expansionCount(column, input.scope)
            case .rewritten(let e, let name):
                results.append(.expression(e, alias: name))
                origins.append(nil)
            }
        }
        return (results, origins)
    }

    /// How many result columns `column` stands for in a query over `scope`'s sources.
    private func expansionCount(_ column: ResultColumn, _ scope: QueryScope) -> Int {
        switch column {
        case .expression: return 1
        case .all: return scope.starColumns(qualifier: nil).count
        case .allOf(let name): return scope.starColumns(qualifier: name).count
        }
    }
}
