// The join levels of a SELECT: the order its sources are visited in, where each WHERE and ON term is tested, and
// each table's access path.

import GraniteStorage

extension SelectCompiler {
    /// A query's join levels, with what their placement decided.
    struct JoinLevels {
        var levels: [SelectProgram.Level] = []
        /// The terms placed at no level (all of them when there is no level): tested once per execution.
        var preconditions: [CompiledExpression] = []
        /// The `EXPLAIN QUERY PLAN` lines of the levels.
        var plan: [(Int, String)] = []
        /// The `ORDER BY` terms left to sort by: none when the first level's access path yields the rows in order.
        var ordering: [SelectProgram.SortTerm] = []
        /// Whether the first level yields the rows ordered by the `GROUP BY` keys, so groups are streamed.
        var streamsGroups = false
    }

    /// Builds the join levels in `order`: each `WHERE` term is tested at the first level where every source it
    /// reads has a row (one with a subquery at the last level), each `LEFT JOIN`'s `ON` terms at its own level;
    /// each table's access path uses the terms tested at its level.
    func planLevels(
        order: [Int], scope: QueryScope, terms: [Term], from: FromSources, outputs: [CompiledExpression],
        ordering sortTerms: [SelectProgram.SortTerm], isAggregate: Bool, groupOrder: GroupOrder? = nil
    ) throws -> JoinLevels {
        let readers = from.readers
        let fromSubqueries = from.subqueries
        let leftJoined = from.leftJoined
        var levels: [SelectProgram.Level] = []
        var placed = Set<Int>()
        var plan: [(Int, String)] = []
        var ordering = sortTerms
        var streamsGroups = false
        let lastLevel = order.count - 1
        var assigned = Array(repeating: false, count: terms.count)
        for (position, s) in order.enumerated() {
            let source = scope.sources[s]
            let isLeft = leftJoined.contains(s)
            placed.insert(s)
            // The terms placed at this level, each a match condition (a LEFT JOIN's ON term) or a filter; those
            // the access path may use, with their positions in `terms`.
            var levelTerms: [(term: Int, isMatch: Bool)] = []
            var usable: [Term] = []
            var usableIndices: [Int] = []
            for (t, term) in terms.enumerated() where !assigned[t] {
                let ready = term.hasSubquery ? position == lastLevel : term.sources.isSubset(of: placed)
                if let on = term.onOf {
                    // A LEFT JOIN's ON terms are tested at its own level.
                    guard on == s else { continue }
                    assigned[t] = true
                    levelTerms.append((t, true))
                    usable.append(term)
                    usableIndices.append(t)
                    continue
                }
                guard ready else { continue }
                assigned[t] = true
                levelTerms.append((t, false))
                if !isLeft {
                    usable.append(term)
                    usableIndices.append(t)
                }
            }
            var matchConditions: [CompiledExpression] = []
            var filters: [CompiledExpression] = []
            var impliedConditions: [CompiledExpression] = []
            func distributeTerms(implied: Set<Int>) {
                for (t, isMatch) in levelTerms {
                    if implied.contains(t) {
                        impliedConditions.append(terms[t].compiled)
                    } else if isMatch {
                        matchConditions.append(terms[t].compiled)
                    } else {
                        filters.append(terms[t].compiled)
                    }
                }
            }
            let earlier = placed.subtracting([s])
            switch (readers[s], fromSubqueries[s]) {
            case (let reader?, _):
                // An aggregate's first level is asked for the GROUP BY order (its ORDER BY sorts the groups).
                var wantOrder: [SelectProgram.SortTerm] = []
                if position == 0 {
                    wantOrder = isAggregate ? groupOrder?.terms ?? [] : ordering
                }
                var path = try AccessPlanner(
                    reader: reader, source: source, sourceIndex: s, scope: scope, earlier: earlier, outputs: outputs
                ).plan(
                    usable.map(\.expression), levelTerms: levelTerms.map { terms[$0.term].expression },
                    ordering: wantOrder,
                    eitherDirection: isAggregate && groupOrder?.eitherDirection == true)
                if path.satisfiesOrdering {
                    if !isAggregate || groupOrder?.coversOrderBy == true { ordering = [] }
                    if isAggregate { streamsGroups = true }
                }
                if isLeft { path.path.detail += " LEFT-JOIN" }
                plan.append((0, path.path.detail))
                distributeTerms(implied: Set(path.impliedTerms.map { usableIndices[$0] }))
                levels.append(
                    .init(
                        source: source, kind: .table(reader, path.path), matchConditions: matchConditions,
                        filters: filters, isLeft: isLeft, impliedConditions: impliedConditions))
            case (nil, let program?):
                distributeTerms(implied: [])
                plan.append((0, "SCAN \(source.name)"))
                for line in program.plan { plan.append((line.depth + 1, line.detail)) }
                levels.append(
                    .init(
                        source: source, kind: .subquery(program), matchConditions: matchConditions,
                        filters: filters, isLeft: isLeft))
            default:
                distributeTerms(implied: [])
                if let function = from.tableFunctions[s] {
                    let index = function.function.indexNumber(argumentCount: function.arguments.count)
                    plan.append((0, "SCAN \(source.name) VIRTUAL TABLE INDEX \(index):"))
                    levels.append(
                        .init(
                            source: source, kind: .tableFunction(function), matchConditions: matchConditions,
                            filters: filters, isLeft: isLeft))
                    break
                }
                guard let kind = from.producedLevels[s] else { break }
                if case .windowed(let windows) = kind {
                    // Like SQLite's co-routine: the inner query, then a sort per window ordering.
                    plan.append((0, "CO-ROUTINE \(source.name)"))
                    for line in windows.input.plan { plan.append((line.depth + 1, line.detail)) }
                    for sorting in windows.sortings where !sorting.partition.isEmpty || !sorting.order.isEmpty {
                        plan.append((1, "USE TEMP B-TREE FOR ORDER BY"))
                    }
                }
                plan.append((0, "SCAN \(source.name)"))
                if case .recursiveTable(let table) = kind {
                    for line in table.plan { plan.append((line.depth + 1, line.detail)) }
                }
                levels.append(
                    .init(
                        source: source, kind: kind, matchConditions: matchConditions, filters: filters,
                        isLeft: isLeft))
            }
        }
        var preconditions: [CompiledExpression] = []
        for (t, term) in terms.enumerated() where !assigned[t] { preconditions.append(term.compiled) }
        return JoinLevels(
            levels: levels, preconditions: preconditions, plan: plan, ordering: ordering, streamsGroups: streamsGroups)
    }

    /// The order of the join levels: the `FROM` order when there is a `LEFT JOIN`, else the order with the
    /// smallest estimated cost (for up to six tables) among those that keep each source of `crossJoined` after
    /// the sources before it in `FROM`.
    func chooseOrder(
        scope: QueryScope, terms: [Term], readers: [Int: TableReader], leftJoined: Set<Int>,
        crossJoined: Set<Int> = []
    ) -> [Int] {
        let n = scope.sources.count
        let fromOrder = Array(0..<n)
        guard n > 1, n <= 6, leftJoined.isEmpty, readers.count == n else { return fromOrder }
        var best: (cost: Double, order: [Int])?
        func visit(_ order: [Int], _ remaining: Set<Int>, _ rows: Double, _ cost: Double) {
            if let best, cost >= best.cost { return }
            if remaining.isEmpty {
                best = (cost, order)
                return
            }
            for s in remaining.sorted() {
                let placed = Set(order)
                // As in SQLite, the right side of a CROSS JOIN comes after every source before it.
                if crossJoined.contains(s) && !(0..<s).allSatisfy(placed.contains) { continue }
                let usable = terms.filter {
                    !$0.hasSubquery && $0.sources.contains(s) && $0.sources.isSubset(of: placed.union([s]))
                }
                let estimate = AccessPlanner(
                    reader: readers[s]!, source: scope.sources[s], sourceIndex: s, scope: scope, earlier: placed,
                    outputs: []
                ).estimate(usable.map(\.expression))
                visit(order + [s], remaining.subtracting([s]), rows * estimate, cost + rows * estimate)
            }
        }
        visit([], Set(fromOrder), 1, 0)
        return best?.order ?? fromOrder
    }
}
