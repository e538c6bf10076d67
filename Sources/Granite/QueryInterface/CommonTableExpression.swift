/// A common table expression: a named subquery that a request declares in its `WITH` clause, and can then
/// use as a table.
///
/// ```swift
/// // WITH "bestScore" AS (SELECT MAX("score") FROM "player")
/// // SELECT * FROM "player" WHERE "score" = (SELECT * FROM "bestScore")
/// let bestScore = CommonTableExpression(named: "bestScore", request: Player.select(max(Column("score"))))
/// let request = Player.with(bestScore).filter(Column("score") == bestScore.all())
/// ```
///
/// A request that uses the expression must declare it with `with(_:)`; ``all()`` alone only selects from
/// the expression's name.
public struct CommonTableExpression<RowDecoder>: Sendable {
    let cte: SQLCTE

    /// The name of the expression, usable as a table name.
    public var tableName: String { cte.tableName }

    private init(recursive: Bool, tableName: String, columns: [String]?, subquery: SQLSubquery) {
        cte = SQLCTE(tableName: tableName, columns: columns, subquery: subquery, isRecursive: recursive)
    }
}

extension CommonTableExpression {
    /// An expression named `tableName` that stands for the rows of `request`.
    ///
    /// - parameters:
    ///   - recursive: Whether the expression refers to itself (the clause becomes `WITH RECURSIVE`).
    ///   - tableName: The name of the expression.
    ///   - columns: The names of its columns; nil for the columns of the request.
    ///   - request: The request, or any other subquery.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, request: some SQLSubqueryable) {
        self.init(recursive: recursive, tableName: tableName, columns: columns, subquery: request.sqlSubquery)
    }

    /// An expression named `tableName` that stands for the rows of raw SQL with its arguments.
    ///
    /// - parameters:
    ///   - recursive: Whether the expression refers to itself (the clause becomes `WITH RECURSIVE`).
    ///   - tableName: The name of the expression.
    ///   - columns: The names of its columns; nil for the columns of the SQL.
    ///   - sql: A `SELECT` statement.
    ///   - arguments: Its arguments.
    public init(
        recursive: Bool = false, named tableName: String, columns: [String]? = nil, sql: String,
        arguments: StatementArguments = StatementArguments()
    ) {
        self.init(
            recursive: recursive, named: tableName, columns: columns,
            request: SQLRequest<Row>(sql: sql, arguments: arguments))
    }

    /// An expression named `tableName` that stands for the rows of an SQL literal.
    ///
    /// - parameters:
    ///   - recursive: Whether the expression refers to itself (the clause becomes `WITH RECURSIVE`).
    ///   - tableName: The name of the expression.
    ///   - columns: The names of its columns; nil for the columns of the SQL.
    ///   - sqlLiteral: A `SELECT` statement, with its interpolated arguments.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, literal sqlLiteral: SQL) {
        self.init(recursive: recursive, named: tableName, columns: columns, request: SQLRequest<Row>(literal: sqlLiteral))
    }
}

extension CommonTableExpression<Row> {
    /// An expression named `tableName` that stands for the rows of `request`, fetched as database rows.
    ///
    /// - parameters:
    ///   - recursive: Whether the expression refers to itself (the clause becomes `WITH RECURSIVE`).
    ///   - tableName: The name of the expression.
    ///   - columns: The names of its columns; nil for the columns of the request.
    ///   - request: The request, or any other subquery.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, request: some SQLSubqueryable) {
        self.init(recursive: recursive, tableName: tableName, columns: columns, subquery: request.sqlSubquery)
    }

    /// An expression named `tableName` that stands for the rows of raw SQL, fetched as database rows.
    ///
    /// - parameters:
    ///   - recursive: Whether the expression refers to itself (the clause becomes `WITH RECURSIVE`).
    ///   - tableName: The name of the expression.
    ///   - columns: The names of its columns; nil for the columns of the SQL.
    ///   - sql: A `SELECT` statement.
    ///   - arguments: Its arguments.
    public init(
        recursive: Bool = false, named tableName: String, columns: [String]? = nil, sql: String,
        arguments: StatementArguments = StatementArguments()
    ) {
        self.init(
            recursive: recursive, named: tableName, columns: columns,
            request: SQLRequest<Row>(sql: sql, arguments: arguments))
    }

    /// An expression named `tableName` that stands for the rows of an SQL literal, fetched as database rows.
    ///
    /// - parameters:
    ///   - recursive: Whether the expression refers to itself (the clause becomes `WITH RECURSIVE`).
    ///   - tableName: The name of the expression.
    ///   - columns: The names of its columns; nil for the columns of the SQL.
    ///   - sqlLiteral: A `SELECT` statement, with its interpolated arguments.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, literal sqlLiteral: SQL) {
        self.init(recursive: recursive, named: tableName, columns: columns, request: SQLRequest<Row>(literal: sqlLiteral))
    }
}

extension CommonTableExpression {
    /// `SELECT * FROM "name"`: the rows of the expression. The request must still declare the expression:
    /// `cte.all().with(cte)`.
    public func all() -> QueryInterfaceRequest<RowDecoder> {
        QueryInterfaceRequest(relation: SQLRelation(tableName: tableName, selection: [.allColumns]))
    }

    /// `element IN "name"`: whether the single column of the expression contains `element`. The enclosing
    /// request must declare the expression with `with(_:)`.
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        SQLExpression(impl: .inTable(element.sqlExpression, tableName, isNegated: false))
    }
}

/// The definition of a common table expression, as the `WITH` clause of a relation holds it.
struct SQLCTE: Sendable {
    var tableName: String
    var columns: [String]?
    var subquery: SQLSubquery
    var isRecursive: Bool

    /// `"name"("a", "b") AS (SELECT …)`.
    func definitionSQL(_ context: SQLGenerationContext) throws -> String {
        var sql = tableName.quotedDatabaseIdentifier
        if let columns, !columns.isEmpty {
            sql += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        }
        return try sql + " AS (" + subquery.sql(context) + ")"
    }
}

extension SQLRelation {
    /// Declares a common table expression; one with the same name is replaced, at its position.
    mutating func addCTE(_ cte: SQLCTE) {
        if let index = ctes.firstIndex(where: { $0.tableName == cte.tableName }) {
            ctes[index] = cte
        } else {
            ctes.append(cte)
        }
    }

    /// `WITH [RECURSIVE] "a" AS (…), "b" AS (…) `, or the empty string when there is no expression.
    func withClauseSQL(_ context: SQLGenerationContext) throws -> String {
        if ctes.isEmpty { return "" }
        var sql = "WITH "
        if ctes.contains(where: \.isRecursive) { sql += "RECURSIVE " }
        sql += try ctes.map { try $0.definitionSQL(context) }.joined(separator: ", ")
        return sql + " "
    }
}

extension QueryInterfaceRequest {
    /// The request with a common table expression in its `WITH` clause; an expression of the same name is
    /// replaced.
    ///
    /// ```swift
    /// // WITH "cte" AS (SELECT …) SELECT * FROM "player" WHERE "id" IN "cte"
    /// Player.with(cte).filter(cte.contains(Column("id")))
    /// ```
    public func with<T>(_ cte: CommonTableExpression<T>) -> QueryInterfaceRequest<RowDecoder> {
        var request = self
        request.relation.addCTE(cte.cte)
        return request
    }
}

extension Table {
    /// All rows of the table, with a common table expression in the `WITH` clause.
    public func with<T>(_ cte: CommonTableExpression<T>) -> QueryInterfaceRequest<RowDecoder> {
        all().with(cte)
    }
}

extension TableRecord {
    /// All records, with a common table expression in the `WITH` clause.
    public static func with<RowDecoder>(_ cte: CommonTableExpression<RowDecoder>) -> QueryInterfaceRequest<Self> {
        all().with(cte)
    }
}

extension SQLInterpolation {
    /// The quoted name of a common table expression: `SELECT * FROM \(cte)`.
    public mutating func appendInterpolation(_ cte: CommonTableExpression<some Any>) {
        elements.append(.identifier(cte.tableName))
    }

    /// The definition of a common table expression, for a `WITH` clause written in SQL:
    /// `WITH \(definitionFor: cte) SELECT * FROM \(cte)` renders `WITH "cte" AS (SELECT …) SELECT * FROM "cte"`.
    public mutating func appendInterpolation(definitionFor cte: CommonTableExpression<some Any>) {
        let definition = cte.cte
        elements.append(.expression(SQLExpression(impl: .rendered(SQLSubquery { try definition.definitionSQL($0) }))))
    }
}
