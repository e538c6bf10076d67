// Runs a WindowProgram: the inner query's rows, sorted once per distinct window ordering, split into partitions
// and peer groups, and each call's result computed partition by partition.

import GraniteStorage

/// Runs a ``WindowProgram`` to its rows: each inner row with the calls' results after its columns, in the order
/// of the first window's sort (as SQLite gives them without an `ORDER BY`).
struct WindowCursor {
    let program: WindowProgram
    /// The memory the inner query's sort may use before it spills.
    let sortMemoryLimit: Int

    /// The rows for one execution: `outer` is the enclosing query's row.
    func rows(outer: [Value], parameters: BoundParameters) throws -> [[Value]] {
        var rows = try inputRows(outer: outer, parameters: parameters)
        if rows.isEmpty { return rows }
        let frames = try program.calls.map { try WindowFrameBounds($0.frame, parameters: parameters) }
        var order: [Int] = []
        // The first window sorts last, so its order is the rows'.
        for (s, sorting) in program.sortings.enumerated().reversed() {
            order = sortedRows(rows, sorting)
            var start = 0
            while start < order.count {
                var end = start + 1
                while end < order.count && samePartition(rows[order[start]], rows[order[end]], sorting) { end += 1 }
                let partition = WindowPartition(rows: Array(order[start..<end]), values: rows, order: sorting.order)
                try computeCalls(sortedBy: s, over: partition, frames: frames, into: &rows)
                start = end
            }
        }
        return order.map { rows[$0] }
    }

    /// Stores the results over `partition` of the calls whose windows sort as sorting `s` in their columns.
    private func computeCalls(
        sortedBy s: Int, over partition: WindowPartition, frames: [WindowFrameBounds], into rows: inout [[Value]]
    ) throws {
        for (c, call) in program.calls.enumerated() where call.sorting == s {
            let results = try WindowCalculation(call: call, frame: frames[c], partition: partition, values: rows)
                .results()
            let column = program.width + c
            for (i, r) in partition.rows.enumerated() { rows[r][column] = results[i] }
        }
    }

    /// The inner query's rows, each with room for the calls' results.
    private func inputRows(outer: [Value], parameters: BoundParameters) throws -> [[Value]] {
        let cursor = SelectCursor(program: program.input)
        cursor.sortMemoryLimit = sortMemoryLimit
        try cursor.open(outer: outer, parameters: parameters)
        defer { cursor.close() }
        let padding = [Value](repeating: .null, count: program.calls.count)
        var rows: [[Value]] = []
        while var row = try cursor.next() {
            row.append(contentsOf: padding)
            rows.append(row)
        }
        return rows
    }

    /// The row indices sorted by partition, then by the window's order; rows that tie keep the inner query's
    /// order.
    private func sortedRows(_ rows: [[Value]], _ sorting: WindowProgram.Sorting) -> [Int] {
        Sorting.stableSorted(Array(rows.indices)) { a, b in
            let x = rows[a]
            let y = rows[b]
            for (k, column) in sorting.partition.enumerated() {
                let c = Self.compare(x[column], y[column], sorting.partitionCollations[k], nullsFirst: true)
                if c != 0 { return c < 0 }
            }
            for key in sorting.order {
                let u = x[key.column]
                let v = y[key.column]
                if u.isNull || v.isNull {
                    let c = Self.compare(u, v, key.collation, nullsFirst: key.nullsFirst)
                    if c != 0 { return c < 0 }
                    continue
                }
                let c = SQLComparison.compare(u, v, collation: key.collation)
                if c != 0 { return key.descending ? c > 0 : c < 0 }
            }
            return false
        }
    }

    private func samePartition(_ x: [Value], _ y: [Value], _ sorting: WindowProgram.Sorting) -> Bool {
        for (k, column) in sorting.partition.enumerated()
        where Self.compare(x[column], y[column], sorting.partitionCollations[k], nullsFirst: true) != 0 {
            return false
        }
        return true
    }

    /// Compares two key values: NULLs equal each other and come first (or last), others compare in `collation`.
    static func compare(_ a: Value, _ b: Value, _ collation: SQLCollation, nullsFirst: Bool) -> Int {
        switch (a.isNull, b.isNull) {
        case (true, true): return 0
        case (true, false): return nullsFirst ? -1 : 1
        case (false, true): return nullsFirst ? 1 : -1
        case (false, false): return SQLComparison.compare(a, b, collation: collation)
        }
    }
}
