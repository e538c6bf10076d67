extension TableRecord {
    /// The number of columns that ``databaseSelection`` selects, counting the columns of the table for
    /// `.allColumns` and `.allColumns(excluding:)`.
    ///
    /// ```swift
    /// // player(id, name, score)
    /// try Player.numberOfSelectedColumns(db)        // 3 (SELECT *)
    /// try PartialPlayer.numberOfSelectedColumns(db) // 2 (SELECT "id", "name")
    /// ```
    ///
    /// - throws: A ``DatabaseError`` when the table does not exist, or, with `SQLITE_MISUSE`, when the
    ///   selection contains an SQL literal, whose columns can't be counted without parsing it.
    public static func numberOfSelectedColumns(_ db: Database) throws -> Int {
        var tableColumnNames: [String]?
        func columnNames() throws -> [String] {
            if let tableColumnNames { return tableColumnNames }
            let names = try db.columns(in: databaseTableName).map(\.name)
            tableColumnNames = names
            return names
        }

        func columnCount(of selection: SQLSelection) throws -> Int {
            switch selection.impl {
            case .allColumns:
                return try columnNames().count
            case .allColumnsExcluding(let lowercasedExcludedNames):
                return try columnNames().count { !lowercasedExcludedNames.contains($0.lowercased()) }
            case .expression, .aliased:
                return 1
            case .qualified(let selection, _):
                return try columnCount(of: selection)
            case .literal:
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "Selection literals don't known how many columns they contain. "
                        + "To resolve this error, select one or several expressions instead.")
            }
        }

        var count = 0
        for selectable in databaseSelection {
            count += try columnCount(of: selectable.sqlSelection)
        }
        return count
    }
}
