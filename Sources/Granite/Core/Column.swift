/// A type that names a column.
public protocol ColumnExpression: SQLSpecificExpressible {
    /// The column name.
    var name: String { get }
}

/// A column of a table or of a result, by name.
///
/// ```swift
/// let name: String = row[Column("name")]
/// ```
public struct Column: ColumnExpression, Sendable {
    /// The hidden `rowid` column.
    public static let rowID = Column("rowid")

    /// The column name.
    public var name: String

    /// A column named `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// A column named after a coding key (`Column(CodingKeys.score)`).
    public init(_ codingKey: some CodingKey) {
        self.name = codingKey.stringValue
    }
}

extension ColumnExpression where Self: RawRepresentable, Self.RawValue == String {
    /// The raw value: `enum Columns: String, ColumnExpression { case id, name }`.
    public var name: String { rawValue }
}

extension ColumnExpression where Self == Column {
    /// The hidden `rowid` column: `Player.filter(.rowID == 1)`.
    public static var rowID: Self { Column.rowID }
}
