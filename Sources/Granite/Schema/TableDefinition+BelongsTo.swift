extension TableDefinition {
    /// Adds a foreign key to another table (or to this one), with one column per primary key column of the
    /// destination, named after `name` and the primary key column: `belongsTo("team")` adds `teamId` when the
    /// primary key of `team` is `id`, `teamId` of type INTEGER when `team` has a hidden rowid, and
    /// `countryCode` for `belongsTo("country")` when the primary key of `country` is `code`.
    ///
    /// ```swift
    /// try db.create(table: "player") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.belongsTo("team", onDelete: .cascade).notNull()
    ///     t.belongsTo("captain", inTable: "player")
    /// }
    /// // CREATE TABLE "player" (
    /// //   "id" INTEGER PRIMARY KEY AUTOINCREMENT,
    /// //   "teamId" INTEGER NOT NULL REFERENCES "team"("id") ON DELETE CASCADE,
    /// //   "captainId" INTEGER REFERENCES "player"("id"));
    /// // CREATE INDEX "player_on_teamId" ON "player"("teamId");
    /// // CREATE INDEX "player_on_captainId" ON "player"("captainId")
    /// ```
    ///
    /// A single column carries a `REFERENCES` clause and gets the index `<table>_on_<column>`; the columns of a
    /// composite key get a table-level `FOREIGN KEY` constraint and the index `index_<table>_on_<columns>`.
    /// Inside ``primaryKey(onConflict:body:)`` the columns join the primary key, are `NOT NULL`, and are not
    /// indexed (the primary key index serves).
    ///
    /// - Parameters:
    ///   - name: The name of the relation; also the destination table when `table` is nil (the table named
    ///     `name` when it exists, else its English plural: `team`, then `teams`).
    ///   - table: The destination table.
    ///   - deleteAction: The `ON DELETE` action.
    ///   - updateAction: The `ON UPDATE` action.
    ///   - isDeferred: Whether the constraint is checked at commit time (`DEFERRABLE INITIALLY DEFERRED`).
    ///   - indexed: Whether the columns are indexed (true by default).
    /// - Returns: The foreign key, to refine with ``ForeignKeyDefinition/notNull(onConflict:)`` or
    ///   ``ForeignKeyDefinition/unique()``. The destination is looked up when the table is created, which fails
    ///   with `no such table: <name>` when there is none.
    @discardableResult
    public func belongsTo(
        _ name: String,
        inTable table: String? = nil,
        onDelete deleteAction: Database.ForeignKeyAction? = nil,
        onUpdate updateAction: Database.ForeignKeyAction? = nil,
        deferred isDeferred: Bool = false,
        indexed: Bool = true
    ) -> ForeignKeyDefinition {
        let foreignKey = ForeignKeyDefinition(
            name: name, table: table, deleteAction: deleteAction, updateAction: updateAction,
            isIndexed: indexed && !inPrimaryKeyBody, isDeferred: isDeferred)
        items.append(.foreignKey(foreignKey))
        if inPrimaryKeyBody {
            // As for other primary key columns: SQLite lets non-integer primary keys hold NULL unless told not to.
            foreignKey.notNull()
            primaryKeyConstraint?.components.append(.foreignKey(foreignKey))
        }
        return foreignKey
    }
}
