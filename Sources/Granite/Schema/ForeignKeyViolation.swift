/// A row whose foreign key references no parent row, as ``Database/foreignKeyViolations()`` reports it.
///
/// ```swift
/// for violation in try db.foreignKeyViolations() {
///     print(violation.originTable, violation.originRowID ?? 0, violation.destinationTable)
/// }
/// ```
public struct ForeignKeyViolation: Sendable {
    /// The table of the row that violates the foreign key.
    public var originTable: String

    /// The rowid of the row that violates the foreign key.
    public var originRowID: Int64?

    /// The referenced table.
    public var destinationTable: String

    /// The identifier of the foreign key (``ForeignKeyInfo/id``).
    public var foreignKeyId: Int

    /// A description of the violation with the columns of the foreign key and the faulty row.
    public func failureDescription(_ db: Database) throws -> String {
        let foreignKey = try db.foreignKeys(on: originTable).first { $0.id == foreignKeyId }
        var description: String
        if let foreignKey {
            description =
                "FOREIGN KEY constraint violation - from \(originTable)("
                + foreignKey.originColumns.joined(separator: ", ") + ") to \(destinationTable)("
                + foreignKey.destinationColumns.joined(separator: ", ") + ")"
        } else {
            description = "FOREIGN KEY constraint violation - from \(originTable) to \(destinationTable)"
        }
        if let originRowID {
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM \(originTable.quotedDatabaseIdentifier) WHERE rowid = \(originRowID)")
            if let row {
                description += ", in \(row)"
            } else {
                description += ", in rowid \(originRowID)"
            }
        }
        return description
    }

    /// The `SQLITE_CONSTRAINT_FOREIGNKEY` error for this violation.
    public func databaseError(_ db: Database) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: (try? failureDescription(db)) ?? description)
    }
}

extension ForeignKeyViolation: CustomStringConvertible {
    /// The tables of the violation, and its rowid.
    public var description: String {
        var text = "FOREIGN KEY constraint violation - from \(originTable) to \(destinationTable)"
        if let originRowID { text += ", in rowid \(originRowID)" }
        return text
    }
}
