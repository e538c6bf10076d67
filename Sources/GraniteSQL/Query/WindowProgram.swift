import GraniteStorage

/// The window functions of a `SELECT`: the inner query whose rows they run over (its `FROM`, `WHERE`, `GROUP BY`
/// and `HAVING`, with every window-free expression the outer query needs as a column), how each window sorts and
/// partitions those rows, and each call with its frame. A ``WindowCursor`` runs it to the inner rows, each with
/// the calls' results after its columns; the ``SelectProgram`` reading them as its one source computes the result
/// columns, `DISTINCT`, `ORDER BY` and `LIMIT`.
final class WindowProgram {
    /// One `ORDER BY` key of a window: an inner column.
    struct OrderKey: Equatable {
        let column: Int
        let descending: Bool
        let nullsFirst: Bool
        let collation: SQLCollation
    }

    /// A window's partitioning and order; calls whose windows agree on both share one sort.
    struct Sorting: Equatable {
        /// The `PARTITION BY` inner columns, with the collations they compare in.
        let partition: [Int]
        let partitionCollations: [SQLCollation]
        let order: [OrderKey]
    }

    /// A frame offset: its expression, compiled without names (nil when it cannot be: it names a column or holds
    /// a subquery, which SQLite evaluates to an invalid offset).
    struct Offset {
        let expression: CompiledExpression?
    }

    /// One end of a frame.
    enum Bound {
        case unboundedPreceding
        case preceding(Offset)
        case currentRow
        case following(Offset)
        case unboundedFollowing
    }

    /// A call's frame.
    struct Frame {
        let unit: WindowFrame.Unit
        let start: Bound
        let end: Bound
        /// nil without an `EXCLUDE` clause.
        let exclusion: WindowFrame.Exclusion?
    }

    /// One window function call.
    struct Call {
        let function: WindowFunction
        /// The inner columns holding its arguments.
        let arguments: [Int]
        /// For `json_group_array` / `json_group_object`: the inner column of the value argument as computed,
        /// whose BLOB is an error once the row enters a frame (the argument column has it as NULL).
        let jsonValue: Int?
        /// The inner column holding its `FILTER` condition.
        let filter: Int?
        /// Its index in ``WindowProgram/sortings``.
        let sorting: Int
        let frame: Frame
        /// For ``WindowFunction/aggregate``: the aggregate, as a grouping query would run it.
        let aggregate: SelectProgram.AggregateCall?
    }

    /// The query whose rows the windows run over.
    let input: SelectProgram
    /// The number of its columns (the calls' results follow them).
    let width: Int
    let sortings: [Sorting]
    let calls: [Call]
    /// The inner query's statement (for the declared types of the columns it reads from its sources).
    let inputSelect: SelectStatement
    /// By result column of the query reading the windows: the inner column it is, nil for one with window
    /// calls.
    let resultOrigins: [Int?]

    init(
        input: SelectProgram, inputSelect: SelectStatement, sortings: [Sorting], calls: [Call], resultOrigins: [Int?]
    ) {
        self.input = input
        self.inputSelect = inputSelect
        self.width = input.outputs.count
        self.sortings = sortings
        self.calls = calls
        self.resultOrigins = resultOrigins
    }
}
