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
    /// Makes the state of an application-defined aggregate.
    private let makeUserState: (@Sendable () -> any SQLAggregateState)?
    /// The state of an application-defined aggregate, made on the group's first row (the accumulator of a new
    /// group is a copy of a fresh one, which must not share a state object).
    private var user: (any SQLAggregateState)?

    init(_ call: SelectProgram.AggregateCall) {
        function = call.function
        distinct = call.distinct
        collation = call.collation
        minMax = SQLMinMaxAggregate(isMax: call.function == .max, collation: call.collation)
        if let function = call.userFunction, case .aggregate(let makeState) = function.kind {
            makeUserState = makeState
        } else {
            makeUserState = nil
        }
        switch call.function {
        case .total: sum = SQLSumAggregate(.total)
        case .avg: sum = SQLSumAggregate(.avg)
        default: sum = SQLSumAggregate(.sum)
        }
    }

    /// Adds one row of a call without arguments (`count(*)`).
    mutating func step() throws {
        if let makeUserState { return try userState(makeUserState).step([]) }
        count += 1
    }

    /// Adds one row's arguments to a call with two or more (`group_concat(x, separator)`, the application's
    /// aggregates); returns whether a `min`/`max` changed its result.
    mutating func step(arguments: [Value]) throws -> Bool {
        if let makeUserState {
            try userState(makeUserState).step(arguments)
            return false
        }
        return try step(arguments[0], separator: arguments[1])
    }

    /// Adds one row's first argument `x` (and `group_concat`'s separator, when given); returns whether a
    /// `min`/`max` changed its result.
    mutating func step(_ x: Value, separator: Value?) throws -> Bool {
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
        case .user:
            if let makeUserState { try userState(makeUserState).step([x]) }
        }
        return false
    }

    func finish() throws -> Value {
        switch function {
        case .countStar, .count: return .integer(count)
        case .sum, .total, .avg: return try sum.finish()
        case .min, .max: return minMax.finish()
        case .groupConcat: return concat.finish()
        case .user: return try (user ?? makeUserState?())?.finish() ?? .null
        }
    }

    /// The application's aggregate state for this group, made when first needed.
    private mutating func userState(_ make: () -> any SQLAggregateState) -> any SQLAggregateState {
        if let user { return user }
        let state = make()
        user = state
        return state
    }
}
