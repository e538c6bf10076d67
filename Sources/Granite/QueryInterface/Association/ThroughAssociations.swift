// Associations through a pivot: `hasMany(_:through:using:)`, `hasOne(_:through:using:)`.

/// The association to the records reached through another association: a country has many citizens through
/// its passports.
///
/// ```swift
/// struct Country: TableRecord {
///     static let passports = hasMany(Passport.self)
///     static let citizens = hasMany(Citizen.self, through: passports, using: Passport.citizen)
/// }
/// ```
///
/// Joined, the pivot is joined too, without being selected; prefetched, the pivot is joined to the prefetch
/// query. The key is the key of the target association.
public struct HasManyThroughAssociation<Origin, Destination>: AssociationToMany {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination

    /// The implementation of the association.
    public var _sqlAssociation: _SQLAssociation

    init<Pivot: Association, Target: Association>(through pivot: Pivot, using target: Target)
    where
        Pivot.OriginRowDecoder == Origin, Pivot.RowDecoder == Target.OriginRowDecoder,
        Target.RowDecoder == Destination
    {
        _sqlAssociation = _SQLAssociation(steps: pivot._sqlAssociation.steps + target._sqlAssociation.steps)
    }
}

/// The association to the record reached through a to-one association: a book has one country through its
/// author.
///
/// ```swift
/// struct Book: TableRecord {
///     static let author = belongsTo(Author.self)
///     static let country = hasOne(Country.self, through: author, using: Author.country)
/// }
/// ```
public struct HasOneThroughAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination

    /// The implementation of the association.
    public var _sqlAssociation: _SQLAssociation

    init<Pivot: AssociationToOne, Target: AssociationToOne>(through pivot: Pivot, using target: Target)
    where
        Pivot.OriginRowDecoder == Origin, Pivot.RowDecoder == Target.OriginRowDecoder,
        Target.RowDecoder == Destination
    {
        _sqlAssociation = _SQLAssociation(steps: pivot._sqlAssociation.steps + target._sqlAssociation.steps)
    }
}

extension TableRecord {
    /// The association to the records that `target` leads to from the records of `pivot`.
    ///
    /// - parameter destination: The type of the records the association leads to.
    /// - parameter pivot: An association from this record type to the intermediate records.
    /// - parameter target: An association from the intermediate records to the destination.
    /// - parameter key: The key of the association; the key of `target` when nil.
    public static func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasManyThroughAssociation<Self, Target.RowDecoder>
    where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        let association = HasManyThroughAssociation(through: pivot, using: target)
        return key.map(association.forKey) ?? association
    }

    /// The association to the record that `target` leads to from the record of `pivot`.
    ///
    /// - parameter destination: The type of the records the association leads to.
    /// - parameter pivot: An association from this record type to the intermediate records.
    /// - parameter target: An association from the intermediate records to the destination.
    /// - parameter key: The key of the association; the key of `target` when nil.
    public static func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasOneThroughAssociation<Self, Target.RowDecoder>
    where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        let association = HasOneThroughAssociation(through: pivot, using: target)
        return key.map(association.forKey) ?? association
    }
}

extension Table {
    /// The association to the records that `target` leads to from the rows of `pivot`.
    public func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasManyThroughAssociation<RowDecoder, Target.RowDecoder>
    where Pivot.OriginRowDecoder == RowDecoder, Pivot.RowDecoder == Target.OriginRowDecoder {
        let association = HasManyThroughAssociation(through: pivot, using: target)
        return key.map(association.forKey) ?? association
    }

    /// The association to the record that `target` leads to from the row of `pivot`.
    public func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasOneThroughAssociation<RowDecoder, Target.RowDecoder>
    where Pivot.OriginRowDecoder == RowDecoder, Pivot.RowDecoder == Target.OriginRowDecoder {
        let association = HasOneThroughAssociation(through: pivot, using: target)
        return key.map(association.forKey) ?? association
    }
}
