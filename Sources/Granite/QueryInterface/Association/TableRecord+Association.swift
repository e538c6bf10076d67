// Declaring associations on record types and tables.

extension TableRecord {
    /// The association to the record this record's foreign key refers to.
    ///
    /// ```swift
    /// struct Book: TableRecord {
    ///     static let author = belongsTo(Author.self)
    ///     static let translator = belongsTo(Author.self, key: "translator", using: ForeignKey(["translatorId"]))
    /// }
    /// ```
    ///
    /// The foreign key is read from the schema when `foreignKey` is nil, or when it only names the origin
    /// columns; SQL generation fails when there is none, or several, to the destination table.
    public static func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<Self, Destination> {
        BelongsToAssociation(to: Destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the row of `destination` this record's foreign key refers to.
    public static func belongsTo<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<Self, Destination> {
        BelongsToAssociation(to: destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the single record whose foreign key refers to this record.
    public static func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<Self, Destination> {
        HasOneAssociation(to: Destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the single row of `destination` whose foreign key refers to this record.
    public static func hasOne<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<Self, Destination> {
        HasOneAssociation(to: destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the records whose foreign key refers to this record.
    ///
    /// ```swift
    /// struct Author: TableRecord {
    ///     static let books = hasMany(Book.self)
    /// }
    /// ```
    public static func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<Self, Destination> {
        HasManyAssociation(to: Destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the rows of `destination` whose foreign key refers to this record.
    public static func hasMany<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<Self, Destination> {
        HasManyAssociation(to: destination.all().relation, key: key, using: foreignKey)
    }
}

extension Table {
    /// The association to the record a row's foreign key refers to.
    ///
    /// ```swift
    /// let book = Table("book")
    /// let author = book.belongsTo(Table("author"))
    /// ```
    public func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<RowDecoder, Destination> {
        BelongsToAssociation(to: Destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the row of `destination` a row's foreign key refers to.
    public func belongsTo<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<RowDecoder, Destination> {
        BelongsToAssociation(to: destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the single record whose foreign key refers to a row.
    public func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<RowDecoder, Destination> {
        HasOneAssociation(to: Destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the single row of `destination` whose foreign key refers to a row.
    public func hasOne<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<RowDecoder, Destination> {
        HasOneAssociation(to: destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the records whose foreign key refers to a row.
    public func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<RowDecoder, Destination> {
        HasManyAssociation(to: Destination.all().relation, key: key, using: foreignKey)
    }

    /// The association to the rows of `destination` whose foreign key refers to a row.
    public func hasMany<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<RowDecoder, Destination> {
        HasManyAssociation(to: destination.all().relation, key: key, using: foreignKey)
    }
}
