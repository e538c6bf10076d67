import GraniteStorage

extension SQLConnection {
    /// The problems `PRAGMA integrity_check` (or, when `quick`, `PRAGMA quick_check`) reports, up to `limit`: the
    /// storage layer's structural check, then every row and index entry (see ``DatabaseCheck``). Runs in the
    /// caller's read transaction. With `table`, only that table and its indexes are checked.
    package func integrityProblems(quick: Bool = false, limit: Int = 100, table: String? = nil) -> [String] {
        guard let transaction = storageTransaction.transaction else { return ["\(StorageError.noActiveTransaction)"] }
        var check = DatabaseCheck(
            catalog: catalog, transaction: transaction, quick: quick, limit: limit, counters: counters)
        check.onlyTable = table
        check.run()
        return check.problems
    }

    /// The problems of the rows and index entries only, up to `limit`, after a structural check the caller ran
    /// (`granite check`, which reports the structural check's statistics too). Opens a read transaction unless
    /// one is open.
    package func logicalProblems(limit: Int) throws -> [String] {
        let body = {
            var check = DatabaseCheck(
                catalog: self.catalog, transaction: try self.currentTransaction(), quick: false, limit: limit,
                counters: self.counters)
            check.runLogical()
            return check.problems
        }
        return try readingEngine(body)
    }
}
