import GraniteStorage

/// A compiled `SELECT`: names resolved, access paths chosen, expressions compiled. It is immutable once built and
/// runs any number of times, with different parameters, through a ``SelectCursor``.
final class SelectProgram {
    /// One level of the nested-loop join: a table (or a `FROM` subquery) and the conditions tested there.
    struct Level {
        enum Source {
            case table(TableReader, AccessPath)
            case subquery(SelectProgram)
            /// The rows of a compound select (its only level; see ``SelectCompiler/compileCompound``).
            case compound(CompoundProgram)
            /// A recursive common table, produced row by row.
            case recursiveTable(RecursiveTableProgram)
            /// The working row of a recursive common table, in one of its recursive steps: one row per opening.
            case workingRow(RecursiveWorkingRow)
            /// The rows of a query with window functions, with the functions' results.
            case windowed(WindowProgram)
            /// A table-valued function, called again each time the level opens.
            case tableFunction(TableFunctionProgram)
        }

        let source: QuerySource
        let kind: Source
        /// For the right side of a `LEFT JOIN`: its `ON` terms, which decide whether a row matches.
        let matchConditions: [CompiledExpression]
        /// The terms tested once the level has a row (for a `LEFT JOIN`, possibly its NULL row).
        let filters: [CompiledExpression]
        let isLeft: Bool
        /// Terms taken out of ``matchConditions`` (or of ``filters`` when the level is not a `LEFT JOIN`'s) because
        /// the table's index search finds only rows that satisfy them: tested only on the rows of a search whose
        /// probe was not exact (``TableCursor/searchIsExact``).
        var impliedConditions: [CompiledExpression] = []
        /// For a table level, the columns (relative positions) the query reads only as JSON documents, whose
        /// TEXT the table cursor keeps as bytes rather than decoding (see ``SelectProgram/markingDocumentColumns()``
        /// and ``StoredDocument``).
        var documentColumns: Set<Int> = []
    }

    /// One aggregate function call.
    struct AggregateCall {
        enum Function {
            case countStar, count, sum, total, avg, min, max, groupConcat
            /// `json_group_array(x)` and `json_group_object(name, value)`: the value argument is compiled
            /// wrapped so that JSON text from a JSON function arrives as a BLOB (see
            /// `CompiledExpression.asJSONAggregateArgument`).
            case jsonGroupArray, jsonGroupObject
            /// An aggregate the application registered (``AggregateCall/userFunction``).
            case user
        }

        let function: Function
        let arguments: [CompiledExpression]
        /// The `FILTER (WHERE …)` condition: rows for which it is not true do not feed the aggregate.
        let filter: CompiledExpression?
        /// Whether repeated values are taken once. Cleared by the compiler when the join cannot repeat the
        /// argument's value within a group (see ``SelectCompiler/droppingImpliedDistinct(_:levels:groupBy:)``).
        var distinct: Bool
        let collation: SQLCollation
        /// The application's aggregate, for ``Function/user``.
        var userFunction: SQLCustomFunction? = nil
    }

    /// One `ORDER BY` term: an output column or an expression over the query's row.
    struct SortTerm {
        let output: Int?
        let expression: CompiledExpression?
        let descending: Bool
        let nullsFirst: Bool
        let collation: SQLCollation
    }

    /// A subquery of an expression.
    struct Subquery {
        let program: SelectProgram
        let kind: SubqueryKind
        /// Whether it reads the enclosing query's row (else its result is computed once per execution).
        let correlated: Bool
    }

    /// The result column names.
    let columnNames: [String]
    let scope: QueryScope
    private(set) var levels: [Level]
    /// Terms that read no table, tested once per execution.
    let preconditions: [CompiledExpression]
    let outputs: [CompiledExpression]
    /// Whether the query aggregates (aggregate calls or `GROUP BY`).
    let isAggregate: Bool
    let groupBy: [(expression: CompiledExpression, collation: SQLCollation)]
    let aggregates: [AggregateCall]
    let having: CompiledExpression?
    let distinct: Bool
    /// The sort, empty when the rows already come in order (or there is no `ORDER BY`).
    let ordering: [SortTerm]
    /// Whether the join yields the rows ordered by the `GROUP BY` keys, so that each group's rows come together
    /// and groups are aggregated one after the other.
    var streamsGroups = false
    /// Whether the query's lone `min()` or `max()` is complete at the first row that gives it a value: its rows
    /// come in the order of its argument (see `SelectCompiler.minMaxOrder`).
    var readsFirstValueOnly = false
    /// For a lone `count(*)` of one table's rows (see `SelectCompiler.countedTree`), the tree whose entry count
    /// answers it.
    var countedTree: CountedTree?
    /// Whether the join counts the rows of its last level rather than visiting them (see
    /// `SelectCompiler.talliesLastLevel`): it gives each combination of the earlier levels' rows once, with the
    /// number of last-level rows it matches (or a `LEFT JOIN`'s NULL row), and the aggregates, all counts, add it.
    var talliesLastLevel = false

    /// A tree holding one entry per row of a table.
    enum CountedTree {
        /// The table's own tree.
        case table
        /// The index at this position of the level's ``TableReader/indexes``.
        case index(Int)
    }
    /// `LIMIT` and `OFFSET` as a query without `FROM` whose one row holds the limit, then the offset if given.
    /// SQLite resolves them with no names in scope, but they may hold subqueries, which this program owns.
    let bounds: SelectProgram?
    let subqueries: [Subquery]
    /// The `EXPLAIN QUERY PLAN` lines, with their depth.
    let plan: [(depth: Int, detail: String)]
    /// The connection's stop requests, checked whenever a level whose rows are held in memory (a `FROM`
    /// subquery, view, compound or common table) starts over: tree cursors check the flag themselves, but a join
    /// of in-memory levels only could otherwise run unbounded work that `interrupt()` cannot stop. Nil for the
    /// programs that have no such level.
    var interruption: InterruptFlag?

    init(
        columnNames: [String], scope: QueryScope, levels: [Level], preconditions: [CompiledExpression],
        outputs: [CompiledExpression], isAggregate: Bool,
        groupBy: [(expression: CompiledExpression, collation: SQLCollation)], aggregates: [AggregateCall],
        having: CompiledExpression?, distinct: Bool, ordering: [SortTerm], bounds: SelectProgram?,
        subqueries: [Subquery], plan: [(depth: Int, detail: String)]
    ) {
        self.columnNames = columnNames
        self.scope = scope
        self.levels = levels
        self.preconditions = preconditions
        self.outputs = outputs
        self.isAggregate = isAggregate
        self.groupBy = groupBy
        self.aggregates = aggregates
        self.having = having
        self.distinct = distinct
        self.ordering = ordering
        self.bounds = bounds
        self.subqueries = subqueries
        self.plan = plan
        self.levels = markingDocumentColumns()
    }

    /// Whether the program reads the rows of a query with window functions (whose results would change with
    /// fewer input rows).
    var computesWindows: Bool { windows != nil }

    /// The window functions the program reads the rows of, if any.
    var windows: WindowProgram? {
        for level in levels {
            if case .windowed(let windows) = level.kind { return windows }
        }
        return nil
    }

    /// The `EXPLAIN QUERY PLAN` rows: id, parent, notused, detail.
    func explainRows() -> [[Value]] {
        var rows: [[Value]] = []
        var parents: [Int] = [0]
        for (k, line) in plan.enumerated() {
            let id = k + 2
            let depth = min(line.depth, parents.count - 1)
            parents.removeLast(parents.count - depth - 1)
            rows.append([.integer(Int64(id)), .integer(Int64(parents[depth])), .integer(0), .text(line.detail)])
            parents.append(id)
        }
        return rows
    }
}
