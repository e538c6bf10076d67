/// `CREATE TABLE [IF NOT EXISTS] name (columns, constraints)`.
package struct CreateTableStatement: Sendable, Equatable {
    /// Whether `TEMP` or `TEMPORARY` was given: the table goes to the connection's temporary schema.
    package var temporary: Bool
    /// Whether `IF NOT EXISTS` was given.
    package var ifNotExists: Bool
    /// The table name.
    package var name: QualifiedName
    /// The column definitions (at least one).
    package var columns: [ColumnDefinition]
    /// The table constraints.
    package var constraints: [TableConstraint]
    /// Whether the `STRICT` table option was given (declared types are enforced).
    package var strict: Bool
    /// Whether the `WITHOUT ROWID` table option was given: the table has no rowid, its rows are identified (and
    /// scanned in the order of) the primary key.
    package var withoutRowid: Bool
    /// The query of `CREATE TABLE … AS SELECT`: the columns and rows come from it, and ``columns`` is empty.
    package var asSelect: SelectStatement?

    /// Creates a create-table statement.
    package init(
        temporary: Bool = false, ifNotExists: Bool = false, name: QualifiedName, columns: [ColumnDefinition],
        constraints: [TableConstraint] = [], strict: Bool = false, withoutRowid: Bool = false,
        asSelect: SelectStatement? = nil
    ) {
        self.temporary = temporary
        self.ifNotExists = ifNotExists
        self.name = name
        self.columns = columns
        self.constraints = constraints
        self.strict = strict
        self.withoutRowid = withoutRowid
        self.asSelect = asSelect
    }
}

/// A column definition: `name [type] [constraints…]`.
package struct ColumnDefinition: Sendable, Equatable {
    /// The column name.
    package var name: String
    /// The declared type, if any.
    package var type: TypeName?
    /// The column constraints, in order.
    package var constraints: [ColumnConstraint]

    /// Creates a column definition.
    package init(name: String, type: TypeName? = nil, constraints: [ColumnConstraint] = []) {
        self.name = name
        self.type = type
        self.constraints = constraints
    }
}

/// A column constraint with an optional `CONSTRAINT name`.
package struct ColumnConstraint: Sendable, Equatable {
    /// The constraint forms.
    package enum Kind: Sendable, Equatable {
        /// `PRIMARY KEY [ASC|DESC] [ON CONFLICT …] [AUTOINCREMENT]`.
        case primaryKey(order: SortOrder?, onConflict: ConflictResolution?, autoincrement: Bool)
        /// `NOT NULL [ON CONFLICT …]`.
        case notNull(onConflict: ConflictResolution?)
        /// `UNIQUE [ON CONFLICT …]`.
        case unique(onConflict: ConflictResolution?)
        /// `CHECK (expr)`.
        case check(SQLExpression)
        /// `DEFAULT value`: a literal, a signed number (a unary `-`/`+` of a numeric literal), a
        /// `CURRENT_*` literal or a parenthesised expression.
        case `default`(SQLExpression)
        /// `COLLATE name`.
        case collate(String)
        /// `REFERENCES …`.
        case references(ForeignKeyClause)
        /// `[GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED]`: a column computed from the others of its row.
        case generated(SQLExpression, stored: Bool)
    }

    /// The `CONSTRAINT name`, if given.
    package var name: String?
    /// The constraint.
    package var kind: Kind

    /// Creates a column constraint.
    package init(name: String? = nil, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// A table constraint with an optional `CONSTRAINT name`.
package struct TableConstraint: Sendable, Equatable {
    /// The constraint forms.
    package enum Kind: Sendable, Equatable {
        /// `PRIMARY KEY (columns) [ON CONFLICT …]`.
        case primaryKey([IndexedColumn], onConflict: ConflictResolution?)
        /// `UNIQUE (columns) [ON CONFLICT …]`.
        case unique([IndexedColumn], onConflict: ConflictResolution?)
        /// `CHECK (expr)`.
        case check(SQLExpression)
        /// `FOREIGN KEY (columns) REFERENCES …`.
        case foreignKey(columns: [String], ForeignKeyClause)
    }

    /// The `CONSTRAINT name`, if given.
    package var name: String?
    /// The constraint.
    package var kind: Kind

    /// Creates a table constraint.
    package init(name: String? = nil, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// `REFERENCES table [(columns)] [ON DELETE|ON UPDATE action]… [[NOT] DEFERRABLE [INITIALLY …]]`.
package struct ForeignKeyClause: Sendable, Equatable {
    /// When a foreign key action fires.
    package enum Event: String, Sendable, Equatable {
        /// `ON DELETE`.
        case delete = "ON DELETE"
        /// `ON UPDATE`.
        case update = "ON UPDATE"
    }

    /// Foreign key actions.
    package enum Action: String, Sendable, Equatable {
        /// `SET NULL`.
        case setNull = "SET NULL"
        /// `SET DEFAULT`.
        case setDefault = "SET DEFAULT"
        /// `CASCADE`.
        case cascade = "CASCADE"
        /// `RESTRICT`.
        case restrict = "RESTRICT"
        /// `NO ACTION`.
        case noAction = "NO ACTION"
    }

    /// Deferral of constraint checking.
    package enum Deferrable: String, Sendable, Equatable {
        /// `DEFERRABLE INITIALLY DEFERRED`.
        case initiallyDeferred = "DEFERRABLE INITIALLY DEFERRED"
        /// `DEFERRABLE [INITIALLY IMMEDIATE]`.
        case initiallyImmediate = "DEFERRABLE INITIALLY IMMEDIATE"
        /// `NOT DEFERRABLE [INITIALLY …]`.
        case notDeferrable = "NOT DEFERRABLE"
    }

    /// The referenced table.
    package var table: String
    /// The referenced columns (empty means the primary key).
    package var columns: [String]
    /// The actions, in the order written.
    package var actions: [ForeignKeyActionClause]
    /// The deferral clause, if any.
    package var deferrable: Deferrable?

    /// Creates a foreign key clause.
    package init(
        table: String, columns: [String] = [], actions: [ForeignKeyActionClause] = [], deferrable: Deferrable? = nil
    ) {
        self.table = table
        self.columns = columns
        self.actions = actions
        self.deferrable = deferrable
    }
}

/// One `ON DELETE|ON UPDATE action` clause.
package struct ForeignKeyActionClause: Sendable, Equatable {
    /// The triggering event.
    package var event: ForeignKeyClause.Event
    /// The action.
    package var action: ForeignKeyClause.Action

    /// Creates an action clause.
    package init(event: ForeignKeyClause.Event, action: ForeignKeyClause.Action) {
        self.event = event
        self.action = action
    }
}

/// An indexed column: `expr [COLLATE name] [ASC|DESC]`. A top-level `COLLATE` is split out into ``collation``.
package struct IndexedColumn: Sendable, Equatable {
    /// The column or expression.
    package var expression: SQLExpression
    /// The collation, if given.
    package var collation: String?
    /// The sort order, if given.
    package var order: SortOrder?

    /// Creates an indexed column.
    package init(expression: SQLExpression, collation: String? = nil, order: SortOrder? = nil) {
        self.expression = expression
        self.collation = collation
        self.order = order
    }

    /// The column name when the expression is a plain unqualified column reference.
    package var columnName: String? {
        if case .column(let reference) = expression.kind, reference.table == nil { return reference.column }
        return nil
    }
}

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (columns) [WHERE condition]`.
package struct CreateIndexStatement: Sendable, Equatable {
    /// Whether `UNIQUE` was given.
    package var unique: Bool
    /// Whether `IF NOT EXISTS` was given.
    package var ifNotExists: Bool
    /// The index name.
    package var name: QualifiedName
    /// The indexed table.
    package var table: String
    /// The indexed columns (at least one).
    package var columns: [IndexedColumn]
    /// The partial-index condition, if any.
    package var whereClause: SQLExpression?

    /// Creates a create-index statement.
    package init(
        unique: Bool = false, ifNotExists: Bool = false, name: QualifiedName, table: String,
        columns: [IndexedColumn], whereClause: SQLExpression? = nil
    ) {
        self.unique = unique
        self.ifNotExists = ifNotExists
        self.name = name
        self.table = table
        self.columns = columns
        self.whereClause = whereClause
    }
}

/// `DROP TABLE|INDEX [IF EXISTS] name`.
package struct DropStatement: Sendable, Equatable {
    /// Whether `IF EXISTS` was given.
    package var ifExists: Bool
    /// The dropped object.
    package var name: QualifiedName

    /// Creates a drop statement.
    package init(ifExists: Bool = false, name: QualifiedName) {
        self.ifExists = ifExists
        self.name = name
    }
}

/// `ALTER TABLE name action`.
package struct AlterTableStatement: Sendable, Equatable {
    /// The alterations.
    package enum Action: Sendable, Equatable {
        /// `RENAME TO newName`.
        case renameTable(to: String)
        /// `RENAME [COLUMN] old TO new`.
        case renameColumn(from: String, to: String)
        /// `ADD [COLUMN] definition`.
        case addColumn(ColumnDefinition)
        /// `DROP [COLUMN] name`.
        case dropColumn(String)
    }

    /// The altered table.
    package var table: QualifiedName
    /// The alteration.
    package var action: Action

    /// Creates an alter-table statement.
    package init(table: QualifiedName, action: Action) {
        self.table = table
        self.action = action
    }
}
