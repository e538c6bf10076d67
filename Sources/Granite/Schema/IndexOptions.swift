/// Options of ``Database/create(index:on:columns:options:condition:)``.
public struct IndexOptions: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates options.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: does nothing when the index exists.
    public static let ifNotExists = IndexOptions(rawValue: 1 << 0)

    /// `UNIQUE`: the indexed values must be unique.
    public static let unique = IndexOptions(rawValue: 1 << 1)
}

/// The `CREATE INDEX` statement of an index.
struct IndexGenerator {
    var name: String
    var table: String
    var columns: [String]
    var options: IndexOptions
    var condition: String?

    var sql: String {
        var sql = "CREATE"
        if options.contains(.unique) { sql += " UNIQUE" }
        sql += " INDEX"
        if options.contains(.ifNotExists) { sql += " IF NOT EXISTS" }
        sql += " \(name.quotedDatabaseIdentifier) ON \(table.quotedDatabaseIdentifier)"
        sql += SchemaSQL.columnList(columns)
        if let condition { sql += " WHERE \(condition)" }
        return sql
    }
}

extension Database {
    /// The name of the index created by ``create(indexOn:columns:options:condition:)``: `index_<table>_on_<columns>`.
    static func defaultIndexName(on table: String, columns: [String]) -> String {
        "index_\(table)_on_\(columns.joined(separator: "_"))"
    }
}
