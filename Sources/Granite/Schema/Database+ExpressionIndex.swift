extension Database {
    /// Creates an index on expressions, such as `lower(name)`; `condition` makes it partial.
    ///
    /// Values in the expressions and the condition are written inline, since schema statements take no
    /// arguments.
    ///
    /// ```swift
    /// // CREATE INDEX "player_on_lower_name" ON "player"(lower("name"))
    /// try db.create(index: "player_on_lower_name", on: "player", expressions: [Column("name").lowercased])
    /// ```
    ///
    /// - Parameters:
    ///   - name: The index name.
    ///   - table: The indexed table.
    ///   - expressions: The indexed terms: columns or expressions of the table's columns.
    ///   - options: `UNIQUE` and `IF NOT EXISTS`.
    ///   - condition: The `WHERE` condition of a partial index.
    /// - Throws: A ``DatabaseError`` when the engine rejects the index (unknown table or column, an expression
    ///   that is not deterministic, duplicates in a unique index…).
    public func create(
        index name: String,
        on table: String,
        expressions: [any SQLExpressible],
        options: IndexOptions = [],
        condition: (any SQLExpressible)? = nil
    ) throws {
        let index = try IndexGenerator(
            name: name, table: table, expressions: expressions.map(\.sqlExpression), options: options,
            condition: condition?.sqlExpression)
        try execute(sql: index.sql)
    }
}
