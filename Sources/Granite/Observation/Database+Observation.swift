extension Database {
    /// Adds `region` to the region the current observation tracks, when one records what it reads (as
    /// ``ValueObservation`` does while fetching); does nothing otherwise. Use it for reads the statements do not
    /// show, such as a value cached outside the database.
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking { db in
    ///     try db.registerAccess(to: Table("player"))
    ///     return cachedPlayers
    /// }
    /// ```
    public func registerAccess(to region: @autoclosure () -> some DatabaseRegionConvertible) throws {
        guard recordedRegion != nil else { return }
        recordedRegion!.formUnion(try region().databaseRegion(self))
    }

    /// Tells the transaction observers that `region` changed, for changes Granite cannot see (made by another
    /// process, or by a virtual table). Each observer interested in the region hears
    /// ``TransactionObserver/databaseDidChange()``, then, with the end of the transaction, of the commit. Outside
    /// a transaction, the call is a transaction of its own. Does nothing on a read-only connection.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.notifyChanges(in: Table("player"))
    /// }
    /// ```
    public func notifyChanges(in region: some DatabaseRegionConvertible) throws {
        guard !isReadOnly, let observationBroker, observationBroker.hasObservers else { return }
        let eventKinds = try changeKinds(in: region.databaseRegion(self))
        if isInsideTransaction {
            observationBroker.notifyChanges(withEventsOfKinds: eventKinds)
        } else {
            try inTransaction {
                observationBroker.notifyChanges(withEventsOfKinds: eventKinds)
                return .commit
            }
        }
    }

    /// The kinds of changes that may modify `region`: insertions, deletions and updates of its columns, for each
    /// of its tables that exists (every table for the full database).
    private func changeKinds(in region: DatabaseRegion) throws -> [DatabaseEventKind] {
        let tableNames: [String]
        if let names = region.tableNames {
            tableNames = names
        } else {
            tableNames = try String.fetchAll(
                self,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        }
        var kinds: [DatabaseEventKind] = []
        for name in tableNames where try tableExists(name) {
            let columns = try columns(in: name)
            let canonical =
                try String.fetchOne(
                    self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
                    arguments: [name]) ?? name
            let touched = Set(columns.map(\.name)).filter {
                region.isModified(byEventsOfKind: .update(tableName: canonical, columnNames: [$0]))
            }
            kinds.append(.insert(tableName: canonical))
            kinds.append(.delete(tableName: canonical))
            kinds.append(.update(tableName: canonical, columnNames: touched))
        }
        return kinds
    }
}
