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
    private var json: SQLJSONGroupAggregate
    /// The `DISTINCT` values seen: integers (and reals equal to one) by value, others by encoded key.
    private var seenIntegers: Set<Int64> = []
    private var seen: Set<ByteKey> = []
    /// An application-defined aggregate's maker and state (one reference, to keep accumulators small).
    private var user: UserAggregate?

    init(_ call: SelectProgram.AggregateCall) {
        function = call.function
        distinct = call.distinct
        collation = call.collation
        minMax = SQLMinMaxAggregate(isMax: call.function == .max, collation: call.collation)
        if let function = call.userFunction, case .aggregate(let makeState) = function.kind {
            user = UserAggregate(makeState)
        }
        json = SQLJSONGroupAggregate(call.function == .jsonGroupObject ? .object : .array)
        switch call.function {
        case .total: sum = SQLSumAggregate(.total)
        case .avg: sum = SQLSumAggregate(.avg)
        default: sum = SQLSumAggregate(.sum)
        }
    }

    /// Whether a `min()` or `max()` has a value (a row whose argument was not NULL).
    var holdsMinMaxValue: Bool { minMax.best != nil }

    /// Adds `rows` rows to a `count(*)` at once (a table's stored row count).
    mutating func addRows(_ rows: Int) {
        count += Int64(rows)
    }

    /// Adds one row of a call without arguments (`count(*)`).
    mutating func step() throws {
        if user != nil {
            try userState()?.step([])
            return
        }
        count += 1
    }

    /// Adds one row's arguments to a call with two or more (`group_concat(x, separator)`, the application's
    /// aggregates); returns whether a `min`/`max` changed its result.
    mutating func step(arguments: [Value]) throws -> Bool {
        if user != nil {
            try userState()?.step(arguments)
            return false
        }
        if function == .jsonGroupObject {
            try json.step(label: arguments[0], value: arguments[1])
            return false
        }
        return try step(arguments[0], separator: arguments[1])
    }

    /// Adds one row's first argument `x` (and `group_concat`'s separator, when given); returns whether a
    /// `min`/`max` changed its result.
    mutating func step(_ x: Value, separator: Value?) throws -> Bool {
        if distinct {
            // Only the JSON aggregates take a NULL in (once): the others ignore NULLs anyway.
            guard !x.isNull || function == .jsonGroupArray else { return false }
            guard isNewDistinct(x) else { return false }
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
        case .jsonGroupArray, .jsonGroupObject:
            try json.step(label: nil, value: x)
        case .user:
            try userState()?.step([x])
        }
        return false
    }

    /// Whether `x` is a value this `DISTINCT` call has not seen yet (it is then remembered). A real equal to an
    /// integer is the same value as that integer, as SQLite compares them.
    private mutating func isNewDistinct(_ x: Value) -> Bool {
        switch x {
        case .integer(let i):
            return seenIntegers.insert(i).inserted
        case .real(let r):
            if let i = Int64(exactly: r) { return seenIntegers.insert(i).inserted }
        default:
            break
        }
        var key: [UInt8] = []
        KeyEncoding.append(collation.keyForm(x), to: &key)
        return seen.insert(ByteKey(key)).inserted
    }

    /// Starts a new group: becomes `fresh` (an accumulator of the same call that has seen no row), keeping the
    /// storage of its `DISTINCT` sets for the next group's values.
    mutating func reset(to fresh: Accumulator) {
        var integers = seenIntegers
        var keys = seen
        seenIntegers = []
        seen = []
        integers.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        self = fresh
        seenIntegers = integers
        seen = keys
    }

    /// Whether ``remove(_:)`` can take a row back out (as SQLite's inverse step for the function).
    var isRemovable: Bool {
        switch function {
        case .countStar, .count, .sum, .total, .avg: return !distinct
        default: return false
        }
    }

    /// Takes back a row added earlier with argument `x` (`count(*)`: any value); only when ``isRemovable``.
    mutating func remove(_ x: Value) {
        switch function {
        case .countStar: count -= 1
        case .count: if !x.isNull { count -= 1 }
        case .sum, .total, .avg: sum.remove(x)
        default: break
        }
    }

    func finish() throws -> Value {
        switch function {
        case .countStar, .count: return .integer(count)
        case .sum, .total, .avg: return try sum.finish()
        case .min, .max: return minMax.finish()
        case .groupConcat: return concat.finish()
        case .jsonGroupArray, .jsonGroupObject: return json.finish()
        case .user: return try (user.map { $0.state ?? $0.make() })?.finish() ?? .null
        }
    }

    /// The application's aggregate state for this group, made when first needed. The accumulators of new groups
    /// are copies of one fresh accumulator, so a shared box is replaced by this group's own first.
    private mutating func userState() -> (any SQLAggregateState)? {
        guard var box = user else { return nil }
        user = nil
        if !isKnownUniquelyReferenced(&box) { box = UserAggregate(box.make) }
        user = box
        if let state = box.state { return state }
        let state = box.make()
        box.state = state
        return state
    }
}

/// An application-defined aggregate of one group: how to make its state, and the state once made.
private final class UserAggregate {
    let make: @Sendable () -> any SQLAggregateState
    var state: (any SQLAggregateState)?

    init(_ make: @escaping @Sendable () -> any SQLAggregateState) { self.make = make }
}
