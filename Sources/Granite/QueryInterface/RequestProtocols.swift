// The protocols that requests adopt, so that application code can extend them:
//
//     extension DerivableRequest<Player> {
//         func best() -> Self { order(\.score.desc) }
//     }

/// A request that knows the type of its decoded rows.
public protocol TypedRequest<RowDecoder> {
    /// The type that decodes the fetched rows.
    associatedtype RowDecoder
}

/// A request that can change its selected columns.
public protocol SelectionRequest {
    /// Replaces the selection with columns computed once a connection is available.
    func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self

    /// Appends columns computed once a connection is available.
    func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable])
        -> Self
}

extension SelectionRequest {
    /// Replaces the selection: `select(Column("id"), Column("name"))`.
    public func select(_ selection: any SQLSelectable...) -> Self {
        select(selection)
    }

    /// Replaces the selection.
    public func select(_ selection: [any SQLSelectable]) -> Self {
        let selection = selection.map(\.sqlSelection)
        return selectWhenConnected { _ in selection }
    }

    /// Replaces the selection with raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        select(SQL(sql: sql, arguments: arguments))
    }

    /// Replaces the selection with an SQL literal.
    public func select(literal sqlLiteral: SQL) -> Self {
        select(sqlLiteral)
    }

    /// Appends to the selection: `annotated(with: (Column("score") * 2).forKey("double"))`.
    public func annotated(with selection: any SQLSelectable...) -> Self {
        annotated(with: selection)
    }

    /// Appends to the selection.
    public func annotated(with selection: [any SQLSelectable]) -> Self {
        let selection = selection.map(\.sqlSelection)
        return annotatedWhenConnected { _ in selection }
    }
}

/// A request that can be filtered.
public protocol FilteredRequest {
    /// Adds a condition computed once a connection is available.
    func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self
}

extension FilteredRequest {
    /// Adds a condition, joined with `AND` to previous ones: `filter(Column("score") > 1000)`.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        let expression = predicate.sqlExpression
        return filterWhenConnected { _ in expression }
    }

    /// Adds a raw SQL condition.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        filter(SQL(sql: sql, arguments: arguments))
    }

    /// Adds an SQL literal condition.
    public func filter(literal sqlLiteral: SQL) -> Self {
        filter(sqlLiteral)
    }

    /// A request that fetches nothing: `WHERE 0`.
    public func none() -> Self {
        filterWhenConnected { _ in false }
    }

    /// The request itself (matches ``none()``).
    public func all() -> Self { self }
}

/// A request that can be ordered.
public protocol OrderedRequest {
    /// Replaces the ordering with terms computed once a connection is available.
    func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self

    /// Reverses the ordering; an unordered request stays unordered.
    func reversed() -> Self

    /// Removes the ordering.
    func unordered() -> Self

    /// The request, ordered so that it always returns its rows in the same order: its ordering, then the
    /// primary key (or every column, for a view). Meant for tests.
    func withStableOrder() -> Self
}

extension OrderedRequest {
    /// Replaces the ordering: `order(Column("score").desc, Column("name"))`.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        order(orderings)
    }

    /// Replaces the ordering.
    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        let orderings = orderings.map(\.sqlOrdering)
        return orderWhenConnected { _ in orderings }
    }

    /// Replaces the ordering with raw SQL.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        order(SQL(sql: sql, arguments: arguments))
    }

    /// Replaces the ordering with an SQL literal.
    public func order(literal sqlLiteral: SQL) -> Self {
        order(sqlLiteral)
    }
}

/// A request that can be grouped.
public protocol AggregatingRequest {
    /// Replaces the `GROUP BY` clause with expressions computed once a connection is available.
    func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self

    /// Adds a `HAVING` condition computed once a connection is available.
    func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self
}

extension AggregatingRequest {
    /// Groups rows: `group(Column("teamId"))`.
    public func group(_ expressions: any SQLExpressible...) -> Self {
        group(expressions)
    }

    /// Groups rows.
    public func group(_ expressions: [any SQLExpressible]) -> Self {
        let expressions = expressions.map(\.sqlExpression)
        return groupWhenConnected { _ in expressions }
    }

    /// Groups rows with raw SQL.
    public func group(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        group(literal: SQL(sql: sql, arguments: arguments))
    }

    /// Groups rows with an SQL literal.
    public func group(literal sqlLiteral: SQL) -> Self {
        groupWhenConnected { _ in [sqlLiteral] }
    }

    /// Adds a `HAVING` condition: `having(count(Column("id")) > 2)`.
    public func having(_ predicate: some SQLExpressible) -> Self {
        let expression = predicate.sqlExpression
        return havingWhenConnected { _ in expression }
    }

    /// Adds a raw SQL `HAVING` condition.
    public func having(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        having(literal: SQL(sql: sql, arguments: arguments))
    }

    /// Adds an SQL literal `HAVING` condition.
    public func having(literal sqlLiteral: SQL) -> Self {
        having(sqlLiteral)
    }
}

/// A request on a database table.
public protocol TableRequest {
    /// The name of the queried table.
    var databaseTableName: String { get }

    /// The request with its table named by `alias`; call `aliased(_:)` instead.
    func _aliased(_ alias: TableAliasBase) -> Self
}

/// A request that can be refined in every way: the protocol to extend with application-specific requests.
///
/// ```swift
/// extension DerivableRequest<Player> {
///     func best() -> Self { order(\.score.desc) }
/// }
/// let best = try Player.all().best().limit(10).fetchAll(db)
/// ```
public protocol DerivableRequest<RowDecoder>: TypedRequest, SelectionRequest, FilteredRequest, OrderedRequest,
    AggregatingRequest, TableRequest, JoinableRequest
{
    /// Removes duplicate rows: `SELECT DISTINCT`.
    func distinct() -> Self

    /// Declares a common table expression in the `WITH` clause; an expression of the same name is replaced.
    func with<RowDecoder>(_ cte: CommonTableExpression<RowDecoder>) -> Self
}

// MARK: - Closures of the record's columns

extension SelectionRequest where Self: TypedRequest, RowDecoder: TableRecord {
    /// Selects from the record's columns: `select { $0.name }`.
    public func select(_ selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        try select([selection(RowDecoder.databaseComponents)])
    }

    /// Selects from the record's columns: `select { [$0.id, $0.name] }`.
    public func select(_ selection: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable]) rethrows
        -> Self
    {
        try select(selection(RowDecoder.databaseComponents))
    }

    /// Appends to the selection from the record's columns.
    public func annotated(with selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable) rethrows
        -> Self
    {
        try annotated(with: [selection(RowDecoder.databaseComponents)])
    }

    /// Appends to the selection from the record's columns.
    public func annotated(with selection: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable])
        rethrows -> Self
    {
        try annotated(with: selection(RowDecoder.databaseComponents))
    }
}

extension FilteredRequest where Self: TypedRequest, RowDecoder: TableRecord {
    /// Filters with the record's columns: `filter { $0.score > 1000 }`.
    public func filter(_ predicate: (RowDecoder.DatabaseComponents) throws -> any SQLSpecificExpressible)
        rethrows -> Self
    {
        let expression = try predicate(RowDecoder.databaseComponents).sqlExpression
        return filter(expression)
    }
}

extension OrderedRequest where Self: TypedRequest, RowDecoder: TableRecord {
    /// Orders with the record's columns: `order(\.score.desc)`.
    public func order(_ orderings: (RowDecoder.DatabaseComponents) throws -> any SQLOrderingTerm) rethrows
        -> Self
    {
        try order([orderings(RowDecoder.databaseComponents)])
    }

    /// Orders with the record's columns: `order { [$0.score.desc, $0.name] }`.
    public func order(_ orderings: (RowDecoder.DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows
        -> Self
    {
        try order(orderings(RowDecoder.databaseComponents))
    }
}

extension AggregatingRequest where Self: TypedRequest, RowDecoder: TableRecord {
    /// Groups with the record's columns.
    public func group(_ expressions: (RowDecoder.DatabaseComponents) throws -> any SQLExpressible) rethrows
        -> Self
    {
        try group([expressions(RowDecoder.databaseComponents)])
    }

    /// Groups with the record's columns.
    public func group(_ expressions: (RowDecoder.DatabaseComponents) throws -> [any SQLExpressible]) rethrows
        -> Self
    {
        try group(expressions(RowDecoder.databaseComponents))
    }

    /// Adds a `HAVING` condition with the record's columns.
    public func having(_ predicate: (RowDecoder.DatabaseComponents) throws -> any SQLExpressible) rethrows
        -> Self
    {
        let expression = try predicate(RowDecoder.databaseComponents).sqlExpression
        return having(expression)
    }
}
