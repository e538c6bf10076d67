// One window call's results over one partition: the ranking functions from the peer groups, lag and lead from
// neighbouring rows, and the value functions and aggregates from each row's frame.

import GraniteStorage

/// Computes one call's results for the rows of one partition, by position.
struct WindowCalculation {
    let call: WindowProgram.Call
    let frame: WindowFrameBounds
    let partition: WindowPartition
    let values: [[Value]]

    func results() throws -> [Value] {
        let n = partition.count
        switch call.function {
        case .rowNumber: return (0..<n).map { .integer(Int64($0 + 1)) }
        case .rank: return (0..<n).map { .integer(Int64(partition.groupStart[$0] + 1)) }
        case .denseRank: return (0..<n).map { .integer(Int64(partition.group[$0] + 1)) }
        case .percentRank:
            return (0..<n).map { n > 1 ? .real(Double(partition.groupStart[$0]) / Double(n - 1)) : .real(0) }
        case .cumeDist: return (0..<n).map { .real(Double(partition.groupEnd[$0]) / Double(n)) }
        case .ntile: return try ntile()
        case .lag, .lead: return (0..<n).map(neighbour)
        case .firstValue, .lastValue, .nthValue: return try (0..<n).map(frameValue)
        case .aggregate: return try aggregates()
        }
    }

    private func argument(_ k: Int, at i: Int) -> Value { values[partition.rows[i]][call.arguments[k]] }

    // MARK: Ranking and neighbours

    /// `ntile(n)`: the partition dealt into `n` buckets, the first ones one row larger when it does not divide.
    /// As in SQLite, `n` is the partition's first row's.
    private func ntile() throws -> [Value] {
        let n = partition.count
        let buckets = argument(0, at: 0).sqlInteger
        if buckets <= 0 { throw SQLExecutionError("argument of ntile must be a positive integer") }
        let count = Int64(n)
        if buckets >= count { return (0..<n).map { .integer(Int64($0 + 1)) } }
        let size = count / buckets
        let larger = count % buckets
        return (0..<n).map { i in
            let i = Int64(i)
            let cut = larger * (size + 1)
            return .integer(i < cut ? i / (size + 1) + 1 : (i - cut) / size + larger + 1)
        }
    }

    /// `lag(x, offset, default)` / `lead(…)`: `x` of the row `offset` before (after) the current one in the
    /// partition, else `default`. As in SQLite, which adds the offset to the row's number in the partition, an
    /// offset that does not make a whole row number (NULL, 1.5) finds no row.
    private func neighbour(_ i: Int) -> Value {
        let offset = call.arguments.count > 1 ? argument(1, at: i) : .integer(1)
        let number = SQLArithmetic.evaluate(call.function == .lag ? .subtract : .add, .integer(Int64(i) + 1), offset)
        var target: Int64?
        switch number {
        case .integer(let k) where k > Int64.min: target = k - 1
        case .real(let r) where r == r.rounded() && abs(r) < 9.2e18: target = Int64(r) - 1
        default: target = nil
        }
        if let target, target >= 0, target < Int64(partition.count) { return argument(0, at: Int(target)) }
        return call.arguments.count > 2 ? argument(2, at: i) : .null
    }

    // MARK: Frames

    /// The positions of row `i`'s frame, before exclusions (possibly empty).
    func frameRange(_ i: Int) -> Range<Int> {
        let lo = position(frame.start, of: i, isStart: true)
        let hi = position(frame.end, of: i, isStart: false)
        return lo < hi ? lo..<hi : lo..<lo
    }

    /// One past the last position of row `i`'s frame, whether or not it is empty.
    func frameEnd(_ i: Int) -> Int { position(frame.end, of: i, isStart: false) }

    /// Whether position `j` is excluded from row `i`'s frame.
    func isExcluded(_ j: Int, from i: Int) -> Bool {
        switch frame.exclusion {
        case nil, .noOthers?: return false
        case .currentRow?: return j == i
        case .group?: return partition.group[j] == partition.group[i]
        case .ties?: return j != i && partition.group[j] == partition.group[i]
        }
    }

    /// The first position of the frame (`isStart`) or one past its last, for `bound` and row `i`.
    private func position(_ bound: WindowFrameBounds.Bound, of i: Int, isStart: Bool) -> Int {
        let n = partition.count
        switch bound {
        case .unboundedPreceding: return 0
        case .unboundedFollowing: return n
        case .currentRow:
            if frame.unit == .rows { return isStart ? i : i + 1 }
            return isStart ? partition.groupStart[i] : partition.groupEnd[i]
        case .preceding(let offset), .following(let offset):
            let preceding: Bool
            if case .preceding = bound { preceding = true } else { preceding = false }
            switch frame.unit {
            case .rows:
                let target = clampedAdd(i, offset, negative: preceding)
                return isStart ? max(0, min(n, target)) : max(0, min(n, target + 1))
            case .groups:
                let g = clampedAdd(partition.group[i], offset, negative: preceding)
                if g < 0 { return 0 }
                if g >= partition.groupStarts.count { return n }
                return isStart ? partition.groupStarts[g] : partition.end(ofGroup: g)
            case .range:
                return rangePosition(of: i, offset: offset, preceding: preceding, isStart: isStart)
            }
        }
    }

    private func clampedAdd(_ base: Int, _ offset: Value, negative: Bool) -> Int {
        let step = Int(clamping: offset.sqlInteger)
        let (r, overflow) = negative ? base.subtractingReportingOverflow(step) : base.addingReportingOverflow(step)
        return overflow ? (negative ? Int.min / 2 : Int.max / 2) : r
    }

    /// A `RANGE` bound: the first row whose key is not before the current row's key moved by `offset` (`isStart`),
    /// or one past the last row whose key is not after it. A NULL key's frame ends are its peers; a key that is
    /// not a number is not moved.
    private func rangePosition(of i: Int, offset: Value, preceding: Bool, isStart: Bool) -> Int {
        guard let key = partition.key else { return isStart ? partition.groupStart[i] : partition.groupEnd[i] }
        let current = values[partition.rows[i]][key.column]
        switch current {
        case .integer, .real: break
        default: return isStart ? partition.groupStart[i] : partition.groupEnd[i]
        }
        // Preceding moves against the order: down for ascending keys, up for descending ones.
        let down = preceding != key.descending
        let boundary = SQLArithmetic.evaluate(down ? .subtract : .add, current, offset)
        var lo = partition.nonNull.lowerBound
        var hi = partition.nonNull.upperBound
        // Binary search for the first position where `isPast` holds (it holds from some position on).
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = SQLComparison.compare(values[partition.rows[mid]][key.column], boundary, collation: key.collation)
            let ordered = key.descending ? -c : c
            let isPast = isStart ? ordered >= 0 : ordered > 0
            if isPast { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// `first_value`, `last_value` or `nth_value` of row `i`'s frame.
    private func frameValue(_ i: Int) throws -> Value {
        var nth: Int64 = 1
        if call.function == .nthValue {
            switch argument(1, at: i) {
            case .integer(let k) where k > 0: nth = k
            case .real(let r) where r > 0 && r == r.rounded() && r < 9.2e18: nth = Int64(r)
            default: throw SQLExecutionError("second argument to nth_value must be a positive integer")
            }
        }
        let range = frameRange(i)
        if call.function == .lastValue {
            for j in range.reversed() where !isExcluded(j, from: i) { return argument(0, at: j) }
            return .null
        }
        if frame.exclusion == nil || frame.exclusion == .noOthers {
            return nth <= Int64(range.count) ? argument(0, at: range.lowerBound + Int(nth) - 1) : .null
        }
        var seen: Int64 = 0
        for j in range where !isExcluded(j, from: i) {
            seen += 1
            if seen == nth { return argument(0, at: j) }
        }
        return .null
    }
}
