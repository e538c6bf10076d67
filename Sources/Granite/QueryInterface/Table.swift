/// A database table, for building requests without a record type.
///
/// ```swift
/// let table = Table("player")
/// let rows = try table.filter(Column("score") > 1000).fetchAll(db)   // [Row]
/// let players = try Table<Player>("player").all().fetchAll(db)        // [Player]
/// try Table("player").deleteAll(db)
/// ```
public struct Table<RowDecoder>: Sendable {
    /// The table name.
    public var tableName: String

    /// The table named `tableName`, decoding rows as `type`.
    public init(_ tableName: String, type: RowDecoder.Type = RowDecoder.self) {
        self.tableName = tableName
    }
}

extension Table where RowDecoder == Row {
    /// The table named `tableName`, fetching rows.
    public init(_ tableName: String) {
        self.tableName = tableName
    }
}

extension Table {
    /// All rows: `SELECT * FROM "table"`.
    public func all() -> QueryInterfaceRequest<RowDecoder> {
        QueryInterfaceRequest(relation: SQLRelation(tableName: tableName, selection: [.allColumns]))
    }

    /// A request that fetches nothing.
    public func none() -> QueryInterfaceRequest<RowDecoder> { all().none() }

    /// Selects columns.
    public func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> {
        all().select(selection)
    }

    /// Selects columns.
    public func select(_ selection: [any SQLSelectable]) -> QueryInterfaceRequest<RowDecoder> {
        all().select(selection)
    }

    /// Selects with raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments())
        -> QueryInterfaceRequest<RowDecoder>
    {
        all().select(sql: sql, arguments: arguments)
    }

    /// Selects with an SQL literal.
    public func select(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> {
        all().select(literal: sqlLiteral)
    }

    /// Selects columns decoded as `type`.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }

    /// Selects columns decoded as `type`.
    public func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }

    /// Selects the primary key, decoded as `type`.
    public func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self)
        -> QueryInterfaceRequest<PrimaryKey>
    {
        all().selectPrimaryKey(as: type)
    }

    /// Appends to the selection.
    public func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: selection)
    }

    /// Filters.
    public func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(predicate)
    }

    /// Filters with raw SQL.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments())
        -> QueryInterfaceRequest<RowDecoder>
    {
        all().filter(sql: sql, arguments: arguments)
    }

    /// Filters with an SQL literal.
    public func filter(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(literal: sqlLiteral)
    }

    /// Filters by primary key.
    public func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(key: key)
    }

    /// Filters by primary keys.
    public func filter(keys: some Collection<some DatabaseValueConvertible>) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(keys: keys)
    }

    /// Filters by a primary or unique key.
    public func filter(key: [String: (any DatabaseValueConvertible)?]?) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(key: key)
    }

    /// Filters by primary or unique keys.
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(keys: keys)
    }

    /// Orders.
    public func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<RowDecoder> {
        all().order(orderings)
    }

    /// Orders.
    public func order(_ orderings: [any SQLOrderingTerm]) -> QueryInterfaceRequest<RowDecoder> {
        all().order(orderings)
    }

    /// Orders with raw SQL.
    public func order(sql: String, arguments: StatementArguments = StatementArguments())
        -> QueryInterfaceRequest<RowDecoder>
    {
        all().order(sql: sql, arguments: arguments)
    }

    /// Orders with an SQL literal.
    public func order(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> {
        all().order(literal: sqlLiteral)
    }

    /// Orders by primary key.
    public func orderByPrimaryKey() -> QueryInterfaceRequest<RowDecoder> {
        all().orderByPrimaryKey()
    }

    /// Limits.
    public func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<RowDecoder> {
        all().limit(limit, offset: offset)
    }

    /// The number of rows.
    public func fetchCount(_ db: Database) throws -> Int {
        try all().fetchCount(db)
    }

    /// Whether a row has this primary key.
    public func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Whether a row has this primary or unique key.
    public func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Deletes all rows; returns the number of deleted rows.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        try all().deleteAll(db)
    }

    /// Deletes the rows with these primary keys.
    @discardableResult
    public func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary key; returns whether a row was deleted.
    @discardableResult
    public func deleteOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        if key.databaseValue.isNull { return false }
        return try filter(key: key).deleteAll(db) > 0
    }

    /// Deletes the rows with these primary or unique keys.
    @discardableResult
    public func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary or unique key; returns whether a row was deleted.
    @discardableResult
    public func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try filter(key: key).deleteAll(db) > 0
    }

    /// Updates all rows; returns the number of updated rows.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]
    ) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates all rows; returns the number of updated rows.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: ColumnAssignment...
    ) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }
}

extension Table where RowDecoder == Row {
    /// A cursor over all rows.
    public func fetchCursor(_ db: Database) throws -> RowCursor { try all().fetchCursor(db) }

    /// All rows.
    public func fetchAll(_ db: Database) throws -> [Row] { try all().fetchAll(db) }

    /// A row (`LIMIT 1`), if any.
    public func fetchOne(_ db: Database) throws -> Row? { try all().fetchOne(db) }

    /// The distinct rows.
    public func fetchSet(_ db: Database) throws -> Set<Row> { try all().fetchSet(db) }

    /// The row with this primary key, if any.
    public func fetchOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Row? {
        if key.databaseValue.isNull { return nil }
        return try filter(key: key).fetchOne(db)
    }

    /// The row with this primary or unique key, if any.
    public func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]?) throws -> Row? {
        guard let key else { return nil }
        return try filter(key: key).fetchOne(db)
    }
}

extension Table where RowDecoder: FetchableRecord {
    /// A cursor over all records.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> { try all().fetchCursor(db) }

    /// All records.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try all().fetchAll(db) }

    /// A record (`LIMIT 1`), if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try all().fetchOne(db) }

    /// The record with this primary key, if any.
    public func fetchOne(_ db: Database, key: some DatabaseValueConvertible) throws -> RowDecoder? {
        if key.databaseValue.isNull { return nil }
        return try filter(key: key).fetchOne(db)
    }

    /// The record with this primary or unique key, if any.
    public func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]?) throws -> RowDecoder? {
        guard let key else { return nil }
        return try filter(key: key).fetchOne(db)
    }
}

extension Table where RowDecoder: FetchableRecord & Hashable {
    /// The distinct records.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try all().fetchSet(db) }
}
