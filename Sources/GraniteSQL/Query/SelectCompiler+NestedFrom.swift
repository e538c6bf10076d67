// A parenthesised join as one item of FROM (`FROM t, (a JOIN b ON …) AS g`), compiled in SQLite's two phases:
// expanded with the enclosing FROM (its items added, its joins checked, its columns and their tags known, see
// QueryScope+NestedFrom.swift), then compiled as a query of its own once the enclosing FROM is expanded, so that
// of several errors the one SQLite reports first is the one reported.

extension SelectCompiler {
    /// A parenthesised join expanded but not compiled yet.
    struct UnresolvedJoin {
        /// The index of its source in the enclosing scope.
        var source: Int
        /// Its query, `SELECT * FROM …` (see ``SelectClause/isNestedFrom``).
        var select: SelectStatement
        var clause: SelectClause
        /// Its own scope, holding its items.
        var scope: QueryScope
        /// Its items, their join terms and the parenthesised joins among them left to resolve.
        var from: FromSources
    }

    /// Adds the parenthesised join `select` (whose one core is `clause`) to `scope` as its next source, named
    /// `alias` when given: expands its `FROM` and gives the source the columns of its `*`, each tagged with the
    /// item it came from and typed as that item's column; its names resolve later (see
    /// ``resolveNestedJoins(_:scope:)``).
    func addNestedJoin(
        _ select: SelectStatement, _ clause: SelectClause, alias: String?, scope: QueryScope, outer: QueryScope?,
        to sources: inout FromSources
    ) throws {
        let k = scope.sources.count
        let inner = QueryScope(outer: outer)
        inner.catalog = catalog
        inner.connectionCounters = connection.counters
        let from = try expandFrom(clause.from, scope: inner, outer: outer, columns: [])
        let stars = inner.starColumns(qualifier: nil, nested: true)
        let names = stars.map { star in
            switch star {
            case .column(let s, let c): return inner.sources[s].columns[c].name
            case .usingTerm(let name): return name
            }
        }
        let columns = zip(Self.uniqueNames(names), stars).map { name, star in
            var column = Self.origin(of: star, in: inner) ?? QuerySource.Column(name: name, collation: .binary)
            column.name = name
            column.isHidden = false
            column.subtypeFlag = nil
            return column
        }
        let source = scope.add(name: alias ?? "(subquery-\(k + 1))", table: nil, columns: columns)
        source.nested = inner.nestedTags(of: stars, named: names, renaming: checksForRename)
        sources.unresolvedJoins.append(
            UnresolvedJoin(source: k, select: select, clause: clause, scope: inner, from: from))
    }

    /// The column of `scope`'s sources that `star` reads (for a `USING` column, the one its bare name names),
    /// whose affinity, collation and declared type the parenthesised join's column takes.
    private static func origin(of star: StarColumn, in scope: QueryScope) -> QuerySource.Column? {
        switch star {
        case .column(let k, let c): return scope.sources[k].columns[c]
        case .usingTerm(let name):
            guard let (k, c) = (try? scope.locate(ColumnReference(column: name)))?.column else { return nil }
            return scope.sources[k].columns[c]
        }
    }

    /// Compiles the parenthesised joins of `sources`, added to `scope`, in order: each one's own parenthesised
    /// joins first, then its query.
    func resolveNestedJoins(_ sources: inout FromSources, scope: QueryScope) throws {
        for var join in sources.unresolvedJoins {
            try resolveNestedJoins(&join.from, scope: join.scope)
            let program = try compileQuery(
                join.select, core: join.clause, scope: join.scope, from: join.from, declaredNames: false)
            if program.scope.usesOuter { scope.noteOuterRead() }
            sources.subqueries[join.source] = program
        }
        sources.unresolvedJoins = []
    }
}
