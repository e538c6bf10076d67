// Aggregate functions restricted to the rows that match a condition: `SUM(x) FILTER (WHERE …)`
// (SQLite 3.30+ syntax).
//
//     // SELECT SUM("score") FILTER (WHERE "bonus") FROM "player"
//     Player.select(sum(Column("score"), filter: Column("bonus")))

/// `AVG(value) FILTER (WHERE filter)`: the average of the values of the rows that match `filter`.
public func average(_ value: some SQLSpecificExpressible, filter: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(impl: .filteredAggregate(.aggregate("AVG", [value.sqlExpression]), filter: filter.sqlExpression))
}

/// `MAX(value) FILTER (WHERE filter)`: the maximum value of the rows that match `filter`.
public func max(_ value: some SQLSpecificExpressible, filter: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(impl: .filteredAggregate(.aggregate("MAX", [value.sqlExpression]), filter: filter.sqlExpression))
}

/// `MIN(value) FILTER (WHERE filter)`: the minimum value of the rows that match `filter`.
public func min(_ value: some SQLSpecificExpressible, filter: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(impl: .filteredAggregate(.aggregate("MIN", [value.sqlExpression]), filter: filter.sqlExpression))
}

/// `SUM(value) FILTER (WHERE filter)`: the sum of the values of the rows that match `filter`, NULL when
/// none does.
public func sum(_ value: some SQLSpecificExpressible, filter: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(impl: .filteredAggregate(.aggregate("SUM", [value.sqlExpression]), filter: filter.sqlExpression))
}

/// `TOTAL(value) FILTER (WHERE filter)`: the sum of the values of the rows that match `filter`, 0.0 when
/// none does.
public func total(_ value: some SQLSpecificExpressible, filter: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(
        impl: .filteredAggregate(.aggregate("TOTAL", [value.sqlExpression]), filter: filter.sqlExpression))
}
