/// A request built with the query interface: `Player.filter(…).order(…).limit(…)`.
///
/// ```swift
/// // SELECT * FROM "player" WHERE "score" > ? ORDER BY "name"
/// let request = Player.filter(Column("score") > 1000).order(Column("name"))
/// let players = try request.fetchAll(db)
/// ```
public struct QueryInterfaceRequest<RowDecoder>: FetchRequest, DerivableRequest, Sendable {
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
        // An observation recording what it reads sees the rows a primary key filter identifies, and the tables
        // the prefetches read.
        if db.isRecordingRegion { statement.narrowedRegion = try relation.narrowed(statement.readRegion, db) }
        if relation.children.isEmpty { return PreparedRequest(statement: statement) }
        var prepared = try PreparedRequest(statement: statement, adapter: relation.rowAdapter(db))
        let associations = relation.prefetchedAssociations
        if !associations.isEmpty {
            if db.isRecordingRegion, var region = statement.narrowedRegion, !region.isEmpty {
                region.formUnion(try relation.prefetchedRegion(db, associations: associations))
                statement.narrowedRegion = region
            }
            let relation = self.relation
            prepared.supplementaryFetch = { db, rows in
                try relation.prefetch(db, associations: associations, into: rows)
            }
        }
        return prepared
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

    /// The `NOT EXISTS (…)` expression of the request.
    public func notExists() -> SQLExpression {
        SQLExpression(impl: .exists(sqlSubquery, isNegated: true))
    }

    /// The `SELECT` statement of the request, for use as a subquery:
    /// `Player.filter(Column("teamId") == Team.select(Column("id")).filter(Column("name") == "Red"))`.
    public var sqlSubquery: SQLSubquery {
        let relation = self.relation
        return SQLSubquery { context in try relation.selectSQL(context) }
    }

    // MARK: Selection

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
                try db.cachedPrimaryKey(tableName).columns.map { .expression(.column($0)) }
            }
        }
        return request.asRequest(of: PrimaryKey.self)
    }

    /// Replaces the selection with columns computed once a connection is available.
    public func selectWhenConnected(
        _ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]
    ) -> Self {
        with { $0.selection = DatabasePromise { db in try selection(db).map(\.sqlSelection) } }
    }

    /// Appends columns computed once a connection is available.
    public func annotatedWhenConnected(
        with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]
    ) -> Self {
        with { relation in
            let old = relation.selection
            relation.selection = DatabasePromise { db in try old.resolve(db) + selection(db).map(\.sqlSelection) }
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

    /// Adds a condition computed once a connection is available.
    public func filterWhenConnected(
        _ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible
    ) -> Self {
        with { $0.addFilter(DatabasePromise { db in try predicate(db).sqlExpression }) }
    }

    // MARK: Ordering

    /// Replaces the ordering with terms computed once a connection is available.
    public func orderWhenConnected(
        _ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]
    ) -> Self {
        with {
            $0.orderings = [DatabasePromise { db in try orderings(db).map(\.sqlOrdering) }]
            $0.isReversed = false
        }
    }

    /// Orders by primary key.
    public func orderByPrimaryKey() -> Self {
        let tableName = relation.tableName
        return with {
            $0.orderings = [
                DatabasePromise { db in try db.cachedPrimaryKey(tableName).columns.map { .expression(.column($0)) } }
            ]
            $0.isReversed = false
        }
    }

    /// Reverses the ordering; an unordered request stays unordered.
    public func reversed() -> Self {
        with { $0.isReversed.toggle() }
    }

    /// Removes the ordering, and the orderings of included and joined associations.
    public func unordered() -> Self {
        with { $0 = $0.unordered() }
    }

    // MARK: Grouping

    /// Replaces the `GROUP BY` clause with expressions computed once a connection is available.
    public func groupWhenConnected(
        _ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]
    ) -> Self {
        with { $0.group = DatabasePromise { db in try expressions(db).map(\.sqlExpression) } }
    }

    /// Adds a `HAVING` condition computed once a connection is available.
    public func havingWhenConnected(
        _ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible
    ) -> Self {
        with { $0.addHaving(DatabasePromise { db in try predicate(db).sqlExpression }) }
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
                context, conflictResolution: conflictResolution ?? Self.defaultConflictResolutionForUpdate,
                assignments: assignments)
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
