/// A column that holds JSON text.
///
/// ```swift
/// struct Player: Codable, FetchableRecord, PersistableRecord {
///     var address: Address   // stored as JSON
///     enum Columns {
///         static let address = JSONColumn(CodingKeys.address)
///     }
/// }
///
/// // SELECT * FROM player WHERE address ->> 'country' = 'FR'
/// try Player.filter(Player.Columns.address["country"] == "FR").fetchAll(db)
/// ```
///
/// It reads as an ordinary column, and, where JSON is built (`Database.jsonArray`, `jsonObject`, `jsonSet`…), is
/// embedded as JSON (`JSON("address")`) rather than as quoted text.
public struct JSONColumn: ColumnExpression, SQLJSONExpressible, Sendable {
    /// The column name.
    public var name: String

    /// The JSON column named `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// The JSON column named after a coding key.
    public init(_ codingKey: some CodingKey) {
        self.name = codingKey.stringValue
    }
}
