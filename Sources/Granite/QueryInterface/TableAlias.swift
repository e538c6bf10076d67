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
@dynamicMemberLookup
public final class TableAlias<RowDecoder>: Sendable {
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

extension TableAlias where RowDecoder: TableRecord {
    /// The qualified column of the record's `Columns`: `excluded.score` is `"excluded"."score"`.
    public subscript<T: ColumnExpression>(dynamicMember keyPath: KeyPath<RowDecoder.DatabaseComponents, T>)
        -> SQLExpression
    {
        self[RowDecoder.databaseComponents[keyPath: keyPath]]
    }
}
