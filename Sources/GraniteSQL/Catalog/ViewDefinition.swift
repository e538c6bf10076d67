/// A view of the schema catalog: a named, stored `SELECT` that queries read like a table.
///
/// Nothing about the query is resolved when the view is created or loaded (as in SQLite, a view may name tables
/// that do not exist yet): each statement that reads the view compiles its query afresh, against the schema of
/// that moment, as a subquery in `FROM`.
package struct ViewDefinition: Sendable, Equatable {
    /// The view name as declared.
    package var name: String
    /// The explicit column names of `CREATE VIEW v(a, b) AS …`, if given.
    package var columnNames: [String]?
    /// The defining query.
    package var select: SelectStatement
    /// The `CREATE VIEW` text stored in `granite_schema`.
    package var sql: String
    /// The rowid of the view's `granite_schema` row.
    package var schemaRowid: Int64
    /// Whether the view lives in the connection's temporary schema (its query then sees temporary objects).
    package var isTemporary = false

    /// Creates the definition of the view `create` declares, stored as `sql`.
    package init(_ create: CreateViewStatement, sql: String, schemaRowid: Int64 = 0) {
        self.name = create.name.name
        self.columnNames = create.columns
        self.select = create.select
        self.sql = sql
        self.schemaRowid = schemaRowid
    }
}
