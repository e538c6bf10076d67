extension Database {
    // MARK: Tables

    /// Creates a table, with the indexes of its ``ColumnDefinition/indexed()`` columns.
    ///
    /// ```swift
    /// try db.create(table: "player", options: .ifNotExists) { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.column("name", .text).notNull()
    /// }
    /// ```
    public func create(table name: String, options: TableOptions = [], body: (TableDefinition) throws -> Void) throws {
        let definition = TableDefinition(name: name, options: options)
        try body(definition)
        try executeSchemaStatements(definition.sql(self))
    }

    /// Creates a table (the older form of ``create(table:options:body:)``).
    @_disfavoredOverload
    public func create(
        table name: String,
        temporary: Bool = false,
        ifNotExists: Bool = false,
        withoutRowID: Bool = false,
        body: (TableDefinition) throws -> Void
    ) throws {
        var options: TableOptions = []
        if temporary { options.insert(.temporary) }
        if ifNotExists { options.insert(.ifNotExists) }
        if withoutRowID { options.insert(.withoutRowID) }
        try create(table: name, options: options, body: body)
    }

    /// Renames a table.
    public func rename(table name: String, to newName: String) throws {
        try execute(sql: "ALTER TABLE \(name.quotedDatabaseIdentifier) RENAME TO \(newName.quotedDatabaseIdentifier)")
    }

    /// Adds, renames or drops columns of a table.
    ///
    /// ```swift
    /// try db.alter(table: "player") { t in
    ///     t.add(column: "score", .integer)
    /// }
    /// ```
    public func alter(table name: String, body: (TableAlteration) -> Void) throws {
        let alteration = TableAlteration(name: name)
        body(alteration)
        try executeSchemaStatements(alteration.sql(self))
    }

    /// Drops a table.
    public func drop(table name: String) throws {
        try execute(sql: "DROP TABLE \(name.quotedDatabaseIdentifier)")
    }

    // MARK: Indexes

    /// Creates an index; `condition` makes it partial (`WHERE …`, its values written inline).
    ///
    /// ```swift
    /// try db.create(index: "player_on_email", on: "player", columns: ["email"], options: .unique)
    /// try db.create(index: "player_on_score", on: "player", columns: ["score"], condition: Column("score") > 0)
    /// ```
    public func create(
        index name: String,
        on table: String,
        columns: [String],
        options: IndexOptions = [],
        condition: (any SQLExpressible)? = nil
    ) throws {
        let index = try IndexGenerator(
            name: name, table: table, expressions: columns.map(SQLExpression.column), options: options,
            condition: condition?.sqlExpression)
        try execute(sql: index.sql)
    }

    /// Creates an index (the older form of ``create(index:on:columns:options:condition:)``).
    @_disfavoredOverload
    public func create(
        index name: String,
        on table: String,
        columns: [String],
        unique: Bool = false,
        ifNotExists: Bool = false,
        condition: (any SQLExpressible)? = nil
    ) throws {
        var options: IndexOptions = []
        if ifNotExists { options.insert(.ifNotExists) }
        if unique { options.insert(.unique) }
        try create(index: name, on: table, columns: columns, options: options, condition: condition)
    }

    /// Creates an index named `index_<table>_on_<columns>`.
    ///
    /// ```swift
    /// try db.create(indexOn: "player", columns: ["score"])  // index_player_on_score
    /// ```
    public func create(
        indexOn table: String,
        columns: [String],
        options: IndexOptions = [],
        condition: (any SQLExpressible)? = nil
    ) throws {
        try create(
            index: Database.defaultIndexName(on: table, columns: columns), on: table, columns: columns,
            options: options, condition: condition)
    }

    /// Drops an index.
    public func drop(index name: String) throws {
        try execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
    }

    /// Drops the index on exactly these columns of `table`, if there is one (and only one).
    public func drop(indexOn table: String, columns: [String]) throws {
        let wanted = columns.map { $0.lowercased() }
        let matches = try indexes(on: table).filter { $0.columns.map { $0.lowercased() } == wanted }
        if matches.count == 1 {
            try drop(index: matches[0].name)
        }
    }

    /// Runs schema statements in order, as one script.
    private func executeSchemaStatements(_ statements: [String]) throws {
        try execute(sql: statements.joined(separator: "; "))
    }
}
