// Aggregation: the join's rows grouped by the GROUP BY keys, each group's aggregates computed, the groups that pass
// HAVING emitted.

import GraniteStorage

extension SelectCursor {
    /// Groups the join's rows and calls `emit` with each group's row (aggregate results in their slots) that
    /// passes `HAVING`. `enough` is the number of emitted rows after which no more are needed (`LIMIT` with no
    /// sort after the grouping), nil when all are.
    func aggregate(_ emit: () throws -> Void, enough: (() -> Bool)?) throws {
        if program.streamsGroups {
            try aggregateStreamed(emit, enough: enough)
        } else {
            try aggregateInGroupTable(emit)
        }
    }

    /// Groups rows that come ordered by the `GROUP BY` keys, so that each group's rows are consecutive: a group
    /// ends when the key changes, and is emitted then, with one set of accumulators reset for the next.
    private func aggregateStreamed(_ emit: () throws -> Void, enough: (() -> Bool)?) throws {
        let fresh = program.aggregates.map { Accumulator($0) }
        var accumulators = fresh
        // As in SQLite, a group's bare columns come from its first row, or, when the query has min() or max()
        // aggregates, from the last row on which one of them changed.
        let followsMinMax = program.aggregates.contains { $0.function == .min || $0.function == .max }
        // The representative row of the open group, in a buffer of its own: the join's row must stay as it is
        // while a finished group is emitted, since the join goes on from it.
        var representative: [Value] = []
        // The open group's key values, compared in their collations with each row's (rows equal in every key
        // belong to the group, as SQLite compares them).
        var groupValues = [Value](repeating: .null, count: program.groupBy.count)
        var isOpen = false
        while try nextJoinRow() {
            if try startsGroup(&groupValues, isOpen: isOpen) {
                if isOpen {
                    try finishGroup(&representative, accumulators, emit)
                    if let enough, enough() { return }
                    for a in accumulators.indices { accumulators[a].reset(to: fresh[a]) }
                }
                isOpen = true
                capture(into: &representative)
            }
            let changed = try stepAggregates(&accumulators, from: 0)
            if followsMinMax && changed { follow(into: &representative) }
        }
        if isOpen { try finishGroup(&representative, accumulators, emit) }
    }

    /// Copies the join's row into `buffer`, reusing its storage: assigning the row would share its buffer, which the
    /// cursor's next write into the row then copies whole (an allocation and a release per row when `max()` rises
    /// on every row, as over a column that grows with the rowid).
    private func capture(into buffer: inout [Value]) {
        let n = context.row.count
        if buffer.count != n {
            buffer = context.row
            return
        }
        for k in 0..<n { buffer[k] = context.row[k] }
    }

    /// Makes the join's row the representative `buffer` of its group (a row of the same layout, captured at the
    /// group's first row), after a `min()` or `max()` changed: only the bare columns the group's result reads are
    /// copied when they are known (``bareColumnSlots``), since the other slots are never read from it.
    private func follow(into buffer: inout [Value]) {
        guard let slots = bareColumnSlots, buffer.count == context.row.count else { return capture(into: &buffer) }
        for slot in slots { buffer[slot] = context.row[slot] }
    }

    /// The slots of the join's row that the results of `program`'s groups read besides the aggregates: those its
    /// outputs and `ORDER BY` terms read (outputs that are aggregate results or constants read none). Nil when
    /// they may read more (a subquery, which sees the whole row) or the query has `HAVING`.
    static func bareColumnSlots(of program: SelectProgram) -> [Int]? {
        guard program.having == nil else { return nil }
        var slots = Set<Int>()
        func add(_ expression: CompiledExpression) -> Bool {
            guard let read = expression.slotsReadBesideAggregates else { return false }
            slots.formUnion(read)
            return true
        }
        for output in program.outputs where !add(output) { return nil }
        for term in program.ordering {
            if let expression = term.expression, !add(expression) { return nil }
        }
        return slots.sorted()
    }

    /// Emits the group whose representative row is `representative` and whose accumulators are `accumulators`,
    /// when it passes `HAVING`; the join's row is back in place afterwards.
    private func finishGroup(
        _ representative: inout [Value], _ accumulators: [Accumulator], _ emit: () throws -> Void
    ) throws {
        swap(&context.row, &representative)
        defer { swap(&context.row, &representative) }
        for a in accumulators.indices {
            context.row[program.scope.aggregateSlot(a)] = try accumulators[a].finish()
        }
        if let having = program.having, !(try having.isTrue(&context)) { return }
        try emit()
    }

    /// Whether the current row starts a group: there is no open group, or one of its keys differs from
    /// `groupValues` (the open group's), which then take the row's values.
    private func startsGroup(_ groupValues: inout [Value], isOpen: Bool) throws -> Bool {
        let groupBy = program.groupBy
        var starts = !isOpen
        for t in 0..<groupBy.count {
            let slot = groupBySlots[t]
            let value = slot >= 0 ? context.row[slot] : try groupBy[t].expression.evaluate(&context)
            // The keys before the first that differs are equal in their collation: they may stay as they are.
            // Two integers (rowid keys, mostly) are compared as such: no collation applies to them.
            if !starts {
                if case .integer(let i) = value, case .integer(let j) = groupValues[t] {
                    if i != j { starts = true }
                } else if SQLComparison.compare(value, groupValues[t], collation: groupBy[t].collation) != 0 {
                    starts = true
                }
            }
            if starts { groupValues[t] = value }
        }
        return starts
    }

    /// The current row's `GROUP BY` key: each term's value in its collation's key form, encoded.
    private func encodeGroupKey(into key: inout [UInt8]) throws {
        key.removeAll(keepingCapacity: true)
        let groupBy = program.groupBy
        for t in 0..<groupBy.count {
            let slot = groupBySlots[t]
            let value = slot >= 0 ? context.row[slot] : try groupBy[t].expression.evaluate(&context)
            KeyEncoding.append(groupBy[t].collation.keyForm(value), to: &key)
        }
    }

    /// Adds the current row to the accumulators `accumulators[first...]` (one per aggregate call); returns
    /// whether a `min` or `max` changed its result.
    private func stepAggregates(_ accumulators: inout [Accumulator], from first: Int) throws -> Bool {
        if program.talliesLastLevel {
            addTalliedRows(&accumulators, from: first)
            return false
        }
        var changed = false
        for a in 0..<aggregateArguments.count {
            // FILTER (WHERE …): the row does not feed this aggregate unless its condition is true.
            if hasAggregateFilters, let filter = aggregateFilters[a], try !filter.isTrue(&context) { continue }
            let expressions = aggregateArguments[a]
            switch expressions.count {
            case 0:
                try accumulators[first + a].step()
            case 1:
                let slot = aggregateArgumentSlots[a]
                let value = slot >= 0 ? context.row[slot] : try expressions[0].evaluate(&context)
                if try accumulators[first + a].step(value, separator: nil) { changed = true }
            default:
                aggregateArgumentValues.removeAll(keepingCapacity: true)
                for e in expressions { aggregateArgumentValues.append(try e.evaluate(&context)) }
                if try accumulators[first + a].step(arguments: aggregateArgumentValues) { changed = true }
            }
        }
        return changed
    }

    /// Adds the rows of the tallied last level that the join's current row stands for to the counts
    /// `accumulators[first...]` (see ``SelectProgram/talliesLastLevel``): `count(*)` counts a `LEFT JOIN`'s NULL
    /// row, `count(x)` of the level's never-NULL column does not, and `count(x)` of an earlier level's column
    /// counts them all when `x` is not NULL.
    private func addTalliedRows(_ accumulators: inout [Accumulator], from first: Int) {
        let aggregates = program.aggregates
        let last = program.levels[program.levels.count - 1].source
        for a in aggregates.indices {
            let slot = aggregateArgumentSlots[a]
            let counts: Bool
            if aggregates[a].function == .countStar {
                counts = true
            } else if slot >= last.base && slot < last.base + last.width {
                counts = !talliedNullRow
            } else {
                counts = slot >= 0 && !context.row[slot].isNull
            }
            if counts { accumulators[first + a].addRows(talliedRows) }
        }
    }

    /// Groups the join's rows in any order: numbers each group's key in a table, keeps every group's
    /// accumulators and first row, and emits the groups in key order once the join is done.
    private func aggregateInGroupTable(_ emit: () throws -> Void) throws {
        var groups = GroupTable()
        var groupCount = 0
        // The accumulators of group `g` are `accumulators[g * calls ..< (g + 1) * calls]`.
        var accumulators: [Accumulator] = []
        var representatives: [[Value]] = []
        let fresh = program.aggregates.map { Accumulator($0) }
        let calls = fresh.count
        // As in SQLite, a group's bare columns come from its first row, or, when the query has min() or max()
        // aggregates, from the last row on which one of them changed.
        let followsMinMax = program.aggregates.contains { $0.function == .min || $0.function == .max }
        var key: [UInt8] = []
        let grouped = !program.groupBy.isEmpty
        while try program.countedTree == nil && nextJoinRow() {
            let g: Int
            if !grouped {
                if groupCount == 0 {
                    groupCount = 1
                    accumulators.append(contentsOf: fresh)
                    representatives.append(context.row)
                }
                g = 0
            } else {
                try encodeGroupKey(into: &key)
                let (found, inserted) = groups.group(of: key)
                g = found
                if inserted {
                    groupCount += 1
                    accumulators.append(contentsOf: fresh)
                    representatives.append(context.row)
                }
            }
            let changed = try stepAggregates(&accumulators, from: g * calls)
            if followsMinMax && changed { follow(into: &representatives[g]) }
            // The rows come in the order of the argument, NULLs first for min(): the first that is not NULL is it.
            if changed && program.readsFirstValueOnly && accumulators[g * calls].holdsMinMaxValue { break }
        }
        if program.groupBy.isEmpty && groupCount == 0 {
            groupCount = 1
            accumulators.append(contentsOf: fresh)
            var row = context.row
            for source in program.scope.sources {
                for slot in source.base..<(source.base + source.width) { row[slot] = .null }
            }
            representatives.append(row)
        }
        if let counted = program.countedTree, case .table(let reader, _)? = program.levels.first?.kind {
            switch counted {
            case .table: accumulators[0].addRows(try reader.tree?.count() ?? 0)
            case .index(let position): accumulators[0].addRows(try reader.indexes[position].tree.count())
            }
        }
        var order = Array(0..<groupCount)
        if grouped {
            let keys = groups.keys
            order.sort { keys[$0].lexicographicallyPrecedes(keys[$1]) }
        }
        for g in order {
            context.row = representatives[g]
            for a in 0..<calls {
                context.row[program.scope.aggregateSlot(a)] = try accumulators[g * calls + a].finish()
            }
            if let having = program.having, !(try having.isTrue(&context)) { continue }
            try emit()
        }
    }

}
