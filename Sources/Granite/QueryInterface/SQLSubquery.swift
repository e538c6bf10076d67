/// The `SELECT` statement of a request, ready to be embedded in another statement.
///
/// Requests (``QueryInterfaceRequest``, ``SQLRequest``, ``AnyFetchRequest``…) expose their subquery through
/// ``SQLSubqueryable/sqlSubquery``, so that they can be used as expressions:
///
/// ```swift
/// // SELECT * FROM "player" WHERE "score" = (SELECT MAX("score") FROM "player")
/// let maxScore = Player.select(max(Column("score")))
/// let bestPlayers = Player.filter(Column("score") == maxScore)
/// ```
///
/// The subquery is rendered in the context of its enclosing statement, so that its arguments are
/// appended in the right order.
public struct SQLSubquery: Sendable {
    let render: @Sendable (SQLGenerationContext) throws -> String

    init(render: @escaping @Sendable (SQLGenerationContext) throws -> String) {
        self.render = render
    }

    /// The SQL of the subquery, without parentheses; its arguments are appended to `context`.
    func sql(_ context: SQLGenerationContext) throws -> String { try render(context) }
}

/// A type that can be used as a subquery: requests, and ``SQLSubquery`` itself.
///
/// A subqueryable value is an expression (`(SELECT …)`), and can also test for the existence of rows or
/// for the presence of a value:
///
/// ```swift
/// let playerIds = Player.select(Column("id"))
/// // "id" IN (SELECT "id" FROM "player")
/// let condition = playerIds.contains(Column("id"))
/// // EXISTS (SELECT "id" FROM "player")
/// let hasPlayers = playerIds.exists()
/// ```
public protocol SQLSubqueryable: SQLSpecificExpressible {
    /// The subquery that this value stands for.
    var sqlSubquery: SQLSubquery { get }
}

extension SQLSubquery: SQLSubqueryable {
    /// The subquery itself (reading it is useless: the value already is a subquery).
    @available(*, deprecated, message: "Already SQLSubquery")
    public var sqlSubquery: SQLSubquery { self }
}

extension SQLSubqueryable {
    /// The subquery as a parenthesised expression: `(SELECT …)`.
    public var sqlExpression: SQLExpression {
        SQLExpression(impl: .subquery(sqlSubquery))
    }

    /// `element IN (SELECT …)`: whether the subquery returns the element.
    ///
    /// - parameter element: The value or expression looked up in the single column of the subquery.
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        SQLExpression(impl: .inSubquery(element.sqlExpression, sqlSubquery, isNegated: false))
    }

    /// `EXISTS (SELECT …)`: whether the subquery returns at least one row. Negate it with `!` for
    /// `NOT EXISTS (SELECT …)`.
    public func exists() -> SQLExpression {
        SQLExpression(impl: .exists(sqlSubquery, isNegated: false))
    }
}

extension SQLInterpolation {
    /// The `SELECT` statement of a request, without parentheses:
    /// `"SELECT COUNT(*) FROM (\(request))"` or `"WHERE id IN (\(request))"`. Its arguments join the literal.
    public mutating func appendInterpolation(
        _ subquery: some SQLSubqueryable & SQLExpressible & SQLSelectable & SQLOrderingTerm
    ) {
        elements.append(.expression(SQLExpression(impl: .rendered(subquery.sqlSubquery))))
    }
}
