import GraniteStorage

/// Identifies a subquery registered with a ``ColumnResolver`` at compile time.
package struct SubqueryID: Sendable, Hashable {
    /// The resolver-assigned number.
    package var rawValue: Int
    /// Creates an id.
    package init(_ rawValue: Int) { self.rawValue = rawValue }
}

/// Evaluates subqueries for compiled expressions. The executor implements this; the evaluator only calls it.
package protocol SubqueryProvider: AnyObject {
    /// The first column of the first row of the scalar subquery, or NULL when it returns no row.
    func scalar(_ id: SubqueryID, context: inout EvaluationContext) throws -> Value
    /// Whether the subquery returns at least one row.
    func exists(_ id: SubqueryID, context: inout EvaluationContext) throws -> Bool
    /// The values of the (single) column of every row of an `IN (SELECT …)` subquery.
    func values(_ id: SubqueryID, context: inout EvaluationContext) throws -> [Value]
    /// The first row of a subquery used as a row value (``SubqueryKind/row(width:)``), or its width in NULLs.
    func row(_ id: SubqueryID, context: inout EvaluationContext) throws -> [Value]
    /// The row ``row(_:context:)`` last returned for the subquery (empty before it ran).
    func lastRow(_ id: SubqueryID) -> [Value]
    /// Every row of a `(a, b) IN (SELECT …)` subquery (``SubqueryKind/inRows(width:)``).
    func rows(_ id: SubqueryID, context: inout EvaluationContext) throws -> [[Value]]
}

/// Everything an expression reads while it is evaluated: the current row's slots and the bound parameters.
@usableFromInline package struct EvaluationContext {
    /// The current row, one value per slot handed out by the ``ColumnResolver`` (already affinity-converted,
    /// as stored). Aggregate results computed by the executor live in slots too.
    @usableFromInline package var row: [Value]
    /// The bound parameters.
    package var parameters: BoundParameters
    /// Evaluates subqueries; `nil` makes any subquery node throw.
    package var subqueries: SubqueryProvider?
    /// What the last located JSON call found (made by the first such call; see JSONLocatedCall.swift).
    var jsonLocations: JSONLocationCache?

    /// The context's ``jsonLocations``, made on first use.
    mutating func sharedJSONLocations() -> JSONLocationCache {
        if let jsonLocations { return jsonLocations }
        let made = JSONLocationCache()
        jsonLocations = made
        return made
    }

    /// Creates a context.
    package init(row: [Value] = [], parameters: BoundParameters = BoundParameters(), subqueries: SubqueryProvider? = nil)
    {
        self.row = row
        self.parameters = parameters
        self.subqueries = subqueries
    }
}
