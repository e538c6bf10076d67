/// A column fetched from `PRAGMA table_info` rows: `try ColumnInfo.fetchAll(db, sql: "PRAGMA table_info(player)")`.
extension ColumnInfo: FetchableRecord {}

extension ForeignKeyViolation: FetchableRecord {
    /// A violation from a row of `PRAGMA foreign_key_check`, whose columns are, in order, the origin table, the
    /// origin rowid (NULL for a WITHOUT ROWID table), the destination table and the foreign key identifier.
    ///
    /// ```swift
    /// let violations = try ForeignKeyViolation.fetchAll(db, sql: "PRAGMA foreign_key_check")
    /// ```
    public init(row: Row) {
        self.init(originTable: row[0], originRowID: row[1], destinationTable: row[2], foreignKeyId: row[3])
    }
}
