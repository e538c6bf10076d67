// Deletion: `delete`, and the deletion callbacks.

extension MutablePersistableRecord {
    /// Does nothing.
    public func willDelete(_ db: Database) throws {}

    /// Performs the deletion.
    public func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        _ = try delete()
    }

    /// Does nothing.
    public func didDelete(deleted: Bool) {}
}

extension MutablePersistableRecord {
    /// Deletes the row identified by the record's primary key; returns whether a row was deleted. Callbacks
    /// run in this order: `willDelete`, `aroundDelete`, `didDelete`.
    ///
    /// ```swift
    /// // DELETE FROM "player" WHERE "id"=?
    /// try player.delete(db)
    /// ```
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        try willDelete(db)
        let deleted = try runAround("aroundDelete", { try aroundDelete(db, delete: $0) }) {
            let deleted = try deleteWithoutCallbacks(db)
            return (deleted, deleted)
        }
        didDelete(deleted: deleted)
        return deleted
    }

    func deleteWithoutCallbacks(_ db: Database) throws -> Bool {
        guard let statement = try PersistenceStatements(db, self).deleteStatement() else { return false }
        try statement.execute()
        return db.changesCount > 0
    }
}
