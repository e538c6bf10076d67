// Operators and functions on association aggregates: each applies to the aggregate expressions, and joins
// the associations of both operands. The result has no key, but `??` and `cast` keep the key of their
// aggregate.

extension AssociationAggregate {
    /// `NOT aggregate`; the negation of `isEmpty` is `COUNT(…) > 0`.
    public static prefix func ! (aggregate: Self) -> Self {
        guard let isEmpty = aggregate.emptinessTest, case .qualified(let test, let alias) = aggregate.expression.impl,
            case .compare(_, let count, _) = test.impl
        else { return aggregate.map { !$0 } }
        var negated = aggregate.map { _ in
            SQLExpression(impl: .qualified(.emptinessTest(count, isEmpty: !isEmpty), alias))
        }
        negated.emptinessTest = !isEmpty
        return negated
    }

    /// `-aggregate`.
    public static prefix func - (aggregate: Self) -> Self {
        aggregate.map { -$0 }
    }

    /// `lhs AND rhs`.
    public static func && (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 && $1 }
    }

    /// `lhs AND rhs`.
    public static func && (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 && rhs }
    }

    /// `lhs AND rhs`.
    public static func && (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs && $0 }
    }

    /// `lhs OR rhs`.
    public static func || (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 || $1 }
    }

    /// `lhs OR rhs`.
    public static func || (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 || rhs }
    }

    /// `lhs OR rhs`.
    public static func || (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs || $0 }
    }

    /// `lhs = rhs`.
    public static func == (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 == $1 }
    }

    /// `lhs = rhs`.
    public static func == (lhs: Self, rhs: (any SQLExpressible)?) -> Self {
        lhs.map { $0 == rhs }
    }

    /// `lhs = rhs`.
    public static func == (lhs: (any SQLExpressible)?, rhs: Self) -> Self {
        rhs.map { lhs == $0 }
    }

    /// `lhs <> rhs`.
    public static func != (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 != $1 }
    }

    /// `lhs <> rhs`.
    public static func != (lhs: Self, rhs: (any SQLExpressible)?) -> Self {
        lhs.map { $0 != rhs }
    }

    /// `lhs <> rhs`.
    public static func != (lhs: (any SQLExpressible)?, rhs: Self) -> Self {
        rhs.map { lhs != $0 }
    }

    /// `lhs IS rhs`.
    public static func === (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 === $1 }
    }

    /// `lhs IS rhs`.
    public static func === (lhs: Self, rhs: (any SQLExpressible)?) -> Self {
        lhs.map { $0 === rhs }
    }

    /// `lhs IS rhs`.
    public static func === (lhs: (any SQLExpressible)?, rhs: Self) -> Self {
        rhs.map { lhs === $0 }
    }

    /// `lhs IS NOT rhs`.
    public static func !== (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 !== $1 }
    }

    /// `lhs IS NOT rhs`.
    public static func !== (lhs: Self, rhs: (any SQLExpressible)?) -> Self {
        lhs.map { $0 !== rhs }
    }

    /// `lhs IS NOT rhs`.
    public static func !== (lhs: (any SQLExpressible)?, rhs: Self) -> Self {
        rhs.map { lhs !== $0 }
    }

    /// `lhs = rhs`, with a boolean.
    public static func == (lhs: Self, rhs: Bool) -> Self {
        lhs.map { $0 == rhs }
    }

    /// `lhs = rhs`, with a boolean.
    public static func == (lhs: Bool, rhs: Self) -> Self {
        rhs.map { lhs == $0 }
    }

    /// `lhs <> rhs`, with a boolean.
    public static func != (lhs: Self, rhs: Bool) -> Self {
        lhs.map { $0 != rhs }
    }

    /// `lhs <> rhs`, with a boolean.
    public static func != (lhs: Bool, rhs: Self) -> Self {
        rhs.map { lhs != $0 }
    }

    /// `lhs < rhs`.
    public static func < (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 < $1 }
    }

    /// `lhs < rhs`.
    public static func < (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 < rhs }
    }

    /// `lhs < rhs`.
    public static func < (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs < $0 }
    }

    /// `lhs <= rhs`.
    public static func <= (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 <= $1 }
    }

    /// `lhs <= rhs`.
    public static func <= (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 <= rhs }
    }

    /// `lhs <= rhs`.
    public static func <= (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs <= $0 }
    }

    /// `lhs > rhs`.
    public static func > (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 > $1 }
    }

    /// `lhs > rhs`.
    public static func > (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 > rhs }
    }

    /// `lhs > rhs`.
    public static func > (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs > $0 }
    }

    /// `lhs >= rhs`.
    public static func >= (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 >= $1 }
    }

    /// `lhs >= rhs`.
    public static func >= (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 >= rhs }
    }

    /// `lhs >= rhs`.
    public static func >= (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs >= $0 }
    }

    /// `lhs + rhs`.
    public static func + (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 + $1 }
    }

    /// `lhs + rhs`.
    public static func + (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 + rhs }
    }

    /// `lhs + rhs`.
    public static func + (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs + $0 }
    }

    /// `lhs - rhs`.
    public static func - (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 - $1 }
    }

    /// `lhs - rhs`.
    public static func - (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 - rhs }
    }

    /// `lhs - rhs`.
    public static func - (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs - $0 }
    }

    /// `lhs * rhs`.
    public static func * (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 * $1 }
    }

    /// `lhs * rhs`.
    public static func * (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 * rhs }
    }

    /// `lhs * rhs`.
    public static func * (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs * $0 }
    }

    /// `lhs / rhs`.
    public static func / (lhs: Self, rhs: Self) -> Self {
        combine(lhs, rhs) { $0 / $1 }
    }

    /// `lhs / rhs`.
    public static func / (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map { $0 / rhs }
    }

    /// `lhs / rhs`.
    public static func / (lhs: some SQLExpressible, rhs: Self) -> Self {
        rhs.map { lhs / $0 }
    }

    /// `IFNULL(aggregate, value)`, keeping the key of the aggregate.
    public static func ?? (lhs: Self, rhs: some SQLExpressible) -> Self {
        var result = lhs.map { $0 ?? rhs }
        result.key = lhs.key
        return result
    }
}

/// `ABS(aggregate)`.
public func abs<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>) -> AssociationAggregate<RowDecoder> {
    aggregate.map { abs($0) }
}

/// `CAST(aggregate AS type)`, keeping the key of the aggregate.
public func cast<RowDecoder>(
    _ aggregate: AssociationAggregate<RowDecoder>, as storageClass: Database.StorageClass
) -> AssociationAggregate<RowDecoder> {
    var result = aggregate.map { cast($0, as: storageClass) }
    result.key = aggregate.key
    return result
}

/// `LENGTH(aggregate)`.
public func length<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>) -> AssociationAggregate<RowDecoder> {
    aggregate.map { length($0) }
}
