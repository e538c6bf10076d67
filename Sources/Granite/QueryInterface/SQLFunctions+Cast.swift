/// The SQL `CAST` expression, which converts `expression` to `storageClass` with SQLite's conversion rules
/// (text that does not start with a number casts to 0, a REAL cast to INTEGER is truncated toward zero…).
///
/// ```swift
/// Player.select(cast(Column("score"), as: .real))
/// // SELECT CAST("score" AS REAL) FROM "player"
/// ```
///
/// - parameters:
///   - expression: The converted expression.
///   - storageClass: The target storage class; its raw value is written as the type name.
/// - returns: The expression `CAST(expression AS storageClass)`.
public func cast(_ expression: some SQLSpecificExpressible, as storageClass: Database.StorageClass) -> SQLExpression {
    let converted = expression.sqlExpression
    let typeName = storageClass.rawValue
    // Rendered rather than modelled as a function: the type name is a keyword, not an argument.
    return SQLExpression(
        impl: .rendered(
            SQLSubquery { context in
                "CAST(" + (try converted.sql(context)) + " AS " + typeName + ")"
            }))
}
