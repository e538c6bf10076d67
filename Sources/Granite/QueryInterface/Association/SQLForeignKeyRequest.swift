/// Finds the columns that link an origin table (which holds a foreign key) to a destination table.
///
/// A ``ForeignKey`` with both column lists is used as is. Otherwise the foreign keys of the schema that go to
/// the destination (and match the given columns) are looked up; when there is none, the given origin columns
/// are matched with the primary key of the destination.
struct SQLForeignKeyRequest {
    var originTable: String
    var destinationTable: String
    var originColumns: [String]?
    var destinationColumns: [String]?

    init(originTable: String, destinationTable: String, foreignKey: ForeignKey?) {
        self.originTable = originTable
        self.destinationTable = destinationTable
        self.originColumns = foreignKey?.originColumns
        self.destinationColumns = foreignKey?.destinationColumns
    }

    /// The (origin, destination) column pairs.
    ///
    /// - throws: `SQLITE_MISUSE` when the foreign key is missing or ambiguous, or when the columns of an
    ///   explicit foreign key do not pair up; `no such table` for an unknown table.
    func fetchMapping(_ db: Database) throws -> [(origin: String, destination: String)] {
        if let originColumns, let destinationColumns {
            guard originColumns.count == destinationColumns.count else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Number of columns don't match")
            }
            return Array(zip(originColumns, destinationColumns))
        }
        let originIsView = try isView(db, originTable)
        if !originIsView {
            let candidates = try db.cachedForeignKeys(originTable).filter(matches)
            if let foreignKey = candidates.first {
                guard candidates.count == 1 else { throw ambiguityError() }
                return foreignKey.mapping
            }
        } else if originColumns == nil {
            throw inferenceError()
        }
        return try primaryKeyMapping(db)
    }

    /// Whether a foreign key of the schema goes to the destination, from and to the given columns.
    private func matches(_ foreignKey: ForeignKeyInfo) -> Bool {
        guard foreignKey.destinationTable.lowercased() == destinationTable.lowercased() else { return false }
        if let originColumns,
            Set(originColumns.map { $0.lowercased() }) != Set(foreignKey.originColumns.map { $0.lowercased() })
        {
            return false
        }
        if let destinationColumns,
            Set(destinationColumns.map { $0.lowercased() })
                != Set(foreignKey.destinationColumns.map { $0.lowercased() })
        {
            return false
        }
        return true
    }

    /// The given origin columns paired with the primary key of the destination.
    private func primaryKeyMapping(_ db: Database) throws -> [(origin: String, destination: String)] {
        guard let originColumns else { throw inferenceError() }
        if try isView(db, destinationTable) {
            throw inferenceError(suffix: ", with both origin and destination columns")
        }
        let primaryKey = try db.cachedPrimaryKey(destinationTable).columns
        guard primaryKey.count == originColumns.count else { throw inferenceError() }
        return Array(zip(originColumns, primaryKey))
    }

    /// Whether `table` is a view; `no such table` when it is neither a table nor a view.
    private func isView(_ db: Database, _ table: String) throws -> Bool {
        if try db.cachedTableExists(table) { return false }
        if try db.viewExists(table) { return true }
        throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
    }

    private func ambiguityError() -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "Ambiguous foreign key from '\(originTable)' to '\(destinationTable)'. "
                + "To fix this error, provide an explicit `ForeignKey` in the association definition.")
    }

    private func inferenceError(suffix: String = "") -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "Could not infer foreign key from '\(originTable)' to '\(destinationTable)'. "
                + "To fix this error, provide an explicit `ForeignKey` in the association definition\(suffix).")
    }
}
