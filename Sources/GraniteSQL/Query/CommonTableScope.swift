import GraniteStorage

// The common table expressions a query sees: the WITH clauses around it, innermost first, and what a reference to
// each one means while it is being compiled (SQLite expands a CTE where it is referenced, so a reference from its
// own body is a circular one, or the recursive step's read of the working row).

/// One `WITH` clause in force while a statement compiles, linked to the clauses around it.
///
/// A clause is made afresh each time the query that carries it compiles, so its ``states`` belong to that one
/// compilation.
final class CommonTableScope {
    /// What a reference to a table of the clause means right now.
    enum State {
        /// Its body is compiling, outside a recursive step: a reference is an error with this message (followed by
        /// `: name`).
        case expanding(message: String)
        /// A recursive step of it is compiling: the first reference reads the working row `row`, any other is
        /// SQLite's "multiple recursive references".
        case recursiveStep(row: RecursiveWorkingRow, columns: [QuerySource.Column], claimed: Bool)
    }

    let clause: WithClause
    /// The clause around this one (the tables of an enclosing query, or of the write statement).
    let outer: CommonTableScope?
    /// By table index: nil while the table is not compiling.
    var states: [State?]

    /// Makes the scope of `clause` (whose names the parser checked are distinct) inside `outer`.
    init(_ clause: WithClause, outer: CommonTableScope?) {
        self.clause = clause
        self.outer = outer
        self.states = Array(repeating: nil, count: clause.tables.count)
    }

    /// The innermost table named `name` (any table of a clause shadows the tables of the clauses around it, and
    /// any stored table): the clause that defines it and its index there.
    func lookup(_ name: String) -> (scope: CommonTableScope, index: Int)? {
        var scope: CommonTableScope? = self
        while let s = scope {
            if let k = s.clause.tables.firstIndex(where: { SchemaNames.equal($0.name, name) }) { return (s, k) }
            scope = s.outer
        }
        return nil
    }
}

/// The row of a recursive common table that its recursive steps read: set by the ``RecursiveTableCursor`` before
/// each step runs, read by the step's join level over the table.
final class RecursiveWorkingRow {
    var values: [Value] = []
}
