// SQL functions of the query interface.

/// `ABS(x)`.
public func abs(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .function("ABS", [value.sqlExpression])
}

/// `AVG(x)`: `Player.select(average(Column("score")))`.
public func average(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .aggregate("AVG", [value.sqlExpression])
}

/// `COUNT(x)`.
public func count(_ counted: some SQLSpecificExpressible) -> SQLExpression {
    .aggregate("COUNT", [counted.sqlExpression])
}

/// `COUNT(DISTINCT x)`.
public func count(distinct value: some SQLSpecificExpressible) -> SQLExpression {
    .aggregate("COUNT", [value.sqlExpression], distinct: true)
}

/// `COALESCE(a, b, …)`, or the single value when there is only one.
public func coalesce(_ values: some Collection<any SQLSpecificExpressible>) -> SQLExpression {
    let expressions = values.map(\.sqlExpression)
    if expressions.count == 1 { return expressions[0] }
    return .function("COALESCE", expressions)
}

/// `LENGTH(x)`.
public func length(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .function("LENGTH", [value.sqlExpression])
}

/// The `MAX` aggregate: `Player.select(max(Column("score")))`.
public func max(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .aggregate("MAX", [value.sqlExpression])
}

/// The `MAX` scalar function of several values.
public func max(
    _ value1: any SQLSpecificExpressible, _ value2: any SQLExpressible, _ values: any SQLExpressible...
) -> SQLExpression {
    .function("MAX", [value1.sqlExpression, value2.sqlExpression] + values.map(\.sqlExpression))
}

/// The `MIN` aggregate.
public func min(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .aggregate("MIN", [value.sqlExpression])
}

/// The `MIN` scalar function of several values.
public func min(
    _ value1: any SQLSpecificExpressible, _ value2: any SQLExpressible, _ values: any SQLExpressible...
) -> SQLExpression {
    .function("MIN", [value1.sqlExpression, value2.sqlExpression] + values.map(\.sqlExpression))
}

/// The `SUM` aggregate (NULL for no rows).
public func sum(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .aggregate("SUM", [value.sqlExpression])
}

/// The `TOTAL` aggregate (0.0 for no rows).
public func total(_ value: some SQLSpecificExpressible) -> SQLExpression {
    .aggregate("TOTAL", [value.sqlExpression])
}

extension SQLSpecificExpressible {
    /// `IFNULL(lhs, rhs)`: `Column("name") ?? "Anonymous"`.
    public static func ?? (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// Swift's `String.capitalized`, evaluated by the database: `Column("name").capitalized`.
    public var capitalized: SQLExpression { .function("swiftCapitalizedString", [sqlExpression]) }

    /// Swift's `String.lowercased()`, evaluated by the database: `Column("name").lowercased`.
    public var lowercased: SQLExpression { .function("swiftLowercaseString", [sqlExpression]) }

    /// Swift's `String.uppercased()`, evaluated by the database: `Column("name").uppercased`.
    public var uppercased: SQLExpression { .function("swiftUppercaseString", [sqlExpression]) }
}
