/// A foreign key, as ``Database/foreignKeys(on:in:)`` describes it.
///
/// ```swift
/// for foreignKey in try db.foreignKeys(on: "player") {
///     print(foreignKey.destinationTable, foreignKey.originColumns, foreignKey.destinationColumns)
/// }
/// ```
public struct ForeignKeyInfo: Sendable {
    /// The foreign key identifier (`id` of `PRAGMA foreign_key_list`).
    public var id: Int

    /// The referenced table.
    public let destinationTable: String

    /// The pairs of origin and destination columns.
    public let mapping: [(origin: String, destination: String)]

    /// The columns of the origin table.
    public var originColumns: [String] { mapping.map(\.origin) }

    /// The referenced columns of the destination table.
    public var destinationColumns: [String] { mapping.map(\.destination) }
}
