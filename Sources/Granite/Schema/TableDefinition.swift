/// Options of ``Database/create(table:options:body:)``.
public struct TableOptions: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates options.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: does nothing when the table exists.
    public static let ifNotExists = TableOptions(rawValue: 1 << 0)

    /// `TEMPORARY`: a table of the connection's temporary schema, which only this connection sees and which
    /// vanishes when it closes (`AUTOINCREMENT` is refused there).
    public static let temporary = TableOptions(rawValue: 1 << 1)

    /// `WITHOUT ROWID` (Granite has no WITHOUT ROWID tables: the engine rejects the statement).
    public static let withoutRowID = TableOptions(rawValue: 1 << 2)

    /// `STRICT` (Granite has no STRICT tables: the engine rejects the statement).
    public static let strict = TableOptions(rawValue: 1 << 3)
}

/// The columns and constraints of a table being created, handed to the closure of
/// ``Database/create(table:options:body:)``.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull()
///     t.uniqueKey(["name"])
/// }
/// ```
public final class TableDefinition {
    enum Item {
        case column(ColumnDefinition)
        case literal(SQL)
        case foreignKey(ForeignKeyDefinition)
    }

    struct KeyConstraint {
        var columns: [String]
        var onConflict: Database.ConflictResolution?
    }

    /// A part of the primary key: a column named by ``primaryKey(_:onConflict:)``, a column defined in the body
    /// of ``primaryKey(onConflict:body:)``, or a foreign key defined there (its columns are known at SQL time).
    enum PrimaryKeyComponent {
        case columnName(String)
        case column(ColumnDefinition)
        case foreignKey(ForeignKeyDefinition)
    }

    struct PrimaryKeyConstraint {
        var components: [PrimaryKeyComponent]
        var onConflict: Database.ConflictResolution?
    }

    struct ForeignKeyConstraint {
        var columns: [String]
        var table: String
        var destinationColumns: [String]?
        var onDelete: Database.ForeignKeyAction?
        var onUpdate: Database.ForeignKeyAction?
        var deferred: Bool
    }

    let name: String
    let options: TableOptions
    var items: [Item] = []
    var primaryKeyConstraint: PrimaryKeyConstraint?
    var uniqueKeys: [KeyConstraint] = []
    var foreignKeys: [ForeignKeyConstraint] = []
    var checks: [SQLExpression] = []
    var literalConstraints: [SQL] = []
    /// Whether the body of ``primaryKey(onConflict:body:)`` is running: its columns join the primary key.
    private(set) var inPrimaryKeyBody = false

    init(name: String, options: TableOptions) {
        self.name = name
        self.options = options
    }

    /// Adds an `INTEGER PRIMARY KEY AUTOINCREMENT` column.
    ///
    /// ```swift
    /// t.autoIncrementedPrimaryKey("id")  // "id" INTEGER PRIMARY KEY AUTOINCREMENT
    /// ```
    @discardableResult
    public func autoIncrementedPrimaryKey(
        _ name: String, onConflict conflictResolution: Database.ConflictResolution? = nil
    ) -> ColumnDefinition {
        column(name, .integer).primaryKey(onConflict: conflictResolution, autoincrement: true)
    }

    /// Adds a primary key column; a non-INTEGER one is also `NOT NULL`.
    ///
    /// ```swift
    /// t.primaryKey("uuid", .text)  // "uuid" TEXT PRIMARY KEY NOT NULL
    /// ```
    @discardableResult
    public func primaryKey(
        _ name: String, _ type: Database.ColumnType, onConflict conflictResolution: Database.ConflictResolution? = nil
    ) -> ColumnDefinition {
        let column = column(name, type).primaryKey(onConflict: conflictResolution)
        return type == .integer ? column : column.notNull()
    }

    /// Declares a composite primary key with the columns defined in `body`, which are `NOT NULL`.
    ///
    /// ```swift
    /// t.primaryKey {
    ///     t.column("a", .text)
    ///     t.column("b", .text)
    /// }
    /// ```
    public func primaryKey(
        onConflict conflictResolution: Database.ConflictResolution? = nil, body: () throws -> Void
    ) rethrows {
        guard primaryKeyConstraint == nil else { fatalError("can't define several primary keys") }
        primaryKeyConstraint = PrimaryKeyConstraint(components: [], onConflict: conflictResolution)
        let outer = inPrimaryKeyBody
        inPrimaryKeyBody = true
        defer { inPrimaryKeyBody = outer }
        try body()
    }

    /// Declares a `PRIMARY KEY (…)` table constraint on existing columns.
    ///
    /// ```swift
    /// t.primaryKey(["a", "b"])
    /// ```
    public func primaryKey(_ columns: [String], onConflict conflictResolution: Database.ConflictResolution? = nil) {
        guard primaryKeyConstraint == nil else { fatalError("can't define several primary keys") }
        primaryKeyConstraint = PrimaryKeyConstraint(
            components: columns.map(PrimaryKeyComponent.columnName), onConflict: conflictResolution)
    }

    /// Adds a column; its type is optional.
    @discardableResult
    public func column(_ name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        items.append(.column(column))
        if inPrimaryKeyBody {
            column.notNull()
            primaryKeyConstraint?.components.append(.column(column))
        }
        return column
    }

    /// Adds a column written in SQL.
    ///
    /// ```swift
    /// t.column(sql: "name TEXT NOT NULL")
    /// ```
    public func column(sql: String) {
        column(literal: SQL(sql: sql))
    }

    /// Adds a column written as an SQL literal (interpolated values are written inline).
    public func column(literal: SQL) {
        items.append(.literal(literal))
    }

    /// Adds a `UNIQUE (…)` table constraint.
    public func uniqueKey(_ columns: [String], onConflict conflictResolution: Database.ConflictResolution? = nil) {
        uniqueKeys.append(KeyConstraint(columns: columns, onConflict: conflictResolution))
    }

    /// Adds a `FOREIGN KEY (…) REFERENCES` table constraint, to `destinationColumns` or to the primary key of
    /// `table`.
    ///
    /// ```swift
    /// t.foreignKey(["teamId"], references: "team", onDelete: .cascade)
    /// ```
    public func foreignKey(
        _ columns: [String],
        references table: String,
        columns destinationColumns: [String]? = nil,
        onDelete deleteAction: Database.ForeignKeyAction? = nil,
        onUpdate updateAction: Database.ForeignKeyAction? = nil,
        deferred isDeferred: Bool = false
    ) {
        foreignKeys.append(
            ForeignKeyConstraint(
                columns: columns, table: table, destinationColumns: destinationColumns, onDelete: deleteAction,
                onUpdate: updateAction, deferred: isDeferred))
    }

    /// Adds a `CHECK (…)` table constraint written in SQL.
    ///
    /// ```swift
    /// t.check(sql: "a + b < 10")
    /// ```
    public func check(sql: String) {
        checks.append(.literal(SQL(sql: sql)))
    }

    /// Adds a `CHECK (…)` table constraint built from an expression, with its values written inline.
    ///
    /// ```swift
    /// // CHECK (("personalPhone" IS NOT NULL) OR ("workPhone" IS NOT NULL))
    /// t.check(Column("personalPhone") != nil || Column("workPhone") != nil)
    /// ```
    ///
    /// - Parameter condition: The condition every row must meet.
    public func check(_ condition: some SQLSpecificExpressible) {
        checks.append(condition.sqlExpression)
    }

    /// Adds a `CHECK (…)` table constraint from any expressible value (deprecated, as in GRDB: a plain value
    /// such as `true` makes a constant check; use an expression).
    ///
    /// - Parameter condition: The condition every row must meet.
    @available(*, deprecated, message: "Pass an expression built from columns instead of a plain value")
    public func check(_ condition: some SQLExpressible) {
        checks.append(condition.sqlExpression)
    }

    /// Adds a table constraint written in SQL.
    ///
    /// ```swift
    /// t.constraint(sql: "CHECK (a + b < 10)")
    /// ```
    public func constraint(sql: String) {
        literalConstraints.append(SQL(sql: sql))
    }

    /// Adds a table constraint written as an SQL literal (interpolated values are written inline).
    public func constraint(literal: SQL) {
        literalConstraints.append(literal)
    }

    // MARK: SQL generation

    /// The primary key columns as declared in this definition; nil when it has none (the hidden rowid), or when
    /// it has a column written in SQL (unknown name).
    func ownPrimaryKey(_ db: Database) throws -> ForeignKeyDestination {
        guard let primaryKeyConstraint else {
            for case .column(let column) in items where column.primaryKey != nil {
                return ForeignKeyDestination(
                    table: name, primaryKey: [ForeignKeyDestinationColumn(name: column.name, type: column.type)])
            }
            return ForeignKeyDestination(table: name, primaryKey: nil)
        }
        var columns: [ForeignKeyDestinationColumn] = []
        for component in primaryKeyConstraint.components {
            switch component {
            case .columnName(let name):
                columns.append(ForeignKeyDestinationColumn(name: name, type: nil))
            case .column(let column):
                columns.append(ForeignKeyDestinationColumn(name: column.name, type: column.type))
            case .foreignKey(let foreignKey):
                let expansion = try ForeignKeyExpansion(
                    db, foreignKey: foreignKey, originTable: name, ownPrimaryKey: nil, indexOptions: [])
                columns += expansion.columns.map { ForeignKeyDestinationColumn(name: $0.name, type: $0.type) }
            }
        }
        return ForeignKeyDestination(table: name, primaryKey: columns)
    }

    /// The `CREATE TABLE` statement followed by the `CREATE INDEX` statements: those of composite
    /// ``belongsTo(_:inTable:onDelete:onUpdate:deferred:indexed:)`` foreign keys, then those of indexed columns.
    func sql(_ db: Database) throws -> [String] {
        var chunks = ["CREATE"]
        if options.contains(.temporary) { chunks.append("TEMPORARY") }
        chunks.append("TABLE")
        if options.contains(.ifNotExists) { chunks.append("IF NOT EXISTS") }
        chunks.append(name.quotedDatabaseIdentifier)
        let indexOptions: IndexOptions = options.contains(.ifNotExists) ? .ifNotExists : []
        let ownPrimaryKey = try self.ownPrimaryKey(db)
        let ownPrimaryKeyColumns = { ownPrimaryKey.primaryKey?.map(\.name) ?? [Column.rowID.name] }
        func expansion(_ foreignKey: ForeignKeyDefinition) throws -> ForeignKeyExpansion {
            try ForeignKeyExpansion(
                db, foreignKey: foreignKey, originTable: name, ownPrimaryKey: ownPrimaryKey, indexOptions: indexOptions)
        }

        var columnElements: [String] = []
        var columns: [ColumnDefinition] = []
        var foreignKeys = self.foreignKeys
        var indexes: [String] = []
        for item in items {
            switch item {
            case .column(let column):
                columnElements.append(try column.sql(db, table: name, tablePrimaryKey: ownPrimaryKeyColumns))
                columns.append(column)
            case .literal(let literal):
                columnElements.append(try SchemaSQL.inline(literal))
            case .foreignKey(let foreignKey):
                let expansion = try expansion(foreignKey)
                for column in expansion.columns {
                    columnElements.append(try column.sql(db, table: name, tablePrimaryKey: ownPrimaryKeyColumns))
                }
                columns += expansion.columns
                if let constraint = expansion.constraint { foreignKeys.append(constraint) }
                if let index = expansion.index { indexes.append(index.sql) }
            }
        }
        indexes += columns.compactMap { $0.indexSQL(table: name, ifNotExists: options.contains(.ifNotExists)) }

        var elements = columnElements
        if let primaryKeyConstraint {
            var columns: [String] = []
            for component in primaryKeyConstraint.components {
                switch component {
                case .columnName(let name): columns.append(name)
                case .column(let column): columns.append(column.name)
                case .foreignKey(let foreignKey): columns += try expansion(foreignKey).columnNames
                }
            }
            elements.append(
                Self.keySQL("PRIMARY KEY", KeyConstraint(columns: columns, onConflict: primaryKeyConstraint.onConflict))
            )
        }
        for key in uniqueKeys {
            elements.append(Self.keySQL("UNIQUE", key))
        }
        for key in foreignKeys {
            let destination: [String]
            if let columns = key.destinationColumns {
                destination = columns
            } else if key.table.lowercased() == name.lowercased() {
                destination = ownPrimaryKeyColumns()
            } else {
                destination = try db.primaryKey(key.table).columns
            }
            let parts =
                ["FOREIGN KEY", SchemaSQL.columnList(key.columns), "REFERENCES"]
                + [key.table.quotedDatabaseIdentifier + SchemaSQL.columnList(destination)]
                + SchemaSQL.foreignKeyClauses(onDelete: key.onDelete, onUpdate: key.onUpdate, deferred: key.deferred)
            elements.append(parts.joined(separator: " "))
        }
        for check in checks {
            elements.append("CHECK (\(try SchemaSQL.inline(check)))")
        }
        for literal in literalConstraints {
            elements.append(try SchemaSQL.inline(literal))
        }
        chunks.append("(" + elements.joined(separator: ", ") + ")")
        var tableOptions: [String] = []
        if options.contains(.strict) { tableOptions.append("STRICT") }
        if options.contains(.withoutRowID) { tableOptions.append("WITHOUT ROWID") }
        if !tableOptions.isEmpty { chunks.append(tableOptions.joined(separator: ", ")) }
        return [chunks.joined(separator: " ")] + indexes
    }

    private static func keySQL(_ keyword: String, _ key: KeyConstraint) -> String {
        var chunks = [keyword, SchemaSQL.columnList(key.columns)]
        if let onConflict = key.onConflict { chunks += ["ON CONFLICT", onConflict.rawValue] }
        return chunks.joined(separator: " ")
    }
}

// A mutable builder, used inside the closure it is handed to.
@available(*, unavailable)
extension TableDefinition: Sendable {}
