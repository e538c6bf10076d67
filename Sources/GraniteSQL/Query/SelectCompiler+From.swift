// The FROM clause of a SELECT: its tables and subqueries become the query's sources, and its joins' ON and USING
// clauses (and NATURAL joins' shared columns) become join terms.

import GraniteStorage

extension SelectCompiler {
    /// The sources a `FROM` clause added to a query's scope, by source index.
    struct FromSources {
        /// A join term: an `ON` term, or the equality a `USING` column or `NATURAL` join stands for. Its names
        /// resolve among the sources from `visibleFrom` on (see ``FromClause/constraintsStart``).
        typealias OnTerm = (expression: SQLExpression, source: Int, left: Bool, visibleFrom: Int)

        var readers: [Int: TableReader] = [:]
        var subqueries: [Int: SelectProgram] = [:]
        /// The levels whose rows the program produces itself: recursive common tables and their working rows,
        /// and the rows of a query with window functions.
        var producedLevels: [Int: SelectProgram.Level.Source] = [:]
        /// The calls of table-valued functions.
        var tableFunctions: [Int: TableFunctionProgram] = [:]
        var onTerms: [OnTerm] = []
        /// The parenthesised joins whose names are left to resolve (see ``resolveNestedJoins(_:scope:)``).
        var unresolvedJoins: [UnresolvedJoin] = []
        /// The sources on the right of a `LEFT JOIN`.
        var leftJoined: Set<Int> = []
        /// The sources on the right of a `CROSS JOIN`, which the planner keeps after every source before them.
        var crossJoined: Set<Int> = []
    }

    /// Adds the sources of `from` to `scope` and collects its join terms, failing as SQLite does and on the
    /// error SQLite reports first: it expands the whole `FROM` (its tables, the items of its parenthesised joins,
    /// its `USING` and `NATURAL` joins, then the `table.*` of `columns`, the query's result columns) before it
    /// resolves any name, starting with those of its parenthesised joins.
    func compileFrom(
        _ from: FromClause?, scope: QueryScope, outer: QueryScope?, columns: [ResultColumn] = []
    ) throws -> FromSources {
        var sources = try expandFrom(from, scope: scope, outer: outer, columns: columns)
        try resolveNestedJoins(&sources, scope: scope)
        if let from, from.constraintsStart > 0 {
            try checkFromOfUpdate(from, scope: scope)
        }
        return sources
    }

    /// The expanding phase of ``compileFrom(_:scope:outer:columns:)``: adds the sources (a parenthesised join
    /// expanded, its names left to resolve) and their join terms, then checks that each `table.*` of `columns`
    /// names a source.
    func expandFrom(
        _ from: FromClause?, scope: QueryScope, outer: QueryScope?, columns: [ResultColumn]
    ) throws -> FromSources {
        var sources = FromSources()
        guard let from else { return sources }
        // Every item first: SQLite looks all of them up (and expands its parenthesised joins) before it joins them.
        try addSource(from.first, scope: scope, outer: outer, to: &sources)
        for join in from.joins {
            try addSource(join.source, scope: scope, outer: outer, to: &sources)
        }
        for (n, join) in from.joins.enumerated() {
            let k = n + 1
            let isLeft = join.op == .left || join.op == .naturalLeft
            if isLeft {
                sources.leftJoined.insert(k)
                scope.sources[k].isLeftJoined = true
            }
            if join.op == .cross { sources.crossJoined.insert(k) }
            try addJoinTerms(
                join, source: k, visible: from.constraintsStart, isLeft: isLeft, scope: scope,
                to: &sources.onTerms)
        }
        // SQLite goes on through the list after a bad `table.*`, and the last one is the error it reports.
        var missing: String?
        for case .allOf(let name) in columns where scope.starColumns(qualifier: name).isEmpty { missing = name }
        if let missing { throw SQLExecutionError(.noSuchTable(missing)) }
        return sources
    }

    /// The checks SQLite makes of the `FROM` of `UPDATE … FROM` as it resolves its names: that clause is a
    /// parenthesised join of its own when it has several items, whose `*` is checked first (see
    /// ``checkNestedStar(scope:from:)``), then the names of its `ON` clauses, which see the `FROM` sources alone
    /// (`no such column: t.a` for the target).
    private func checkFromOfUpdate(_ from: FromClause, scope: QueryScope) throws {
        if from.joins.count > 1 {
            try checkNestedStar(scope: scope, from: from.constraintsStart)
        }
        for (n, join) in from.joins.enumerated() {
            guard case .on(let condition)? = join.constraint else { continue }
            try checkNames(of: condition, in: scope.sources[from.constraintsStart...(n + 1)])
        }
        if from.joins.count > 1 {
            scope.updateFromGroup = scope.group(from: from.constraintsStart)
        }
    }

    /// Fails where SQLite fails on the `FROM` of `UPDATE … FROM` with several items, which it reads as a
    /// parenthesised join of its own (see ``SelectClause/isNestedFrom``) and so expands that join's `*`: each
    /// column as `schema.table.column` and each `USING` column by its bare name, among the `FROM` sources alone
    /// (`FROM u, u` is `ambiguous column name: main.u.a`).
    private func checkNestedStar(scope: QueryScope, from start: Int) throws {
        scope.firstVisible = start
        defer { scope.firstVisible = 0 }
        do {
            for star in scope.starColumns(qualifier: nil, nested: true, from: start) {
                switch star {
                case .usingTerm(let name):
                    // A column a NATURAL join shares with a group under its unique name (`x:1`) is no column there.
                    let reference = ColumnReference(column: name)
                    if try scope.locate(reference).column == nil { throw SQLEvaluationError(.noSuchColumn(reference)) }
                case .column(let k, let c): _ = try scope.locateExpanded(source: k, column: c)
                }
            }
        } catch let error as SQLEvaluationError {
            throw SQLExecutionError(error)
        }
    }

    /// Appends the terms of `join`, which joins source `k`, to `onTerms`: its `ON` terms, then an equality per
    /// `USING` column or per column a `NATURAL` join's sides share (whose right-hand copy `*` then leaves out).
    /// The clauses see the sources from `visible` on (see ``FromClause/constraintsStart``).
    private func addJoinTerms(
        _ join: JoinClause, source k: Int, visible: Int, isLeft: Bool, scope: QueryScope,
        to onTerms: inout [FromSources.OnTerm]
    ) throws {
        let leftSources = scope.sources[min(visible, k)..<k]
        var using: [String] = []
        if join.op == .naturalInner || join.op == .naturalLeft {
            if join.constraint != nil {
                throw SQLExecutionError("a NATURAL join may not have an ON or USING clause")
            }
            let right = scope.sources[k]
            for column in right.columns
            where !column.isHidden
                && leftSources.contains(where: { left in
                    left.columns.contains { !$0.isHidden && SchemaNames.equal($0.name, column.name) }
                })
            {
                using.append(column.name)
            }
        }
        switch join.constraint {
        case .on(let e)?:
            var parts: [SQLExpression] = []
            Self.flatten(e, into: &parts)
            for part in parts { onTerms.append((part, k, isLeft, visible)) }
        case .using(let names)?: using = names
        case nil: break
        }
        let right = scope.sources[k]
        right.usingNames = using
        for name in using {
            guard let rc = right.columns.firstIndex(where: { SchemaNames.equal($0.name, name) }),
                let l = leftSources.indices.first(where: { s in
                    scope.sources[s].columns.contains { SchemaNames.equal($0.name, name) }
                }),
                let lc = scope.sources[l].columns.firstIndex(where: { SchemaNames.equal($0.name, name) })
            else {
                throw SQLExecutionError(
                    "cannot join using column \(name) - column not present in both tables")
            }
            right.hidden.insert(rc)
            let e = SQLExpression(
                .binary(
                    .equal, SQLExpression(.column(boundReference(source: l, column: lc, in: scope))),
                    SQLExpression(.column(boundReference(source: k, column: rc, in: scope)))))
            onTerms.append((e, k, isLeft, visible))
        }
    }

    /// A reference to column `c` of source `k` for a `USING` equality: by the source's name where that names the
    /// column alone, else pinned to the source (`FROM t, t JOIN u USING (a)`, a parenthesised join whose items
    /// answer to its alias), as SQLite binds these to their table directly.
    private func boundReference(source k: Int, column c: Int, in scope: QueryScope) -> ColumnReference {
        let named = ColumnReference(table: scope.sources[k].name, column: scope.sources[k].columns[c].name)
        if let found = (try? scope.locate(named))?.column, found == (k, c) { return named }
        return scope.pinnedReference(source: k, column: c)
    }

    /// Fails as SQLite does when `condition`, an `ON` clause that sees only `sources`, names a column none of them
    /// has (`no such column: t.a` for the target of `UPDATE t … FROM`). Its names are resolved again with the
    /// whole query's, so an unqualified name that the hidden sources share stays ambiguous there.
    private func checkNames(of condition: SQLExpression, in sources: ArraySlice<QuerySource>) throws {
        let visible = QueryScope(outer: nil)
        for source in sources {
            let copy = visible.add(
                name: source.name, table: source.table, columns: source.columns, numbersRows: source.numbersRows)
            copy.hidden = source.hidden
            copy.usingNames = source.usingNames
            copy.nested = source.nested
        }
        _ = try ExpressionCompiler.compile(condition, resolver: visible)
    }

    /// Adds `source` to `scope` as its next source, with its reader (a table) or its compiled program (a subquery,
    /// a view or a table-valued function).
    private func addSource(
        _ source: TableSource, scope: QueryScope, outer: QueryScope?, to sources: inout FromSources
    ) throws {
        let k = scope.sources.count
        switch source {
        case .table(let name, let alias, let indexHint):
            if name.schema == nil, let found = commonTables?.lookup(name.name) {
                // SQLite quotes the name here, unlike its other `no such index` messages.
                if case .indexedBy(let index) = indexHint { throw SQLExecutionError(.noSuchIndex("\"\(index)\"")) }
                try addCommonTable(found.index, of: found.scope, alias: alias, scope: scope, outer: outer, to: &sources)
                return
            }
            guard let table = catalog.table(name) ?? SchemaCatalog.schemaTable(name) else {
                // A view or a table-valued function has no index: `NOT INDEXED` holds trivially.
                if case .indexedBy(let index) = indexHint,
                    catalog.view(name) != nil || SQLTableFunction(name: name.name) != nil
                {
                    throw SQLExecutionError(.noSuchIndex(index))
                }
                guard let view = catalog.view(name) else {
                    // An eponymous table-valued function read without arguments (`FROM pragma_table_list`).
                    if SQLTableFunction(name: name.name) != nil {
                        try addTableFunction(name, arguments: [], alias: alias, scope: scope, to: &sources)
                        return
                    }
                    throw SQLExecutionError.noSuchTable(missingTableName(name))
                }
                try addView(view, alias: alias, scope: scope, subqueries: &sources.subqueries)
                return
            }
            let source = scope.add(table: table, alias: alias)
            if connection.readSourceRecorder != nil { connection.readSourceRecorder?.append(source) }
            var reader = try TableReader(
                table: table, catalog: catalog, transaction: connection.transaction(for: table))
            reader.restriction = try IndexRestriction(
                indexHint, table: table, indexes: reader.indexes.map(\.definition))
            sources.readers[k] = reader
        case .subquery(let select, let alias):
            if case .select(let clause) = select.first, clause.isNestedFrom, select.compounds.isEmpty {
                try addNestedJoin(select, clause, alias: alias, scope: scope, outer: outer, to: &sources)
                return
            }
            let program = try compile(select, outer: outer, declaredNames: false)
            let columns = Self.sourceColumns(
                of: program, select: select, named: Self.uniqueNames(program.columnNames))
            scope.add(name: alias ?? "(subquery-\(k + 1))", table: nil, columns: columns)
            if program.scope.usesOuter { scope.noteOuterRead() }
            sources.subqueries[k] = program
        case .function(let name, let arguments, let alias):
            try addTableFunction(name, arguments: arguments, alias: alias, scope: scope, to: &sources)
        }
    }
}
