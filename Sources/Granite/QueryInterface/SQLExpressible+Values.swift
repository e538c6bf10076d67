// Values in the query interface: a DatabaseValue is a full expression (it can be selected, sorted on and
// filtered on), and an optional expression is NULL when it is nil.

extension DatabaseValue: SQLSpecificExpressible {
    /// The value as an expression: `NULL` for ``DatabaseValue/null``, and a statement argument (`?`)
    /// otherwise.
    ///
    /// ```swift
    /// Player.select(DatabaseValue.null)  // SELECT NULL FROM "player"
    /// ```
    public var sqlExpression: SQLExpression { .databaseValue(self) }
}

extension Optional: SQLOrderingTerm where Wrapped: SQLOrderingTerm {
    /// The ordering of the wrapped term, or `NULL` (a constant, which leaves the order unchanged) for nil.
    public var sqlOrdering: SQLOrdering {
        switch self {
        case .none: return .expression(.null)
        case .some(let term): return term.sqlOrdering
        }
    }
}

extension Optional: SQLSelectable where Wrapped: SQLSelectable {
    /// The selection of the wrapped value, or `NULL` for nil.
    public var sqlSelection: SQLSelection {
        switch self {
        case .none: return .expression(.null)
        case .some(let selectable): return selectable.sqlSelection
        }
    }
}

extension Optional: SQLSpecificExpressible where Wrapped: SQLSpecificExpressible {}
