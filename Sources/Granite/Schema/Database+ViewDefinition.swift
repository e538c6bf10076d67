/// Options of ``Database/create(view:options:columns:asLiteral:)``.
public struct ViewOptions: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates options from their raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: creating a view that already exists does nothing instead of failing.
    public static let ifNotExists = ViewOptions(rawValue: 1 << 0)

    /// `TEMPORARY`: a view of the connection's temporary schema, which only this connection sees and which
    /// vanishes when it closes.
    public static let temporary = ViewOptions(rawValue: 1 << 1)
}

extension Database {
    // MARK: Views

    /// Creates a view from an SQL literal, as `CREATE VIEW "name" ("a", "b") AS <select>`.
    ///
    /// Values interpolated in `sqlLiteral` are written inline (`'O''Brien'`), since a view's definition takes
    /// no arguments.
    ///
    /// ```swift
    /// try db.create(view: "bestPlayer", asLiteral: "SELECT * FROM player WHERE score > \(1000)")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The view name.
    ///   - options: `IF NOT EXISTS`, `TEMPORARY`.
    ///   - columns: The names of the view's columns, when they differ from those of the select statement.
    ///   - sqlLiteral: The `SELECT` statement of the view.
    /// - Throws: A ``DatabaseError``: the name is taken.
    public func create(
        view name: String, options: ViewOptions = [], columns: [String]? = nil, asLiteral sqlLiteral: SQL
    ) throws {
        var chunks = ["CREATE"]
        if options.contains(.temporary) { chunks.append("TEMPORARY") }
        chunks.append("VIEW")
        if options.contains(.ifNotExists) { chunks.append("IF NOT EXISTS") }
        chunks.append(name.quotedDatabaseIdentifier)
        if let columns { chunks.append(SchemaSQL.columnList(columns)) }
        chunks.append("AS")
        chunks.append(try SchemaSQL.inline(sqlLiteral, in: self))
        try execute(sql: chunks.joined(separator: " "))
    }

    /// Creates a view from a request, as `CREATE VIEW "name" AS <the request's SELECT>`.
    ///
    /// The request's arguments are written inline, since a view's definition takes no arguments.
    ///
    /// ```swift
    /// try db.create(view: "bestPlayer", as: Player.filter(Column("score") > 1000))
    /// // CREATE VIEW "bestPlayer" AS SELECT * FROM "player" WHERE "score" > 1000
    /// ```
    ///
    /// - Parameters:
    ///   - name: The view name.
    ///   - options: `IF NOT EXISTS`, `TEMPORARY`.
    ///   - columns: The names of the view's columns, when they differ from those the request selects.
    ///   - request: The request whose `SELECT` statement defines the view.
    /// - Throws: A ``DatabaseError``: the name is taken.
    public func create(
        view name: String, options: ViewOptions = [], columns: [String]? = nil, as request: any SQLSubqueryable
    ) throws {
        try create(view: name, options: options, columns: columns, asLiteral: SQL(subqueryOf: request))
    }

    /// Drops a view, as `DROP VIEW "name"`.
    ///
    /// - Throws: A ``DatabaseError`` when there is no such view.
    public func drop(view name: String) throws {
        try execute(sql: "DROP VIEW \(name.quotedDatabaseIdentifier)")
    }
}

extension SQL {
    /// The `SELECT` statement of a subqueryable, without parentheses.
    fileprivate init(subqueryOf request: some SQLSubqueryable) {
        self = "\(request)"
    }
}
