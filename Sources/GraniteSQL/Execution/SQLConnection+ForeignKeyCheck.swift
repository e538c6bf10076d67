// PRAGMA foreign_key_check: the child rows whose parent row is missing, found by reading the tables (the rows may
// have been written while foreign keys were off, which leaves no outstanding violation to count).

import GraniteStorage

extension SQLConnection {
    /// `PRAGMA foreign_key_check[(table)]`: for each row of the table (of every table without an argument), in
    /// rowid order, each of its foreign keys (numbered from the last declared, as `foreign_key_list` does) whose
    /// child key has no NULL and matches no parent row, as SQLite 3.40 reports them: a missing parent table has no
    /// row to match. A parent key that is not the parent's primary key or a unique index is SQLite's
    /// `foreign key mismatch`, raised before any row is read.
    func foreignKeyCheck(_ name: String?) throws -> PragmaResult {
        let columns = ["table", "rowid", "parent", "fkid"]
        var tables = catalog.tables.sorted { $0.schemaRowid < $1.schemaRowid }
        if let name {
            // The schema table has no foreign key.
            if SchemaCatalog.schemaTable(named: name) != nil { return (columns, []) }
            guard let table = catalog.table(named: name) else { throw SQLExecutionError.noSuchTable(name) }
            tables = [table]
        }
        return try reading {
            let session = makeSession(BoundParameters())
            var rows: [[Value]] = []
            for table in tables where !table.foreignKeys.isEmpty {
                rows += try violations(of: table, session)
            }
            return (columns, rows)
        }
    }

    /// The foreign key violations of the rows of `table`.
    private func violations(of table: TableDefinition, _ session: WriteSession) throws -> [[Value]] {
        // The keys by their number (the last declared first), each with its parent key (nil: no parent table).
        var keys: [(number: Int, key: Int, parent: ParentKey?)] = []
        for (number, k) in table.foreignKeys.indices.reversed().enumerated() {
            let parentKey: ParentKey?
            if catalog.table(named: table.foreignKeys[k].parentTable) == nil {
                parentKey = nil
            } else {
                parentKey = try session.parentKey(table, k)
            }
            keys.append((number, k, parentKey))
        }
        let writer = try session.writer(table)
        var found: [[Value]] = []
        try writer.scan(inBatches: { rows in
            for row in rows {
                for (number, k, parentKey) in keys {
                    let values = table.foreignKeys[k].columns.map { row[$0] }
                    if values.contains(where: \.isNull) { continue }
                    if let parentKey, try session.parentExists(parentKey, values) { continue }
                    found.append([
                        // SQLite reports no rowid for a row of a WITHOUT ROWID table.
                        .text(table.name), table.hasRowid ? row[table.columns.count] : .null,
                        .text(table.foreignKeys[k].parentTable),
                        .integer(Int64(number)),
                    ])
                }
            }
        })
        return found
    }
}
