/// An SQL expression whose value is JSON text, with the operators and functions that read into it.
///
/// ```swift
/// // SELECT * FROM player WHERE address ->> 'city' = 'Paris'
/// let address = JSONColumn("address")
/// try Player.filter(address["city"] == "Paris").fetchAll(db)
/// ```
///
/// Such an expression is embedded as JSON, not as quoted text, where JSON is built (`Database.jsonArray`,
/// `Database.jsonObject`, `jsonSet`, …): it is wrapped in `JSON(…)` there.
public protocol SQLJSONExpressible: SQLSpecificExpressible {}

extension ColumnExpression where Self: SQLJSONExpressible {
    /// The column, marked as holding JSON text.
    public var sqlExpression: SQLExpression { SQLExpression.column(name).preferringJSONValue() }
}

/// Any expression used as JSON text: what ``SQLSpecificExpressible/asJSON`` returns.
public struct AnySQLJSONExpressible: SQLJSONExpressible {
    /// The expression, marked as holding JSON text.
    public let sqlExpression: SQLExpression

    /// The JSON expression `base`.
    public init(_ base: some SQLJSONExpressible) {
        sqlExpression = base.sqlExpression.preferringJSONValue()
    }

    init(marking expression: SQLExpression) {
        sqlExpression = expression.preferringJSONValue()
    }
}

extension SQLSpecificExpressible {
    /// The expression read as JSON text: `Column("info").asJSON["name"]` is `info ->> 'name'`, and
    /// `Database.jsonArray([Column("info").asJSON])` is `JSON_ARRAY(JSON(info))`.
    public var asJSON: AnySQLJSONExpressible { AnySQLJSONExpressible(marking: sqlExpression) }
}

extension SQLJSONExpressible {
    /// The SQL value at `path` (SQLite's `->>` operator): `address["city"]` is `address ->> 'city'`.
    ///
    /// - Parameter path: a JSON path (`'$.city'`, `'$[0]'`), or SQLite's short forms: a key (`'city'`) or an
    ///   array index (`0`).
    public subscript(_ path: some SQLExpressible) -> SQLExpression {
        .binary("->>", sqlExpression, path.sqlExpression)
    }

    /// The SQL value at `path`, with `JSON_EXTRACT(self, path)`: a JSON object or array comes back as JSON text.
    public func jsonExtract(atPath path: some SQLExpressible) -> SQLExpression {
        Database.jsonExtract(self, atPath: path)
    }

    /// A JSON array of the values at `paths`, with `JSON_EXTRACT(self, path1, path2, …)`.
    public func jsonExtract(atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        Database.jsonExtract(self, atPaths: paths)
    }

    /// The JSON representation of the value at `path` (SQLite's `->` operator): `address -> 'city'` is the JSON
    /// text `"Paris"`, quotes included.
    public func jsonRepresentation(atPath path: some SQLExpressible) -> SQLExpression {
        .binary("->", sqlExpression, path.sqlExpression)
    }
}
