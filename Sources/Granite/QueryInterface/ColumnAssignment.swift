/// An assignment of an `QueryInterfaceRequest/updateAll(_:onConflict:_:)` request.
///
/// ```swift
/// try Player.updateAll(db, Column("score").set(to: 0))
/// // UPDATE "player" SET "score" = ?
/// ```
public struct ColumnAssignment: Sendable {
    let columnName: String
    let value: SQLExpression
    /// False for ``ColumnExpression/noOverwrite``, which upserts leave out of their `DO UPDATE` clause.
    var overwrites = true

    func sql(_ context: SQLGenerationContext) throws -> String {
        try columnName.quotedDatabaseIdentifier + " = " + value.sql(context)
    }
}

extension ColumnExpression {
    /// `"column" = value`; nil is NULL.
    public func set(to value: (any SQLExpressible)?) -> ColumnAssignment {
        ColumnAssignment(columnName: name, value: value?.sqlExpression ?? .null)
    }

    /// `"column" = "column" + value`.
    public static func += (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column + value)
    }

    /// `"column" = "column" - value`.
    public static func -= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column - value)
    }

    /// `"column" = "column" * value`.
    public static func *= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column * value)
    }

    /// `"column" = "column" / value`.
    public static func /= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column / value)
    }
}
