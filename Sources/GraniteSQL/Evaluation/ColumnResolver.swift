/// A resolved column: where its value lives in ``EvaluationContext/row`` and how it compares.
package struct ResolvedColumn: Sendable, Equatable {
    /// The slot index in the row.
    package var slot: Int
    /// The column's affinity (BLOB for columns without a declared type), or nil for a column of a subquery in
    /// `FROM` that is an expression (`SQLITE_AFF_NONE`: it compares like the expression itself).
    package var affinity: SQLAffinity?
    /// The column's declared collation.
    package var collation: SQLCollation
    /// For a column whose values may carry SQLite's JSON subtype (`json_each.value`): the slot of the flag that
    /// says whether the current value does.
    package var subtypeFlagSlot: Int? = nil

    /// Creates a resolved column.
    package init(slot: Int, affinity: SQLAffinity?, collation: SQLCollation = .binary) {
        self.slot = slot
        self.affinity = affinity
        self.collation = collation
    }
}

/// The kinds of subquery an expression can contain.
package enum SubqueryKind: Sendable, Equatable {
    /// `(SELECT …)`.
    case scalar
    /// `EXISTS (SELECT …)`.
    case exists
    /// `x IN (SELECT …)`.
    case inSelect
    /// A subquery as a row value of `width` elements (`(a, b) = (SELECT x, y …)`): its first row, or NULLs.
    case row(width: Int)
    /// `(a, b) IN (SELECT x, y …)`: every row, of `width` columns.
    case inRows(width: Int)

    /// Whether the subquery's every row is read (else only its first).
    var readsEveryRow: Bool {
        switch self {
        case .inSelect, .inRows: return true
        case .scalar, .exists, .row: return false
        }
    }

    /// Checks that a subquery of this kind may return `count` columns; throws SQLite's message when not.
    func checkWidth(_ count: Int) throws(SQLExecutionError) {
        switch self {
        case .exists: return
        case .scalar, .inSelect:
            if count != 1 { throw SQLExecutionError("sub-select returns \(count) columns - expected 1") }
        case .row(let width):
            if count != width { throw SQLExecutionError("row value misused") }
        case .inRows(let width):
            if count != width { throw SQLExecutionError("sub-select returns \(count) columns - expected \(width)") }
        }
    }
}

/// Maps names in an expression to row slots while it is compiled.
package protocol ColumnResolver {
    /// Resolves `[[schema.]table.]column`; throws ``SQLEvaluationError``s with SQLite's messages
    /// (`no such column: x`, `ambiguous column name: x`).
    func resolve(_ reference: ColumnReference) throws -> ResolvedColumn
    /// Resolves an aggregate call (`count(*)`, `sum(x)`, …) to the slot where the executor stores its result.
    /// The default throws `misuse of aggregate function f()`.
    func resolveAggregate(_ call: FunctionCall) throws -> Int
    /// Registers a subquery, returning the id passed to ``SubqueryProvider`` at run time. The default throws
    /// `subqueries are not supported here`.
    func registerSubquery(_ select: SelectStatement, kind: SubqueryKind) throws -> SubqueryID
    /// The affinity and collation of a subquery's result column `index` (`sqlite3ExprAffinity` of a `TK_SELECT`,
    /// or of a row value's element), with whether the collation is an explicit `COLLATE`. The default knows none.
    func subqueryColumn(_ select: SelectStatement, at index: Int) -> SubqueryColumn
    /// How many columns a subquery returns, when that is known before it is compiled: more than one makes it a
    /// row value. The default knows none.
    func subqueryWidth(_ select: SelectStatement) -> Int?
    /// The counters of the connection compiling the expression, which calls of `changes()`, `total_changes()`
    /// and `last_insert_rowid()` read when they are evaluated. The default has none: such calls are then
    /// unknown functions.
    var connectionCounters: ConnectionCounters? { get }
}

/// What a subquery's first result column carries into comparisons.
package struct SubqueryColumn: Sendable {
    package var affinity: SQLAffinity?
    package var collation: SQLCollation?
    package var explicitCollation: Bool

    package init(affinity: SQLAffinity? = nil, collation: SQLCollation? = nil, explicitCollation: Bool = false) {
        self.affinity = affinity
        self.collation = collation
        self.explicitCollation = explicitCollation
    }
}

extension ColumnResolver {
    package func resolveAggregate(_ call: FunctionCall) throws -> Int {
        throw SQLEvaluationError(.misuseOfAggregate(function: call.name))
    }

    package func registerSubquery(_ select: SelectStatement, kind: SubqueryKind) throws -> SubqueryID {
        throw SQLEvaluationError("subqueries are not supported here")
    }

    package func subqueryColumn(_ select: SelectStatement, at index: Int) -> SubqueryColumn { SubqueryColumn() }

    package func subqueryWidth(_ select: SelectStatement) -> Int? { nil }

    package var connectionCounters: ConnectionCounters? { nil }
}

/// A resolver with no columns: every column reference is an error (`SELECT <expr>` without `FROM`).
package struct EmptyColumnResolver: ColumnResolver {
    package let connectionCounters: ConnectionCounters?

    /// Creates the resolver; calls of the counter functions read `counters` (with none, they are unknown).
    package init(counters: ConnectionCounters? = nil) { connectionCounters = counters }

    package func resolve(_ reference: ColumnReference) throws -> ResolvedColumn {
        throw SQLEvaluationError(.noSuchColumn(reference))
    }
}

/// A resolver over a list of tables with their columns; slots are numbered in declaration order across tables.
package struct SimpleColumnResolver: ColumnResolver {
    /// One column of a table.
    package struct Column: Sendable, Equatable {
        /// The column name.
        package var name: String
        /// The declared type (drives the affinity), or `nil`.
        package var declaredType: String?
        /// The declared collation.
        package var collation: SQLCollation

        /// Creates a column.
        package init(_ name: String, _ declaredType: String? = nil, collation: SQLCollation = .binary) {
            self.name = name
            self.declaredType = declaredType
            self.collation = collation
        }
    }

    /// One table (or alias) with its columns.
    package struct Table: Sendable, Equatable {
        /// The table name or alias.
        package var name: String
        /// The columns.
        package var columns: [Column]

        /// Creates a table.
        package init(_ name: String, _ columns: [Column]) {
            self.name = name
            self.columns = columns
        }
    }

    /// The tables, in slot order.
    package var tables: [Table]

    /// Creates a resolver.
    package init(tables: [Table]) { self.tables = tables }

    /// Creates a resolver for a single table.
    package init(table: String, columns: [Column]) { self.init(tables: [Table(table, columns)]) }

    static func display(_ r: ColumnReference) -> String {
        [r.schema, r.table, r.column].compactMap { $0 }.joined(separator: ".")
    }

    static func equalNoCase(_ a: String, _ b: String) -> Bool {
        SQLCollation.nocase.compare(a, b) == 0
    }

    package func resolve(_ reference: ColumnReference) throws -> ResolvedColumn {
        var found: ResolvedColumn?
        var slot = 0
        for table in tables {
            let tableMatches = reference.table.map { Self.equalNoCase($0, table.name) } ?? true
            for column in table.columns {
                defer { slot += 1 }
                guard tableMatches, Self.equalNoCase(column.name, reference.column) else { continue }
                if found != nil { throw SQLEvaluationError("ambiguous column name: \(Self.display(reference))") }
                found = ResolvedColumn(
                    slot: slot, affinity: SQLAffinity(declaredType: column.declaredType), collation: column.collation)
            }
        }
        guard let found else { throw SQLEvaluationError(.noSuchColumn(reference)) }
        return found
    }
}
