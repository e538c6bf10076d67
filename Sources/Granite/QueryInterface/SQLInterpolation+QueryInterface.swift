// SQL interpolation of query interface values: tables of records, selections, and the hidden rowid column
// as an expression.

extension SQLInterpolation {
    /// The quoted table name of a record's type: `DELETE FROM \(tableOf: player)` is `DELETE FROM "player"`.
    public mutating func appendInterpolation(tableOf record: some TableRecord) {
        appendInterpolation(type(of: record))
    }

    /// The quoted table name of a record's type, for a record of unknown static type.
    @_disfavoredOverload
    public mutating func appendInterpolation(tableOf record: any TableRecord) {
        elements.append(.identifier(type(of: record).databaseTableName))
    }

    /// The quoted table name of a record type of unknown static type.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ table: any TableRecord.Type) {
        elements.append(.identifier(table.databaseTableName))
    }

    /// The quoted name of a table: `SELECT * FROM \(Table("player"))`.
    @_disfavoredOverload
    public mutating func appendInterpolation<T>(_ table: Table<T>) {
        elements.append(.identifier(table.tableName))
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

    /// A selected item: `SELECT \(AllColumns()) FROM player` or `SELECT \(count(Column("id")).forKey("n"))`.
    public mutating func appendInterpolation(_ selection: some SQLSelectable) {
        let selection = selection.sqlSelection
        elements.append(.expression(SQLExpression(impl: .rendered(SQLSubquery { try selection.sql($0) }))))
    }
}

extension SQLExpressible where Self == Column {
    /// The hidden `rowid` column, where an expression is expected: `Player.filter(.rowID == 1)`.
    public static var rowID: Self { Column.rowID }
}
