/// A column of a table being created or altered, configured with chained modifiers.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull().collate(.nocase)
///     t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
/// }
/// ```
public final class ColumnDefinition {
    enum Indexing: Equatable {
        case index
        case unique(Database.ConflictResolution)
    }

    struct Reference {
        var table: String
        var column: String?
        var onDelete: Database.ForeignKeyAction?
        var onUpdate: Database.ForeignKeyAction?
        var deferred: Bool
    }

    let name: String
    let type: Database.ColumnType?
    var primaryKey: (onConflict: Database.ConflictResolution?, autoincrement: Bool)?
    var notNullConflict: Database.ConflictResolution?
    var indexing: Indexing?
    var checks: [SQLExpression] = []
    var defaultSQL: String?
    var collationName: String?
    var references: [Reference] = []
    /// The `GENERATED ALWAYS AS (…)` clause of ``generatedAs(_:_:)``.
    var generated: (expression: SQLExpression, qualification: GeneratedColumnQualification)?

    init(name: String, type: Database.ColumnType?) {
        self.name = name
        self.type = type
    }

    /// Makes the column the primary key (`autoincrement` adds `AUTOINCREMENT`, for INTEGER columns).
    @discardableResult
    public func primaryKey(
        onConflict conflictResolution: Database.ConflictResolution? = nil, autoincrement: Bool = false
    ) -> Self {
        primaryKey = (conflictResolution, autoincrement)
        return self
    }

    /// Adds a `NOT NULL` constraint.
    @discardableResult
    public func notNull(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        notNullConflict = conflictResolution ?? .abort
        return self
    }

    /// Adds a `UNIQUE` constraint.
    @discardableResult
    public func unique(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        indexing = .unique(conflictResolution ?? .abort)
        return self
    }

    /// Creates an index named `<table>_on_<column>` on the column (unless it is already unique).
    @discardableResult
    public func indexed() -> Self {
        if indexing == nil { indexing = .index }
        return self
    }

    /// Adds a `CHECK` constraint written in SQL.
    ///
    /// ```swift
    /// t.column("score", .integer).check(sql: "score >= 0")
    /// ```
    @discardableResult
    public func check(sql: String) -> Self {
        checks.append(.literal(SQL(sql: sql)))
        return self
    }

    /// Adds a `CHECK` constraint built from the column, with its values written inline.
    ///
    /// ```swift
    /// t.column("score", .integer).check { $0 >= 0 }  // "score" INTEGER CHECK ("score" >= 0)
    /// ```
    ///
    /// - Parameter condition: Builds the condition from the column it is given.
    @discardableResult
    public func check(_ condition: (Column) -> any SQLExpressible) -> Self {
        checks.append(condition(Column(name)).sqlExpression)
        return self
    }

    /// Sets the default value.
    ///
    /// ```swift
    /// t.column("score", .integer).defaults(to: 0)
    /// ```
    @discardableResult
    public func defaults(to value: some DatabaseValueConvertible) -> Self {
        defaultSQL = SchemaSQL.literal(value.databaseValue)
        return self
    }

    /// Sets the default value with an SQL expression.
    ///
    /// ```swift
    /// t.column("creationDate", .datetime).defaults(sql: "CURRENT_TIMESTAMP")
    /// ```
    @discardableResult
    public func defaults(sql: String) -> Self {
        defaultSQL = sql
        return self
    }

    /// Sets the collation of the column.
    @discardableResult
    public func collate(_ collation: Database.CollationName) -> Self {
        collationName = collation.rawValue
        return self
    }

    /// Adds a foreign key to `table`: to `column`, or to the primary key of `table` when nil.
    ///
    /// ```swift
    /// t.column("teamId", .integer).references("team", onDelete: .cascade)
    /// ```
    @discardableResult
    public func references(
        _ table: String,
        column: String? = nil,
        onDelete deleteAction: Database.ForeignKeyAction? = nil,
        onUpdate updateAction: Database.ForeignKeyAction? = nil,
        deferred isDeferred: Bool = false
    ) -> Self {
        references.append(
            Reference(
                table: table, column: column, onDelete: deleteAction, onUpdate: updateAction, deferred: isDeferred))
        return self
    }

    /// The `CREATE INDEX` of an ``indexed()`` column.
    func indexSQL(table: String, ifNotExists: Bool) -> String? {
        guard case .index = indexing else { return nil }
        return IndexGenerator(
            name: "\(table)_on_\(name)", table: table, columns: [name],
            options: ifNotExists ? .ifNotExists : [], condition: nil
        ).sql
    }

    /// The column definition: `"name" TYPE constraints…`. `tablePrimaryKey` gives the primary key of the table
    /// for references to the table itself.
    func sql(_ db: Database, table: String, tablePrimaryKey: () throws -> [String]) throws -> String {
        var chunks = [name.quotedDatabaseIdentifier]
        if let type { chunks.append(type.rawValue) }
        if let (onConflict, autoincrement) = primaryKey {
            chunks.append("PRIMARY KEY")
            if let onConflict { chunks += ["ON CONFLICT", onConflict.rawValue] }
            if autoincrement { chunks.append("AUTOINCREMENT") }
        }
        switch notNullConflict {
        case nil: break
        case .abort?: chunks.append("NOT NULL")
        case let resolution?: chunks += ["NOT NULL ON CONFLICT", resolution.rawValue]
        }
        if case .unique(let resolution) = indexing {
            if resolution == .abort {
                chunks.append("UNIQUE")
            } else {
                chunks += ["UNIQUE ON CONFLICT", resolution.rawValue]
            }
        }
        for check in checks { chunks.append("CHECK (\(try SchemaSQL.inline(check)))") }
        if let defaultSQL { chunks.append("DEFAULT \(defaultSQL)") }
        if let collationName { chunks += ["COLLATE", collationName] }
        for reference in references {
            chunks.append("REFERENCES")
            let columns: [String]
            if let column = reference.column {
                columns = [column]
            } else if reference.table.lowercased() == table.lowercased() {
                columns = try tablePrimaryKey()
            } else {
                columns = try db.primaryKey(reference.table).columns
            }
            chunks.append(reference.table.quotedDatabaseIdentifier + SchemaSQL.columnList(columns))
            chunks += SchemaSQL.foreignKeyClauses(
                onDelete: reference.onDelete, onUpdate: reference.onUpdate, deferred: reference.deferred)
        }
        if let generated {
            chunks.append("GENERATED ALWAYS AS (\(try SchemaSQL.inline(generated.expression)))")
            chunks.append(generated.qualification.keyword)
        }
        return chunks.joined(separator: " ")
    }
}

// A mutable builder, used inside the closure it is handed to.
@available(*, unavailable)
extension ColumnDefinition: Sendable {}
