// One partition of a window's sorted rows, with its peer groups, and the frame offsets of a call.

import GraniteStorage

/// The rows of one partition in window order, split into peer groups (rows equal in the window's `ORDER BY`;
/// all the partition's rows without one).
struct WindowPartition {
    /// The partition's rows (indices into the cursor's rows), in order.
    let rows: [Int]
    /// By position: the position of the first row of its peer group, and one past the last.
    private(set) var groupStart: [Int] = []
    private(set) var groupEnd: [Int] = []
    /// By position: the number of its peer group (0 for the first).
    private(set) var group: [Int] = []
    /// The first position of each peer group.
    private(set) var groupStarts: [Int] = []
    /// The window's single `ORDER BY` key, for `RANGE` offsets.
    let key: WindowProgram.OrderKey?
    /// The positions whose key is not NULL (one run: NULLs sort together, first or last).
    private(set) var nonNull: Range<Int>

    init(rows: [Int], values: [[Value]], order: [WindowProgram.OrderKey]) {
        self.rows = rows
        key = order.count == 1 ? order[0] : nil
        nonNull = 0..<rows.count
        groupStart.reserveCapacity(rows.count)
        group.reserveCapacity(rows.count)
        for i in rows.indices {
            if i == 0 || !Self.peers(values[rows[i - 1]], values[rows[i]], order) {
                groupStarts.append(i)
            }
            groupStart.append(groupStarts[groupStarts.count - 1])
            group.append(groupStarts.count - 1)
        }
        groupEnd = group.map { $0 + 1 < groupStarts.count ? groupStarts[$0 + 1] : rows.count }
        if let key {
            var lo = 0
            var hi = rows.count
            while lo < hi && values[rows[lo]][key.column].isNull { lo += 1 }
            while hi > lo && values[rows[hi - 1]][key.column].isNull { hi -= 1 }
            nonNull = lo..<hi
        }
    }

    var count: Int { rows.count }

    /// One past the last position of peer group `g` (the partition's end past the last group).
    func end(ofGroup g: Int) -> Int { g + 1 < groupStarts.count ? groupStarts[g + 1] : rows.count }

    private static func peers(_ x: [Value], _ y: [Value], _ order: [WindowProgram.OrderKey]) -> Bool {
        order.allSatisfy { WindowCursor.compare(x[$0.column], y[$0.column], $0.collation, nullsFirst: true) == 0 }
    }
}

/// A call's frame with its offsets evaluated (once per execution, as SQLite does).
struct WindowFrameBounds {
    /// A bound with its offset: rows or groups (an integer), or a `RANGE` distance (a number).
    enum Bound {
        case unboundedPreceding
        case preceding(Value)
        case currentRow
        case following(Value)
        case unboundedFollowing
    }

    let unit: WindowFrame.Unit
    let start: Bound
    let end: Bound
    /// nil without an `EXCLUDE` clause.
    let exclusion: WindowFrame.Exclusion?

    init(_ frame: WindowProgram.Frame, parameters: BoundParameters) throws {
        unit = frame.unit
        exclusion = frame.exclusion
        start = try Self.bound(frame.start, unit: frame.unit, parameters: parameters, which: "starting")
        end = try Self.bound(frame.end, unit: frame.unit, parameters: parameters, which: "ending")
    }

    /// Whether every frame is empty because its `ROWS` or `GROUPS` bounds, both preceding or both following, have
    /// offsets that put the start after the end (SQLite then adds no row to the aggregate at all). `RANGE` frames
    /// are not: a NULL or text key's frame is its peers whatever the offsets.
    var isAlwaysEmpty: Bool {
        if unit == .range { return false }
        switch (start, end) {
        case (.preceding(let a), .preceding(let b)): return SQLComparison.compare(a, b) < 0
        case (.following(let a), .following(let b)): return SQLComparison.compare(a, b) > 0
        default: return false
        }
    }

    /// Whether the frame starts at the partition's start.
    var startsUnbounded: Bool {
        if case .unboundedPreceding = start { return true }
        return false
    }

    private static func bound(
        _ bound: WindowProgram.Bound, unit: WindowFrame.Unit, parameters: BoundParameters, which: String
    ) throws -> Bound {
        switch bound {
        case .unboundedPreceding: return .unboundedPreceding
        case .currentRow: return .currentRow
        case .unboundedFollowing: return .unboundedFollowing
        case .preceding(let offset):
            return .preceding(try value(offset, unit: unit, parameters: parameters, which: which))
        case .following(let offset):
            return .following(try value(offset, unit: unit, parameters: parameters, which: which))
        }
    }

    /// The offset's value: for `ROWS` and `GROUPS` a non-negative integer (text or a real that is one too), for
    /// `RANGE` a non-negative number.
    private static func value(
        _ offset: WindowProgram.Offset, unit: WindowFrame.Unit, parameters: BoundParameters, which: String
    ) throws -> Value {
        var value = Value.null
        if let expression = offset.expression {
            var context = EvaluationContext(parameters: parameters)
            value = try expression.evaluate(&context)
        }
        if unit == .range {
            let number = SQLAffinity.numeric.apply(to: value)
            switch number {
            case .integer(let i) where i >= 0: return number
            case .real(let r) where r >= 0: return number
            default: throw SQLExecutionError("frame \(which) offset must be a non-negative number")
            }
        }
        switch SQLAffinity.integer.apply(to: value) {
        case .integer(let i) where i >= 0: return .integer(i)
        case .real(let r) where r >= 0 && r == r.rounded() && r < 9.2e18: return .integer(Int64(r))
        default: throw SQLExecutionError("frame \(which) offset must be a non-negative integer")
        }
    }
}
