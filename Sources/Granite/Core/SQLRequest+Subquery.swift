extension SQLRequest {
    /// The SQL of the request, for use as a subquery: `Player.filter(Column("id") == request)` renders
    /// `"id" = (SELECT …)`, and `"… IN (\(request))"` embeds it in a literal. The request's arguments join
    /// the enclosing statement.
    ///
    /// Rendering fails with `SQLITE_MISUSE` when the request has named arguments, which can not be merged
    /// with the positional arguments of the enclosing statement.
    public var sqlSubquery: SQLSubquery {
        let literal = SQLExpression.literal(sqlLiteral)
        return SQLSubquery { context in try literal.sql(context) }
    }
}
