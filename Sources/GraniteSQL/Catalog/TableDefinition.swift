import GraniteStorage

/// One column of a ``TableDefinition``.
package struct TableColumn: Sendable, Equatable {
    /// The column name as declared.
    package var name: String
    /// The declared type as written (canonical spacing, e.g. `VARCHAR(10)`), or nil.
    package var declaredType: String?
    /// The type affinity derived from ``declaredType``.
    package var affinity: SQLAffinity
    /// Whether the column has a `NOT NULL` constraint.
    package var notNull: Bool
    /// The `ON CONFLICT` clause of the `NOT NULL` constraint, if any.
    package var notNullConflict: ConflictResolution?
    /// The `DEFAULT` expression, if any (the last one written wins).
    package var defaultValue: SQLExpression?
    /// The `COLLATE` name, if any (the last one written wins); nil means `BINARY`.
    package var collation: String?
    /// Whether the column is part of the primary key.
    package var isPrimaryKey: Bool
    /// For a generated column, its expression and whether SQLite would store it (`STORED`) or compute it when read
    /// (`VIRTUAL`). Granite stores both kinds, computed on every write of the row: they read alike.
    package var generated: (expression: SQLExpression, stored: Bool)? {
        get { generatedColumn.map { ($0.expression, $0.stored) } }
        set { generatedColumn = newValue.map { GeneratedColumn(expression: $0.expression, stored: $0.stored) } }
    }
    /// The storage of ``generated`` (a tuple is not `Equatable`).
    private var generatedColumn: GeneratedColumn?

    private struct GeneratedColumn: Sendable, Equatable {
        var expression: SQLExpression
        var stored: Bool
    }

    /// Creates a column.
    package init(
        name: String, declaredType: String? = nil, notNull: Bool = false, notNullConflict: ConflictResolution? = nil,
        defaultValue: SQLExpression? = nil, collation: String? = nil, isPrimaryKey: Bool = false
    ) {
        self.name = name
        self.declaredType = declaredType
        self.affinity = SQLAffinity(declaredType: declaredType)
        self.notNull = notNull
        self.notNullConflict = notNullConflict
        self.defaultValue = defaultValue
        self.collation = collation
        self.isPrimaryKey = isPrimaryKey
    }
}

/// One column of a key (primary key or unique constraint): a column position, its collation and order.
package struct KeyColumn: Sendable, Equatable {
    /// The column's position in ``TableDefinition/columns``.
    package var column: Int
    /// The effective collation: the one written in the constraint, else the column's; nil means `BINARY`.
    package var collation: String?
    /// The sort order.
    package var order: SortOrder

    /// Creates a key column.
    package init(column: Int, collation: String? = nil, order: SortOrder = .ascending) {
        self.column = column
        self.collation = collation
        self.order = order
    }
}

/// A `UNIQUE` constraint, or a `PRIMARY KEY` that is not the rowid, enforced by an automatic index.
package struct UniqueConstraint: Sendable, Equatable {
    /// The `CONSTRAINT name`, if given.
    package var name: String?
    /// The key columns.
    package var columns: [KeyColumn]
    /// The `ON CONFLICT` clause, if any.
    package var onConflict: ConflictResolution?
    /// Whether this is the table's primary key.
    package var isPrimaryKey: Bool
    /// The name of the automatic index enforcing it (`granite_autoindex_<table>_<n>`).
    package var indexName: String
}

/// A `CHECK` constraint (from a column or the table).
package struct CheckConstraint: Sendable, Equatable {
    /// The `CONSTRAINT name`, if given.
    package var name: String?
    /// The condition.
    package var expression: SQLExpression
}

/// A foreign key: child columns referencing a parent table.
package struct ForeignKey: Sendable, Equatable {
    /// The `CONSTRAINT name`, if given.
    package var name: String?
    /// The child columns (positions in ``TableDefinition/columns``).
    package var columns: [Int]
    /// The parent table name as written.
    package var parentTable: String
    /// The parent columns as written; empty means the parent's primary key.
    package var parentColumns: [String]
    /// The `ON DELETE` action (`NO ACTION` when absent; the last clause wins).
    package var onDelete: ForeignKeyClause.Action
    /// The `ON UPDATE` action (`NO ACTION` when absent; the last clause wins).
    package var onUpdate: ForeignKeyClause.Action
    /// The deferral clause, if any.
    package var deferrable: ForeignKeyClause.Deferrable?
}

/// The schema of one table, derived from its `CREATE TABLE` statement.
///
/// The rows of the table live in the storage table tree ``storageName``, keyed by rowid. When the table has an
/// INTEGER PRIMARY KEY (``rowidAlias``), that column is the rowid. Every entry of ``uniqueConstraints`` is
/// enforced by an automatic index (see ``SchemaCatalog/indexes(on:)``).
///
/// A `WITHOUT ROWID` table (``hasRowid`` false) is stored the same way, but its storage rowid is invisible to
/// SQL: its primary key identifies the rows, its columns are NOT NULL, and its queries read the rows through the
/// primary key's automatic index, in primary-key order (see FORMAT.md, "WITHOUT ROWID tables").
package struct TableDefinition: Sendable, Equatable {
    /// The table name as declared (or as renamed).
    package var name: String
    /// The stored `CREATE TABLE` text.
    package var sql: String
    /// The parsed statement the definition was derived from.
    package var statement: CreateTableStatement
    /// The columns, in declaration order.
    package var columns: [TableColumn]
    /// The primary key columns (from a column or table constraint); empty when there is none.
    package var primaryKey: [KeyColumn]
    /// The `ON CONFLICT` clause of the primary key, if any.
    package var primaryKeyConflict: ConflictResolution?
    /// The position of the INTEGER PRIMARY KEY column that aliases the rowid, if any.
    package var rowidAlias: Int?
    /// Whether the INTEGER PRIMARY KEY was declared `AUTOINCREMENT`.
    package var isAutoincrement: Bool
    /// The unique constraints (and the non-rowid primary key) with their automatic index names, in creation order.
    package var uniqueConstraints: [UniqueConstraint]
    /// The `CHECK` constraints: column constraints first, in column order, then table constraints.
    package var checks: [CheckConstraint]
    /// The foreign keys, column constraints first, then table constraints.
    package var foreignKeys: [ForeignKey]
    /// For a STRICT table, the declared type of each column (enforced on every write); nil otherwise.
    package var strictTypes: [StrictType]?
    /// The declared type of each column as SQLite reports it (see ``typeText(ofColumn:)``).
    package private(set) var reportedTypes: [String?] = []
    /// The root page of the table's storage tree (0 until stored).
    package var rootPage: PageNumber
    /// The name of the table's tree in the storage catalog (`t:<schema rowid>`).
    package var storageName: String
    /// The rowid of the table's row in `granite_schema`.
    package var schemaRowid: Int64
    /// Whether the table lives in the connection's temporary schema (its trees are in the temporary store).
    package var isTemporary = false

    /// The position of the column named `name` (ASCII case-insensitive), if any.
    package func columnIndex(named name: String) -> Int? {
        let key = SchemaNames.key(name)
        return columns.firstIndex { SchemaNames.key($0.name) == key }
    }

    /// The column named `name` (ASCII case-insensitive), if any.
    package func column(named name: String) -> TableColumn? {
        columnIndex(named: name).map { columns[$0] }
    }

    /// Whether the table has a rowid alias column.
    package var hasRowidAlias: Bool { rowidAlias != nil }

    /// Whether SQL sees a rowid (`rowid`, `oid`, `_rowid_`, `last_insert_rowid()`): false for a `WITHOUT ROWID`
    /// table.
    package var hasRowid: Bool { !statement.withoutRowid }

    /// The automatic index of the primary key of a `WITHOUT ROWID` table, through which its rows are read.
    package var withoutRowidKeyIndexName: String? {
        guard !hasRowid else { return nil }
        return uniqueConstraints.first(where: \.isPrimaryKey)?.indexName
    }

    /// Derives a definition from a `CREATE TABLE` statement, applying SQLite's rules.
    ///
    /// Throws ``SchemaError`` for duplicate columns, several primary keys, misplaced `AUTOINCREMENT`, unknown
    /// columns in key or foreign key constraints and expressions in key constraints.
    package init(
        _ statement: CreateTableStatement, sql: String, rootPage: PageNumber = 0, storageName: String = "",
        schemaRowid: Int64 = 0
    ) throws {
        let tableName = statement.name.name
        self.name = tableName
        self.sql = sql
        self.statement = statement
        self.rootPage = rootPage
        self.storageName = storageName
        self.schemaRowid = schemaRowid
        columns = []
        primaryKey = []
        primaryKeyConflict = nil
        rowidAlias = nil
        isAutoincrement = false
        uniqueConstraints = []
        checks = []
        foreignKeys = []
        strictTypes = nil

        var keys: [KeyConstraint] = []
        var primaryKeyFromColumnDescending = false
        var autoincrement = false
        try addColumns(
            of: statement, keys: &keys, primaryKeyFromColumnDescending: &primaryKeyFromColumnDescending,
            autoincrement: &autoincrement)
        try addTableConstraints(of: statement, keys: &keys)
        try applyKeys(
            keys, statement, primaryKeyFromColumnDescending: primaryKeyFromColumnDescending,
            autoincrement: autoincrement)
        if columns.allSatisfy({ $0.generated != nil }) {
            throw SchemaError("must have at least one non-generated column")
        }
        if statement.strict { try applyStrictTypes(of: statement) }
        reportedTypes = reportedTypes(written: Self.writtenTypes(in: sql, columns: columns.map(\.name)))
    }

    /// A PRIMARY KEY or UNIQUE constraint of a `CREATE TABLE`, column or table constraint, in textual order.
    private struct KeyConstraint {
        var name: String?
        var columns: [KeyColumn]
        var onConflict: ConflictResolution?
        var isPrimaryKey: Bool
    }

    /// Adds the columns of `statement` with their column constraints: NOT NULL, DEFAULT, COLLATE, CHECK and
    /// REFERENCES are recorded at once, PRIMARY KEY and UNIQUE appended to `keys`.
    private mutating func addColumns(
        of statement: CreateTableStatement, keys: inout [KeyConstraint], primaryKeyFromColumnDescending: inout Bool,
        autoincrement: inout Bool
    ) throws {
        let tableName = name
        var seen = Set<String>()
        for definition in statement.columns {
            guard seen.insert(SchemaNames.key(definition.name)).inserted else {
                throw SchemaError("duplicate column name: \(definition.name)")
            }
            let index = columns.count
            var column = TableColumn(name: definition.name, declaredType: definition.type?.description)
            for constraint in definition.constraints {
                switch constraint.kind {
                case .primaryKey(let order, let onConflict, let autoinc):
                    if keys.contains(where: \.isPrimaryKey) {
                        throw SchemaError("table \(tableName) has more than one primary key")
                    }
                    keys.append(
                        KeyConstraint(
                            name: constraint.name, columns: [KeyColumn(column: index, order: order ?? .ascending)],
                            onConflict: onConflict, isPrimaryKey: true))
                    primaryKeyFromColumnDescending = order == .descending
                    autoincrement = autoinc
                case .notNull(let onConflict):
                    column.notNull = true
                    column.notNullConflict = onConflict
                case .unique(let onConflict):
                    keys.append(
                        KeyConstraint(
                            name: constraint.name, columns: [KeyColumn(column: index)], onConflict: onConflict,
                            isPrimaryKey: false))
                case .check(let expression):
                    checks.append(CheckConstraint(name: constraint.name, expression: expression))
                case .default(let expression):
                    column.defaultValue = expression
                case .collate(let collation):
                    column.collation = collation
                case .generated(let expression, let stored):
                    column.generated = (expression, stored)
                case .references(let clause):
                    if clause.columns.count > 1 {
                        throw SchemaError(
                            "foreign key on \(definition.name) should reference only one column of table \(clause.table)"
                        )
                    }
                    foreignKeys.append(TableDefinition.foreignKey(constraint.name, [index], clause))
                }
            }
            if column.generated != nil && column.defaultValue != nil {
                throw SchemaError("cannot use DEFAULT on a generated column")
            }
            columns.append(column)
        }
    }

    /// Adds the table constraints of `statement`: CHECK and FOREIGN KEY at once, PRIMARY KEY and UNIQUE to `keys`.
    private mutating func addTableConstraints(of statement: CreateTableStatement, keys: inout [KeyConstraint]) throws {
        let tableName = name
        for constraint in statement.constraints {
            switch constraint.kind {
            case .primaryKey(let indexed, let onConflict):
                if keys.contains(where: \.isPrimaryKey) {
                    throw SchemaError("table \(tableName) has more than one primary key")
                }
                keys.append(
                    KeyConstraint(
                        name: constraint.name, columns: try TableDefinition.resolveKey(indexed, columns),
                        onConflict: onConflict,
                        isPrimaryKey: true))
            case .unique(let indexed, let onConflict):
                keys.append(
                    KeyConstraint(
                        name: constraint.name, columns: try TableDefinition.resolveKey(indexed, columns),
                        onConflict: onConflict,
                        isPrimaryKey: false))
            case .check(let expression):
                checks.append(CheckConstraint(name: constraint.name, expression: expression))
            case .foreignKey(let names, let clause):
                var positions: [Int] = []
                for name in names {
                    guard let position = columnIndex(named: name) else {
                        throw SchemaError("unknown column \"\(name)\" in foreign key definition")
                    }
                    positions.append(position)
                }
                if !clause.columns.isEmpty && clause.columns.count != names.count {
                    throw SchemaError(
                        "number of columns in foreign key does not match the number of columns in the referenced table"
                    )
                }
                foreignKeys.append(TableDefinition.foreignKey(constraint.name, positions, clause))
            }
        }
    }

    /// Sets the primary key (and whether it aliases the rowid or is AUTOINCREMENT) and the unique constraints
    /// from the declared `keys`.
    private mutating func applyKeys(
        _ keys: [KeyConstraint], _ statement: CreateTableStatement, primaryKeyFromColumnDescending: Bool,
        autoincrement: Bool
    ) throws {
        let tableName = name
        var keys = keys
        // Default collations come from the columns.
        for k in keys.indices {
            for c in keys[k].columns.indices where keys[k].columns[c].collation == nil {
                keys[k].columns[c].collation = columns[keys[k].columns[c].column].collation
            }
        }

        if let key = keys.first(where: \.isPrimaryKey) {
            if key.columns.contains(where: { columns[$0.column].generated != nil }) {
                throw SchemaError("generated columns cannot be part of the PRIMARY KEY")
            }
            primaryKey = key.columns
            primaryKeyConflict = key.onConflict
            for column in key.columns { columns[column.column].isPrimaryKey = true }
            // SQLite's rule: a single-column key on a column declared exactly "INTEGER" aliases the rowid, except
            // when written as a column constraint with DESC (a documented quirk kept for compatibility).
            if key.columns.count == 1,
                let type = statement.columns[key.columns[0].column].type,
                type.arguments.isEmpty, SchemaNames.uppercased(type.name) == "INTEGER",
                !primaryKeyFromColumnDescending
            {
                rowidAlias = key.columns[0].column
            }
        }
        if statement.withoutRowid {
            // SQLite builds the key of a WITHOUT ROWID table that would otherwise alias the rowid from the
            // column's name alone: a COLLATE written in the PRIMARY KEY constraint is dropped.
            if let alias = rowidAlias, let k = keys.firstIndex(where: \.isPrimaryKey) {
                keys[k].columns[0].collation = columns[alias].collation
                primaryKey[0].collation = columns[alias].collation
            }
            try applyWithoutRowid(autoincrement: autoincrement)
        }
        if autoincrement {
            guard rowidAlias != nil else {
                throw SchemaError("AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY")
            }
            isAutoincrement = true
        }

        for key in keys {
            if key.isPrimaryKey && rowidAlias != nil { continue }
            let signature = key.columns.map { ($0.column, $0.collation.map(SchemaNames.key)) }
            if let existing = uniqueConstraints.firstIndex(where: { existing in
                existing.columns.count == signature.count
                    && zip(existing.columns, signature).allSatisfy {
                        $0.column == $1.0 && $0.collation.map(SchemaNames.key) == $1.1
                    }
            }) {
                // SQLite keeps one index for identical keys.
                if key.isPrimaryKey { uniqueConstraints[existing].isPrimaryKey = true }
                continue
            }
            uniqueConstraints.append(
                UniqueConstraint(
                    name: key.name, columns: key.columns, onConflict: key.onConflict, isPrimaryKey: key.isPrimaryKey,
                    indexName: "granite_autoindex_\(tableName)_\(uniqueConstraints.count + 1)"))
        }
    }

    /// SQLite's rules for a `WITHOUT ROWID` table: a primary key is required, AUTOINCREMENT is refused, an
    /// INTEGER PRIMARY KEY is an ordinary column, and the key columns are NOT NULL.
    private mutating func applyWithoutRowid(autoincrement: Bool) throws {
        if autoincrement { throw SchemaError("AUTOINCREMENT not allowed on WITHOUT ROWID tables") }
        guard !primaryKey.isEmpty else { throw SchemaError("PRIMARY KEY missing on table \(name)") }
        rowidAlias = nil
        for key in primaryKey where !columns[key.column].notNull { columns[key.column].notNull = true }
    }

    private static func resolveKey(_ indexed: [IndexedColumn], _ columns: [TableColumn]) throws -> [KeyColumn] {
        try indexed.map { column in
            guard let name = column.columnName else {
                throw SchemaError("expressions prohibited in PRIMARY KEY and UNIQUE constraints")
            }
            let key = SchemaNames.key(name)
            guard let position = columns.firstIndex(where: { SchemaNames.key($0.name) == key }) else {
                throw SchemaError(.noSuchColumn(ColumnReference(column: name)))
            }
            return KeyColumn(column: position, collation: column.collation, order: column.order ?? .ascending)
        }
    }

    private static func foreignKey(_ name: String?, _ columns: [Int], _ clause: ForeignKeyClause) -> ForeignKey {
        var onDelete = ForeignKeyClause.Action.noAction
        var onUpdate = ForeignKeyClause.Action.noAction
        for action in clause.actions {
            switch action.event {
            case .delete: onDelete = action.action
            case .update: onUpdate = action.action
            }
        }
        return ForeignKey(
            name: name, columns: columns, parentTable: clause.table, parentColumns: clause.columns, onDelete: onDelete,
            onUpdate: onUpdate, deferrable: clause.deferrable)
    }
}
