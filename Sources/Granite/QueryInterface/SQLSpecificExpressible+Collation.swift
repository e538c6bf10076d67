extension SQLSpecificExpressible {
    /// `COLLATE` with a collation written in Swift: `Column("name").collating(.localizedCompare)` is the SQL
    /// `name COLLATE swiftLocalizedCompare`, for comparisons and orderings. The collation must be registered on
    /// the connection (the ``DatabaseCollation`` built-ins are), else the statement fails with
    /// `no such collation sequence`.
    public func collating(_ collation: DatabaseCollation) -> SQLExpression {
        .collated(sqlExpression, collation.name)
    }
}
