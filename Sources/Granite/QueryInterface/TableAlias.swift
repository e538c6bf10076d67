/// A name for a table in an SQL statement, used to refer to its columns.
///
/// Upserts hand the `excluded` alias (the row proposed for insertion) to their `doUpdate` closure:
///
/// ```swift
/// // ON CONFLICT DO UPDATE SET "score" = "score" + "excluded"."score"
/// try player.upsertAndFetch(db, doUpdate: { excluded in
///     [Column("score") += excluded["score"]]
/// })
/// ```
public struct TableAlias<RowDecoder>: Sendable {
    let name: String

    init(name: String) {
        self.name = name
    }

    /// The qualified column: `"excluded"."score"`.
    public subscript(_ column: String) -> SQLExpression {
        let sql = name.quotedDatabaseIdentifier + "." + column.quotedDatabaseIdentifier
        return SQLExpression(impl: .rendered(SQLSubquery { _ in sql }))
    }

    /// The qualified column: `"excluded"."score"`.
    public subscript(_ column: some ColumnExpression) -> SQLExpression {
        self[column.name]
    }
}
