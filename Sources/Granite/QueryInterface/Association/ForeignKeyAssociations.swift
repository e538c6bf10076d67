// The associations declared by a foreign key: `belongsTo`, `hasOne`, `hasMany`.

/// The association from a record to the record its foreign key refers to: a book belongs to its author.
///
/// ```swift
/// struct Book: TableRecord {
///     static let author = belongsTo(Author.self)
/// }
/// ```
///
/// Its key is the singular name of the destination table (`"author"`), unless given with `key:` or
/// `AssociationToOne/forKey(_:)`.
public struct BelongsToAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination

    /// The implementation of the association.
    public var _sqlAssociation: _SQLAssociation

    init(to destination: SQLRelation, key: String?, using foreignKey: ForeignKey?) {
        _sqlAssociation = .foreignKeyAssociation(
            to: destination, key: key.map(SQLAssociationKey.fixedSingular), using: foreignKey, originIsLeft: true,
            cardinality: .toOne)
    }
}

/// The association from a record to the single record whose foreign key refers to it: a country has one
/// demographic profile.
///
/// ```swift
/// struct Country: TableRecord {
///     static let profile = hasOne(DemographicProfile.self)
/// }
/// ```
public struct HasOneAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination

    /// The implementation of the association.
    public var _sqlAssociation: _SQLAssociation

    init(to destination: SQLRelation, key: String?, using foreignKey: ForeignKey?) {
        _sqlAssociation = .foreignKeyAssociation(
            to: destination, key: key.map(SQLAssociationKey.fixedSingular), using: foreignKey, originIsLeft: false,
            cardinality: .toOne)
    }
}

/// The association from a record to the records whose foreign key refers to it: an author has many books.
///
/// ```swift
/// struct Author: TableRecord {
///     static let books = hasMany(Book.self)
/// }
/// ```
///
/// Its key is the plural name of the destination table (`"books"`) when prefetched with
/// `including(all:)`, and the singular one (`"book"`) when joined.
public struct HasManyAssociation<Origin, Destination>: AssociationToMany {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination

    /// The implementation of the association.
    public var _sqlAssociation: _SQLAssociation

    init(to destination: SQLRelation, key: String?, using foreignKey: ForeignKey?) {
        _sqlAssociation = .foreignKeyAssociation(
            to: destination, key: key.map(SQLAssociationKey.fixedPlural), using: foreignKey, originIsLeft: false,
            cardinality: .toMany)
    }
}

extension _SQLAssociation {
    /// A direct association to `destination` through a foreign key, keyed by the destination table unless
    /// `key` is given.
    static func foreignKeyAssociation(
        to destination: SQLRelation, key: SQLAssociationKey?, using foreignKey: ForeignKey?, originIsLeft: Bool,
        cardinality: SQLAssociationCardinality
    ) -> _SQLAssociation {
        let condition = SQLForeignKeyCondition(
            destinationTable: destination.tableName, foreignKey: foreignKey, originIsLeft: originIsLeft)
        return _SQLAssociation(
            key: key ?? .inflected(destination.tableName), condition: .foreignKey(condition), relation: destination,
            cardinality: cardinality)
    }
}
