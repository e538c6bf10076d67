// Query interface requests built from record types: `Player.filter(…)`, `Player.order(\.score.desc)`.

extension TableRecord {
    /// All rows of the table, with the record's ``TableRecord/databaseSelection``.
    public static func all() -> QueryInterfaceRequest<Self> {
        QueryInterfaceRequest(
            relation: SQLRelation(tableName: databaseTableName, selection: databaseSelection.map(\.sqlSelection)))
    }

    /// A request that fetches nothing.
    public static func none() -> QueryInterfaceRequest<Self> { all().none() }

    /// Selects columns: `Player.select(Column("name"))`.
    public static func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> {
        all().select(selection)
    }

    /// Selects columns.
    public static func select(_ selection: [any SQLSelectable]) -> QueryInterfaceRequest<Self> {
        all().select(selection)
    }

    /// Selects with raw SQL.
    public static func select(sql: String, arguments: StatementArguments = StatementArguments())
        -> QueryInterfaceRequest<Self>
    {
        all().select(sql: sql, arguments: arguments)
    }

    /// Selects with an SQL literal.
    public static func select(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> {
        all().select(literal: sqlLiteral)
    }

    /// Selects columns decoded as `type`: `Player.select(Column("name"), as: String.self)`.
    public static func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self)
        -> QueryInterfaceRequest<T>
    {
        all().select(selection, as: type)
    }

    /// Selects columns decoded as `type`.
    public static func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self)
        -> QueryInterfaceRequest<T>
    {
        all().select(selection, as: type)
    }

    /// Selects with raw SQL, decoded as `type`.
    public static func select<T>(
        sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self
    ) -> QueryInterfaceRequest<T> {
        all().select(sql: sql, arguments: arguments, as: type)
    }

    /// Selects with an SQL literal, decoded as `type`.
    public static func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(literal: sqlLiteral, as: type)
    }

    /// Selects the primary key: `Player.selectPrimaryKey(as: Int64.self)`.
    public static func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self)
        -> QueryInterfaceRequest<PrimaryKey>
    {
        all().selectPrimaryKey(as: type)
    }

    /// Appends to the selection.
    public static func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> {
        all().annotated(with: selection)
    }

    /// Appends to the selection.
    public static func annotated(with selection: [any SQLSelectable]) -> QueryInterfaceRequest<Self> {
        all().annotated(with: selection)
    }

    /// Filters: `Player.filter(Column("score") > 1000)`.
    public static func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<Self> {
        all().filter(predicate)
    }

    /// Filters with raw SQL.
    public static func filter(sql: String, arguments: StatementArguments = StatementArguments())
        -> QueryInterfaceRequest<Self>
    {
        all().filter(sql: sql, arguments: arguments)
    }

    /// Filters with an SQL literal.
    public static func filter(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> {
        all().filter(literal: sqlLiteral)
    }

    /// Orders: `Player.order(Column("score").desc)`.
    public static func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Self> {
        all().order(orderings)
    }

    /// Orders.
    public static func order(_ orderings: [any SQLOrderingTerm]) -> QueryInterfaceRequest<Self> {
        all().order(orderings)
    }

    /// Orders with raw SQL.
    public static func order(sql: String, arguments: StatementArguments = StatementArguments())
        -> QueryInterfaceRequest<Self>
    {
        all().order(sql: sql, arguments: arguments)
    }

    /// Orders with an SQL literal.
    public static func order(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> {
        all().order(literal: sqlLiteral)
    }

    /// Orders by primary key.
    public static func orderByPrimaryKey() -> QueryInterfaceRequest<Self> {
        all().orderByPrimaryKey()
    }

    /// Limits: `Player.limit(10, offset: 20)`.
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<Self> {
        all().limit(limit, offset: offset)
    }

    /// Groups rows.
    public static func group(_ expressions: any SQLExpressible...) -> QueryInterfaceRequest<Self> {
        all().group(expressions)
    }
}

// MARK: - Closures of the record's columns

extension TableRecord {
    /// Selects from the record's columns: `Player.select { $0.name }`.
    public static func select(_ selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows
        -> QueryInterfaceRequest<Self>
    {
        try all().select(selection)
    }

    /// Selects from the record's columns: `Player.select { [$0.id, $0.name] }`.
    public static func select(_ selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows
        -> QueryInterfaceRequest<Self>
    {
        try all().select(selection)
    }

    /// Selects from the record's columns, decoded as `type`: `Player.select({ $0.name }, as: String.self)`.
    public static func select<T>(
        _ selection: (DatabaseComponents) throws -> any SQLSelectable, as type: T.Type = T.self
    ) rethrows -> QueryInterfaceRequest<T> {
        try all().select(selection, as: type)
    }

    /// Appends to the selection from the record's columns.
    public static func annotated(with selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows
        -> QueryInterfaceRequest<Self>
    {
        try all().annotated(with: selection)
    }

    /// Appends to the selection from the record's columns.
    public static func annotated(with selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows
        -> QueryInterfaceRequest<Self>
    {
        try all().annotated(with: selection)
    }

    /// Filters with the record's columns: `Place.filter { $0.name == "Paris" }`.
    public static func filter(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows
        -> QueryInterfaceRequest<Self>
    {
        try all().filter(predicate)
    }

    /// Orders with the record's columns: `Player.order(\.score.desc)`, `Player.order { $0.name }`.
    public static func order(_ orderings: (DatabaseComponents) throws -> any SQLOrderingTerm) rethrows
        -> QueryInterfaceRequest<Self>
    {
        try all().order(orderings)
    }

    /// Orders with the record's columns: `Player.order { [$0.score.desc, $0.name] }`.
    public static func order(_ orderings: (DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows
        -> QueryInterfaceRequest<Self>
    {
        try all().order(orderings)
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// Selects from the record's columns, decoded as `type`.
    public func select<T>(
        _ selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable, as type: T.Type = T.self
    ) rethrows -> QueryInterfaceRequest<T> {
        try select([selection(RowDecoder.databaseComponents)], as: type)
    }

    /// Updates the rows with assignments built from the record's columns.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (RowDecoder.DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// Selects the ids: `try Player.selectID().fetchAll(db)`.
    public static func selectID() -> QueryInterfaceRequest<ID> {
        all().selectPrimaryKey(as: ID.self)
    }
}

extension QueryInterfaceRequest where RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// Selects the ids of the records.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> {
        selectPrimaryKey(as: RowDecoder.ID.self)
    }
}
