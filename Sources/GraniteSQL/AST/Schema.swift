/// `CREATE TABLE [IF NOT EXISTS] name (columns, constraints)`.
public struct CreateTableStatement: Sendable, Equatable {
    /// Whether `IF NOT EXISTS` was given.
    public var ifNotExists: Bool
    /// The table name.
    public var name: QualifiedName
    /// The column definitions (at least one).
    public var columns: [ColumnDefinition]
    /// The table constraints.
    public var constraints: [TableConstraint]

    /// Creates a create-table statement.
    public init(
        ifNotExists: Bool = false, name: QualifiedName, columns: [ColumnDefinition],
        constraints: [TableConstraint] = []
    ) {
        self.ifNotExists = ifNotExists
        self.name = name
        self.columns = columns
        self.constraints = constraints
    }
}

/// A column definition: `name [type] [constraints…]`.
public struct ColumnDefinition: Sendable, Equatable {
    /// The column name.
    public var name: String
    /// The declared type, if any.
    public var type: TypeName?
    /// The column constraints, in order.
    public var constraints: [ColumnConstraint]

    /// Creates a column definition.
    public init(name: String, type: TypeName? = nil, constraints: [ColumnConstraint] = []) {
        self.name = name
        self.type = type
        self.constraints = constraints
    }
}

/// A column constraint with an optional `CONSTRAINT name`.
public struct ColumnConstraint: Sendable, Equatable {
    /// The constraint forms.
    public enum Kind: Sendable, Equatable {
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
    }

    /// The `CONSTRAINT name`, if given.
    public var name: String?
    /// The constraint.
    public var kind: Kind

    /// Creates a column constraint.
    public init(name: String? = nil, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// A table constraint with an optional `CONSTRAINT name`.
public struct TableConstraint: Sendable, Equatable {
    /// The constraint forms.
    public enum Kind: Sendable, Equatable {
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
    public var name: String?
    /// The constraint.
    public var kind: Kind

    /// Creates a table constraint.
    public init(name: String? = nil, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// `REFERENCES table [(columns)] [ON DELETE|ON UPDATE action]… [[NOT] DEFERRABLE [INITIALLY …]]`.
public struct ForeignKeyClause: Sendable, Equatable {
    /// When a foreign key action fires.
    public enum Event: String, Sendable, Equatable {
        /// `ON DELETE`.
        case delete = "ON DELETE"
        /// `ON UPDATE`.
        case update = "ON UPDATE"
    }

    /// Foreign key actions.
    public enum Action: String, Sendable, Equatable {
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
    public enum Deferrable: String, Sendable, Equatable {
        /// `DEFERRABLE INITIALLY DEFERRED`.
        case initiallyDeferred = "DEFERRABLE INITIALLY DEFERRED"
        /// `DEFERRABLE [INITIALLY IMMEDIATE]`.
        case initiallyImmediate = "DEFERRABLE INITIALLY IMMEDIATE"
        /// `NOT DEFERRABLE [INITIALLY …]`.
        case notDeferrable = "NOT DEFERRABLE"
    }

    /// The referenced table.
    public var table: String
    /// The referenced columns (empty means the primary key).
    public var columns: [String]
    /// The actions, in the order written.
    public var actions: [ForeignKeyActionClause]
    /// The deferral clause, if any.
    public var deferrable: Deferrable?

    /// Creates a foreign key clause.
    public init(
        table: String, columns: [String] = [], actions: [ForeignKeyActionClause] = [], deferrable: Deferrable? = nil
    ) {
        self.table = table
        self.columns = columns
        self.actions = actions
        self.deferrable = deferrable
    }
}

/// One `ON DELETE|ON UPDATE action` clause.
public struct ForeignKeyActionClause: Sendable, Equatable {
    /// The triggering event.
    public var event: ForeignKeyClause.Event
    /// The action.
    public var action: ForeignKeyClause.Action

    /// Creates an action clause.
    public init(event: ForeignKeyClause.Event, action: ForeignKeyClause.Action) {
        self.event = event
        self.action = action
    }
}

/// An indexed column: `expr [COLLATE name] [ASC|DESC]`. A top-level `COLLATE` is split out into ``collation``.
public struct IndexedColumn: Sendable, Equatable {
    /// The column or expression.
    public var expression: SQLExpression
    /// The collation, if given.
    public var collation: String?
    /// The sort order, if given.
    public var order: SortOrder?

    /// Creates an indexed column.
    public init(expression: SQLExpression, collation: String? = nil, order: SortOrder? = nil) {
        self.expression = expression
        self.collation = collation
        self.order = order
    }

    /// The column name when the expression is a plain unqualified column reference.
    public var columnName: String? {
        if case .column(let reference) = expression.kind, reference.table == nil { return reference.column }
        return nil
    }
}

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (columns) [WHERE condition]`.
public struct CreateIndexStatement: Sendable, Equatable {
    /// Whether `UNIQUE` was given.
    public var unique: Bool
    /// Whether `IF NOT EXISTS` was given.
    public var ifNotExists: Bool
    /// The index name.
    public var name: QualifiedName
    /// The indexed table.
    public var table: String
    /// The indexed columns (at least one).
    public var columns: [IndexedColumn]
    /// The partial-index condition, if any.
    public var whereClause: SQLExpression?

    /// Creates a create-index statement.
    public init(
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
public struct DropStatement: Sendable, Equatable {
    /// Whether `IF EXISTS` was given.
    public var ifExists: Bool
    /// The dropped object.
    public var name: QualifiedName

    /// Creates a drop statement.
    public init(ifExists: Bool = false, name: QualifiedName) {
        self.ifExists = ifExists
        self.name = name
    }
}

/// `ALTER TABLE name action`.
public struct AlterTableStatement: Sendable, Equatable {
    /// The alterations.
    public enum Action: Sendable, Equatable {
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
    public var table: QualifiedName
    /// The alteration.
    public var action: Action

    /// Creates an alter-table statement.
    public init(table: QualifiedName, action: Action) {
        self.table = table
        self.action = action
    }
}
