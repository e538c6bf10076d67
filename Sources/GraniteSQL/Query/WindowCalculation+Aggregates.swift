// Aggregates over frames, computed as SQLite computes them (its results differ with the method: a sum that once
// held a real stays real): a running accumulator for frames from the partition's start; a sliding one, adding
// rows as they enter and taking them back as they leave, for the functions that can; otherwise the frame's rows
// aggregated afresh (which SQLite's min() and max() do without their FILTER, and every aggregate does under an
// EXCLUDE clause).

import GraniteStorage

extension WindowCalculation {
    /// The aggregate's result over each row's frame.
    func aggregates() throws -> [Value] {
        guard let aggregate = call.aggregate else { return [] }
        let fresh = Accumulator(aggregate)
        if frame.isAlwaysEmpty { return Array(repeating: try fresh.finish(), count: partition.count) }
        if frame.exclusion == nil && aggregate.function != .user {
            if frame.startsUnbounded { return try sliding(fresh, removing: false) }
            if fresh.isRemovable { return try sliding(fresh, removing: true) }
        }
        let isMinMax = aggregate.function == .min || aggregate.function == .max
        if frame.exclusion == nil, call.jsonValue != nil { try refuseBlobsBeforeFrames() }
        return try afresh(fresh, filtered: !(isMinMax && frame.exclusion == nil))
    }

    /// SQLite slides a JSON aggregate's frame by adding every row from the partition's start up to the frames'
    /// ends (even of empty frames) and taking the departed ones back out: a BLOB outside every frame is refused
    /// too.
    private func refuseBlobsBeforeFrames() throws {
        guard let raw = call.jsonValue else { return }
        var reach = 0
        for i in 0..<partition.count { reach = max(reach, frameEnd(i)) }
        for j in 0..<reach {
            let row = values[partition.rows[j]]
            if passesFilter(row), case .blob = row[raw] { throw SQLExecutionError("JSON cannot hold BLOB values") }
        }
    }

    /// Results from one accumulator that takes each frame's new rows in and (`removing`) its departed rows out.
    private func sliding(_ fresh: Accumulator, removing: Bool) throws -> [Value] {
        var results: [Value] = []
        results.reserveCapacity(partition.count)
        var accumulator = fresh
        var added = 0
        var removed = 0
        let empty = try fresh.finish()
        for i in 0..<partition.count {
            let range = frameRange(i)
            // SQLite's frame end moves on even when the frame is empty: the rows it passes are added.
            let end = frameEnd(i)
            while added < end {
                try add(&accumulator, position: added, filtered: true)
                added += 1
            }
            if removing {
                while removed < min(range.lowerBound, added) {
                    take(&accumulator, position: removed)
                    removed += 1
                }
            }
            results.append(range.isEmpty ? empty : try accumulator.finish())
        }
        return results
    }

    /// Results each from a fresh accumulator over the frame's rows (one per run of rows with the same frame).
    private func afresh(_ fresh: Accumulator, filtered: Bool) throws -> [Value] {
        var results: [Value] = []
        results.reserveCapacity(partition.count)
        let excludes = frame.exclusion != nil && frame.exclusion != .noOthers
        var previous: (range: Range<Int>, value: Value)?
        for i in 0..<partition.count {
            let range = frameRange(i)
            if !excludes, let previous, previous.range == range {
                results.append(previous.value)
                continue
            }
            var accumulator = fresh
            for j in range where !isExcluded(j, from: i) { try add(&accumulator, position: j, filtered: filtered) }
            let value = try accumulator.finish()
            results.append(value)
            previous = (range, value)
        }
        return results
    }

    private func passesFilter(_ row: [Value]) -> Bool {
        guard let filter = call.filter else { return true }
        return row[filter].sqlTruth == true
    }

    /// Adds the row at position `j` to `accumulator`, unless the call's `FILTER` (when `filtered`) leaves it out.
    private func add(_ accumulator: inout Accumulator, position j: Int, filtered: Bool) throws {
        let row = values[partition.rows[j]]
        if filtered && !passesFilter(row) { return }
        if let raw = call.jsonValue, case .blob = row[raw] { throw SQLExecutionError("JSON cannot hold BLOB values") }
        switch call.arguments.count {
        case 0: try accumulator.step()
        case 1: _ = try accumulator.step(row[call.arguments[0]], separator: nil)
        default: _ = try accumulator.step(arguments: call.arguments.map { row[$0] })
        }
    }

    /// Takes the row at position `j` back out of `accumulator` (if its `FILTER` let it in).
    private func take(_ accumulator: inout Accumulator, position j: Int) {
        let row = values[partition.rows[j]]
        guard passesFilter(row) else { return }
        accumulator.remove(call.arguments.isEmpty ? .null : row[call.arguments[0]])
    }
}
