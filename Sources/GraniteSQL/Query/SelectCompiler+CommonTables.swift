// Common table expressions (WITH): a reference in a FROM clause compiles the table's body where it stands, as
// SQLite expands it: as a FROM subquery, or, when the body is `setup UNION [ALL] step…` whose trailing terms read
// the table, as a recursive table produced through a queue.

import GraniteStorage

extension SelectCompiler {
    /// Compiles `select` (whose `WITH` clause is `with`) with the clause's tables in force.
    func compile(_ select: SelectStatement, with: WithClause, outer: QueryScope?, declaredNames: Bool) throws
        -> SelectProgram
    {
        var inner = self
        inner.commonTables = CommonTableScope(with, outer: commonTables)
        var body = select
        body.with = nil
        return try inner.compile(body, outer: outer, declaredNames: declaredNames)
    }

    /// Adds table `index` of the `WITH` clause `defining` to `scope` as its next source, named `alias` if given.
    ///
    /// The body compiles with the clauses in force where the table is defined (so it sees the clause's other
    /// tables, and itself only as an error or as a recursive step's working row), but resolves names from where
    /// it is referenced, as SQLite resolves the copy of the body it puts there.
    func addCommonTable(
        _ index: Int, of defining: CommonTableScope, alias: String?, scope: QueryScope, outer: QueryScope?,
        to sources: inout FromSources
    ) throws {
        let table = defining.clause.tables[index]
        let k = scope.sources.count
        let name = alias ?? table.name
        switch defining.states[index] {
        case .expanding(let message)?:
            throw SQLExecutionError("\(message): \(table.name)")
        case .recursiveStep(let row, let columns, let claimed)?:
            if claimed { throw SQLExecutionError("multiple recursive references: \(table.name)") }
            defining.states[index] = .recursiveStep(row: row, columns: columns, claimed: true)
            scope.add(name: name, table: nil, columns: columns).isCommonTable = true
            sources.producedLevels[k] = .workingRow(row)
            return
        case nil:
            break
        }
        var body = self
        body.commonTables = defining
        defining.states[index] = .expanding(message: "circular reference")
        defer { defining.states[index] = nil }
        if let firstStep = try Self.firstRecursiveTerm(of: table) {
            let (program, columns) = try body.compileRecursive(
                table, firstStep: firstStep, state: (defining, index), outer: outer)
            scope.add(name: name, table: nil, columns: columns).isCommonTable = true
            if program.correlated { scope.noteOuterRead() }
            sources.producedLevels[k] = .recursiveTable(program)
        } else {
            let program = try body.compile(table.select, outer: outer, declaredNames: false)
            let columns = try Self.columns(of: table, names: program.columnNames, outputs: program.outputs)
            scope.add(name: name, table: nil, columns: columns).isCommonTable = true
            if program.scope.usesOuter { scope.noteOuterRead() }
            sources.subqueries[k] = program
        }
    }

    /// The columns of common table `table` whose body's result columns are `names` and `outputs`: named by the
    /// table's column list if it has one (which must count as many), made unique as a subquery's are.
    private static func columns(
        of table: CommonTableExpression, names: [String], outputs: [CompiledExpression]
    ) throws -> [QuerySource.Column] {
        var names = names
        if let declared = table.columns {
            guard declared.count == names.count else {
                throw SQLExecutionError(
                    "table \(table.name) has \(names.count) values for \(declared.count) columns")
            }
            names = declared
        }
        return uniqueNames(names).enumerated().map { n, name in
            QuerySource.Column(name: name, affinity: outputs[n].affinity, collation: outputs[n].collation ?? .binary)
        }
    }

    // MARK: Recursive tables

    /// The index of the first recursive term of `table`'s body (in the list of its cores), nil when the body is
    /// not recursive: the trailing terms joined by the body's last operator, `UNION` or `UNION ALL`, that name the
    /// table in their own `FROM` clause, once each (the first term is never one).
    static func firstRecursiveTerm(of table: CommonTableExpression) throws -> Int? {
        let body = table.select
        guard let last = body.compounds.last?.op, last == .union || last == .unionAll else { return nil }
        var first: Int?
        var k = body.compounds.count - 1
        while k >= 0 && body.compounds[k].op == last {
            let references = referenceCount(of: table.name, in: body.compounds[k].core)
            if references > 1 { throw SQLExecutionError("multiple references to recursive table: \(table.name)") }
            if references == 0 { break }
            first = k + 1
            k -= 1
        }
        return first
    }

    /// How many items of `core`'s own `FROM` clause (not its subqueries) name `name` without a schema.
    private static func referenceCount(of name: String, in core: SelectCore) -> Int {
        guard case .select(let clause) = core, let from = clause.from else { return 0 }
        return ([from.first] + from.joins.map(\.source)).count { source in
            if case .table(let table, _, _) = source, table.schema == nil { return SchemaNames.equal(table.name, name) }
            return false
        }
    }

    /// Compiles the recursive `table`, whose recursive terms start at core `firstStep` of its body; `state` is
    /// where references to the table are tracked (its clause and index there).
    private func compileRecursive(
        _ table: CommonTableExpression, firstStep: Int, state: (scope: CommonTableScope, index: Int),
        outer: QueryScope?
    ) throws -> (RecursiveTableProgram, [QuerySource.Column]) {
        let body = table.select
        // The body's own WITH clause covers all its terms.
        var compiler = self
        if let with = body.with { compiler.commonTables = CommonTableScope(with, outer: commonTables) }

        let setupStatement = SelectStatement(first: body.first, compounds: Array(body.compounds[..<(firstStep - 1)]))
        let setup = try compiler.compile(setupStatement, outer: outer, declaredNames: false)
        let columns = try Self.columns(of: table, names: setup.columnNames, outputs: setup.outputs)

        let row = RecursiveWorkingRow()
        var steps: [SelectProgram] = []
        for term in body.compounds[(firstStep - 1)...] {
            state.scope.states[state.index] = .recursiveStep(row: row, columns: columns, claimed: false)
            let step = try compiler.compile(SelectStatement(first: term.core), outer: outer, declaredNames: false)
            if step.columnNames.count != columns.count {
                throw SQLExecutionError(
                    "SELECTs to the left and right of \(term.op.rawValue) do not have the same number of result "
                        + "columns")
            }
            steps.append(step)
        }
        state.scope.states[state.index] = .expanding(message: "circular reference")

        let cores = [body.first] + body.compounds.map(\.core)
        let ordering = try Self.queueOrdering(body.orderBy, cores: cores, columns: columns)
        let bounds = try body.limit.map { try compiler.compileBounds($0) }
        if steps.contains(where: \.isAggregate) {
            throw SQLExecutionError("recursive aggregate queries not supported")
        }
        let program = RecursiveTableProgram(
            setup: setup, steps: steps, workingRow: row, distinct: body.compounds.last?.op == .union,
            collations: columns.map(\.collation), ordering: ordering, bounds: bounds,
            interruption: connection.engine.interruption)
        return (program, columns)
    }

    /// The order of a recursive table's queue: its `ORDER BY` terms, each naming a result column as a compound
    /// select's must (by position, by the alias of a term's result column, or by an expression equal to one).
    private static func queueOrdering(
        _ orderBy: [OrderingTerm], cores: [SelectCore], columns: [QuerySource.Column]
    ) throws -> [SelectProgram.SortTerm] {
        var terms: [SelectProgram.SortTerm] = []
        for (n, term) in orderBy.enumerated() {
            var expression = term.expression
            var explicitCollation: SQLCollation?
            if case .collate(let inner, let name) = expression.kind, let collation = SQLCollation(name: name) {
                explicitCollation = collation
                expression = inner
            }
            var output: Int?
            if let k = integerTerm(expression) {
                guard k >= 1 && k <= columns.count else {
                    throw SQLExecutionError(
                        "\(ordinal(n + 1)) ORDER BY term out of range - should be between 1 and \(columns.count)")
                }
                output = Int(k - 1)
            } else {
                output = cores.lazy.compactMap { resultColumn(matching: expression, in: $0) }.first
            }
            guard let output, output < columns.count else {
                throw SQLExecutionError(
                    "\(ordinal(n + 1)) ORDER BY term does not match any column in the result set")
            }
            let descending = term.order == .descending
            terms.append(
                .init(
                    output: output, expression: nil, descending: descending,
                    nullsFirst: term.nulls.map { $0 == .first } ?? !descending,
                    collation: explicitCollation ?? columns[output].collation))
        }
        return terms
    }

    /// The result column of `core` that `expression` names: by its alias, else by being equal to its expression.
    private static func resultColumn(matching expression: SQLExpression, in core: SelectCore) -> Int? {
        guard case .select(let clause) = core else { return nil }
        if case .column(let reference) = expression.kind, reference.table == nil,
            let k = aliasIndex(reference.column, clause.columns)
        {
            return k
        }
        return clause.columns.firstIndex {
            if case .expression(let e, _) = $0 { return e == expression }
            return false
        }
    }
}
