// Aggregates over frames: a running accumulator for frames that start at the partition's start and exclude
// nothing, one result for rows with the same frame, and a fresh accumulator per frame otherwise.

import GraniteStorage

extension WindowCalculation {
    /// The aggregate's result over each row's frame.
    func aggregates() throws -> [Value] {
        guard let aggregate = call.aggregate else { return [] }
        let n = partition.count
        var results: [Value] = []
        results.reserveCapacity(n)
        // An application's aggregate gives its result once, so it is never read again after more steps.
        if frame.isRunning && aggregate.function != .user {
            var accumulator = Accumulator(aggregate)
            var stepped = 0
            for i in 0..<n {
                let range = frameRange(i)
                if range.upperBound > stepped {
                    for j in stepped..<range.upperBound { try feed(&accumulator, position: j) }
                    stepped = range.upperBound
                }
                results.append(range.isEmpty ? try Accumulator(aggregate).finish() : try accumulator.finish())
            }
            return results
        }
        var previous: (range: Range<Int>, value: Value)?
        for i in 0..<n {
            let range = frameRange(i)
            if frame.exclusion == .noOthers, let previous, previous.range == range {
                results.append(previous.value)
                continue
            }
            var accumulator = Accumulator(aggregate)
            for j in range where !isExcluded(j, from: i) { try feed(&accumulator, position: j) }
            let value = try accumulator.finish()
            results.append(value)
            previous = (range, value)
        }
        return results
    }

    /// Adds the row at position `j` to `accumulator`, unless the call's `FILTER` leaves it out.
    private func feed(_ accumulator: inout Accumulator, position j: Int) throws {
        let row = values[partition.rows[j]]
        if let filter = call.filter, row[filter].sqlTruth != true { return }
        switch call.arguments.count {
        case 0: try accumulator.step()
        case 1: _ = try accumulator.step(row[call.arguments[0]], separator: nil)
        default: _ = try accumulator.step(arguments: call.arguments.map { row[$0] })
        }
    }
}
