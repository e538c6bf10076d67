import GraniteStorage

/// A compiled recursive common table expression: `setup UNION [ALL] step [UNION [ALL] step …] [ORDER BY …]
/// [LIMIT …]`, where each step reads the table once, one row at a time.
///
/// It runs as SQLite runs it: the setup's rows go into a queue; then, until the queue is empty (or `LIMIT` rows
/// were produced), the next row is taken out, produced, and each step runs over it as the working row, adding its
/// rows to the queue. Without `ORDER BY` the queue is first in, first out; with it, the queue hands out the row
/// that sorts first (the earliest added among equals). With `UNION`, a row already queued once is not queued
/// again.
final class RecursiveTableProgram {
    /// The initial rows (the terms before the first recursive one).
    let setup: SelectProgram
    /// The recursive terms, run in order over each working row.
    let steps: [SelectProgram]
    /// Where the steps read the working row.
    let workingRow: RecursiveWorkingRow
    /// Whether a row is queued at most once (`UNION`, not `UNION ALL`).
    let distinct: Bool
    /// The collation each column compares with for ``distinct``.
    let collations: [SQLCollation]
    /// The queue's order (`ORDER BY` over the columns), empty for first in, first out.
    let ordering: [SelectProgram.SortTerm]
    /// `LIMIT` and `OFFSET`, as in ``SelectProgram/bounds``.
    let bounds: SelectProgram?
    /// The connection's stop requests: a recursion reads no table when its steps read only the working row, so
    /// it checks them itself, once per row.
    let interruption: InterruptFlag
    /// Whether any part reads an enclosing query's row (so its rows cannot be reused from one execution of the
    /// enclosing row to the next).
    let correlated: Bool

    init(
        setup: SelectProgram, steps: [SelectProgram], workingRow: RecursiveWorkingRow, distinct: Bool,
        collations: [SQLCollation], ordering: [SelectProgram.SortTerm], bounds: SelectProgram?,
        interruption: InterruptFlag
    ) {
        self.interruption = interruption
        self.setup = setup
        self.steps = steps
        self.workingRow = workingRow
        self.distinct = distinct
        self.collations = collations
        self.ordering = ordering
        self.bounds = bounds
        correlated = setup.scope.usesOuter || steps.contains { $0.scope.usesOuter }
    }

    /// The `EXPLAIN QUERY PLAN` lines, below the line of the table's scan.
    var plan: [(depth: Int, detail: String)] {
        var lines: [(depth: Int, detail: String)] = [(0, "SETUP")]
        for line in setup.plan { lines.append((line.depth + 1, line.detail)) }
        lines.append((0, "RECURSIVE STEP"))
        for step in steps {
            for line in step.plan { lines.append((line.depth + 1, line.detail)) }
        }
        return lines
    }
}

extension SelectProgram.Level {
    /// Whether the level reads a recursive common table.
    var isRecursiveTable: Bool {
        if case .recursiveTable = kind { return true }
        return false
    }
}
