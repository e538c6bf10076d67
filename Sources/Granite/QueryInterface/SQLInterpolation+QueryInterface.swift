// The interpolations of query interface values in SQL literals: tables and records, selections, orderings,
// expressions and values, coding keys, lists and collations. Values become statement arguments (`?`), nil
// becomes `NULL`, identifiers are quoted.

extension SQLInterpolation {
    // MARK: Tables and records

    /// The quoted table name of a record type: `SELECT * FROM \(Player.self)` is `SELECT * FROM "player"`.
    public mutating func appendInterpolation(_ table: (some TableRecord).Type) {
        elements.append(.identifier(table.databaseTableName))
    }

    /// The quoted table name of a record type known as an existential.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ table: any TableRecord.Type) {
        elements.append(.identifier(table.databaseTableName))
    }

    /// The quoted name of a table: `\(Table("player"))` is `"player"`.
    @_disfavoredOverload
    public mutating func appendInterpolation<T>(_ table: Table<T>) {
        elements.append(.identifier(table.tableName))
    }

    /// The quoted table name of a record's type: `DELETE FROM \(tableOf: player)`.
    public mutating func appendInterpolation(tableOf record: some TableRecord) {
        appendInterpolation(type(of: record))
    }

    /// The quoted table name of the type of a record known as an existential.
    @_disfavoredOverload
    public mutating func appendInterpolation(tableOf record: any TableRecord) {
        appendInterpolation(type(of: record))
    }

    /// The selected columns of a record type, qualified with its table name or with `tableAlias`:
    /// `SELECT \(columnsOf: Player.self) FROM player` is `SELECT "player".* FROM player`, and
    /// `SELECT \(columnsOf: Player.self, tableAlias: "p") FROM player p` is `SELECT "p".* FROM player p`.
    /// A `databaseSelection` that excludes columns is expanded with the columns of the table.
    public mutating func appendInterpolation(columnsOf recordType: (some TableRecord).Type, tableAlias: String? = nil) {
        let tableName = recordType.databaseTableName
        let alias = TableAlias(name: tableAlias ?? tableName)
        alias.bind(toTable: tableName)
        let selections = recordType.databaseSelection.map { $0.sqlSelection.qualified(with: alias) }
        let columns = SQLSubquery { context in
            try selections.map { try $0.sql(context, tableName: tableName) }.joined(separator: ", ")
        }
        elements.append(.expression(SQLExpression(impl: .rendered(columns))))
    }

    // MARK: Selections and orderings

    /// A selected item: `\(AllColumns())` is `*`, `\(Column("a").forKey("b"))` is `"a" AS "b"`.
    public mutating func appendInterpolation(_ selection: some SQLSelectable) {
        appendSelection(selection.sqlSelection)
    }

    /// A selected item known as an existential, or `NULL` for nil.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ selection: (any SQLSelectable)?) {
        if let selection {
            appendSelection(selection.sqlSelection)
        } else {
            appendLiteral("NULL")
        }
    }

    /// An ordering term: `\(Column("score").desc)` is `"score" DESC`.
    public mutating func appendInterpolation(_ orderingTerm: some SQLOrderingTerm) {
        appendOrdering(orderingTerm.sqlOrdering)
    }

    /// An ordering term known as an existential.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ orderingTerm: any SQLOrderingTerm) {
        appendOrdering(orderingTerm.sqlOrdering)
    }

    // MARK: Expressions and values

    /// An expression that is also selectable and sortable (columns, operators, functions, `DatabaseValue`):
    /// `\(Column("score") + 1)` is `"score" + ?` with the argument 1.
    public mutating func appendInterpolation(_ expressible: some SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        elements.append(.expression(expressible.sqlExpression))
    }

    /// A value or expression: values are arguments (`\(42)` is `?` with the argument 42), and nil is `NULL`.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ expressible: (any SQLExpressible)?) {
        if let expressible {
            elements.append(.expression(expressible.sqlExpression))
        } else {
            appendLiteral("NULL")
        }
    }

    // MARK: Coding keys

    /// The column named by a coding key, quoted: `\(CodingKeys.score)` is `"score"`.
    public mutating func appendInterpolation(_ key: some CodingKey) {
        elements.append(.identifier(key.stringValue))
    }

    /// The column named by a coding key that is also a column expression, quoted.
    public mutating func appendInterpolation(_ key: some CodingKey & SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        elements.append(.identifier(key.stringValue))
    }

    /// The column named by a coding key known as an existential, quoted.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ key: any CodingKey) {
        elements.append(.identifier(key.stringValue))
    }

    // MARK: Lists

    /// A parenthesised list, for `IN`: `\([1, 2, 3])` is `(?,?,?)` with three arguments, and an empty list is
    /// `(SELECT NULL WHERE NULL)`, an empty set that SQLite accepts where a list is expected.
    public mutating func appendInterpolation(_ sequence: some Sequence<some SQLExpressible>) {
        appendList(sequence.map(\.sqlExpression))
    }

    /// A parenthesised list of expressions known as existentials; see the generic version.
    public mutating func appendInterpolation(_ sequence: some Sequence<any SQLExpressible>) {
        appendList(sequence.map(\.sqlExpression))
    }

    /// A value that is both an expression and a sequence of expressions (`Data`, a sequence of bytes) is one
    /// expression: `\(data)` is `?`, not a list.
    public mutating func appendInterpolation<S>(_ expressible: S)
    where S: SQLExpressible, S: Sequence, S.Element: SQLExpressible {
        elements.append(.expression(expressible.sqlExpression))
    }

    // MARK: Collations

    /// The name of a collation, unquoted: `ORDER BY name COLLATE \(Database.CollationName.nocase)`.
    public mutating func appendInterpolation(_ collation: Database.CollationName) {
        appendLiteral(collation.rawValue)
    }

    // MARK: Rendering

    private mutating func appendList(_ expressions: [SQLExpression]) {
        if expressions.isEmpty {
            appendLiteral("(SELECT NULL WHERE NULL)")
            return
        }
        appendLiteral("(")
        for (index, expression) in expressions.enumerated() {
            if index > 0 { appendLiteral(",") }
            elements.append(.expression(expression))
        }
        appendLiteral(")")
    }

    private mutating func appendSelection(_ selection: SQLSelection) {
        appendRendered { context in try selection.sql(context) }
    }

    private mutating func appendOrdering(_ ordering: SQLOrdering) {
        appendRendered { context in try ordering.sql(context) }
    }

    /// SQL that is generated when the literal is built, in the context of its statement.
    private mutating func appendRendered(_ render: @escaping @Sendable (SQLGenerationContext) throws -> String) {
        elements.append(.expression(SQLExpression(impl: .rendered(SQLSubquery(render: render)))))
    }
}

extension SQLExpressible where Self == Column {
    /// The hidden `rowid` column, where an expression is expected: `Player.filter(.rowID == 1)`.
    public static var rowID: Self { Column.rowID }
}
