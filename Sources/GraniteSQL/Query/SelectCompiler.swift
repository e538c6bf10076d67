import GraniteStorage

/// Builds a ``SelectProgram`` from a `SELECT` statement: resolves names, places each `WHERE`/`ON` term at the
/// first join level where it can be tested, chooses each table's access path and join order, and decides whether
/// `ORDER BY` needs a sort.
struct SelectCompiler {
    let catalog: SchemaCatalog
    let engine: StorageEngine
    /// The text of the statement (for naming result columns after their expression text).
    let sourceText: String
    /// The byte offset of the statement's text in the script it came from.
    let sourceStart: Int

    /// A `WHERE` or `ON` term with the sources it reads.
    private struct Term {
        let expression: SQLExpression
        let compiled: CompiledExpression
        /// The indices of the sources it reads.
        let sources: Set<Int>
        /// Whether it contains a subquery (which may read any source).
        let hasSubquery: Bool
        /// For a `LEFT JOIN`'s `ON` term: the index of the joined source.
        let onOf: Int?
    }

    /// Compiles `select`. Result columns that are column references are named like SQLite names them: after the
    /// declared column (`rowid` becomes the INTEGER PRIMARY KEY's name) when `declaredNames`, else (a subquery in
    /// `FROM`) as written.
    func compile(_ select: SelectStatement, outer: QueryScope? = nil, declaredNames: Bool = true) throws
        -> SelectProgram
    {
        guard select.with == nil else { throw SQLExecutionError.unsupported("WITH") }
        guard select.compounds.isEmpty else { throw SQLExecutionError.unsupported("compound SELECT") }
        guard case .select(let core) = select.first else { throw SQLExecutionError.unsupported("VALUES as a query") }
        let scope = QueryScope(outer: outer)
        scope.catalog = catalog

        // FROM: sources and join terms.
        var readers: [Int: TableReader] = [:]
        var fromSubqueries: [Int: SelectProgram] = [:]
        var onTerms: [(expression: SQLExpression, source: Int, left: Bool)] = []
        var leftJoined: Set<Int> = []
        if let from = core.from {
            try addSource(from.first, scope: scope, outer: outer, readers: &readers, subqueries: &fromSubqueries)
            for join in from.joins {
                let k = scope.sources.count
                try addSource(join.source, scope: scope, outer: outer, readers: &readers, subqueries: &fromSubqueries)
                let isLeft = join.op == .left || join.op == .naturalLeft
                if isLeft {
                    leftJoined.insert(k)
                    scope.sources[k].isLeftJoined = true
                }
                var using: [String] = []
                if join.op == .naturalInner || join.op == .naturalLeft {
                    if join.constraint != nil {
                        throw SQLExecutionError("a NATURAL join may not have an ON or USING clause")
                    }
                    let right = scope.sources[k]
                    for column in right.columns
                    where scope.sources[..<k].contains(where: { left in
                        left.columns.contains { SchemaNames.equal($0.name, column.name) }
                    }) {
                        using.append(column.name)
                    }
                }
                switch join.constraint {
                case .on(let e)?:
                    var parts: [SQLExpression] = []
                    Self.flatten(e, into: &parts)
                    for part in parts { onTerms.append((part, k, isLeft)) }
                case .using(let names)?: using = names
                case nil: break
                }
                for name in using {
                    let right = scope.sources[k]
                    guard let rc = right.columns.firstIndex(where: { SchemaNames.equal($0.name, name) }),
                        let left = scope.sources[..<k].first(where: { s in
                            s.columns.contains { SchemaNames.equal($0.name, name) }
                        })
                    else {
                        throw SQLExecutionError(
                            "cannot join using column \(name) - column not present in both tables")
                    }
                    right.hidden.insert(rc)
                    let e = SQLExpression(
                        .binary(
                            .equal, SQLExpression(.column(ColumnReference(table: left.name, column: name))),
                            SQLExpression(.column(ColumnReference(table: right.name, column: name)))))
                    onTerms.append((e, k, isLeft))
                }
            }
        }

        // Result columns.
        var names: [String] = []
        var outputs: [CompiledExpression] = []
        var outputExpressions: [SQLExpression?] = []
        scope.allowAggregates = true
        for column in core.columns {
            switch column {
            case .all:
                guard !scope.sources.isEmpty else { throw SQLExecutionError("no tables specified") }
                for source in scope.sources {
                    for (c, col) in source.columns.enumerated() where !source.hidden.contains(c) {
                        names.append(col.name)
                        outputs.append(.slot(source.base + c, affinity: col.affinity, collation: col.collation))
                        outputExpressions.append(nil)
                        source.used.insert(c)
                    }
                }
            case .allOf(let name):
                guard let source = scope.source(named: name) else { throw SQLExecutionError(.noSuchTable(name)) }
                for (c, col) in source.columns.enumerated() {
                    names.append(col.name)
                    outputs.append(.slot(source.base + c, affinity: col.affinity, collation: col.collation))
                    outputExpressions.append(nil)
                    source.used.insert(c)
                }
            case .expression(let expression, let alias):
                outputs.append(try compileExpression(expression, scope))
                names.append(alias ?? columnName(expression, declaredIn: declaredNames ? scope : nil))
                outputExpressions.append(expression)
            }
        }
        let resultAggregates = scope.aggregates.count
        scope.allowAggregates = false

        // WHERE and ON terms.
        var terms: [Term] = []
        if let whereClause = core.whereClause {
            var parts: [SQLExpression] = []
            Self.flatten(whereClause, into: &parts)
            for part in parts { terms.append(try term(part, scope, onOf: nil)) }
        }
        for on in onTerms {
            terms.append(try term(on.expression, scope, onOf: on.left ? on.source : nil))
        }

        // SQLite checks the ORDER BY positions before the GROUP BY terms.
        try Self.checkPositions(select.orderBy.map(\.expression), clause: "ORDER", count: names.count)
        try Self.checkPositions(core.groupBy, clause: "GROUP", count: names.count)

        // GROUP BY and HAVING.
        var groupBy: [(expression: CompiledExpression, collation: SQLCollation)] = []
        for e in core.groupBy {
            var target = e
            if let k = Self.integerTerm(e) {
                guard k >= 1, k <= core.columns.count, let x = outputExpressions[Int(k) - 1] else {
                    throw SQLExecutionError(
                        "\(Self.ordinal(groupBy.count + 1)) GROUP BY term out of range - should be between 1 and "
                            + "\(names.count)")
                }
                target = x
            } else if case .column(let reference) = e.kind, reference.table == nil,
                (try? scope.resolve(reference)) == nil,
                let k = Self.aliasIndex(reference.column, core.columns), let x = outputExpressions[k]
            {
                target = x
            }
            do {
                let compiled = try compileExpression(target, scope)
                groupBy.append((compiled, compiled.collation ?? .binary))
            } catch let error as SQLExecutionError where error.subject?.isAggregateMisuse == true {
                throw SQLExecutionError("aggregate functions are not allowed in the GROUP BY clause")
            }
        }
        scope.allowAggregates = true
        let having = try core.having.map { try compileExpression($0, scope) }

        // ORDER BY.
        var sortTerms: [SelectProgram.SortTerm] = []
        for (n, term) in select.orderBy.enumerated() {
            let descending = term.order == .descending
            let nullsFirst = term.nulls.map { $0 == .first } ?? !descending
            var expression = term.expression
            var explicitCollation: SQLCollation?
            if case .collate(let inner, let name) = expression.kind, let c = SQLCollation(name: name) {
                explicitCollation = c
                expression = inner
            }
            // A position or an alias, possibly with a COLLATE (`ORDER BY 1 COLLATE nocase`, `ORDER BY x COLLATE
            // nocase`), sorts by that result column.
            if let k = Self.integerTerm(expression) {
                guard k >= 1 && k <= names.count else {
                    throw SQLExecutionError(
                        "\(Self.ordinal(n + 1)) ORDER BY term out of range - should be between 1 and \(names.count)")
                }
                let output = Int(k - 1)
                sortTerms.append(
                    .init(
                        output: output, expression: nil, descending: descending, nullsFirst: nullsFirst,
                        collation: explicitCollation ?? outputs[output].collation ?? .binary))
                continue
            }
            if case .column(let reference) = expression.kind, reference.table == nil,
                let k = Self.aliasIndex(reference.column, core.columns)
            {
                sortTerms.append(
                    .init(
                        output: k, expression: nil, descending: descending, nullsFirst: nullsFirst,
                        collation: explicitCollation ?? outputs[k].collation ?? .binary))
                continue
            }
            // An ORDER BY expression equal to a result expression sorts by that column.
            if let k = outputExpressions.firstIndex(where: { $0 == expression }) {
                sortTerms.append(
                    .init(
                        output: k, expression: nil, descending: descending, nullsFirst: nullsFirst,
                        collation: explicitCollation ?? outputs[k].collation ?? .binary))
                continue
            }
            let compiled = try compileExpression(term.expression, scope)
            sortTerms.append(
                .init(
                    output: nil, expression: compiled, descending: descending, nullsFirst: nullsFirst,
                    collation: compiled.collation ?? .binary))
        }
        scope.allowAggregates = false
        let isAggregate = !scope.aggregates.isEmpty || !core.groupBy.isEmpty
        if core.having != nil && !isAggregate {
            throw SQLExecutionError("a GROUP BY clause is required before HAVING")
        }
        if isAggregate && resultAggregates == 0 && core.groupBy.isEmpty && !select.orderBy.isEmpty
            && core.columns.isEmpty
        {
            throw SQLExecutionError(.misuseOfAggregate(function: nil))
        }

        // LIMIT and OFFSET read no name, not even an enclosing query's: they run as a query of their own.
        let bounds = try select.limit.map { try compileBounds($0) }

        // Aggregates (compiled without aggregates allowed inside them).
        var aggregates: [SelectProgram.AggregateCall] = []
        for call in scope.aggregates {
            aggregates.append(try aggregate(call, scope))
        }

        // Subqueries: compiled now that this query's row layout is final.
        var subqueries: [SelectProgram.Subquery] = []
        var k = 0
        while k < scope.subqueries.count {
            let (sub, kind) = scope.subqueries[k]
            let program = try compile(sub, outer: scope)
            if kind != .exists && program.columnNames.count != 1 {
                throw SQLExecutionError("sub-select returns \(program.columnNames.count) columns - expected 1")
            }
            subqueries.append(.init(program: program, kind: kind, correlated: program.scope.usesOuter))
            k += 1
        }

        // Join order and access paths.
        let order = chooseOrder(scope: scope, terms: terms, readers: readers, leftJoined: leftJoined)
        var levels: [SelectProgram.Level] = []
        var preconditions: [CompiledExpression] = []
        var placed = Set<Int>()
        var plan: [(Int, String)] = []
        var ordering = sortTerms
        let lastLevel = order.count - 1
        var assigned = Array(repeating: false, count: terms.count)
        for (position, s) in order.enumerated() {
            let source = scope.sources[s]
            let isLeft = leftJoined.contains(s)
            placed.insert(s)
            var matchConditions: [CompiledExpression] = []
            var filters: [CompiledExpression] = []
            var usable: [Term] = []
            for (t, term) in terms.enumerated() where !assigned[t] {
                let ready = term.hasSubquery ? position == lastLevel : term.sources.isSubset(of: placed)
                if let on = term.onOf {
                    // A LEFT JOIN's ON terms are tested at its own level.
                    guard on == s else { continue }
                    assigned[t] = true
                    matchConditions.append(term.compiled)
                    usable.append(term)
                    continue
                }
                guard ready else { continue }
                assigned[t] = true
                filters.append(term.compiled)
                if !isLeft { usable.append(term) }
            }
            let earlier = placed.subtracting([s])
            switch (readers[s], fromSubqueries[s]) {
            case (let reader?, _):
                let wantOrder = position == 0 && !isAggregate && !ordering.isEmpty ? ordering : []
                var path = AccessPlanner(
                    reader: reader, source: source, sourceIndex: s, scope: scope, earlier: earlier, outputs: outputs
                ).plan(usable.map(\.expression), ordering: wantOrder)
                if path.satisfiesOrdering { ordering = [] }
                if isLeft { path.path.detail += " LEFT-JOIN" }
                plan.append((0, path.path.detail))
                levels.append(
                    .init(
                        source: source, kind: .table(reader, path.path), matchConditions: matchConditions,
                        filters: filters, isLeft: isLeft))
            case (nil, let program?):
                plan.append((0, "SCAN \(source.name)"))
                for line in program.plan { plan.append((line.depth + 1, line.detail)) }
                levels.append(
                    .init(
                        source: source, kind: .subquery(program), matchConditions: matchConditions,
                        filters: filters, isLeft: isLeft))
            default:
                break
            }
        }
        for (t, term) in terms.enumerated() where !assigned[t] { preconditions.append(term.compiled) }
        if levels.isEmpty && (core.from == nil) {
            plan.append((0, "SCAN CONSTANT ROW"))
        }
        plan += Self.planLines(of: subqueries, numberedFrom: 1)
        // SQLite shows the subqueries of LIMIT and OFFSET first, numbered after the others.
        if let bounds {
            plan.insert(contentsOf: Self.planLines(of: bounds.subqueries, numberedFrom: subqueries.count + 1), at: 0)
        }
        if isAggregate && !core.groupBy.isEmpty { plan.append((0, "USE TEMP B-TREE FOR GROUP BY")) }
        if core.distinct { plan.append((0, "USE TEMP B-TREE FOR DISTINCT")) }
        if !ordering.isEmpty { plan.append((0, "USE TEMP B-TREE FOR ORDER BY")) }

        return SelectProgram(
            columnNames: names, scope: scope, levels: levels, preconditions: preconditions, outputs: outputs,
            isAggregate: isAggregate, groupBy: groupBy, aggregates: aggregates, having: having,
            distinct: core.distinct, ordering: ordering, bounds: bounds, subqueries: subqueries,
            plan: plan)
    }

    // MARK: Sources

    private func addSource(
        _ source: TableSource, scope: QueryScope, outer: QueryScope?, readers: inout [Int: TableReader],
        subqueries: inout [Int: SelectProgram]
    ) throws {
        let k = scope.sources.count
        switch source {
        case .table(let name, let alias):
            if let schema = name.schema, !SchemaNames.equal(schema, "main") {
                throw SQLExecutionError.noSuchTable("\(schema).\(name.name)")
            }
            guard let table = catalog.table(named: name.name) ?? SchemaCatalog.schemaTable(named: name.name) else {
                throw SQLExecutionError.noSuchTable(name.name)
            }
            if let existing = scope.sources.first(where: { SchemaNames.equal($0.name, alias ?? table.name) }) {
                throw SQLExecutionError("ambiguous column name: \(existing.name)")
            }
            scope.add(table: table, alias: alias)
            readers[k] = try TableReader(table: table, catalog: catalog, engine: engine)
        case .subquery(let select, let alias):
            let program = try compile(select, outer: outer, declaredNames: false)
            let columns = Self.uniqueNames(program.columnNames).enumerated().map { n, name in
                QuerySource.Column(
                    name: name, affinity: program.outputs[n].affinity,
                    collation: program.outputs[n].collation ?? .binary)
            }
            scope.add(name: alias ?? "(subquery-\(k + 1))", table: nil, columns: columns)
            subqueries[k] = program
        }
    }

    // MARK: Expressions

    private func compileExpression(_ e: SQLExpression, _ scope: QueryScope) throws -> CompiledExpression {
        do {
            return try ExpressionCompiler.compile(e, resolver: scope)
        } catch let error as SQLEvaluationError {
            throw SQLExecutionError(error)
        }
    }

    private func term(_ e: SQLExpression, _ scope: QueryScope, onOf: Int?) throws -> Term {
        scope.trace = []
        scope.tracedSubquery = false
        defer { scope.trace = nil }
        let compiled = try compileExpression(e, scope)
        return Term(
            expression: e, compiled: compiled, sources: scope.trace ?? [], hasSubquery: scope.tracedSubquery,
            onOf: onOf)
    }

    private func aggregate(_ call: FunctionCall, _ scope: QueryScope) throws -> SelectProgram.AggregateCall {
        let name = SchemaNames.key(call.name)
        var arguments: [CompiledExpression] = []
        var distinct = false
        if case .list(let list, let d) = call.arguments {
            distinct = d
            if d && list.count != 1 {
                throw SQLExecutionError("DISTINCT aggregates must have exactly one argument")
            }
            do {
                arguments = try list.map { try ExpressionCompiler.compile($0, resolver: scope) }
            } catch let error as SQLEvaluationError {
                if error.subject?.isAggregateMisuse == true {
                    throw SQLExecutionError(.misuseOfAggregate(function: call.name))
                }
                throw SQLExecutionError(error)
            }
        }
        let function: SelectProgram.AggregateCall.Function
        switch name {
        case "count": function = arguments.isEmpty ? .countStar : .count
        case "sum": function = .sum
        case "total": function = .total
        case "avg": function = .avg
        case "min": function = .min
        case "max": function = .max
        case "group_concat": function = .groupConcat
        default: throw SQLExecutionError(.noSuchFunction(call.name))
        }
        return .init(
            function: function, arguments: arguments, distinct: distinct,
            collation: arguments.first?.collation ?? .binary)
    }

    private func columnName(_ expression: SQLExpression, declaredIn scope: QueryScope?) -> String {
        if case .column(let reference) = expression.kind {
            return scope.flatMap { Self.declaredName(reference, $0) } ?? reference.column
        }
        return expression.sourceText(in: sourceText, startingAt: sourceStart) ?? "?"
    }

    /// Result column names made unique as SQLite names a subquery's columns (sqlite3ColumnsFromExprList): a
    /// repeated name (ignoring case) gets `:1`, `:2`, … in place of any such suffix it had.
    private static func uniqueNames(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        var result: [String] = []
        for name in names {
            var unique = name
            var count = 0
            while seen.contains(SchemaNames.key(unique)) {
                var stem = Substring(unique)
                if let colon = stem.lastIndex(of: ":"), colon > stem.startIndex,
                    stem[stem.index(after: colon)...].allSatisfy(\.isASCIIDigitCharacter)
                {
                    stem = stem[..<colon]
                }
                count += 1
                unique = "\(stem):\(count)"
            }
            seen.insert(SchemaNames.key(unique))
            result.append(unique)
        }
        return result
    }

    /// The declared name of the column `reference` resolves to among `scope`'s own sources.
    private static func declaredName(_ reference: ColumnReference, _ scope: QueryScope) -> String? {
        let sources = scope.sources.filter { reference.table == nil || SchemaNames.equal($0.name, reference.table!) }
        for source in sources {
            if let c = source.columns.firstIndex(where: { SchemaNames.equal($0.name, reference.column) }),
                reference.table != nil || !source.hidden.contains(c)
            {
                return source.columns[c].name
            }
        }
        guard SchemaNames.isRowidName(reference.column), sources.count == 1, let table = sources[0].table else {
            return nil
        }
        return table.rowidAlias.map { table.columns[$0].name } ?? "rowid"
    }

    static func flatten(_ e: SQLExpression, into terms: inout [SQLExpression]) {
        if case .binary(.and, let l, let r) = e.kind {
            flatten(l, into: &terms)
            flatten(r, into: &terms)
        } else {
            terms.append(e)
        }
    }

    /// Throws SQLite's error for the first out-of-range position among `terms`: a position below 1 (or above
    /// 65535) as the terms are resolved, else one beyond the result columns, found in a second pass.
    private static func checkPositions(_ terms: [SQLExpression], clause: String, count: Int) throws {
        let positions = terms.map { term -> Int64? in
            if case .collate(let inner, _) = term.kind { return integerTerm(inner) }
            return integerTerm(term)
        }
        let n =
            positions.firstIndex { $0.map { $0 < 1 || $0 > 0xffff } ?? false }
            ?? positions.firstIndex { $0.map { $0 > count } ?? false }
        if let n {
            throw SQLExecutionError(
                "\(ordinal(n + 1)) \(clause) BY term out of range - should be between 1 and \(count)")
        }
    }

    /// The integer of a GROUP BY or ORDER BY term that is an integer literal, possibly signed (`-1` is an
    /// out-of-range position, as in SQLite).
    private static func integerTerm(_ e: SQLExpression) -> Int64? {
        switch e.kind {
        case .literal(.integer(let k)): return k
        case .unary(.plus, let inner): return integerTerm(inner)
        case .unary(.negate, let inner): return integerTerm(inner).map { 0 &- $0 }
        default: return nil
        }
    }

    private static func aliasIndex(_ name: String, _ columns: [ResultColumn]) -> Int? {
        columns.firstIndex {
            if case .expression(_, let alias?) = $0 { return SchemaNames.equal(alias, name) }
            return false
        }
    }

    static func ordinal(_ n: Int) -> String {
        switch n {
        case 1: return "1st"
        case 2: return "2nd"
        case 3: return "3rd"
        default: return "\(n)th"
        }
    }

    // MARK: Join order

    /// The order of the join levels: the `FROM` order when there is a `LEFT JOIN`, else the order with the
    /// smallest estimated cost (for up to six tables).
    private func chooseOrder(scope: QueryScope, terms: [Term], readers: [Int: TableReader], leftJoined: Set<Int>)
        -> [Int]
    {
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

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}
