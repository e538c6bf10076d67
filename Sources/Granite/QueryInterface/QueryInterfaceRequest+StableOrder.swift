extension QueryInterfaceRequest {
    /// The request, ordered so that it always returns its rows in the same order, for tests.
    ///
    /// The primary key columns are appended to the current ordering: `ORDER BY "score" DESC, "id"`
    /// (`"rowid"` for a table without explicit primary key). A view has no primary key: it is ordered by
    /// every selected column, `ORDER BY 1, 2, 3`.
    public func withStableOrder() -> QueryInterfaceRequest<RowDecoder> {
        var request = self
        let relation = self.relation
        request.relation.orderings.append(
            DatabasePromise { db in try relation.stableOrderingTerms(db) })
        return request
    }
}

extension SQLRelation {
    /// The orderings that lift the ambiguities of the relation's ordering.
    fileprivate func stableOrderingTerms(_ db: Database) throws -> [SQLOrdering] {
        // A view has no primary key: the lookup fails, and the selected columns order the rows instead.
        if let primaryKey = try? db.primaryKey(tableName) {
            return primaryKey.columns.map { .expression(.column($0)) }
        }
        let context = SQLGenerationContext(db)
        var unordered = self
        unordered.orderings = []
        let statement = try db.makeStatement(sql: unordered.selectSQL(context))
        return (1...max(1, statement.columnCount)).map { SQLOrdering(impl: .literal(SQL(sql: "\($0)"))) }
    }
}
