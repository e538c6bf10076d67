/// The columns that link two tables, for associations whose foreign key can not be read from the schema
/// (or is ambiguous because several foreign keys link the same tables).
///
/// ```swift
/// struct Book: TableRecord {
///     static let authorForeignKey = ForeignKey(["authorId"])
///     static let translatorForeignKey = ForeignKey([Column("translatorId")], to: [Column("id")])
/// }
/// ```
public struct ForeignKey: Equatable, Sendable {
    /// The columns of the origin table (the table that holds the foreign key).
    var originColumns: [String]

    /// The columns of the destination table; nil for its primary key.
    var destinationColumns: [String]?

    /// A foreign key from `originColumns` to `destinationColumns`, or to the primary key of the destination
    /// table when `destinationColumns` is nil.
    public init(_ originColumns: [String], to destinationColumns: [String]? = nil) {
        self.originColumns = originColumns
        self.destinationColumns = destinationColumns
    }

    /// A foreign key from `originColumns` to `destinationColumns`, or to the primary key of the destination
    /// table when `destinationColumns` is nil.
    public init(_ originColumns: [any ColumnExpression], to destinationColumns: [any ColumnExpression]? = nil) {
        self.init(originColumns.map(\.name), to: destinationColumns?.map(\.name))
    }
}
