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
    /// The SQL of each indexed term: a quoted column name, or an expression.
    var terms: [String]
    var options: IndexOptions
    var condition: String?

    /// An index on plain columns.
    init(name: String, table: String, columns: [String], options: IndexOptions, condition: String?) {
        self.init(
            name: name, table: table, terms: columns.map(\.quotedDatabaseIdentifier), options: options,
            condition: condition)
    }

    /// An index on expressions, rendered with their values inline (schema statements take no arguments).
    init(
        name: String, table: String, expressions: [SQLExpression], options: IndexOptions, condition: SQLExpression?
    ) throws {
        self.init(
            name: name, table: table, terms: try expressions.map(SchemaSQL.inline), options: options,
            condition: try condition.map(SchemaSQL.inline))
    }

    private init(name: String, table: String, terms: [String], options: IndexOptions, condition: String?) {
        self.name = name
        self.table = table
        self.terms = terms
        self.options = options
        self.condition = condition
    }

    var sql: String {
        var sql = "CREATE"
        if options.contains(.unique) { sql += " UNIQUE" }
        sql += " INDEX"
        if options.contains(.ifNotExists) { sql += " IF NOT EXISTS" }
        sql += " \(name.quotedDatabaseIdentifier) ON \(table.quotedDatabaseIdentifier)"
        sql += "(" + terms.joined(separator: ", ") + ")"
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
