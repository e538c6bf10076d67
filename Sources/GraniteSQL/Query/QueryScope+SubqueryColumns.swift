// What an expression's compiler knows of a subquery before it is compiled (its program is compiled only once the
// enclosing query's row layout is final): how many columns it returns, which decides whether `(SELECT a, b)` is a
// row value, and the affinity and collation each column carries into comparisons.

extension QueryScope {
    /// One table of a subquery's `FROM`, by the name its columns are qualified with (nil: not a table of the
    /// schema).
    fileprivate struct Source {
        var name: String
        var table: TableDefinition?
    }

    /// The sources of `core`'s `FROM`, with the schema's definition of those that are tables.
    private func fromTables(_ core: SelectClause) -> [Source] {
        guard let from = core.from else { return [] }
        return ([from.first] + from.joins.map(\.source)).map { source in
            guard case .table(let name, let alias, _) = source, let catalog else { return Source(name: "", table: nil) }
            let table = catalog.table(name)
            return Source(name: alias ?? table?.name ?? name.name, table: table)
        }
    }

    /// How many columns `select` returns (its leftmost term's count: every term of a compound has as many), or
    /// nil when a `*` covers a source whose columns are not known here (a subquery, view or common table).
    func subqueryWidth(_ select: SelectStatement) -> Int? {
        guard case .select(let core) = select.first else {
            if case .values(let rows) = select.first { return rows.first?.count }
            return nil
        }
        let tables = fromTables(core)
        var count = 0
        for column in core.columns {
            switch column {
            case .expression: count += 1
            case .all:
                for source in tables {
                    guard let table = source.table else { return nil }
                    count += table.columns.count
                }
            case .allOf(let qualifier):
                // Every source so named (`t.*` over `FROM t, t` expands both).
                let named = tables.filter { SchemaNames.equal($0.name, qualifier) }
                guard !named.isEmpty, named.allSatisfy({ $0.table != nil }) else { return nil }
                count += named.reduce(0) { $0 + ($1.table?.columns.count ?? 0) }
            }
        }
        return count
    }

    /// The affinity and collation of a subquery's result column `index`, as SQLite derives them from its
    /// expression: a column of a table in the subquery's `FROM`, a `CAST`, a `COLLATE`. Other expressions carry
    /// none. For a compound, SQLite reads the rightmost term's expression.
    func subqueryColumn(_ select: SelectStatement, at index: Int) -> SubqueryColumn {
        guard catalog != nil, case .select(let core) = select.compounds.last?.core ?? select.first else {
            return SubqueryColumn()
        }
        let tables = fromTables(core)
        func column(_ table: TableDefinition, _ c: Int) -> SubqueryColumn {
            let definition = table.columns[c]
            return SubqueryColumn(
                affinity: definition.affinity, collation: definition.collation.flatMap { SQLCollation(name: $0) })
        }
        func describe(_ e: SQLExpression) -> SubqueryColumn {
            switch e.kind {
            case .collate(let x, let name):
                var result = describe(x)
                result.collation = SQLCollation(name: name)
                result.explicitCollation = true
                return result
            case .cast(_, let type): return SubqueryColumn(affinity: SQLAffinity(declaredType: type.name))
            case .column(let reference):
                for source in tables {
                    if let qualifier = reference.table, !SchemaNames.equal(qualifier, source.name) { continue }
                    // A subquery in the subquery's FROM: unknown.
                    guard let table = source.table else { return SubqueryColumn() }
                    if let c = table.columns.firstIndex(where: { SchemaNames.equal($0.name, reference.column) }) {
                        return column(table, c)
                    }
                    if SchemaNames.isRowidName(reference.column) { return SubqueryColumn(affinity: .integer) }
                }
                return SubqueryColumn()
            default: return SubqueryColumn()
            }
        }
        // Walks the result columns to the one at `index`, expanding `*` and `table.*` over the FROM's tables.
        var remaining = index
        for result in core.columns {
            switch result {
            case .expression(let e, _):
                if remaining == 0 { return describe(e) }
                remaining -= 1
            case .all:
                for source in tables {
                    guard let table = source.table else { return SubqueryColumn() }
                    if remaining < table.columns.count { return column(table, remaining) }
                    remaining -= table.columns.count
                }
            case .allOf(let qualifier):
                guard let table = tables.first(where: { SchemaNames.equal($0.name, qualifier) })?.table else {
                    return SubqueryColumn()
                }
                if remaining < table.columns.count { return column(table, remaining) }
                remaining -= table.columns.count
            }
        }
        return SubqueryColumn()
    }
}
