// The requests of a `Table` of identifiable records, by id: the counterparts of the static methods of
// identifiable `TableRecord` types.
//
//     let players = Table<Player>("player")
//     let player = try players.filter(id: 1).fetchOne(db)
//     try players.deleteAll(db, ids: [1, 2, 3])

extension Table where RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The row whose primary key is `id`: `SELECT * FROM "player" WHERE "id" = ?`.
    public func filter(id: RowDecoder.ID) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(id: id)
    }

    /// The rows whose primary key is one of `ids`: `SELECT * FROM "player" WHERE "id" IN (?, ?)`.
    public func filter(ids: some Collection<RowDecoder.ID>) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(ids: ids)
    }

    /// Whether a row has the primary key `id`. A nil id exists nowhere, and the database is not queried.
    public func exists(_ db: Database, id: RowDecoder.ID) throws -> Bool {
        if id.databaseValue.isNull { return false }
        return try !filter(id: id).isEmpty(db)
    }

    /// Deletes the rows whose primary key is one of `ids`, and returns how many were deleted. An empty
    /// collection deletes nothing without querying the database.
    @discardableResult
    public func deleteAll(_ db: Database, ids: some Collection<RowDecoder.ID>) throws -> Int {
        if ids.isEmpty { return 0 }
        return try filter(ids: ids).deleteAll(db)
    }

    /// Deletes the row whose primary key is `id`, and returns whether there was one. A nil id deletes
    /// nothing without querying the database.
    @discardableResult
    public func deleteOne(_ db: Database, id: RowDecoder.ID) throws -> Bool {
        if id.databaseValue.isNull { return false }
        return try deleteAll(db, ids: [id]) > 0
    }

    /// Selects the primary key, decoded as the record's `ID`: `SELECT "id" FROM "player"`.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> {
        all().selectID()
    }
}
