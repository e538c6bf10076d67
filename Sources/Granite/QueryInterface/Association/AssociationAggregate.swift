/// A value computed from the associated records of a to-many association, for each origin record:
/// `Author.books.count`, `Author.books.max(Column("year"))`.
///
/// Requests select aggregates with `annotated(with:)`, and filter on them with `having(_:)`: the
/// association is joined with a `LEFT JOIN`, and the request is grouped by primary key.
///
/// ```swift
/// // SELECT "author".*, COUNT(DISTINCT "book"."id") AS "bookCount"
/// // FROM "author" LEFT JOIN "book" ON "book"."authorId" = "author"."id"
/// // GROUP BY "author"."id"
/// let request = Author.annotated(with: Author.books.count)
/// ```
///
/// Aggregates combine with operators and functions (`Author.books.count * 2`, `abs(…)`); the combination
/// has no name, until `forKey(_:)` gives it one.
public struct AssociationAggregate<RowDecoder>: Sendable {
    /// The associations the aggregate joins, each aliased by the alias its expression refers to.
    var joins: [_SQLAssociation]
    /// The aggregate expression, qualified by the aliases of the joins.
    var expression: SQLExpression
    /// The name of the selected aggregate.
    var key: String?
    /// Whether the aggregate is the test of an empty association (`COUNT(…) = 0`), or its negation
    /// (`COUNT(…) > 0`): negating one gives the other.
    var emptinessTest: Bool?

    /// The aggregate selected under `key`.
    public func forKey(_ key: String) -> Self {
        var aggregate = self
        aggregate.key = key
        return aggregate
    }

    /// The aggregate selected under the string value of `key`.
    public func forKey(_ key: some CodingKey) -> Self {
        forKey(key.stringValue)
    }

    /// An unnamed aggregate whose expression is `transform` of this one's.
    func map(_ transform: (SQLExpression) -> SQLExpression) -> Self {
        AssociationAggregate(joins: joins, expression: transform(expression), key: nil, emptinessTest: nil)
    }

    /// An unnamed aggregate that joins the associations of both.
    static func combine(_ lhs: Self, _ rhs: Self, _ combine: (SQLExpression, SQLExpression) -> SQLExpression) -> Self {
        AssociationAggregate(
            joins: lhs.joins + rhs.joins, expression: combine(lhs.expression, rhs.expression), key: nil,
            emptinessTest: nil)
    }

    /// The request with the joins of the aggregate, grouped by primary key; and the expression to select or
    /// filter.
    func prepare<Request: DerivableRequest<RowDecoder>>(_ request: Request) -> (Request, SQLExpression) {
        var request = request
        for join in joins {
            request = request._including(join, kind: .optional, selected: false)
        }
        return (request.groupByPrimaryKey(), expression)
    }
}

extension AssociationToMany {
    /// The aggregate of `expression` over the associated records, with the association aliased so that the
    /// expression refers to its table.
    private func makeAggregate(_ expression: SQLExpression, key: String?) -> AssociationAggregate<OriginRowDecoder> {
        let alias = TableAliasBase(userName: nil)
        let association = _aliased(alias)
        return AssociationAggregate(
            joins: [association._sqlAssociation], expression: SQLExpression(impl: .qualified(expression, alias)),
            key: key, emptinessTest: nil)
    }

    /// The singular name of the association key: `"book"` for `Author.books`.
    private var singularKey: String {
        _sqlAssociation.destination.key.name(singular: true)
    }

    /// The key of an aggregate of a column: `prefix + Book + Year + suffix`, or nil for other expressions.
    private func columnKey(_ expression: some SQLSpecificExpressible, _ build: (String, String) -> String) -> String? {
        guard let column = expression as? any ColumnExpression else { return nil }
        return build(singularKey, column.name)
    }

    /// The number of associated records, named `"bookCount"`: `COUNT(DISTINCT "book"."id")`.
    public var count: AssociationAggregate<OriginRowDecoder> {
        makeAggregate(.aggregate("COUNT", [.fastPrimaryKey], distinct: true), key: "\(singularKey)Count")
    }

    /// Whether there is no associated record, named `"hasNoBook"`: `COUNT(DISTINCT "book"."id") = 0`.
    public var isEmpty: AssociationAggregate<OriginRowDecoder> {
        var aggregate = makeAggregate(
            .emptinessTest(.aggregate("COUNT", [.fastPrimaryKey], distinct: true), isEmpty: true),
            key: "hasNo\(singularKey.uppercasingFirstCharacter)")
        aggregate.emptinessTest = true
        return aggregate
    }

    /// The average of `expression`, named `"averageBookYear"` for a column: `AVG("book"."year")`.
    public func average(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        makeAggregate(
            .aggregate("AVG", [expression.sqlExpression]),
            key: columnKey(expression) { "average\($0.uppercasingFirstCharacter)\($1.uppercasingFirstCharacter)" })
    }

    /// The average of a column of the associated record's `Columns`.
    public func average(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    where RowDecoder: TableRecord {
        try average(expression(RowDecoder.databaseComponents))
    }

    /// The maximum of `expression`, named `"maxBookYear"` for a column: `MAX("book"."year")`.
    public func max(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        makeAggregate(
            .aggregate("MAX", [expression.sqlExpression]),
            key: columnKey(expression) { "max\($0.uppercasingFirstCharacter)\($1.uppercasingFirstCharacter)" })
    }

    /// The maximum of a column of the associated record's `Columns`.
    public func max(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    where RowDecoder: TableRecord {
        try max(expression(RowDecoder.databaseComponents))
    }

    /// The minimum of `expression`, named `"minBookYear"` for a column: `MIN("book"."year")`.
    public func min(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        makeAggregate(
            .aggregate("MIN", [expression.sqlExpression]),
            key: columnKey(expression) { "min\($0.uppercasingFirstCharacter)\($1.uppercasingFirstCharacter)" })
    }

    /// The minimum of a column of the associated record's `Columns`.
    public func min(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    where RowDecoder: TableRecord {
        try min(expression(RowDecoder.databaseComponents))
    }

    /// The sum of `expression` (NULL without records), named `"bookPagesSum"` for a column:
    /// `SUM("book"."pages")`.
    public func sum(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        makeAggregate(
            .aggregate("SUM", [expression.sqlExpression]),
            key: columnKey(expression) { "\($0)\($1.uppercasingFirstCharacter)Sum" })
    }

    /// The sum of a column of the associated record's `Columns`.
    public func sum(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    where RowDecoder: TableRecord {
        try sum(expression(RowDecoder.databaseComponents))
    }

    /// The sum of `expression` as a double (0.0 without records), named `"bookPagesSum"` for a column, as
    /// `sum(_:)`: `TOTAL("book"."pages")`.
    public func total(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        makeAggregate(
            .aggregate("TOTAL", [expression.sqlExpression]),
            key: columnKey(expression) { "\($0)\($1.uppercasingFirstCharacter)Sum" })
    }

    /// The total of a column of the associated record's `Columns`.
    public func total(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    where RowDecoder: TableRecord {
        try total(expression(RowDecoder.databaseComponents))
    }
}

extension AssociationToMany where RowDecoder: TableRecord {
    /// The type of the associated record's `databaseComponents`, that the closures of aggregates receive.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}

extension DerivableRequest {
    /// The request with one more selected aggregate, under its key.
    private func annotated(with aggregate: AssociationAggregate<RowDecoder>) -> Self {
        let (request, expression) = aggregate.prepare(self)
        if let key = aggregate.key { return request.annotated(with: expression.forKey(key)) }
        return request.annotated(with: expression)
    }

    /// Selects aggregates of to-many associations, each under its key:
    /// `Author.annotated(with: Author.books.count)` decodes `"bookCount"`.
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> Self {
        annotated(with: aggregates)
    }

    /// Selects aggregates of to-many associations, each under its key.
    public func annotated(with aggregates: [AssociationAggregate<RowDecoder>]) -> Self {
        aggregates.reduce(self) { request, aggregate in request.annotated(with: aggregate) }
    }

    /// Keeps the rows whose aggregate is true: `Author.having(Author.books.count >= 2)`.
    public func having(_ predicate: AssociationAggregate<RowDecoder>) -> Self {
        let (request, expression) = predicate.prepare(self)
        return request.having(expression)
    }
}

extension Table {
    /// All rows, with aggregates of to-many associations selected.
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: aggregates)
    }

    /// All rows, with aggregates of to-many associations selected.
    public func annotated(with aggregates: [AssociationAggregate<RowDecoder>]) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: aggregates)
    }

    /// The rows whose aggregate is true.
    public func having(_ predicate: AssociationAggregate<RowDecoder>) -> QueryInterfaceRequest<RowDecoder> {
        all().having(predicate)
    }
}

extension TableRecord {
    /// All records, with aggregates of to-many associations selected.
    public static func annotated(with aggregates: AssociationAggregate<Self>...) -> QueryInterfaceRequest<Self> {
        all().annotated(with: aggregates)
    }

    /// All records, with aggregates of to-many associations selected.
    public static func annotated(with aggregates: [AssociationAggregate<Self>]) -> QueryInterfaceRequest<Self> {
        all().annotated(with: aggregates)
    }

    /// The records whose aggregate is true.
    public static func having(_ predicate: AssociationAggregate<Self>) -> QueryInterfaceRequest<Self> {
        all().having(predicate)
    }
}

extension SQLExpression {
    /// The column that identifies a row of the qualifying table the fastest: the `INTEGER PRIMARY KEY`, the
    /// rowid, or the single primary key column of a table without rowid.
    static var fastPrimaryKey: SQLExpression {
        SQLExpression(
            impl: .rendered(
                SQLSubquery(render: { context in
                    guard let qualifier = context.qualifier else {
                        throw DatabaseError(
                            resultCode: .SQLITE_MISUSE, message: "SQLExpression.fastPrimaryKey is not qualified.")
                    }
                    let primaryKey = try context.db.cachedPrimaryKey(qualifier.alias.tableName())
                    let column: String
                    if let rowIDColumn = primaryKey.rowIDColumn {
                        column = rowIDColumn
                    } else if primaryKey.tableHasRowID {
                        column = Column.rowID.name
                    } else if primaryKey.columns.count == 1 {
                        column = primaryKey.columns[0]
                    } else {
                        throw DatabaseError(
                            resultCode: .SQLITE_MISUSE,
                            message: "Not implemented for WITHOUT ROWID table with a multi-columns primary key")
                    }
                    return try SQLExpression.column(column).sql(context)
                })))
    }

    /// `count = 0` when `isEmpty`, `count > 0` otherwise, with the literal zero GRDB writes.
    static func emptinessTest(_ count: SQLExpression, isEmpty: Bool) -> SQLExpression {
        // Rendered as is: a literal would be parenthesized, and a value would be a `?` argument.
        let zero = SQLExpression(impl: .rendered(SQLSubquery(render: { _ in "0" })))
        return isEmpty ? .compare(.equal, count, zero) : .binary(">", count, zero)
    }
}

extension String {
    /// The string with its first character uppercased: `"book"` → `"Book"`.
    var uppercasingFirstCharacter: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
