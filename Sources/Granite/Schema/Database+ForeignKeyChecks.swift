// Foreign key checks, computed from the foreign keys of each table (the engine has no
// `PRAGMA foreign_key_check`): a violation is a row whose foreign key columns are all non-null and match no row
// of the parent table (or whose parent table does not exist).

extension Database {
    /// A cursor of the foreign key violations of all tables, in the order of the schema (GRDB returns a
    /// `RecordCursor`; the violations are computed when the cursor is created).
    ///
    /// ```swift
    /// let violations = try Array(db.foreignKeyViolations())
    /// ```
    public func foreignKeyViolations() throws -> AnyCursor<ForeignKeyViolation> {
        let tables = try String.fetchAll(self, sql: "SELECT name FROM granite_schema WHERE type = 'table'")
        return Self.cursor(try tables.flatMap { try violations(inExistingTable: $0) })
    }

    /// The foreign key violations of one table.
    ///
    /// - throws: `no such table: <name>` when the table does not exist.
    public func foreignKeyViolations(in tableName: String, in schemaName: String? = nil) throws
        -> AnyCursor<ForeignKeyViolation>
    {
        Self.cursor(try violations(inExistingTable: existingTableName(tableName, in: schemaName)))
    }

    /// Throws an `SQLITE_CONSTRAINT_FOREIGNKEY` error for the first foreign key violation, if any.
    public func checkForeignKeys() throws {
        if let violation = try foreignKeyViolations().next() { throw violation.databaseError(self) }
    }

    /// Throws an `SQLITE_CONSTRAINT_FOREIGNKEY` error for the first foreign key violation of a table, if any.
    public func checkForeignKeys(in tableName: String, in schemaName: String? = nil) throws {
        if let violation = try foreignKeyViolations(in: tableName, in: schemaName).next() {
            throw violation.databaseError(self)
        }
    }

    private func violations(inExistingTable table: String) throws -> [ForeignKeyViolation] {
        var result: [ForeignKeyViolation] = []
        let rows = try Row.fetchAll(self, sql: "PRAGMA foreign_key_list(\(table.quotedDatabaseIdentifier))")
        let ids = rows.map { $0["id"] as Int }.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        for id in ids {
            let pairs = rows.filter { ($0["id"] as Int) == id }.sorted { ($0["seq"] as Int) < ($1["seq"] as Int) }
            let parent: String = pairs[0]["table"]
            let origins = pairs.map { $0["from"] as String }
            let child = "c".quotedDatabaseIdentifier
            let notNull = origins.map { "\(child).\($0.quotedDatabaseIdentifier) IS NOT NULL" }
            var sql = "SELECT \(child).rowid FROM \(table.quotedDatabaseIdentifier) AS \(child) WHERE "
            sql += notNull.joined(separator: " AND ")
            if let parentTable = try schemaTableName(parent) {
                var destinations = pairs.compactMap { $0["to"] as String? }
                if destinations.count != pairs.count { destinations = try primaryKey(parentTable).columns }
                let matches = zip(origins, destinations).map { origin, destination in
                    "p.\(destination.quotedDatabaseIdentifier) = \(child).\(origin.quotedDatabaseIdentifier)"
                }
                sql += " AND NOT EXISTS (SELECT 1 FROM \(parentTable.quotedDatabaseIdentifier) AS p WHERE "
                sql += matches.joined(separator: " AND ") + ")"
            }
            for rowid in try Int64.fetchAll(self, sql: sql) {
                result.append(
                    ForeignKeyViolation(
                        originTable: table, originRowID: rowid, destinationTable: parent, foreignKeyId: id))
            }
        }
        return result
    }

    private static func cursor(_ violations: [ForeignKeyViolation]) -> AnyCursor<ForeignKeyViolation> {
        var iterator = violations.makeIterator()
        return AnyCursor { iterator.next() }
    }

    private func schemaTableName(_ name: String) throws -> String? {
        try tableExists(name) ? existingTableName(name, in: nil) : nil
    }
}
