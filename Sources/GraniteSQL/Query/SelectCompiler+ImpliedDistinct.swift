// DISTINCT an aggregate need not enforce: `count(DISTINCT t.id)` where the join can never give one group the same
// row of `t` twice, so that counting the rowids counts distinct ones without remembering them.

extension SelectCompiler {
    /// `aggregates` with `DISTINCT` dropped from the `count` calls whose argument is the rowid (or INTEGER PRIMARY
    /// KEY) of a table level whose rows cannot repeat within a group.
    ///
    /// Why it holds: the join yields each combination of its levels' rows at most once (a table level yields each
    /// of its rows at most once per opening, its NULL row only when none matched). When every other level is a
    /// rowid table grouped by its rowid, one group's rows share those levels' rows (a NULL rowid being the one NULL
    /// row a `LEFT JOIN` level writes per combination of the levels before it), so they differ in the counted
    /// level's row, whose non-NULL rowids are therefore all different; `count` ignores the NULL row's.
    static func droppingImpliedDistinct(
        _ aggregates: [SelectProgram.AggregateCall], levels: [SelectProgram.Level],
        groupBy: [(expression: CompiledExpression, collation: SQLCollation)]
    ) -> [SelectProgram.AggregateCall] {
        guard aggregates.contains(where: { $0.distinct && $0.function == .count }) else { return aggregates }
        var rowidSlots: [[Int]] = []
        for level in levels {
            guard case .table(let reader, _) = level.kind, reader.table.hasRowid else { return aggregates }
            rowidSlots.append(slotsHoldingRowid(of: level.source, table: reader.table))
        }
        let groupSlots = Set(groupBy.compactMap(\.expression.columnSlot))
        let pinned = rowidSlots.map { slots in slots.contains { groupSlots.contains($0) } }
        var result = aggregates
        for (a, call) in aggregates.enumerated() where call.distinct && call.function == .count {
            guard call.arguments.count == 1, let slot = call.arguments[0].columnSlot,
                let counted = rowidSlots.firstIndex(where: { $0.contains(slot) })
            else { continue }
            if pinned.indices.allSatisfy({ $0 == counted || pinned[$0] }) { result[a].distinct = false }
        }
        return result
    }

    /// The slots that hold `source`'s rowid: its rowid slot, and its INTEGER PRIMARY KEY's when it has one.
    private static func slotsHoldingRowid(of source: QuerySource, table: TableDefinition) -> [Int] {
        var slots = [source.base + source.rowidSlot]
        if let alias = table.rowidAlias { slots.append(source.base + alias) }
        return slots
    }
}
