// The FROM clause of a SELECT: its tables and subqueries become the query's sources, and its joins' ON and USING
// clauses (and NATURAL joins' shared columns) become join terms.

import GraniteStorage

extension SelectCompiler {
    /// The sources a `FROM` clause added to a query's scope, by source index.
    struct FromSources {
        /// A join term: an `ON` term, or the equality a `USING` column or `NATURAL` join stands for.
        typealias OnTerm = (expression: SQLExpression, source: Int, left: Bool)

        var readers: [Int: TableReader] = [:]
        var subqueries: [Int: SelectProgram] = [:]
        /// The levels whose rows the program produces itself: recursive common tables and their working rows,
        /// and the rows of a query with window functions.
        var producedLevels: [Int: SelectProgram.Level.Source] = [:]
        /// The calls of table-valued functions.
        var tableFunctions: [Int: TableFunctionProgram] = [:]
        var onTerms: [OnTerm] = []
        /// The sources on the right of a `LEFT JOIN`.
        var leftJoined: Set<Int> = []
    }

    /// Adds the sources of `from` to `scope` and collects its join terms.
    func compileFrom(_ from: FromClause?, scope: QueryScope, outer: QueryScope?) throws -> FromSources {
        var sources = FromSources()
        guard let from else { return sources }
        try addSource(from.first, scope: scope, outer: outer, to: &sources)
        for join in from.joins {
            let k = scope.sources.count
            try addSource(join.source, scope: scope, outer: outer, to: &sources)
            let isLeft = join.op == .left || join.op == .naturalLeft
            if isLeft {
                sources.leftJoined.insert(k)
                scope.sources[k].isLeftJoined = true
            }
            try addJoinTerms(
                join, source: k, visible: from.constraintsStart, isLeft: isLeft, scope: scope,
                to: &sources.onTerms)
        }
        return sources
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
            if visible > 0 { try checkNames(of: e, in: scope.sources[min(visible, k)...k]) }
            var parts: [SQLExpression] = []
            Self.flatten(e, into: &parts)
            for part in parts { onTerms.append((part, k, isLeft)) }
        case .using(let names)?: using = names
        case nil: break
        }
        for name in using {
            let right = scope.sources[k]
            guard let rc = right.columns.firstIndex(where: { SchemaNames.equal($0.name, name) }),
                let left = leftSources.first(where: { s in
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

    /// Fails as SQLite does when `condition`, an `ON` clause that sees only `sources`, names a column none of them
    /// has (`no such column: t.a` for the target of `UPDATE t … FROM`). Its names are resolved again with the
    /// whole query's, so an unqualified name that the hidden sources share stays ambiguous there.
    private func checkNames(of condition: SQLExpression, in sources: ArraySlice<QuerySource>) throws {
        let visible = QueryScope(outer: nil)
        for source in sources {
            visible.add(
                name: source.name, table: source.table, columns: source.columns, numbersRows: source.numbersRows
            ).hidden = source.hidden
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
            if let existing = scope.sources.first(where: { SchemaNames.equal($0.name, alias ?? table.name) }) {
                throw SQLExecutionError("ambiguous column name: \(existing.name)")
            }
            let source = scope.add(table: table, alias: alias)
            if connection.readSourceRecorder != nil { connection.readSourceRecorder?.append(source) }
            var reader = try TableReader(
                table: table, catalog: catalog, transaction: connection.transaction(for: table))
            reader.restriction = try IndexRestriction(
                indexHint, table: table, indexes: reader.indexes.map(\.definition))
            sources.readers[k] = reader
        case .subquery(let select, let alias):
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
