/// One parsed SQL statement with its source range, original text and parameter list.
///
/// Equality is structural: only ``kind`` is compared, so source ranges and formatting do not matter.
package struct Statement: Sendable, Equatable {
    /// What the statement is.
    package var kind: Kind
    /// The source range of the statement (without the trailing `;`).
    package var range: SourceRange
    /// The original SQL text of the statement (the substring covered by ``range``), e.g. for storing
    /// `CREATE` statements verbatim in the schema.
    package var sourceText: String
    /// The bound parameters the statement uses.
    package var parameters: ParameterList

    /// Creates a statement.
    package init(
        _ kind: Kind, range: SourceRange = SourceRange(start: .start, end: .start), sourceText: String = "",
        parameters: ParameterList = ParameterList()
    ) {
        self.kind = kind
        self.range = range
        self.sourceText = sourceText
        self.parameters = parameters
    }

    /// Structural equality; ranges, source text and parameter lists are ignored.
    package static func == (lhs: Statement, rhs: Statement) -> Bool { lhs.kind == rhs.kind }

    /// The statement forms.
    package indirect enum Kind: Sendable, Equatable {
        /// `SELECT …` or `VALUES …`.
        case select(SelectStatement)
        /// `INSERT …` / `REPLACE …`.
        case insert(InsertStatement)
        /// `UPDATE …`.
        case update(UpdateStatement)
        /// `DELETE …`.
        case delete(DeleteStatement)
        /// `CREATE TABLE …`.
        case createTable(CreateTableStatement)
        /// `CREATE [UNIQUE] INDEX …`.
        case createIndex(CreateIndexStatement)
        /// `DROP TABLE …`.
        case dropTable(DropStatement)
        /// `DROP INDEX …`.
        case dropIndex(DropStatement)
        /// `CREATE [TEMP] VIEW …`.
        case createView(CreateViewStatement)
        /// `DROP VIEW …`.
        case dropView(DropStatement)
        /// `CREATE [TEMP] TRIGGER …`.
        case createTrigger(CreateTriggerStatement)
        /// `DROP TRIGGER …`.
        case dropTrigger(DropStatement)
        /// `ALTER TABLE …`.
        case alterTable(AlterTableStatement)
        /// `BEGIN [mode] [TRANSACTION]`.
        case begin(TransactionMode?)
        /// `COMMIT` / `END [TRANSACTION]`.
        case commit
        /// `ROLLBACK [TRANSACTION] [TO [SAVEPOINT] name]`; the savepoint name when given.
        case rollback(toSavepoint: String?)
        /// `SAVEPOINT name`.
        case savepoint(String)
        /// `RELEASE [SAVEPOINT] name`.
        case release(String)
        /// `PRAGMA …`.
        case pragma(PragmaStatement)
        /// `EXPLAIN [QUERY PLAN] statement`.
        case explain(queryPlan: Bool, Statement)
        /// `REINDEX [[schema.]name]`: a collation, table or index name, or nil for every index.
        case reindex(QualifiedName?)
        /// `VACUUM [schema] [INTO expression]`: the schema name when given, and the file name expression of
        /// `VACUUM INTO`.
        case vacuum(schema: String?, into: SQLExpression?)
    }
}

/// The parameters used by one statement, in SQLite's numbering.
public struct ParameterList: Sendable, Equatable {
    /// The number of parameter slots (the largest index used); indices run from 1 through `count`.
    public var count: Int
    /// The name of each slot, indexed by `index - 1`: the prefixed name (e.g. `:id`) or `nil` for positional
    /// slots. Always has `count` elements.
    public var names: [String?]

    /// Creates a parameter list.
    public init(count: Int = 0, names: [String?] = []) {
        self.count = count
        self.names = names
    }

    /// The one-based index of the named parameter (including its prefix, e.g. `:id`), if used.
    public func index(of name: String) -> Int? {
        names.firstIndex { $0 == name }.map { $0 + 1 }
    }
}

/// `BEGIN` transaction modes.
package enum TransactionMode: String, Sendable, Equatable {
    /// `DEFERRED`.
    case deferred = "DEFERRED"
    /// `IMMEDIATE`.
    case immediate = "IMMEDIATE"
    /// `EXCLUSIVE`.
    case exclusive = "EXCLUSIVE"
}

/// Conflict-resolution algorithms (`INSERT OR …`, `ON CONFLICT …` in constraints).
package enum ConflictResolution: String, Sendable, Equatable {
    /// `ROLLBACK`.
    case rollback = "ROLLBACK"
    /// `ABORT`.
    case abort = "ABORT"
    /// `FAIL`.
    case fail = "FAIL"
    /// `IGNORE`.
    case ignore = "IGNORE"
    /// `REPLACE`.
    case replace = "REPLACE"
}

/// `INSERT [OR action] INTO table [(columns)] source [upsert…] [RETURNING …]`.
///
/// `REPLACE INTO` is represented as `INSERT OR REPLACE INTO`.
package struct InsertStatement: Sendable, Equatable {
    /// The source of the inserted rows.
    package indirect enum Source: Sendable, Equatable {
        /// `VALUES (…), …` or `SELECT …` (a `VALUES` source is a select whose core is `.values`).
        case select(SelectStatement)
        /// `DEFAULT VALUES`.
        case defaultValues
    }

    /// The `OR …` conflict action, if any.
    package var orAction: ConflictResolution?
    /// The target table.
    package var table: QualifiedName
    /// The explicit column list, if any.
    package var columns: [String]?
    /// The row source.
    package var source: Source
    /// The `ON CONFLICT` clauses, in order.
    package var upsert: [UpsertClause]
    /// The `RETURNING` columns, if any.
    package var returning: [ResultColumn]?
    /// The leading `WITH` clause, if any: its tables are visible to every query of the statement.
    package var with: WithClause?

    /// Creates an insert statement.
    package init(
        orAction: ConflictResolution? = nil, table: QualifiedName, columns: [String]? = nil, source: Source,
        upsert: [UpsertClause] = [], returning: [ResultColumn]? = nil, with: WithClause? = nil
    ) {
        self.with = with
        self.orAction = orAction
        self.table = table
        self.columns = columns
        self.source = source
        self.upsert = upsert
        self.returning = returning
    }
}

/// `ON CONFLICT [(target) [WHERE …]] DO NOTHING | DO UPDATE SET … [WHERE …]`.
package struct UpsertClause: Sendable, Equatable {
    /// The action taken on conflict.
    package enum Action: Sendable, Equatable {
        /// `DO NOTHING`.
        case nothing
        /// `DO UPDATE SET assignments [WHERE condition]`.
        case update([Assignment], whereClause: SQLExpression?)
    }

    /// The conflict target columns, if given.
    package var target: [IndexedColumn]?
    /// The `WHERE` on the conflict target, if any.
    package var targetWhere: SQLExpression?
    /// The action.
    package var action: Action

    /// Creates an upsert clause.
    package init(target: [IndexedColumn]? = nil, targetWhere: SQLExpression? = nil, action: Action) {
        self.target = target
        self.targetWhere = targetWhere
        self.action = action
    }
}

/// `column = expr` or `(a, b) = expr` in `SET`.
package struct Assignment: Sendable, Equatable {
    /// The assigned columns (one, or several for a row assignment).
    package var columns: [String]
    /// The assigned value.
    package var value: SQLExpression
    /// Whether the columns are a parenthesized list (`(a) = …` as well as `(a, b) = …`), which takes a row value.
    package var isRow: Bool

    /// Creates an assignment.
    package init(columns: [String], value: SQLExpression, isRow: Bool? = nil) {
        self.columns = columns
        self.value = value
        self.isRow = isRow ?? (columns.count > 1)
    }
}

/// `UPDATE [OR action] table [AS alias] [INDEXED BY index | NOT INDEXED] SET … [WHERE …] [RETURNING …]`.
package struct UpdateStatement: Sendable, Equatable {
    /// The `OR …` conflict action, if any.
    package var orAction: ConflictResolution?
    /// The target table.
    package var table: QualifiedName
    /// The `AS alias` of the target, if any: the only name that qualifies its columns in `SET`, `FROM` and `WHERE`.
    package var alias: String?
    /// The `INDEXED BY` / `NOT INDEXED` clause after the target, if any.
    package var indexHint: IndexHint?
    /// The assignments (at least one).
    package var assignments: [Assignment]
    /// The `FROM` clause of `UPDATE … FROM`, if any: the tables joined with the target to compute the new values.
    package var from: FromClause?
    /// The `WHERE` condition, if any.
    package var whereClause: SQLExpression?
    /// The `RETURNING` columns, if any.
    package var returning: [ResultColumn]?
    /// The leading `WITH` clause, if any: its tables are visible to every query of the statement.
    package var with: WithClause?

    /// Creates an update statement.
    package init(
        orAction: ConflictResolution? = nil, table: QualifiedName, alias: String? = nil, indexHint: IndexHint? = nil,
        assignments: [Assignment], from: FromClause? = nil, whereClause: SQLExpression? = nil,
        returning: [ResultColumn]? = nil, with: WithClause? = nil
    ) {
        self.with = with
        self.alias = alias
        self.indexHint = indexHint
        self.orAction = orAction
        self.table = table
        self.assignments = assignments
        self.from = from
        self.whereClause = whereClause
        self.returning = returning
    }
}

/// `DELETE FROM table [AS alias] [INDEXED BY index | NOT INDEXED] [WHERE …] [RETURNING …]`.
package struct DeleteStatement: Sendable, Equatable {
    /// The target table.
    package var table: QualifiedName
    /// The `AS alias` of the target, if any: the only name that qualifies its columns in `WHERE`.
    package var alias: String?
    /// The `INDEXED BY` / `NOT INDEXED` clause after the target, if any.
    package var indexHint: IndexHint?
    /// The `WHERE` condition, if any.
    package var whereClause: SQLExpression?
    /// The `RETURNING` columns, if any.
    package var returning: [ResultColumn]?
    /// The leading `WITH` clause, if any: its tables are visible to every query of the statement.
    package var with: WithClause?

    /// Creates a delete statement.
    package init(
        table: QualifiedName, alias: String? = nil, indexHint: IndexHint? = nil, whereClause: SQLExpression? = nil,
        returning: [ResultColumn]? = nil, with: WithClause? = nil
    ) {
        self.with = with
        self.alias = alias
        self.indexHint = indexHint
        self.table = table
        self.whereClause = whereClause
        self.returning = returning
    }
}

/// `PRAGMA [schema.]name [= value | (value)]`.
package struct PragmaStatement: Sendable, Equatable {
    /// A pragma argument.
    package enum Value: Sendable, Equatable {
        /// A signed number, as written without spaces (e.g. `-2000`).
        case number(String)
        /// A bare name or keyword (e.g. `WAL`, `ON`).
        case name(String)
        /// A string literal's contents.
        case string(String)
    }

    /// The pragma name.
    package var name: QualifiedName
    /// The argument, if any.
    package var value: Value?
    /// Whether the argument was written `(value)` rather than `= value`.
    package var isCallSyntax: Bool

    /// Creates a pragma statement.
    package init(name: QualifiedName, value: Value? = nil, isCallSyntax: Bool = false) {
        self.name = name
        self.value = value
        self.isCallSyntax = isCallSyntax
    }
}
