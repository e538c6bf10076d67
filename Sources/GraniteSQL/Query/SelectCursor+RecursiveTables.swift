import GraniteStorage

// The join levels over a recursive common table. The outermost level streams its rows, so that a query that
// stops early stops the recursion; an inner level, opened again for each row of the levels before it, keeps the
// rows of its first complete run and reads them again (unless the table reads the enclosing query's row).

extension SelectCursor {
    /// Opens level `k`, a recursive common table: starts it, or rereads the rows an earlier opening in this
    /// execution kept.
    func openRecursiveTable(_ table: RecursiveTableProgram, level k: Int) throws {
        if recursiveRowsComplete.contains(k) && !table.correlated {
            recursiveTables[k] = nil
            return
        }
        let cursor = recursiveCursors[k] ?? RecursiveTableCursor(program: table)
        recursiveCursors[k] = cursor
        cursor.sortMemoryLimit = sortMemoryLimit
        try cursor.open(outer: context.row, parameters: context.parameters)
        if !fromRows[k].isEmpty { fromRows[k] = [] }
        recursiveTables[k] = cursor
    }

    /// The next row of level `k`'s recursive common table, or nil at its end.
    func nextRecursiveRow(_ cursor: RecursiveTableCursor, level k: Int) throws -> [Value]? {
        let keeps = k > 0 && !cursor.program.correlated
        if let row = try cursor.next() {
            if keeps { fromRows[k].append(row) }
            return row
        }
        recursiveTables[k] = nil
        cursor.close()
        if keeps { recursiveRowsComplete.insert(k) }
        return nil
    }
}
