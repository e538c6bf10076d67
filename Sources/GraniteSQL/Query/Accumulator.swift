// The running state of one aggregate call (count, sum, min/max, group_concat, with DISTINCT) over one group.

import GraniteStorage

/// The running state of one aggregate call over one group.
struct Accumulator {
    private let function: SelectProgram.AggregateCall.Function
    private let distinct: Bool
    private let collation: SQLCollation
    private var count: Int64 = 0
    private var sum: SQLSumAggregate
    private var minMax: SQLMinMaxAggregate
    private var concat = SQLGroupConcatAggregate()
    private var seen: Set<ByteKey> = []

    init(_ call: SelectProgram.AggregateCall) {
        function = call.function
        distinct = call.distinct
        collation = call.collation
        minMax = SQLMinMaxAggregate(isMax: call.function == .max, collation: call.collation)
        switch call.function {
        case .total: sum = SQLSumAggregate(.total)
        case .avg: sum = SQLSumAggregate(.avg)
        default: sum = SQLSumAggregate(.sum)
        }
    }

    /// Adds one row of a call without arguments (`count(*)`).
    mutating func step() {
        count += 1
    }

    /// Adds one row's first argument `x` (and `group_concat`'s separator, when given); returns whether a
    /// `min`/`max` changed its result.
    mutating func step(_ x: Value, separator: Value?) -> Bool {
        if distinct {
            guard !x.isNull else { return false }
            var key: [UInt8] = []
            KeyEncoding.append(collation.keyForm(x), to: &key)
            guard seen.insert(ByteKey(key)).inserted else { return false }
        }
        switch function {
        case .countStar:
            count += 1
        case .count:
            if !x.isNull { count += 1 }
        case .sum, .total, .avg:
            sum.step(x)
        case .min, .max:
            return minMax.step(x)
        case .groupConcat:
            concat.step(x, separator: separator)
        }
        return false
    }

    func finish() throws -> Value {
        switch function {
        case .countStar, .count: return .integer(count)
        case .sum, .total, .avg: return try sum.finish()
        case .min, .max: return minMax.finish()
        case .groupConcat: return concat.finish()
        }
    }
}
