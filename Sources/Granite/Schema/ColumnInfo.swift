/// A column of a table, as ``Database/columns(in:in:)`` describes it (`PRAGMA table_info`).
///
/// ```swift
/// for column in try db.columns(in: "player") {
///     print(column.name, column.type, column.isNotNull)
/// }
/// ```
public struct ColumnInfo: Sendable {
    let cid: Int
    let hidden: Int?

    /// The column name.
    public let name: String

    /// The declared type, as written in `CREATE TABLE` (empty when the column has none).
    public let type: String

    /// Whether the column has a `NOT NULL` constraint.
    public let isNotNull: Bool

    /// The SQL of the default value, or nil when the column has none.
    ///
    /// ```swift
    /// // "score" INTEGER DEFAULT 0  →  "0"
    /// ```
    public let defaultValueSQL: String?

    /// The position of the column in the primary key, from 1; 0 when it is not part of it.
    public let primaryKeyIndex: Int

    /// A column from a row of `PRAGMA table_info` or `table_xinfo`.
    public init(row: Row) {
        cid = row["cid"]
        name = row["name"]
        type = row["type"]
        isNotNull = row["notnull"]
        defaultValueSQL = row["dflt_value"]
        primaryKeyIndex = row["pk"]
        hidden = row["hidden"]
    }

    /// The declared type as a ``Database/ColumnType``, or nil when the column has none.
    var columnType: Database.ColumnType? {
        type.isEmpty ? nil : Database.ColumnType(rawValue: type)
    }
}
