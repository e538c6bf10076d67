import GraniteStorage

extension SelectCursor {
    /// The row of a ``SelectProgram/bounds`` query as the number of rows to return (`Int.max` for no limit) and
    /// to skip first. `firstRowOnly` is for a scalar or `EXISTS` subquery (see ``firstRowLimit(_:)``).
    static func bounds(_ row: [Value], firstRowOnly: Bool) throws -> (remaining: Int, toSkip: Int) {
        var remaining = Int.max
        if firstRowOnly {
            remaining = try firstRowLimit(row[0])
        } else {
            let n = try integer(row[0])
            if n >= 0 { remaining = Int(clamping: n) }
        }
        let toSkip = row.count > 1 ? max(0, Int(clamping: try integer(row[1]))) : 0
        return (remaining, toSkip)
    }

    /// The limit of a scalar or `EXISTS` subquery, which reads one row at most: SQLite rewrites its `LIMIT x` as
    /// `LIMIT (x <> 0)`, the 0 with numeric affinity, so that any value but NULL (an error) and a numeric zero
    /// means one row.
    static func firstRowLimit(_ value: Value) throws -> Int {
        switch SQLAffinity.numeric.apply(to: value) {
        case .null: throw SQLExecutionError.datatypeMismatch
        case .integer(0): return 0
        case .real(let r) where r == 0: return 0
        default: return 1
        }
    }

    /// A `LIMIT` or `OFFSET` value as an integer (after integer affinity), else `datatype mismatch`.
    static func integer(_ value: Value) throws -> Int64 {
        switch SQLAffinity.integer.apply(to: value) {
        case .integer(let i): return i
        default: throw SQLExecutionError.datatypeMismatch
        }
    }
}
