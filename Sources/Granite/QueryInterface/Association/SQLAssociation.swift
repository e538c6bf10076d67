/// The relation an association joins, and how: the implementation behind every ``Association``.
///
/// An association is a list of steps from the origin table to the destination table. Direct associations
/// (`belongsTo`, `hasOne`, `hasMany`) have one step; associations through a pivot have one step per table
/// crossed, the last being the destination.
public struct _SQLAssociation: Sendable {
    /// The steps, from the first pivot to the destination; never empty.
    var steps: [SQLAssociationStep]

    init(steps: [SQLAssociationStep]) {
        precondition(!steps.isEmpty, "an association has at least one step")
        self.steps = steps
    }

    init(
        key: SQLAssociationKey, condition: SQLAssociationCondition, relation: SQLRelation,
        cardinality: SQLAssociationCardinality
    ) {
        self.init(steps: [
            SQLAssociationStep(
                key: key, condition: condition, relation: relation,
                cardinality: cardinality)
        ])
    }

    /// The last step: the table the association leads to.
    var destination: SQLAssociationStep {
        get { steps[steps.count - 1] }
        set { steps[steps.count - 1] = newValue }
    }

    /// The first step: the table joined to the origin.
    var pivot: SQLAssociationStep {
        get { steps[0] }
        set { steps[0] = newValue }
    }

    /// The association, with the destination's relation changed by `update`.
    func updatingDestinationRelation(_ update: (inout SQLRelation) throws -> Void) rethrows -> Self {
        var association = self
        try update(&association.steps[steps.count - 1].relation)
        return association
    }
}

/// One table an association crosses: how it is joined to the previous one, and its own clauses.
struct SQLAssociationStep: Sendable {
    var key: SQLAssociationKey
    var condition: SQLAssociationCondition
    var relation: SQLRelation
    var cardinality: SQLAssociationCardinality

    /// The key of the step, singular or plural after its cardinality.
    var keyName: String { key.name(singular: cardinality == .toOne) }
}

/// Whether an association leads to at most one row, or to any number of rows.
enum SQLAssociationCardinality: Sendable {
    case toOne
    case toMany
}

/// The name under which the rows of an association are decoded: the scope of a joined record, or the key of
/// prefetched rows.
///
/// Keys derived from a table name are singularized or pluralized after the way the association is used
/// (`"author"` for `including(required:)`, `"authors"` for `including(all:)`); keys given with `forKey` keep
/// the form the association's cardinality implies.
enum SQLAssociationKey: Sendable {
    /// Derived from a table name, in both forms.
    case inflected(String)
    /// Given for a to-one association: the singular form is the name itself.
    case fixedSingular(String)
    /// Given for a to-many association: the plural form is the name itself.
    case fixedPlural(String)
    /// Used as is in both forms.
    case fixed(String)

    var baseName: String {
        switch self {
        case .inflected(let name), .fixedSingular(let name), .fixedPlural(let name), .fixed(let name):
            return name
        }
    }

    func name(singular: Bool) -> String {
        switch self {
        case .inflected(let name): return singular ? name.singularized : name.pluralized
        case .fixedSingular(let name): return singular ? name : name.pluralized
        case .fixedPlural(let name): return singular ? name.singularized : name
        case .fixed(let name): return name
        }
    }
}

extension String {
    /// The plural form of the last word, after ``Inflections/default``.
    var pluralized: String { Inflections.default.pluralize(self) }

    /// The singular form of the last word, after ``Inflections/default``.
    var singularized: String { Inflections.default.singularize(self) }

    /// The string without its trailing digits: `"author12"` → `"author"`.
    var digitlessRadical: String { String(self[..<Inflections.endIndexOfDigitlessRadical(self)]) }
}

/// The condition that joins the rows of an association to the rows of the previous table.
enum SQLAssociationCondition: Sendable {
    /// Columns of a foreign key, from the schema or from a ``ForeignKey``.
    case foreignKey(SQLForeignKeyCondition)
    /// An expression of the two aliases (left: previous table, right: joined table); nil joins every row.
    case expression(@Sendable (_ left: TableAliasBase, _ right: TableAliasBase) -> SQLExpression?)

    /// The condition seen from the other side of the join, whose table is now `destinationTable`.
    func reversed(to destinationTable: String) -> SQLAssociationCondition {
        switch self {
        case .foreignKey(let condition):
            return .foreignKey(condition.reversed(to: destinationTable))
        case .expression(let condition):
            return .expression { left, right in condition(right, left) }
        }
    }

    /// The `ON` expression joining `rightAlias` to `leftAlias`: `"author"."id" = "book"."authorId"`.
    func joinExpression(_ db: Database, leftAlias: TableAliasBase, rightAlias: TableAliasBase) throws
        -> SQLExpression?
    {
        switch self {
        case .expression(let condition):
            return condition(leftAlias, rightAlias)
        case .foreignKey(let condition):
            let mapping = try condition.joinMapping(db, from: leftAlias.tableName())
            return .associative(
                .and,
                mapping.map { pair in
                    .compare(
                        .equal, SQLExpression(impl: .qualified(.column(pair.right), rightAlias)),
                        SQLExpression(impl: .qualified(.column(pair.left), leftAlias)))
                })
        }
    }
}

/// A foreign key between the table on the left of a join and `destinationTable`, on either side.
struct SQLForeignKeyCondition: Sendable {
    /// The table on the right of the join.
    var destinationTable: String
    var foreignKey: ForeignKey?
    /// Whether the table that holds the foreign key is on the left of the join (`belongsTo`), or on its right
    /// (`hasOne`, `hasMany`).
    var originIsLeft: Bool

    func reversed(to destinationTable: String) -> SQLForeignKeyCondition {
        SQLForeignKeyCondition(destinationTable: destinationTable, foreignKey: foreignKey, originIsLeft: !originIsLeft)
    }

    /// The (left column, right column) pairs of the join from `leftTable`.
    func joinMapping(_ db: Database, from leftTable: String) throws -> [(left: String, right: String)] {
        if originIsLeft {
            let request = SQLForeignKeyRequest(
                originTable: leftTable, destinationTable: destinationTable, foreignKey: foreignKey)
            return try request.fetchMapping(db).map { (left: $0.origin, right: $0.destination) }
        } else {
            let request = SQLForeignKeyRequest(
                originTable: destinationTable, destinationTable: leftTable, foreignKey: foreignKey)
            return try request.fetchMapping(db).map { (left: $0.destination, right: $0.origin) }
        }
    }
}
