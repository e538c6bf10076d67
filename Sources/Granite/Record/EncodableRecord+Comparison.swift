// Record comparison: `databaseEquals`, `databaseChanges(from:)`, `hasDatabaseChanges(from:)`.

extension EncodableRecord {
    /// Whether both records encode the same database values.
    ///
    /// ```swift
    /// if !player.databaseEquals(oldPlayer) { try player.update(db) }
    /// ```
    public func databaseEquals(_ record: Self) -> Bool {
        do {
            return try PersistenceContainer(self).changes(from: PersistenceContainer(record)).isEmpty
        } catch {
            // A record that can't be encoded can't be equal to anything in the database.
            return false
        }
    }

    /// The columns whose value differs from `record`, with the values of `record` (NULL for columns
    /// `record` does not encode).
    ///
    /// ```swift
    /// let changes = try newPlayer.databaseChanges(from: oldPlayer) // ["score": 100]
    /// ```
    public func databaseChanges(from record: some EncodableRecord) throws -> [String: DatabaseValue] {
        let changes = try PersistenceContainer(self).changes(from: PersistenceContainer(record))
        return Dictionary(changes, uniquingKeysWith: { first, _ in first })
    }

    /// Applies `modify` and returns the columns it changed, with their former values.
    ///
    /// ```swift
    /// let changes = try player.databaseChanges { $0.score = 1000 } // ["score": 100]
    /// ```
    public mutating func databaseChanges(modify: (inout Self) throws -> Void) throws -> [String: DatabaseValue] {
        let container = try PersistenceContainer(self)
        try modify(&self)
        let changes = try PersistenceContainer(self).changes(from: container)
        return Dictionary(changes, uniquingKeysWith: { first, _ in first })
    }

    /// Whether the record encodes values that differ from `record`.
    public func hasDatabaseChanges(from record: some EncodableRecord) throws -> Bool {
        try !PersistenceContainer(self).changes(from: PersistenceContainer(record)).isEmpty
    }
}
