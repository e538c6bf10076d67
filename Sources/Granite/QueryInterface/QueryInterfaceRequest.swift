/// A request built with the query interface: `Player.filter(…).order(…).limit(…)`.
///
/// ```swift
/// // SELECT * FROM "player" WHERE "score" > ? ORDER BY "name"
/// let request = Player.filter(Column("score") > 1000).order(Column("name"))
/// let players = try request.fetchAll(db)
/// ```
public struct QueryInterfaceRequest<RowDecoder>: FetchRequest, Sendable {
    var relation: SQLRelation

    init(relation: SQLRelation) {
        self.relation = relation
    }

    /// The name of the queried table.
    public var databaseTableName: String { relation.tableName }

    private func with(_ update: (inout SQLRelation) throws -> Void) rethrows -> Self {
        var copy = self
        try update(&copy.relation)
        return copy
    }

    /// The prepared `SELECT` statement.
    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws
        -> PreparedRequest
    {
        let context = SQLGenerationContext(db)
        let sql = try relation.selectSQL(context, singleResult: singleResult)
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(context.statementArguments)
        return PreparedRequest(statement: statement)
    }

    /// The number of rows the request fetches: `SELECT COUNT(*) FROM …`.
    public func fetchCount(_ db: Database) throws -> Int {
        try relation.fetchCount(db)
    }

    /// Whether the request fetches no row: `SELECT EXISTS (…)`.
    public func isEmpty(_ db: Database) throws -> Bool {
        let context = SQLGenerationContext(db)
        let sql = try "SELECT EXISTS (" + relation.selectSQL(context) + ")"
        return try !(Bool.fetchOne(db, sql: sql, arguments: context.statementArguments) ?? false)
    }

    /// The `EXISTS (…)` expression of the request.
    public func exists() -> SQLExpression {
        SQLExpression(impl: .exists(selectSubquery, isNegated: false))
    }

    /// The `NOT EXISTS (…)` expression of the request.
    public func notExists() -> SQLExpression {
        SQLExpression(impl: .exists(selectSubquery, isNegated: true))
    }

    /// `value IN (SELECT …)`: `Player.select(Column("teamId")).contains(Column("id"))`.
    public func contains(_ value: some SQLExpressible) -> SQLExpression {
        SQLExpression(impl: .inSubquery(value.sqlExpression, selectSubquery, isNegated: false))
    }

    var selectSubquery: SQLSubquery {
        let relation = self.relation
        return SQLSubquery { context in try relation.selectSQL(context) }
    }

    // MARK: Selection

    /// Replaces the selection: `Player.select(Column("name"))`.
    public func select(_ selection: any SQLSelectable...) -> Self {
        select(selection)
    }

    /// Replaces the selection.
    public func select(_ selection: [any SQLSelectable]) -> Self {
        let resolved = selection.map(\.sqlSelection)
        return with { $0.selection = DatabasePromise(value: resolved) }
    }

    /// Replaces the selection with raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        select(SQL(sql: sql, arguments: arguments))
    }

    /// Replaces the selection with an SQL literal.
    public func select(literal sqlLiteral: SQL) -> Self {
        select(sqlLiteral)
    }

    /// Replaces the selection, and decodes rows as `type`: `Player.select(Column("name"), as: String.self)`.
    public func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection).asRequest(of: T.self)
    }

    /// Replaces the selection, and decodes rows as `type`.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection).asRequest(of: T.self)
    }

    /// Replaces the selection with raw SQL, and decodes rows as `type`.
    public func select<T>(
        sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self
    ) -> QueryInterfaceRequest<T> {
        select(SQL(sql: sql, arguments: arguments)).asRequest(of: T.self)
    }

    /// Replaces the selection with an SQL literal, and decodes rows as `type`.
    public func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(sqlLiteral).asRequest(of: T.self)
    }

    /// Selects the primary key, decoded as `type` (a row for composite keys).
    public func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self)
        -> QueryInterfaceRequest<PrimaryKey>
    {
        let tableName = relation.tableName
        let request = with {
            $0.selection = DatabasePromise { db in
                try db.primaryKey(tableName).columns.map { .expression(.column($0)) }
            }
        }
        return request.asRequest(of: PrimaryKey.self)
    }

    /// Appends to the selection: `Player.annotated(with: Column("score") * 2)`.
    public func annotated(with selection: any SQLSelectable...) -> Self {
        annotated(with: selection)
    }

    /// Appends to the selection.
    public func annotated(with selection: [any SQLSelectable]) -> Self {
        let resolved = selection.map(\.sqlSelection)
        return with { relation in
            let old = relation.selection
            relation.selection = DatabasePromise { db in try old.resolve(db) + resolved }
        }
    }

    /// Removes duplicate rows: `SELECT DISTINCT`.
    public func distinct() -> Self {
        with { $0.isDistinct = true }
    }

    /// The same request, decoding rows as `type`.
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        QueryInterfaceRequest<T>(relation: relation)
    }

    // MARK: Filtering

    /// Adds a condition (joined with `AND` to previous ones): `filter(Column("score") > 1000)`.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        let expression = predicate.sqlExpression
        return with { $0.addFilter(DatabasePromise(value: expression)) }
    }

    /// Adds a raw SQL condition.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        filter(SQL(sql: sql, arguments: arguments))
    }

    /// Adds an SQL literal condition.
    public func filter(literal sqlLiteral: SQL) -> Self {
        filter(sqlLiteral)
    }

    /// A request that fetches nothing: `WHERE 0`.
    public func none() -> Self {
        with { $0.addFilter(DatabasePromise(value: false.sqlExpression)) }
    }

    /// The request itself (matches ``none()``).
    public func all() -> Self { self }

    func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> SQLExpression) -> Self {
        with { $0.addFilter(DatabasePromise(predicate)) }
    }

    // MARK: Ordering

    /// Replaces the ordering: `order(Column("score").desc, Column("name"))`.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        order(orderings)
    }

    /// Replaces the ordering.
    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        let resolved = orderings.map(\.sqlOrdering)
        return with {
            $0.orderings = [DatabasePromise(value: resolved)]
            $0.isReversed = false
        }
    }

    /// Replaces the ordering with raw SQL.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        order(SQL(sql: sql, arguments: arguments))
    }

    /// Replaces the ordering with an SQL literal.
    public func order(literal sqlLiteral: SQL) -> Self {
        order(sqlLiteral)
    }

    /// Orders by primary key.
    public func orderByPrimaryKey() -> Self {
        let tableName = relation.tableName
        return with {
            $0.orderings = [
                DatabasePromise { db in try db.primaryKey(tableName).columns.map { .expression(.column($0)) } }
            ]
            $0.isReversed = false
        }
    }

    /// Reverses the ordering; an unordered request stays unordered.
    public func reversed() -> Self {
        with { $0.isReversed.toggle() }
    }

    /// Removes the ordering.
    public func unordered() -> Self {
        with {
            $0.orderings = []
            $0.isReversed = false
        }
    }

    // MARK: Grouping

    /// Groups rows: `group(Column("teamId"))`.
    public func group(_ expressions: any SQLExpressible...) -> Self {
        group(expressions)
    }

    /// Groups rows.
    public func group(_ expressions: [any SQLExpressible]) -> Self {
        let resolved = expressions.map(\.sqlExpression)
        return with { $0.group = DatabasePromise(value: resolved) }
    }

    /// Groups rows with raw SQL.
    public func group(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        group(literal: SQL(sql: sql, arguments: arguments))
    }

    /// Groups rows with an SQL literal.
    public func group(literal sqlLiteral: SQL) -> Self {
        let expression = SQLExpression.literal(sqlLiteral)
        return with { $0.group = DatabasePromise(value: [expression]) }
    }

    /// Adds a `HAVING` condition: `having(count(Column("id")) > 2)`.
    public func having(_ predicate: some SQLExpressible) -> Self {
        let expression = predicate.sqlExpression
        return with { $0.addHaving(DatabasePromise(value: expression)) }
    }

    /// Adds a raw SQL `HAVING` condition.
    public func having(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        having(literal: SQL(sql: sql, arguments: arguments))
    }

    /// Adds an SQL literal `HAVING` condition.
    public func having(literal sqlLiteral: SQL) -> Self {
        let expression = SQLExpression.literal(sqlLiteral)
        return with { $0.addHaving(DatabasePromise(value: expression)) }
    }

    // MARK: Limit

    /// Limits the number of rows: `LIMIT limit [OFFSET offset]`.
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        with {
            $0.limit = limit
            $0.offset = offset
        }
    }

    // MARK: Batch deletes and updates

    /// Deletes the rows of the request; returns the number of deleted rows.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        let context = SQLGenerationContext(db)
        let sql = try relation.deleteSQL(context)
        try db.execute(sql: sql, arguments: context.statementArguments)
        return db.changesCount
    }

    /// Updates the rows of the request; returns the number of updated rows.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = ? WHERE "team" = ?
    /// try Player.filter(Column("team") == "red").updateAll(db, Column("score").set(to: 0))
    /// ```
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]
    ) throws -> Int {
        let context = SQLGenerationContext(db)
        guard
            let sql = try relation.updateSQL(
                context, conflictResolution: conflictResolution, assignments: assignments)
        else { return 0 }
        try db.execute(sql: sql, arguments: context.statementArguments)
        return db.changesCount
    }

    /// Updates the rows of the request; returns the number of updated rows.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: ColumnAssignment...
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments)
    }
}
