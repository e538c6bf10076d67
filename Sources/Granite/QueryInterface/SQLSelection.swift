/// A type that can be selected by a request: columns, expressions, `AllColumns()`.
public protocol SQLSelectable {
    /// The selected item.
    var sqlSelection: SQLSelection { get }
}

/// An item of the `SELECT` clause.
///
/// ```swift
/// Player.select(Column("name"), max(Column("score")).forKey("maxScore"))
/// // SELECT "name", MAX("score") AS "maxScore" FROM "player"
/// ```
public struct SQLSelection: SQLSelectable, Sendable {
    enum Impl: Sendable {
        case allColumns
        /// Lower-cased names of excluded columns.
        case allColumnsExcluding(Set<String>)
        case expression(SQLExpression)
        case aliased(SQLExpression, String)
        case literal(SQL)
        /// A selection whose columns belong to the table of an alias: `"p".*`.
        indirect case qualified(SQLSelection, TableAliasBase)
    }

    let impl: Impl

    /// The selection itself.
    public var sqlSelection: SQLSelection { self }

    static func expression(_ expression: SQLExpression) -> SQLSelection { SQLSelection(impl: .expression(expression)) }

    static let allColumns = SQLSelection(impl: .allColumns)

    var isAggregate: Bool {
        switch impl {
        case .expression(let e), .aliased(let e, _): return e.isAggregate
        default: return false
        }
    }

    /// The SQL of the selection in a request on `tableName`.
    func sql(_ context: SQLGenerationContext, tableName: String) throws -> String {
        guard case .allColumnsExcluding(let excluded) = impl else { return try sql(context) }
        let names = try context.db.columns(in: tableName).map(\.name)
        let remaining = names.filter { !excluded.contains($0.lowercased()) }
        if remaining.count == names.count { return try SQLSelection.allColumns.sql(context) }
        return try remaining.map { try SQLExpression.column($0).sql(context) }.joined(separator: ", ")
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .allColumns:
            if let qualifier = context.qualifier { return qualifier.name.quotedDatabaseIdentifier + ".*" }
            return "*"
        case .allColumnsExcluding:
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "allColumns(excluding:) is only supported in table requests")
        case .expression(let e): return try e.sql(context)
        case .aliased(let e, let name): return try e.sql(context) + " AS " + name.quotedDatabaseIdentifier
        case .literal(let literal): return try SQLExpression.literal(literal).sql(context)
        case .qualified(let selection, let alias):
            return try context.qualifying(with: alias) { try selection.sql(context, tableName: alias.tableName()) }
        }
    }
}

/// All columns of a table: `SELECT *`.
///
/// ```swift
/// Player.select(AllColumns(), Column("score") * 2)
/// ```
public struct AllColumns: SQLSelectable, Sendable {
    /// `*`.
    public init() {}

    /// `*`.
    public var sqlSelection: SQLSelection { .allColumns }
}

extension SQLSelectable where Self == AllColumns {
    /// All columns: `static var databaseSelection: [any SQLSelectable] { [.allColumns] }`.
    public static var allColumns: AllColumns { AllColumns() }
}

extension SQLSelectable where Self == Column {
    /// The hidden `rowid` column, for a selection that adds it to the columns:
    /// `static var databaseSelection: [any SQLSelectable] { [.allColumns, .rowID] }`.
    public static var rowID: Self { Column.rowID }
}

/// All columns of a table but some: `static var databaseSelection: [any SQLSelectable] {
/// [.allColumns(excluding: ["generatedColumn"])] }`.
public struct AllColumnsExcluding: SQLSelectable, Sendable {
    let excludedColumns: Set<String>

    /// All columns but `excludedColumns` (compared case-insensitively).
    public init(_ excludedColumns: some Collection<String>) {
        self.excludedColumns = Set(excludedColumns.map { $0.lowercased() })
    }

    /// The selection.
    public var sqlSelection: SQLSelection { SQLSelection(impl: .allColumnsExcluding(excludedColumns)) }
}

extension SQLSelectable where Self == AllColumnsExcluding {
    /// All columns but the named ones.
    public static func allColumns(excluding excludedColumns: some Collection<String>) -> Self {
        AllColumnsExcluding(excludedColumns)
    }

    /// All columns but the given ones.
    public static func allColumns(excluding excludedColumns: some Collection<any ColumnExpression>) -> Self {
        AllColumnsExcluding(excludedColumns.map(\.name))
    }
}

extension SQLSpecificExpressible {
    /// The expression selected under a name: `count(Column("id")).forKey("total")` is `COUNT("id") AS "total"`.
    public func forKey(_ key: String) -> SQLSelection {
        SQLSelection(impl: .aliased(sqlExpression, key))
    }

    /// The expression selected under the name of a coding key.
    public func forKey(_ key: some CodingKey) -> SQLSelection {
        forKey(key.stringValue)
    }
}
