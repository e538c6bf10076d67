// Counting a join's last level instead of visiting its rows: in an aggregate query whose only use of that level's
// rows is to count them, the join gives each combination of the earlier levels' rows once, with the number of last
// rows it matches, and the counts add that number at once.

extension SelectCompiler {
    /// Whether `program`'s last join level can be tallied (``SelectProgram/talliesLastLevel``). It can when the
    /// query aggregates without window functions, every aggregate call is `count(*)` or a `count(x)` (without
    /// `DISTINCT` or `FILTER`) of a column of an earlier level, or of a column of the last level that is never NULL
    /// on one of its rows (its rowid, INTEGER PRIMARY KEY, or a NOT NULL column that is not generated), and nothing
    /// else read after the join, its
    /// `GROUP BY` keys, outputs, `HAVING` and `ORDER BY` terms, reads a slot of that level. The level's own
    /// conditions may read its columns: the cursor then loads each row to test them, and still counts.
    ///
    /// This is the query GRDB writes for `annotated(with: association.count)` and `having(association.isEmpty)`
    /// (with `count(DISTINCT` of the rowid made plain by ``droppingImpliedDistinct(_:levels:groupBy:)``), and
    /// `SELECT count(*) FROM t WHERE …`.
    static func talliesLastLevel(_ program: SelectProgram) -> Bool {
        guard program.isAggregate, program.countedTree == nil, !program.readsFirstValueOnly,
            let last = program.levels.last, !program.aggregates.isEmpty
        else { return false }
        if program.levels.contains(where: { if case .windowed = $0.kind { return true } else { return false } }) {
            return false
        }
        let source = last.source
        let slots = source.base..<(source.base + source.width)
        let neverNull = neverNullSlots(of: last)
        for call in program.aggregates {
            guard call.filter == nil, call.userFunction == nil else { return false }
            switch call.function {
            case .countStar:
                continue
            case .count:
                // A column of an earlier level has one value for all the rows it is counted for.
                guard !call.distinct, call.arguments.count == 1, let slot = call.arguments[0].columnSlot,
                    neverNull.contains(slot) || !slots.contains(slot)
                else { return false }
            default:
                return false
            }
        }
        func readsNoLastSlot(_ read: Set<Int>?) -> Bool {
            guard let read else { return false }
            return !read.contains { slots.contains($0) }
        }
        guard program.groupBy.allSatisfy({ readsNoLastSlot($0.expression.readSlots) }),
            program.outputs.allSatisfy({ readsNoLastSlot($0.slotsReadBesideAggregates) }),
            program.having.map({ readsNoLastSlot($0.slotsReadBesideAggregates) }) ?? true,
            program.ordering.allSatisfy({ readsNoLastSlot($0.expression?.slotsReadBesideAggregates ?? []) })
        else { return false }
        return true
    }

    /// The slots of `level`'s source that hold a value on each of its rows (not on a `LEFT JOIN`'s NULL row): its
    /// rowid, INTEGER PRIMARY KEY, and NOT NULL columns that are not generated. None for a source that is not a
    /// rowid table.
    private static func neverNullSlots(of level: SelectProgram.Level) -> Set<Int> {
        guard case .table(let reader, _) = level.kind, reader.table.hasRowid else { return [] }
        let source = level.source
        var slots: Set<Int> = [source.base + source.rowidSlot]
        for (c, column) in reader.table.columns.enumerated()
        where c == reader.table.rowidAlias
            || (column.notNull && column.generated == nil)
        {
            slots.insert(source.base + c)
        }
        return slots
    }
}
