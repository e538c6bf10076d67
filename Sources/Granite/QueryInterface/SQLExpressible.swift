/// A type that can be used in SQL expressions of the query interface: values, columns, expressions.
///
/// ```swift
/// let expression = 42.sqlExpression   // ?
/// let filtered = Player.filter(Column("score") > 42)
/// ```
public protocol SQLExpressible {
    /// The SQL expression.
    var sqlExpression: SQLExpression { get }
}

/// An ``SQLExpressible`` type that is more than a plain value: columns, operators, functions.
///
/// Only such types are accepted by `filter`, so that `Player.filter(42)` does not compile.
public protocol SQLSpecificExpressible: SQLExpressible, SQLSelectable, SQLOrderingTerm {}

extension SQLSpecificExpressible {
    /// The expression, as a selected column.
    public var sqlSelection: SQLSelection { .expression(sqlExpression) }

    /// The expression, as an ascending ordering term.
    public var sqlOrdering: SQLOrdering { .expression(sqlExpression) }
}

extension DatabaseValueConvertible {
    /// The value, bound as a statement argument (`?`), or `NULL`.
    public var sqlExpression: SQLExpression { .databaseValue(databaseValue) }
}

extension ColumnExpression {
    /// The quoted column name.
    public var sqlExpression: SQLExpression { .column(name) }
}

extension SQLExpression: SQLSpecificExpressible {
    /// The expression itself.
    public var sqlExpression: SQLExpression { self }
}

extension Optional: SQLExpressible where Wrapped: SQLExpressible {
    /// The wrapped expression, or `NULL`.
    public var sqlExpression: SQLExpression { self?.sqlExpression ?? .null }
}
