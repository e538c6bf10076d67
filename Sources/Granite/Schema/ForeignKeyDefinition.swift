/// The foreign key added by ``TableDefinition/belongsTo(_:inTable:onDelete:onUpdate:deferred:indexed:)``: one
/// column per primary key column of the destination table, refined with chained modifiers.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.belongsTo("team").notNull()  // "teamId" INTEGER NOT NULL REFERENCES "team"("id")
/// }
/// ```
public final class ForeignKeyDefinition {
    enum Indexing {
        case index
        case unique
    }

    let name: String
    let table: String?
    let deleteAction: Database.ForeignKeyAction?
    let updateAction: Database.ForeignKeyAction?
    let isDeferred: Bool
    var indexing: Indexing?
    var notNullConflict: Database.ConflictResolution?

    init(
        name: String, table: String?, deleteAction: Database.ForeignKeyAction?,
        updateAction: Database.ForeignKeyAction?, isIndexed: Bool, isDeferred: Bool
    ) {
        self.name = name
        self.table = table
        self.deleteAction = deleteAction
        self.updateAction = updateAction
        self.indexing = isIndexed ? .index : nil
        self.isDeferred = isDeferred
    }

    /// Adds a `NOT NULL` constraint to every column of the foreign key.
    ///
    /// - Parameter conflictResolution: The `ON CONFLICT` clause of the constraint; none when nil.
    @discardableResult
    public func notNull(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        notNullConflict = conflictResolution ?? .abort
        return self
    }

    /// Makes the foreign key unique: a `UNIQUE` column constraint for a single column, a unique index for
    /// several.
    @discardableResult
    public func unique() -> Self {
        indexing = .unique
        return self
    }

    /// The primary key of the destination table: `table` when given, else the table named `name`, else the
    /// table named after the plural of `name`.
    ///
    /// - Throws: `no such table: <name>` when none exists.
    func destinationPrimaryKey(_ db: Database) throws -> ForeignKeyDestination {
        if let table { return try ForeignKeyDestination(db, table: table) }
        if try db.tableExists(name) { return try ForeignKeyDestination(db, table: name) }
        let plural = Inflections.default.pluralize(name)
        if try db.tableExists(plural) { return try ForeignKeyDestination(db, table: plural) }
        throw DatabaseError(message: "no such table: \(name)")
    }
}

// A mutable builder, used inside the closure it is handed to.
@available(*, unavailable)
extension ForeignKeyDefinition: Sendable {}

/// A column that a foreign key refers to: its name and declared type.
struct ForeignKeyDestinationColumn {
    var name: String
    var type: Database.ColumnType?
}

/// The table a foreign key refers to, with its primary key columns (nil for the hidden rowid).
struct ForeignKeyDestination {
    var table: String
    var primaryKey: [ForeignKeyDestinationColumn]?

    init(table: String, primaryKey: [ForeignKeyDestinationColumn]?) {
        self.table = table
        self.primaryKey = primaryKey
    }

    init(_ db: Database, table: String) throws {
        let columns = try db.primaryKey(table).columnInfos
        self.init(
            table: table,
            primaryKey: columns?.map { ForeignKeyDestinationColumn(name: $0.name, type: $0.columnType) })
    }
}

/// What a ``ForeignKeyDefinition`` adds to a table: its columns, and for a composite key the table-level
/// `FOREIGN KEY` constraint and the index.
struct ForeignKeyExpansion {
    var columnNames: [String]
    var columns: [ColumnDefinition]
    var constraint: TableDefinition.ForeignKeyConstraint?
    var index: IndexGenerator?

    /// Expands `foreignKey`, declared in `originTable`.
    ///
    /// - Parameters:
    ///   - ownPrimaryKey: The primary key of `originTable`, for a foreign key to the table itself; nil while the
    ///     primary key itself is being resolved.
    ///   - indexOptions: The options of the index of a composite key (`IF NOT EXISTS` with the table's).
    init(
        _ db: Database, foreignKey: ForeignKeyDefinition, originTable: String,
        ownPrimaryKey: ForeignKeyDestination?, indexOptions: IndexOptions
    ) throws {
        let destination = try Self.destination(
            db, foreignKey: foreignKey, originTable: originTable, ownPrimaryKey: ownPrimaryKey)
        guard let primaryKey = destination.primaryKey else {
            // The destination has a hidden rowid: one INTEGER column that references it.
            let column = ColumnDefinition(name: foreignKey.name + "Id", type: .integer)
            Self.configure(column, foreignKey: foreignKey, destination: destination.table, destinationColumn: nil)
            self.init(columnNames: [column.name], columns: [column], constraint: nil, index: nil)
            return
        }
        let names = primaryKey.map { foreignKey.name + Self.uppercasingFirstCharacter($0.name) }
        if primaryKey.count == 1 {
            let column = ColumnDefinition(name: names[0], type: primaryKey[0].type)
            Self.configure(
                column, foreignKey: foreignKey, destination: destination.table,
                destinationColumn: primaryKey[0].name)
            self.init(columnNames: names, columns: [column], constraint: nil, index: nil)
            return
        }
        // A composite key: plain columns, a table constraint, and an index on the columns.
        let columns = zip(names, primaryKey).map { name, destinationColumn in
            let column = ColumnDefinition(name: name, type: destinationColumn.type)
            if let conflict = foreignKey.notNullConflict { column.notNull(onConflict: conflict) }
            return column
        }
        let constraint = TableDefinition.ForeignKeyConstraint(
            columns: names, table: destination.table, destinationColumns: nil, onDelete: foreignKey.deleteAction,
            onUpdate: foreignKey.updateAction, deferred: foreignKey.isDeferred)
        var index: IndexGenerator?
        if let indexing = foreignKey.indexing {
            index = IndexGenerator(
                name: Database.defaultIndexName(on: originTable, columns: names), table: originTable,
                columns: names, options: indexing == .unique ? indexOptions.union(.unique) : indexOptions,
                condition: nil)
        }
        self.init(columnNames: names, columns: columns, constraint: constraint, index: index)
    }

    private init(
        columnNames: [String], columns: [ColumnDefinition], constraint: TableDefinition.ForeignKeyConstraint?,
        index: IndexGenerator?
    ) {
        self.columnNames = columnNames
        self.columns = columns
        self.constraint = constraint
        self.index = index
    }

    /// The destination: the origin table itself when the foreign key names it (by table name, or, without
    /// one, by singular name), else the table found in the database.
    private static func destination(
        _ db: Database, foreignKey: ForeignKeyDefinition, originTable: String, ownPrimaryKey: ForeignKeyDestination?
    ) throws -> ForeignKeyDestination {
        if let ownPrimaryKey {
            let refersToOrigin: Bool
            if let table = foreignKey.table {
                refersToOrigin = table.lowercased() == originTable.lowercased()
            } else {
                refersToOrigin =
                    Inflections.default.singularize(originTable).lowercased()
                    == Inflections.default.singularize(foreignKey.name).lowercased()
            }
            if refersToOrigin { return ownPrimaryKey }
        }
        return try foreignKey.destinationPrimaryKey(db)
    }

    /// Gives a single foreign key column its reference, `NOT NULL` and index.
    private static func configure(
        _ column: ColumnDefinition, foreignKey: ForeignKeyDefinition, destination: String,
        destinationColumn: String?
    ) {
        column.references(
            destination, column: destinationColumn, onDelete: foreignKey.deleteAction,
            onUpdate: foreignKey.updateAction, deferred: foreignKey.isDeferred)
        if let conflict = foreignKey.notNullConflict { column.notNull(onConflict: conflict) }
        switch foreignKey.indexing {
        case nil: break
        case .index?: column.indexed()
        case .unique?: column.unique()
        }
    }

    private static func uppercasingFirstCharacter(_ name: String) -> String {
        guard let first = name.first else { return name }
        return first.uppercased() + name.dropFirst()
    }
}
