import GraniteStorage

/// Builds a ``SelectProgram`` from a `SELECT` statement: resolves names, places each `WHERE`/`ON` term at the
/// first join level where it can be tested, chooses each table's access path and join order, and decides whether
/// `ORDER BY` needs a sort.
struct SelectCompiler {
    let catalog: SchemaCatalog
    /// The connection whose transaction the compiled readers' trees are looked up in. Unowned: compilers are
    /// kept in statement caches, which the connection itself holds.
    unowned let connection: SQLConnection
    /// The text of the statement (for naming result columns after their expression text).
    let sourceText: String
    /// The byte offset of the statement's text in the script it came from.
    let sourceStart: Int
    /// The `WITH` clauses in force (innermost first), nil when there are none.
    var commonTables: CommonTableScope? = nil
    /// The views whose queries are being compiled, outermost first (to refuse a view that reads itself, and to
    /// name missing tables as SQLite does inside a view).
    var expandingViews: [String] = []
    /// Whether the query is a view's stored query (or part of one), whose missing tables SQLite reports with
    /// their schema (`main.x`).
    var readsStoredQuery = false
    /// Whether the query is compiled as SQLite checks the schema around `ALTER TABLE`, in its rename mode, where
    /// a parenthesised join's columns answer to no table name (see ``NestedColumnTag/answersToTable``).
    var checksForRename = false
    /// The failures of checks SQLite makes after name resolution, reported when the statement's outermost query
    /// is compiled (see ``DeferredCompileChecks``).
    var deferredChecks = DeferredCompileChecks()

    /// A `WHERE` or `ON` term with the sources it reads.
    struct Term {
        let expression: SQLExpression
        let compiled: CompiledExpression
        /// The indices of the sources it reads.
        let sources: Set<Int>
        /// Whether it contains a subquery (which may read any source).
        let hasSubquery: Bool
        /// For a `LEFT JOIN`'s `ON` term: the index of the joined source.
        var onOf: Int?
        /// The positions in ``QueryScope/subqueries`` of the subqueries it holds.
        var subqueries: Range<Int> = 0..<0
    }

    /// Compiles `select`. Result columns that are column references are named like SQLite names them: after the
    /// declared column (`rowid` becomes the INTEGER PRIMARY KEY's name) when `declaredNames`, else (a subquery in
    /// `FROM`) as written.
    func compile(_ select: SelectStatement, outer: QueryScope? = nil, declaredNames: Bool = true) throws
        -> SelectProgram
    {
        try deferredChecks.compiling { try compileChecked(select, outer: outer, declaredNames: declaredNames) }
    }

    /// ``compile(_:outer:declaredNames:)`` within its deferred checks.
    private func compileChecked(_ select: SelectStatement, outer: QueryScope?, declaredNames: Bool) throws
        -> SelectProgram
    {
        if let with = select.with {
            return try compile(select, with: with, outer: outer, declaredNames: declaredNames)
        }
        let core: SelectClause
        switch select.first {
        case .select(let clause) where select.compounds.isEmpty: core = clause
        case .values(let rows) where select.compounds.isEmpty && rows.count == 1:
            return try compileValuesRow(rows[0], scope: outer, declaredNames: declaredNames)
        default: return try compileCompound(select, outer: outer, declaredNames: declaredNames)
        }
        if WindowRewriter.hasWindowCalls(core, orderBy: select.orderBy) {
            return try compileWindowed(select, core: core, outer: outer, declaredNames: declaredNames)
        }
        let scope = QueryScope(outer: outer)
        scope.catalog = catalog
        scope.connectionCounters = connection.counters
        let from = try compileFrom(core.from, scope: scope, outer: outer, columns: core.columns)
        return try compileQuery(select, core: core, scope: scope, from: from, declaredNames: declaredNames)
    }

    /// Compiles the query `select` whose first core is `core`, over the sources `from` already added to `scope`.
    /// With `rowSubqueries`, see ``compileAssigning(_:rowSubqueries:)``.
    func compileQuery(
        _ select: SelectStatement, core: SelectClause, scope: QueryScope, from: FromSources, declaredNames: Bool,
        rowSubqueries: [Int: Int] = [:]
    ) throws -> SelectProgram {
        var from = from
        scope.allowAggregates = true
        let results = try compileResultColumns(
            core.columns, scope: scope, declaredNames: declaredNames, nestedFrom: core.isNestedFrom,
            rowSubqueries: rowSubqueries)
        let resultAggregates = scope.aggregates.count
        scope.allowAggregates = false
        var terms = try compileTerms(core.whereClause, onTerms: from.onTerms, scope: scope)
        if !from.leftJoined.isEmpty {
            try simplifyOuterJoins(&terms, whereClause: core.whereClause, from: &from, scope: scope)
        }
        if scope.sources.contains(where: { $0.view != nil }) {
            try pushTermsIntoViews(terms, from: &from, scope: scope)
        }
        if !from.tableFunctions.isEmpty {
            try bindPragmaConstraints(&from, terms: &terms, scope: scope)
        }

        // SQLite checks the ORDER BY positions before the GROUP BY terms.
        try Self.checkPositions(select.orderBy.map(\.expression), clause: "ORDER", count: results.names.count)
        try Self.checkPositions(core.groupBy, clause: "GROUP", count: results.names.count)
        let groupBy = try compileGroupBy(core, results: results, scope: scope)
        scope.allowAggregates = true
        let having = try core.having.map { try compileExpression($0, scope) }
        let sortTerms = try compileOrderBy(select.orderBy, columns: core.columns, results: results, scope: scope)
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
        // The sources a LEFT JOIN's ON term reads through its subqueries count for SQLite's check of the term.
        let tracedSubqueries = Set(terms.lazy.filter { $0.onOf != nil }.flatMap(\.subqueries))
        let (subqueries, subqueryReads) = try compileSubqueries(of: scope, tracing: tracedSubqueries)
        checkOnTermSubqueries(terms, reads: subqueryReads)

        let order = chooseOrder(
            scope: scope, terms: terms, readers: from.readers, leftJoined: from.leftJoined,
            crossJoined: from.crossJoined)
        // The plan lines are appended in place (a copy of `joins.plan` would copy its storage on the first append).
        let minMaxOrder = Self.minMaxOrder(aggregates, groupBy: core.groupBy, scope: scope, from: from)
        let groupOrder = minMaxOrder ?? Self.groupOrder(groupBy, orderBy: sortTerms, outputs: results.outputs)
        var joins = try planLevels(
            order: order, scope: scope, terms: terms, from: from, outputs: results.outputs, ordering: sortTerms,
            isAggregate: isAggregate, groupOrder: groupOrder)
        let readsFirstValueOnly = minMaxOrder != nil && Self.useMinMaxOrder(&joins)
        if joins.levels.isEmpty && (core.from == nil) {
            joins.plan.append((0, "SCAN CONSTANT ROW"))
        }
        joins.plan += Self.planLines(of: subqueries, numberedFrom: 1)
        // SQLite shows the subqueries of LIMIT and OFFSET first, numbered after the others.
        if let bounds {
            joins.plan.insert(
                contentsOf: Self.planLines(of: bounds.subqueries, numberedFrom: subqueries.count + 1), at: 0)
        }
        if isAggregate && !core.groupBy.isEmpty && !joins.streamsGroups {
            joins.plan.append((0, "USE TEMP B-TREE FOR GROUP BY"))
        }
        if core.distinct { joins.plan.append((0, "USE TEMP B-TREE FOR DISTINCT")) }
        if !joins.ordering.isEmpty { joins.plan.append((0, "USE TEMP B-TREE FOR ORDER BY")) }

        aggregates = Self.droppingImpliedDistinct(aggregates, levels: joins.levels, groupBy: groupBy)
        let countedTree = Self.countedTree(
            core, aggregates: aggregates, outputs: results.outputs, scope: scope, from: from)
        if let countedTree { Self.useCountedTree(countedTree, &joins, scope: scope, from: from) }
        let program = SelectProgram(
            columnNames: results.names, scope: scope, levels: joins.levels, preconditions: joins.preconditions,
            outputs: results.outputs, isAggregate: isAggregate, groupBy: groupBy, aggregates: aggregates,
            having: having, distinct: core.distinct, ordering: joins.ordering, bounds: bounds, subqueries: subqueries,
            plan: joins.plan)
        program.streamsGroups = joins.streamsGroups
        program.readsFirstValueOnly = readsFirstValueOnly
        program.countedTree = countedTree
        program.talliesLastLevel = Self.talliesLastLevel(program)
        watchInterruptions(program)
        return program
    }

    /// Gives `program` the connection's stop requests when one of its levels holds its rows in memory (see
    /// ``SelectProgram/interruption``).
    func watchInterruptions(_ program: SelectProgram) {
        let holdsRowsInMemory = program.levels.contains { level in
            if case .table = level.kind { return false }
            return true
        }
        if holdsRowsInMemory { program.interruption = connection.engine.interruption }
    }

    // MARK: Result columns and terms

    /// A query's result columns.
    struct ResultColumns {
        var names: [String] = []
        var outputs: [CompiledExpression] = []
        /// The expression of each output, nil for those that `*` or `table.*` expand to.
        var expressions: [SQLExpression?] = []
    }

    /// Compiles the result columns, expanding `*` and `table.*` into the columns of the sources (which marks
    /// them used), and each subquery at a position of `rowSubqueries` into its row's elements.
    private func compileResultColumns(
        _ columns: [ResultColumn], scope: QueryScope, declaredNames: Bool, nestedFrom: Bool = false,
        rowSubqueries: [Int: Int]
    ) throws -> ResultColumns {
        var results = ResultColumns()
        for (position, column) in columns.enumerated() {
            if let width = rowSubqueries[position], case .expression(let expression, _) = column,
                case .subquery(let select) = expression.kind
            {
                try appendRowSubquery(select, width: width, scope: scope, to: &results)
                continue
            }
            switch column {
            case .all:
                guard !scope.sources.isEmpty else { throw SQLExecutionError("no tables specified") }
                try appendStars(scope.starColumns(qualifier: nil, nested: nestedFrom), scope: scope, to: &results)
            case .allOf(let name):
                let stars = scope.starColumns(qualifier: name)
                guard !stars.isEmpty else { throw SQLExecutionError(.noSuchTable(name)) }
                try appendStars(stars, scope: scope, to: &results)
            case .expression(let expression, let alias):
                results.outputs.append(try compileExpression(expression, scope))
                results.names.append(alias ?? columnName(expression, declaredIn: declaredNames ? scope : nil))
                results.expressions.append(expression)
            }
        }
        return results
    }

    /// Appends the columns a `*` or `table.*` stands for. Over several sources SQLite reads each as the
    /// qualified name `schema.table.column` (the table's own name: `*` names no schema for a parenthesised join's
    /// columns), which fails where that name is ambiguous (`FROM t, t`) and reads whichever column it names.
    private func appendStars(_ stars: [StarColumn], scope: QueryScope, to results: inout ResultColumns) throws {
        for star in stars {
            switch star {
            case .usingTerm(let name):
                let expression = SQLExpression(.column(ColumnReference(column: name)))
                results.outputs.append(try compileExpression(expression, scope))
                results.names.append(name)
                results.expressions.append(expression)
            case .column(var k, var c):
                let name = scope.sources[k].columns[c].name
                if scope.sources.count > 1 {
                    do {
                        if let found = try scope.locateExpanded(source: k, column: c) { (k, c) = found }
                    } catch let error as SQLEvaluationError {
                        throw SQLExecutionError(error)
                    }
                }
                let source = scope.sources[k]
                let column = source.columns[c]
                results.names.append(name)
                results.outputs.append(
                    .slot(source.base + c, affinity: column.affinity, collation: column.collation))
                results.expressions.append(nil)
                source.used.insert(c)
            }
        }
    }

    /// The `WHERE` terms followed by the join terms, each split at its `AND`s.
    private func compileTerms(
        _ whereClause: SQLExpression?, onTerms: [FromSources.OnTerm], scope: QueryScope
    ) throws -> [Term] {
        var terms: [Term] = []
        if let whereClause {
            var parts: [SQLExpression] = []
            Self.flatten(whereClause, into: &parts)
            for part in parts { terms.append(try term(part, scope, onOf: nil)) }
        }
        for on in onTerms {
            scope.firstVisible = on.visibleFrom
            defer { scope.firstVisible = 0 }
            terms.append(try term(on.expression, scope, onOf: on.left ? on.source : nil))
        }
        return terms
    }

    /// Compiles the subqueries of the query's expressions, now that its row layout is final; for those at the
    /// positions `tracing`, also the query's sources each reads (as an enclosing query's row).
    private func compileSubqueries(of scope: QueryScope, tracing: Set<Int> = []) throws -> (
        programs: [SelectProgram.Subquery], reads: [Int: Set<Int>]
    ) {
        var subqueries: [SelectProgram.Subquery] = []
        var reads: [Int: Set<Int>] = [:]
        var k = 0
        while k < scope.subqueries.count {
            let (sub, kind) = scope.subqueries[k]
            let traced = tracing.contains(k)
            if traced { scope.trace = [] }
            let program = try compile(sub, outer: scope)
            if traced {
                reads[k] = scope.trace
                scope.trace = nil
            }
            try kind.checkWidth(program.columnNames.count)
            subqueries.append(.init(program: program, kind: kind, correlated: program.scope.usesOuter))
            k += 1
        }
        return (subqueries, reads)
    }

    // MARK: Expressions

    func compileExpression(_ e: SQLExpression, _ scope: QueryScope) throws -> CompiledExpression {
        do {
            return try ExpressionCompiler.compile(e, resolver: scope)
        } catch let error as SQLEvaluationError {
            throw SQLExecutionError(error)
        }
    }

    func term(_ e: SQLExpression, _ scope: QueryScope, onOf: Int?) throws -> Term {
        scope.trace = []
        scope.tracedSubquery = false
        defer { scope.trace = nil }
        let firstSubquery = scope.subqueries.count
        let compiled = try compileExpression(e, scope)
        return Term(
            expression: e, compiled: compiled, sources: scope.trace ?? [], hasSubquery: scope.tracedSubquery,
            onOf: onOf, subqueries: firstSubquery..<scope.subqueries.count)
    }

    private func aggregate(_ call: FunctionCall, _ scope: QueryScope) throws -> SelectProgram.AggregateCall {
        let name = SchemaNames.key(call.name)
        var arguments: [CompiledExpression] = []
        var distinct = false
        var list: [SQLExpression] = []
        if case .list(let expressions, let d) = call.arguments {
            list = expressions
            distinct = d
            if d && list.count != 1 {
                throw SQLExecutionError("DISTINCT aggregates must have exactly one argument")
            }
        }
        var filter: CompiledExpression?
        do {
            arguments = try list.map { try ExpressionCompiler.compile($0, resolver: scope) }
            filter = try call.filter.map { try ExpressionCompiler.compile($0, resolver: scope) }
        } catch let error as SQLEvaluationError {
            if error.subject?.isAggregateMisuse == true {
                throw SQLExecutionError(.misuseOfAggregate(function: call.name))
            }
            throw SQLExecutionError(error)
        }
        if let user = SQLFunctionRegistry.current?.function(named: name, argumentCount: arguments.count),
            user.isAggregate
        {
            return .init(
                function: .user, arguments: arguments, filter: filter, distinct: distinct,
                collation: arguments.first?.collation ?? .binary, userFunction: user)
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
        case "json_group_array", "json_group_object":
            function = name == "json_group_array" ? .jsonGroupArray : .jsonGroupObject
            if var value = arguments.last, let expression = list.last {
                // A json_each value read directly keeps its JSON subtype into the aggregate.
                if case .column(let slot) = value.root, case .column(let reference) = expression.kind,
                    let flag = try scope.resolve(reference).subtypeFlagSlot
                {
                    value = CompiledExpression(
                        root: .subtypedColumn(slot, flag: flag), prelude: value.prelude, affinity: value.affinity,
                        collation: value.collation)
                }
                arguments[arguments.count - 1] = value.asJSONAggregateArgument
            }
        default: throw SQLExecutionError(.noSuchFunction(call.name))
        }
        return .init(
            function: function, arguments: arguments, filter: filter, distinct: distinct,
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
    static func uniqueNames(_ names: [String]) -> [String] {
        uniqueNames(names, usingTerms: []).names
    }

    /// The positions in `names` of those whose name, while made unique (see ``uniqueNames(_:)``), collides with
    /// the name of a `USING` column of a parenthesised join (`usingTerms`, by position): SQLite leaves those out of
    /// an enclosing `*`.
    static func namesCollidingWithUsingTerms(_ names: [String], usingTerms: [Bool]) -> [Int] {
        uniqueNames(names, usingTerms: usingTerms).collisions
    }

    private static func uniqueNames(_ names: [String], usingTerms: [Bool]) -> (names: [String], collisions: [Int]) {
        var seen: [String: Bool] = [:]
        var result: [String] = []
        var collisions: [Int] = []
        for (n, name) in names.enumerated() {
            var unique = name
            var count = 0
            var collided = false
            while let other = seen[SchemaNames.key(unique)] {
                collided = collided || other
                var stem = Substring(unique)
                if let colon = stem.lastIndex(of: ":"), colon > stem.startIndex,
                    stem[stem.index(after: colon)...].allSatisfy(\.isASCIIDigitCharacter)
                {
                    stem = stem[..<colon]
                }
                count += 1
                unique = "\(stem):\(count)"
            }
            seen[SchemaNames.key(unique)] = n < usingTerms.count && usingTerms[n]
            result.append(unique)
            if collided { collisions.append(n) }
        }
        return (result, collisions)
    }

    /// The declared name of the column `reference` resolves to among `scope`'s own sources.
    private static func declaredName(_ reference: ColumnReference, _ scope: QueryScope) -> String? {
        guard let location = try? scope.locate(reference) else { return nil }
        if let (k, c) = location.column { return scope.sources[k].columns[c].name }
        guard SchemaNames.isRowidName(reference.column), let k = location.rowid, location.rowidSources == 1 else {
            return nil
        }
        guard let table = scope.sources[k].table else { return scope.sources[k].numbersRows ? "rowid" : nil }
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
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}
