// Associations on an explicit condition, for common table expressions: `association(to:on:)`.

/// An association to the rows of a table or common table expression, joined on a condition of both
/// aliases (or on no condition at all).
///
/// ```swift
/// let bestScore = CommonTableExpression(named: "bestScore", request: Player.select(max(Column("score"))))
/// let association = Player.association(to: bestScore) { player, bestScore in
///     player[Column("score")] == bestScore[Column("score")]
/// }
/// // WITH "bestScore" AS (…) SELECT "player".* FROM "player" JOIN "bestScore" ON "player"."score" = …
/// let request = Player.with(bestScore).joining(required: association)
/// ```
public struct JoinAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination

    /// The implementation of the association.
    public var _sqlAssociation: _SQLAssociation

    init(to destination: SQLRelation, condition: SQLAssociationCondition) {
        _sqlAssociation = _SQLAssociation(
            key: .inflected(destination.tableName), condition: condition, relation: destination, cardinality: .toOne)
    }

    init<Left, Right>(
        to destination: SQLRelation,
        on condition: @escaping @Sendable (TableAlias<Left>, TableAlias<Right>) -> any SQLExpressible
    ) {
        self.init(
            to: destination,
            condition: .expression { left, right in
                condition(TableAlias<Left>(standingFor: left), TableAlias<Right>(standingFor: right)).sqlExpression
            })
    }

    init(to destination: SQLRelation) {
        self.init(to: destination, condition: .expression { _, _ in nil })
    }
}

extension TableRecord {
    /// The association to the rows of `cte`, joined on `condition`.
    public static func association<Destination>(
        to cte: CommonTableExpression<Destination>,
        on condition: @escaping @Sendable (TableAlias<Self>, TableAlias<Destination>) -> any SQLExpressible
    ) -> JoinAssociation<Self, Destination> {
        JoinAssociation(to: cte.all().relation, on: condition)
    }

    /// The association to the rows of `cte`, joined without condition.
    public static func association<Destination>(to cte: CommonTableExpression<Destination>)
        -> JoinAssociation<Self, Destination>
    {
        JoinAssociation(to: cte.all().relation)
    }
}

extension Table {
    /// The association to the rows of `cte`, joined on `condition`.
    public func association<Destination>(
        to cte: CommonTableExpression<Destination>,
        on condition: @escaping @Sendable (TableAlias<RowDecoder>, TableAlias<Destination>) -> any SQLExpressible
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: cte.all().relation, on: condition)
    }

    /// The association to the rows of `cte`, joined without condition.
    public func association<Destination>(to cte: CommonTableExpression<Destination>)
        -> JoinAssociation<RowDecoder, Destination>
    {
        JoinAssociation(to: cte.all().relation)
    }
}

extension CommonTableExpression {
    /// The association from the rows of this expression to the rows of `cte`, joined on `condition`.
    public func association<Destination>(
        to cte: CommonTableExpression<Destination>,
        on condition: @escaping @Sendable (TableAlias<RowDecoder>, TableAlias<Destination>) -> any SQLExpressible
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: cte.all().relation, on: condition)
    }

    /// The association from the rows of this expression to the rows of `cte`, joined without condition.
    public func association<Destination>(to cte: CommonTableExpression<Destination>)
        -> JoinAssociation<RowDecoder, Destination>
    {
        JoinAssociation(to: cte.all().relation)
    }

    /// The association from the rows of this expression to the records of `destination`, joined on
    /// `condition`.
    public func association<Destination: TableRecord>(
        to destination: Destination.Type,
        on condition: @escaping @Sendable (TableAlias<RowDecoder>, TableAlias<Destination>) -> any SQLExpressible
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: Destination.all().relation, on: condition)
    }

    /// The association from the rows of this expression to the records of `destination`, joined without
    /// condition.
    public func association<Destination: TableRecord>(to destination: Destination.Type)
        -> JoinAssociation<RowDecoder, Destination>
    {
        JoinAssociation(to: Destination.all().relation)
    }

    /// The association from the rows of this expression to the rows of `destination`, joined on `condition`.
    public func association<Destination>(
        to destination: Table<Destination>,
        on condition: @escaping @Sendable (TableAlias<RowDecoder>, TableAlias<Destination>) -> any SQLExpressible
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: destination.all().relation, on: condition)
    }

    /// The association from the rows of this expression to the rows of `destination`, joined without
    /// condition.
    public func association<Destination>(to destination: Table<Destination>) -> JoinAssociation<RowDecoder, Destination>
    {
        JoinAssociation(to: destination.all().relation)
    }
}
