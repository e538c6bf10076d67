// Streamed GROUP BY: when the first join level can read its rows ordered by the GROUP BY keys, each group's rows
// arrive together and are aggregated one group at a time, without numbering the groups in a table and sorting them.

extension SelectCompiler {
    /// The order the first join level is asked for so that `GROUP BY` can be streamed.
    struct GroupOrder {
        /// The `GROUP BY` keys as sort terms, in their order.
        var terms: [SelectProgram.SortTerm]
        /// Whether the `ORDER BY` terms are the keys, in one direction, so that rows grouped in ``terms``' order
        /// need no sort afterwards. (As in SQLite, an `ORDER BY` of some of the keys only still sorts the groups,
        /// which keeps the order of its ties the one the groups came in.)
        var coversOrderBy: Bool
        /// Whether either direction serves: without an `ORDER BY` it covers, the groups may come in the order the
        /// table is stored in (descending for a `WITHOUT ROWID` primary key declared `DESC`, as in SQLite).
        var eitherDirection: Bool
    }

    /// The order that streams `groupBy`, or nil when a key is not a plain column (it then groups through a
    /// table of groups).
    static func groupOrder(
        _ groupBy: [(expression: CompiledExpression, collation: SQLCollation)], orderBy: [SelectProgram.SortTerm],
        outputs: [CompiledExpression]
    ) -> GroupOrder? {
        guard !groupBy.isEmpty else { return nil }
        var slots: [Int] = []
        for key in groupBy {
            guard let slot = key.expression.columnSlot else { return nil }
            slots.append(slot)
        }
        let descending = orderBy.first?.descending ?? false
        let coversOrderBy =
            orderBy.count == groupBy.count
            && orderBy.indices.allSatisfy { k in
                let term = orderBy[k]
                let slot = term.output.map { outputs[$0].columnSlot } ?? term.expression?.columnSlot
                return slot == slots[k] && term.collation == groupBy[k].collation
                    && term.descending == descending && term.nullsFirst == !descending
            }
        let direction = coversOrderBy && descending
        let terms = groupBy.map {
            SelectProgram.SortTerm(
                output: nil, expression: $0.expression, descending: direction, nullsFirst: !direction,
                collation: $0.collation)
        }
        return GroupOrder(terms: terms, coversOrderBy: coversOrderBy, eitherDirection: !coversOrderBy)
    }
}
