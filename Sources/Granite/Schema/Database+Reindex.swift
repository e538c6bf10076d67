extension Database {
    /// Runs `REINDEX` for the indexes that use `collation`, which SQLite needs after the definition of a
    /// collation changed.
    ///
    /// Granite indexes only use the built-in collations, whose definitions never change, so there is nothing to
    /// rebuild; the statement still checks that the collation exists.
    ///
    /// - throws: A ``DatabaseError`` (`unable to identify the object to be reindexed`) when no collation, table
    ///   or index has that name.
    public func reindex(collation: Database.CollationName) throws {
        try execute(sql: "REINDEX \(collation.rawValue)")
    }

    /// Runs `REINDEX` for the indexes that use `collation` (see ``reindex(collation:)-(Database.CollationName)``).
    ///
    /// - throws: A ``DatabaseError`` when `collation` is not registered on this connection.
    public func reindex(collation: DatabaseCollation) throws {
        try reindex(collation: Database.CollationName(rawValue: collation.name))
    }
}
