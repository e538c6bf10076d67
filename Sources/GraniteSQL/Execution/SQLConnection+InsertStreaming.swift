// Whether `INSERT INTO u SELECT …` inserts each row of its query as the query produces it, as SQLite does when the
// query does not read `u`: `last_insert_rowid()` in the query then sees the rows the statement already inserted,
// and a LIMIT stops the query early. SQLite runs the whole query into a temporary table first when the query
// reads `u` (which the inserts would change under it) or when the insert fires triggers (RETURNING counts as one).

extension SQLConnection {
    /// Whether the rows of `insert`'s query go into `writer`'s table one by one as the query yields them.
    func streamsQuery(of insert: InsertStatement, into writer: TableWriter) -> Bool {
        guard case .select(let select) = insert.source, insert.returning == nil else { return false }
        if let triggers = writer.triggers, !triggers.beforeInsert.isEmpty || !triggers.afterInsert.isEmpty {
            return false
        }
        // REPLACE may delete rows whose foreign keys then change other tables the query reads (SQLite streams
        // anyway; Granite keeps its cursors away from such changes).
        if foreignKeysEnabled && !cachedReferences(writer.table).isEmpty { return false }
        let search = tableReadingSearch(writer.table.name)
        if let with = insert.with, with.tables.contains(where: { search.found(in: $0.select) }) { return false }
        return !search.found(in: select)
    }

    /// Finds a read of the table named `name`: in a `FROM` clause or `IN name`, directly or through views.
    private func tableReadingSearch(_ name: String, viewsEntered: Set<String> = []) -> SyntaxSearch {
        SyntaxSearch(matchesTable: { [self] reference in
            if SchemaNames.equal(reference.name, name) { return true }
            guard let view = catalog.view(reference) else { return false }
            let key = SchemaNames.key(view.name)
            // A view reading itself is an error reported when the query compiles; here it ends the walk.
            guard !viewsEntered.contains(key) else { return false }
            return tableReadingSearch(name, viewsEntered: viewsEntered.union([key])).found(in: view.select)
        })
    }
}
