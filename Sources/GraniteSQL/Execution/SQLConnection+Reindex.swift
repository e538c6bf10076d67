// REINDEX.
//
// SQLite rebuilds indexes with REINDEX after the definition of a collating sequence changed. Granite's index keys
// are only ever computed by the built-in collations (BINARY, NOCASE, RTRIM: an index under an application-defined
// collation is refused, see CollationRestrictions.swift), whose definitions never change, so a rebuilt index would
// hold exactly the entries it holds: REINDEX checks its argument as SQLite does and has nothing to rebuild.

extension SQLConnection {
    /// Runs `REINDEX [[schema.]name]`: `name` is a collation (built in or registered), a table or an index
    /// (looked up in that order, as SQLite does); any other name fails with
    /// `unable to identify the object to be reindexed`.
    func reindex(_ name: QualifiedName?) throws {
        guard let name else { return }
        if let schema = name.schema, SchemaNames.key(schema) != "main" {
            throw SQLExecutionError("unknown database \(schema)")
        }
        if name.schema == nil, SQLCollation(name: name.name) != nil { return }
        if catalog.table(named: name.name) != nil || catalog.index(named: name.name) != nil { return }
        throw SQLExecutionError("unable to identify the object to be reindexed")
    }
}
