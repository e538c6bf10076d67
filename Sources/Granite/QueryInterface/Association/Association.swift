/// A link between two tables, declared on the origin record, that requests use to join, include or prefetch
/// the associated records:
///
/// ```swift
/// struct Book: TableRecord {
///     static let author = belongsTo(Author.self)
/// }
/// // SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId"
/// let request = Book.including(required: Book.author)
/// ```
///
/// An association is refined as a request on its destination table: `Book.author.filter(…)`,
/// `.order(…)`, `.select(…)`, `.including(…)`. The filter goes to the `ON` clause of the join, the ordering
/// after the ordering of the request, the selection in the scope of the associated record.
public protocol Association: DerivableRequest, Sendable {
    /// The record type at the origin of the association: `Book` for `Book.author`.
    associatedtype OriginRowDecoder

    /// The implementation of the association.
    var _sqlAssociation: _SQLAssociation { get set }

    /// The association, decoded under `key` (the scope of joined records, the key of prefetched records),
    /// instead of the key derived from the destination table.
    func forKey(_ key: String) -> Self
}

extension Association {
    /// The association, with its destination refined as a request is refined.
    private func refiningDestination(
        _ refine: (QueryInterfaceRequest<RowDecoder>) -> QueryInterfaceRequest<RowDecoder>
    ) -> Self {
        var association = self
        let destination = QueryInterfaceRequest<RowDecoder>(relation: _sqlAssociation.destination.relation)
        association._sqlAssociation.destination.relation = refine(destination).relation
        return association
    }

    /// The association, decoded under the string value of `codingKey`.
    public func forKey(_ codingKey: some CodingKey) -> Self {
        forKey(codingKey.stringValue)
    }

    /// The name of the destination table.
    public var databaseTableName: String {
        _sqlAssociation.destination.relation.tableName
    }

    /// The association with its destination table named by `alias`.
    public func _aliased(_ alias: TableAliasBase) -> Self {
        refiningDestination { $0._aliased(alias) }
    }

    /// The association, selecting columns of the associated records computed once a connection is available.
    public func selectWhenConnected(
        _ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]
    ) -> Self {
        refiningDestination { $0.selectWhenConnected(selection) }
    }

    /// The association, with more selected columns computed once a connection is available.
    public func annotatedWhenConnected(
        with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]
    ) -> Self {
        refiningDestination { $0.annotatedWhenConnected(with: selection) }
    }

    /// The association restricted to the associated records that match a condition computed once a connection
    /// is available; the condition joins the `ON` clause.
    public func filterWhenConnected(
        _ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible
    ) -> Self {
        refiningDestination { $0.filterWhenConnected(predicate) }
    }

    /// The association, ordered by terms computed once a connection is available; the terms follow those of
    /// the request.
    public func orderWhenConnected(
        _ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]
    ) -> Self {
        refiningDestination { $0.orderWhenConnected(orderings) }
    }

    /// The association with its ordering reversed.
    public func reversed() -> Self {
        refiningDestination { $0.reversed() }
    }

    /// The association without ordering.
    public func unordered() -> Self {
        refiningDestination { $0.unordered() }
    }

    /// The association ordered by primary key after its own ordering.
    public func withStableOrder() -> Self {
        refiningDestination { $0.withStableOrder() }
    }

    /// The association grouped by expressions computed once a connection is available (prefetched
    /// associations only).
    public func groupWhenConnected(
        _ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]
    ) -> Self {
        refiningDestination { $0.groupWhenConnected(expressions) }
    }

    /// The association with a `HAVING` condition computed once a connection is available (prefetched
    /// associations only).
    public func havingWhenConnected(
        _ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible
    ) -> Self {
        refiningDestination { $0.havingWhenConnected(predicate) }
    }

    /// The association without duplicate associated rows (prefetched associations only).
    public func distinct() -> Self {
        refiningDestination { $0.distinct() }
    }

    /// The association, with a common table expression in the `WITH` clause of its queries.
    public func with<T>(_ cte: CommonTableExpression<T>) -> Self {
        refiningDestination { $0.with(cte) }
    }

    /// The association with another association of its destination included as `kind`.
    public func _including(_ association: _SQLAssociation, kind: _SQLJoinKind, selected: Bool) -> Self {
        refiningDestination { $0._including(association, kind: kind, selected: selected) }
    }
}

/// An association to at most one record: `belongsTo`, `hasOne`.
public protocol AssociationToOne: Association {}

extension AssociationToOne {
    /// The association decoded under `key`, in singular form (`"author"`); its pluralized form is used when
    /// the association is prefetched from a to-many association.
    public func forKey(_ key: String) -> Self {
        var association = self
        association._sqlAssociation.destination.key = .fixedSingular(key)
        return association
    }
}

/// An association to any number of records: `hasMany`.
public protocol AssociationToMany: Association {}

extension AssociationToMany {
    /// The association decoded under `key`, in plural form (`"books"`); its singular form names the scope of
    /// a joined record.
    public func forKey(_ key: String) -> Self {
        var association = self
        association._sqlAssociation.destination.key = .fixedPlural(key)
        return association
    }
}
