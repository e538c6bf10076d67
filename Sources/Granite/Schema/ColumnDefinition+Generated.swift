extension ColumnDefinition {
    /// Whether a generated column is computed when read or stored when written.
    public enum GeneratedColumnQualification: Sendable {
        /// `VIRTUAL`: computed each time the column is read; takes no space in the table.
        case virtual
        /// `STORED`: computed when the row is written and stored with it.
        case stored

        /// The SQL keyword that ends the `GENERATED ALWAYS AS (…)` clause.
        var keyword: String {
            switch self {
            case .virtual: return "VIRTUAL"
            case .stored: return "STORED"
            }
        }
    }

    /// Makes the column a generated column, computed from an SQL expression.
    ///
    /// ```swift
    /// // "total" GENERATED ALWAYS AS (price * quantity) VIRTUAL
    /// t.column("total").generatedAs(sql: "price * quantity")
    /// ```
    ///
    /// Granite's engine has no generated columns yet: the `CREATE TABLE` or `ALTER TABLE` that holds one fails
    /// with `SQLITE_ERROR`.
    ///
    /// - Parameters:
    ///   - sql: The expression, in SQL.
    ///   - qualification: ``GeneratedColumnQualification/virtual`` (the default) or
    ///     ``GeneratedColumnQualification/stored``.
    @discardableResult
    public func generatedAs(sql: String, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generated = (.literal(SQL(sql: sql)), qualification)
        return self
    }

    /// Makes the column a generated column, computed from an expression (its values written inline).
    ///
    /// ```swift
    /// // "total" GENERATED ALWAYS AS ("price" * "quantity") VIRTUAL
    /// t.column("total").generatedAs(Column("price") * Column("quantity"))
    /// ```
    ///
    /// Granite's engine has no generated columns yet: the `CREATE TABLE` or `ALTER TABLE` that holds one fails
    /// with `SQLITE_ERROR`.
    ///
    /// - Parameters:
    ///   - expression: The expression that computes the column.
    ///   - qualification: ``GeneratedColumnQualification/virtual`` (the default) or
    ///     ``GeneratedColumnQualification/stored``.
    @discardableResult
    public func generatedAs(
        _ expression: some SQLExpressible, _ qualification: GeneratedColumnQualification = .virtual
    ) -> Self {
        generated = (expression.sqlExpression, qualification)
        return self
    }
}
