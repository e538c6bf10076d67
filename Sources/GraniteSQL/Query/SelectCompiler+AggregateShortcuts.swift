// The aggregate queries SQLite answers without reading every row: `SELECT max(x) FROM t [WHERE …]` reads the rows in
// the order of `x` through an index (or the rowid) and stops at the first that gives the aggregate a value, and
// `SELECT count(*) FROM t` counts the cells of the table's leaves without decoding a row.

import GraniteStorage

extension SelectCompiler {
    /// The order to ask the access path for when `aggregates` is a lone `min()` or `max()` of one argument in a
    /// query without `GROUP BY` over one table: the argument ascending for `min()` (NULLs, which it skips, come
    /// first), descending for `max()` (NULLs last), in the aggregate's collation. Nil when the query does not
    /// qualify (a WITHOUT ROWID table never does).
    ///
    /// When the path yields that order, the query reads the first row on which the aggregate takes a value
    /// (``SelectProgram/readsFirstValueOnly``): every later row in that order would leave the aggregate as it is,
    /// and the bare columns SQLite takes from the row holding the extreme value are that row's.
    static func minMaxOrder(
        _ aggregates: [SelectProgram.AggregateCall], groupBy: [SQLExpression], scope: QueryScope,
        from: FromSources
    ) -> GroupOrder? {
        // A WITHOUT ROWID table's secondary index orders ties by storage rowid, not by key as SQLite's does, so
        // the bare columns of the row it would stop at could differ from SQLite's.
        guard groupBy.isEmpty, aggregates.count == 1, scope.sources.count == 1, from.readers[0] != nil,
            scope.sources[0].table?.hasRowid == true
        else { return nil }
        let call = aggregates[0]
        guard call.function == .min || call.function == .max, call.arguments.count == 1 else { return nil }
        let descending = call.function == .max
        let term = SelectProgram.SortTerm(
            output: nil, expression: call.arguments[0], descending: descending, nullsFirst: !descending,
            collation: call.collation)
        return GroupOrder(terms: [term], coversOrderBy: false, eitherDirection: false)
    }

    /// After the levels are planned with ``minMaxOrder(_:groupBy:scope:from:)``'s order: whether the first level
    /// yields it (its rows then feed one group, not streamed groups). The plan line says `SEARCH` rather than
    /// `SCAN` either way, as SQLite's does for a query it plans as a min/max one.
    static func useMinMaxOrder(_ joins: inout JoinLevels) -> Bool {
        if let first = joins.plan.first, first.1.hasPrefix("SCAN ") {
            joins.plan[0].1 = "SEARCH " + first.1.dropFirst("SCAN ".count)
        }
        guard joins.streamsGroups else { return false }
        joins.streamsGroups = false
        return true
    }

    /// Whether the query is `SELECT count(*) FROM table` and nothing more (SQLite's "simple count"): one table, no
    /// `WHERE`, `GROUP BY`, `HAVING`, `DISTINCT` or `FILTER`, the count its only result. It then counts the
    /// entries of a tree holding one per row (``SelectProgram/CountedTree``).
    static func countedTree(
        _ core: SelectClause, aggregates: [SelectProgram.AggregateCall], outputs: [CompiledExpression],
        scope: QueryScope, from: FromSources
    ) -> SelectProgram.CountedTree? {
        guard core.whereClause == nil, core.groupBy.isEmpty, core.having == nil, !core.distinct,
            scope.sources.count == 1, let reader = from.readers[0], aggregates.count == 1, outputs.count == 1
        else { return nil }
        let call = aggregates[0]
        guard call.function == .countStar, call.filter == nil, outputs[0].prelude.isEmpty,
            case .aggregate(let slot) = outputs[0].root, slot == scope.aggregateSlot(0)
        else { return nil }
        return countedTree(of: reader)
    }

    /// After the levels are planned: the plan line of a count read from an index, `SCAN t USING COVERING INDEX i`,
    /// as SQLite's.
    static func useCountedTree(
        _ tree: SelectProgram.CountedTree, _ joins: inout JoinLevels, scope: QueryScope, from: FromSources
    ) {
        guard case .index(let position) = tree, let reader = from.readers[0], !joins.plan.isEmpty else { return }
        let name = reader.indexes[position].definition.name
        joins.plan[0].1 = "SCAN \(scope.sources[0].name) USING COVERING INDEX \(name)"
    }

    /// The tree whose entries count `reader`'s rows in the fewest pages: like SQLite, the narrowest index that
    /// is not partial (one entry per row, NULL keys included), else the table. `INDEXED BY` and `NOT INDEXED`
    /// keep the table's own tree, and so does a WITHOUT ROWID table (SQLite counts its key's tree, which is the
    /// table; Granite's storage tree of it has one entry per row too).
    private static func countedTree(of reader: TableReader) -> SelectProgram.CountedTree {
        guard case .any = reader.restriction, reader.table.hasRowid else { return .table }
        var best: (position: Int, width: Int)?
        for (position, index) in reader.indexes.enumerated() where index.definition.whereClause == nil {
            let width = index.definition.columns.count
            if best.map({ width < $0.width }) ?? true { best = (position, width) }
        }
        return best.map { .index($0.position) } ?? .table
    }
}
