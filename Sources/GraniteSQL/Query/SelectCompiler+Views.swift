// Views in FROM: a view is read as a subquery of its stored query, compiled afresh against the current schema.

import GraniteStorage

extension SelectCompiler {
    /// Adds `view` to `scope` as a `FROM` subquery named `alias` (else the view's name).
    ///
    /// Its columns are those of its query (named as a `FROM` subquery's are, or by the view's column list), with
    /// the affinity, collation and declared type of their expressions. The query sees none of the enclosing
    /// query's names.
    func addView(
        _ view: ViewDefinition, alias: String?, scope: QueryScope, subqueries: inout [Int: SelectProgram]
    ) throws {
        let k = scope.sources.count
        let compiled = try compileView(view)
        scope.add(name: alias ?? view.name, table: nil, columns: compiled.columns).view = view
        subqueries[k] = compiled.program
    }

    /// A view's query compiled as a `FROM` subquery, with the columns it gives the view.
    ///
    /// A column list whose length differs from the query's is an error when the view is read; `PRAGMA
    /// table_info` (`forInfoOnly`) lists the listed names instead, without types, as SQLite does.
    /// `pushed` are conditions on the query's own names to add to its `WHERE` (see
    /// ``pushTermsIntoViews(_:from:scope:)``).
    func compileView(_ view: ViewDefinition, forInfoOnly: Bool = false, pushing pushed: [SQLExpression] = [])
        throws -> (program: SelectProgram, columns: [QuerySource.Column])
    {
        let key = SchemaNames.key(view.name)
        if expandingViews.contains(key) {
            throw SQLExecutionError(.circularView(view.name))
        }
        // The query's expressions are named after their text in the stored statement, which it was parsed from.
        // A main view's names are the main schema's (SQLite binds them to the view's schema); a temporary view's
        // look in the temporary schema first.
        var inner = SelectCompiler(
            catalog: view.isTemporary || !catalog.hasTemporarySchema ? catalog : catalog.mainSchema,
            connection: connection, sourceText: view.sql, sourceStart: 0,
            expandingViews: expandingViews + [key], readsStoredQuery: !view.isTemporary,
            deferredChecks: deferredChecks)
        inner.checksForRename = checksForRename
        var select = view.select
        if !pushed.isEmpty, case .select(var core) = select.first {
            core.whereClause = ([core.whereClause].compactMap { $0 } + pushed).reduce(nil) { conjunction, term in
                conjunction.map { SQLExpression(.binary(.and, $0, term)) } ?? term
            }
            select.first = .select(core)
        }
        // A view names a plain column after its declared name (a rowid after the alias column, else `rowid`).
        let program = try inner.compile(select, outer: nil, declaredNames: true)
        let names: [String]
        if let declared = view.columnNames {
            guard declared.count == program.columnNames.count else {
                if forInfoOnly {
                    return (program, declared.map { QuerySource.Column(name: $0, affinity: nil, collation: .binary) })
                }
                throw SQLExecutionError(
                    "expected \(declared.count) columns for '\(view.name)' but got \(program.columnNames.count)")
            }
            names = declared
        } else {
            names = Self.uniqueNames(program.columnNames)
        }
        return (program, Self.sourceColumns(of: program, select: view.select, named: names))
    }

    /// The name a missing table is reported under: SQLite qualifies the tables a main view's query names with
    /// their schema, so that inside a view `x` is reported as `main.x` (a temporary view's names stay bare), and
    /// so are a main trigger's.
    func missingTableName(_ name: QualifiedName) -> String {
        if let schema = name.schema { return "\(schema).\(name.name)" }
        return readsStoredQuery || catalog.bindsNamesToMain ? "main.\(name.name)" : name.name
    }

    /// The columns a compiled `FROM` subquery (or view) gives its source, named `names`.
    static func sourceColumns(of program: SelectProgram, select: SelectStatement, named names: [String])
        -> [QuerySource.Column]
    {
        let declaredTypes = declaredTypes(of: program, select: select)
        return names.enumerated().map { n, name in
            QuerySource.Column(
                name: name, affinity: program.outputs[n].affinity, collation: program.outputs[n].collation ?? .binary,
                declaredType: n < declaredTypes.count ? declaredTypes[n] : nil)
        }
    }

    /// The declared type of each result column of `program`, as SQLite derives a view column's type: the
    /// declared type of the column a result expression names (through subqueries and views in `FROM`), nil for
    /// any other expression.
    static func declaredTypes(of program: SelectProgram, select: SelectStatement) -> [String?] {
        columnOrigins(of: program, select: select).enumerated().map { n, origin in
            if let origin { return origin.source.columns[origin.column].declaredType }
            // A table's rowid, under any of its names, is typed INTEGER (its alias column's type), as in SQLite.
            guard program.windows == nil, n < program.outputs.count, let slot = program.outputs[n].columnSlot
            else { return nil }
            for source in program.scope.sources where source.table != nil {
                if slot == source.base + source.rowidSlot { return "INTEGER" }
                if let alias = source.table?.rowidAlias, slot == source.base + alias {
                    return source.columns[alias].declaredType
                }
            }
            return nil
        }
    }

    /// The source column each result column of `program` is, for those that are a plain column of one of its
    /// `FROM` sources (`*`, `t.*`, `t.c`, `c`); nil for other expressions. `expression` names the column in the
    /// query's own scope.
    static func columnOrigins(of program: SelectProgram, select: SelectStatement)
        -> [(source: QuerySource, column: Int, expression: SQLExpression)?]
    {
        if let windows = program.windows {
            // Through the inner query, whose result columns the plain ones are.
            let inner = columnOrigins(of: windows.input, select: windows.inputSelect)
            return windows.resultOrigins.map { c in c.flatMap { $0 < inner.count ? inner[$0] : nil } }
        }
        guard case .select(let core) = select.first else { return [] }
        let sources = program.scope.sources
        var origins: [(source: QuerySource, column: Int, expression: SQLExpression)?] = []
        func append(_ source: QuerySource, _ c: Int) {
            let reference = ColumnReference(table: source.name, column: source.columns[c].name)
            origins.append((source, c, SQLExpression(.column(reference))))
        }
        func appendStars(_ stars: [StarColumn]) {
            for star in stars {
                switch star {
                case .column(let k, let c): append(sources[k], c)
                case .usingTerm(let name):
                    let reference = ColumnReference(column: name)
                    if let (k, c) = (try? program.scope.locate(reference))?.column {
                        origins.append((sources[k], c, SQLExpression(.column(reference))))
                    } else {
                        origins.append(nil)
                    }
                }
            }
        }
        for column in core.columns {
            switch column {
            case .all: appendStars(program.scope.starColumns(qualifier: nil, nested: core.isNestedFrom))
            case .allOf(let name): appendStars(program.scope.starColumns(qualifier: name))
            case .expression(let expression, _):
                guard case .column(let reference) = expression.kind, reference.schema == nil,
                    let (k, c) = (try? program.scope.locate(reference))?.column
                else {
                    origins.append(nil)
                    continue
                }
                origins.append((sources[k], c, expression))
            }
        }
        return origins
    }
}
