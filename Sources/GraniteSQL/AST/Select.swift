/// A complete `SELECT` statement: one or more cores joined by compound operators, then `ORDER BY` and `LIMIT`.
///
/// Compound terms are stored flat and evaluate left to right, as in SQLite.
package struct SelectStatement: Sendable, Equatable {
    /// The first core.
    package var first: SelectCore
    /// The remaining cores with the operator joining each to everything before it.
    package var compounds: [CompoundTerm]
    /// The `ORDER BY` terms (empty when absent).
    package var orderBy: [OrderingTerm]
    /// The `LIMIT` clause, if any.
    package var limit: LimitClause?
    /// The leading `WITH` clause, if any.
    package var with: WithClause?

    /// Creates a select statement.
    package init(
        first: SelectCore, compounds: [CompoundTerm] = [], orderBy: [OrderingTerm] = [], limit: LimitClause? = nil,
        with: WithClause? = nil
    ) {
        self.first = first
        self.compounds = compounds
        self.orderBy = orderBy
        self.limit = limit
        self.with = with
    }
}

/// `WITH [RECURSIVE] name [(columns)] AS (select), …`.
package struct WithClause: Sendable, Equatable {
    /// Whether `RECURSIVE` was given.
    package var recursive: Bool
    /// The common table expressions, in order (at least one).
    package var tables: [CommonTableExpression]

    /// Creates a `WITH` clause.
    package init(recursive: Bool = false, tables: [CommonTableExpression]) {
        self.recursive = recursive
        self.tables = tables
    }
}

/// One common table expression: `name [(columns)] AS [[NOT] MATERIALIZED] (select)`.
package struct CommonTableExpression: Sendable, Equatable {
    /// Materialization hints.
    package enum Materialization: String, Sendable, Equatable {
        /// `MATERIALIZED`.
        case materialized = "MATERIALIZED"
        /// `NOT MATERIALIZED`.
        case notMaterialized = "NOT MATERIALIZED"
    }

    /// The table name.
    package var name: String
    /// The explicit column names, if given.
    package var columns: [String]?
    /// The materialization hint, if given.
    package var materialization: Materialization?
    /// The defining query.
    package var select: SelectStatement

    /// Creates a common table expression.
    package init(
        name: String, columns: [String]? = nil, materialization: Materialization? = nil, select: SelectStatement
    ) {
        self.name = name
        self.columns = columns
        self.materialization = materialization
        self.select = select
    }
}

/// One compound step: `UNION [ALL] | INTERSECT | EXCEPT core`.
package struct CompoundTerm: Sendable, Equatable {
    /// The compound operator.
    package var op: CompoundOperator
    /// The right-hand core.
    package var core: SelectCore

    /// Creates a compound step.
    package init(op: CompoundOperator, core: SelectCore) {
        self.op = op
        self.core = core
    }
}

/// Compound-select operators.
package enum CompoundOperator: String, Sendable, Equatable {
    /// `UNION`.
    case union = "UNION"
    /// `UNION ALL`.
    case unionAll = "UNION ALL"
    /// `INTERSECT`.
    case intersect = "INTERSECT"
    /// `EXCEPT`.
    case except = "EXCEPT"
}

/// A select core: either a `SELECT …` clause or a `VALUES (…), (…)` list.
package indirect enum SelectCore: Sendable, Equatable {
    /// `SELECT [DISTINCT] columns [FROM …] [WHERE …] [GROUP BY …] [HAVING …]`.
    case select(SelectClause)
    /// `VALUES (…), (…)`; every row is non-empty.
    case values([[SQLExpression]])
}

/// The body of a simple `SELECT`.
package struct SelectClause: Sendable, Equatable {
    /// Whether `DISTINCT` was given (`ALL` is the default).
    package var distinct: Bool
    /// The result columns (at least one).
    package var columns: [ResultColumn]
    /// The `FROM` clause, if any.
    package var from: FromClause?
    /// The `WHERE` condition, if any.
    package var whereClause: SQLExpression?
    /// The `GROUP BY` expressions (empty when absent).
    package var groupBy: [SQLExpression]
    /// The `HAVING` condition, if any.
    package var having: SQLExpression?
    /// The windows of the `WINDOW` clause (empty when absent).
    package var windows: [NamedWindow]
    /// Whether this is `SELECT * FROM …` standing for a parenthesised join of several items in an enclosing
    /// `FROM` (`FROM a, (b JOIN c ON …)`), as SQLite reads one: its `*` keeps every column of every item (a
    /// `USING` column once more, ahead of its tables), and the enclosing query may still qualify each column by
    /// the item it came from.
    package var isNestedFrom = false

    /// Creates a select clause.
    package init(
        distinct: Bool = false, columns: [ResultColumn], from: FromClause? = nil, whereClause: SQLExpression? = nil,
        groupBy: [SQLExpression] = [], having: SQLExpression? = nil, windows: [NamedWindow] = []
    ) {
        self.windows = windows
        self.distinct = distinct
        self.columns = columns
        self.from = from
        self.whereClause = whereClause
        self.groupBy = groupBy
        self.having = having
    }
}

/// One result column (also used for `RETURNING`).
package enum ResultColumn: Sendable, Equatable {
    /// `*`.
    case all
    /// `table.*`.
    case allOf(table: String)
    /// `expr [AS alias]`.
    case expression(SQLExpression, alias: String?)
}

/// A `FROM` clause: a first table followed by zero or more joins, stored flat (left-associative).
package struct FromClause: Sendable, Equatable {
    /// The first table or subquery.
    package var first: TableSource
    /// The joined tables, in order.
    package var joins: [JoinClause]
    /// The first source that the joins' `ON`, `USING` and `NATURAL` clauses see: 0, but for the join an
    /// `UPDATE … FROM` runs, where it is 1, as SQLite reads the statement's `FROM` clause as a parenthesised join
    /// of its own that does not see the target.
    package var constraintsStart = 0

    /// Creates a `FROM` clause.
    package init(first: TableSource, joins: [JoinClause] = []) {
        self.first = first
        self.joins = joins
    }
}

/// A table or subquery in a `FROM` clause.
package indirect enum TableSource: Sendable, Equatable {
    /// `[schema.]table [[AS] alias] [INDEXED BY index | NOT INDEXED]`.
    case table(QualifiedName, alias: String?, indexHint: IndexHint? = nil)
    /// `(SELECT …) [[AS] alias]`.
    case subquery(SelectStatement, alias: String?)
    /// `[schema.]function(arguments…) [[AS] alias]`: a table-valued function such as `json_each`.
    case function(QualifiedName, arguments: [SQLExpression], alias: String?)
}

/// One join step in a `FROM` clause.
package struct JoinClause: Sendable, Equatable {
    /// The join operator.
    package var op: JoinOperator
    /// The right-hand table.
    package var source: TableSource
    /// The `ON` / `USING` constraint, if any.
    package var constraint: JoinConstraint?

    /// Creates a join step.
    package init(op: JoinOperator, source: TableSource, constraint: JoinConstraint? = nil) {
        self.op = op
        self.source = source
        self.constraint = constraint
    }
}

/// The join operators.
package enum JoinOperator: String, Sendable, Equatable {
    /// `,`.
    case comma = ","
    /// `JOIN` / `INNER JOIN`.
    case inner = "JOIN"
    /// `LEFT [OUTER] JOIN`.
    case left = "LEFT JOIN"
    /// `CROSS JOIN`.
    case cross = "CROSS JOIN"
    /// `NATURAL [INNER] JOIN`.
    case naturalInner = "NATURAL JOIN"
    /// `NATURAL LEFT [OUTER] JOIN`.
    case naturalLeft = "NATURAL LEFT JOIN"
}

/// A join constraint.
package enum JoinConstraint: Sendable, Equatable {
    /// `ON expr`.
    case on(SQLExpression)
    /// `USING (columns)`.
    case using([String])
}

/// Sort direction.
package enum SortOrder: String, Sendable, Equatable {
    /// `ASC`.
    case ascending = "ASC"
    /// `DESC`.
    case descending = "DESC"
}

/// Placement of NULLs in an ordering.
package enum NullsOrder: String, Sendable, Equatable {
    /// `NULLS FIRST`.
    case first = "NULLS FIRST"
    /// `NULLS LAST`.
    case last = "NULLS LAST"
}

/// One `ORDER BY` term. A `COLLATE` is part of ``expression``.
package struct OrderingTerm: Sendable, Equatable {
    /// The sort key.
    package var expression: SQLExpression
    /// The explicit direction, if any.
    package var order: SortOrder?
    /// The explicit NULLs placement, if any.
    package var nulls: NullsOrder?

    /// Creates an ordering term.
    package init(expression: SQLExpression, order: SortOrder? = nil, nulls: NullsOrder? = nil) {
        self.expression = expression
        self.order = order
        self.nulls = nulls
    }
}

/// `LIMIT limit [OFFSET offset]`; `LIMIT a, b` is normalised to `LIMIT b OFFSET a`.
package struct LimitClause: Sendable, Equatable {
    /// The row limit.
    package var limit: SQLExpression
    /// The offset, if any.
    package var offset: SQLExpression?

    /// Creates a limit clause.
    package init(limit: SQLExpression, offset: SQLExpression? = nil) {
        self.limit = limit
        self.offset = offset
    }
}
