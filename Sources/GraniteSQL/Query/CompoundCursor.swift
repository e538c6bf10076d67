import GraniteStorage

/// Runs a ``CompoundProgram`` to the list of its rows, combining its terms left to right as SQLite does.
///
/// `UNION ALL` appends; `UNION`, `INTERSECT` and `EXCEPT` work on a set of distinct rows kept sorted by their
/// key (every column in its collation's key form), like SQLite's temporary index: the rows leave it in key
/// order, and a row equal to one already in it replaces that one (so `SELECT 'a' COLLATE nocase UNION SELECT
/// 'A'` gives `A`, as in SQLite).
struct CompoundCursor {
    let program: CompoundProgram
    /// The memory each term's sort may use before it spills.
    let sortMemoryLimit: Int

    /// The rows so far: a plain list, or a set of distinct rows by key.
    private enum Rows {
        case list([[Value]])
        case set([ByteKey: [Value]])
    }

    /// The compound's rows for one execution: `outer` is the enclosing query's row.
    func rows(outer: [Value], parameters: BoundParameters) throws -> [[Value]] {
        var list =
            program.ordering.isEmpty
            ? try combined(outer: outer, parameters: parameters)
            : try CompoundMerge(program: program) { try run($0, outer: outer, parameters: parameters) }.rows()
        if !program.realColumns.isEmpty { Self.makeReal(program.realColumns, of: &list) }
        return list
    }

    /// The rows of a compound without `ORDER BY`, combined left to right.
    private func combined(outer: [Value], parameters: BoundParameters) throws -> [[Value]] {
        var rows = Rows.list([])
        for term in program.terms {
            let termRows = try run(term, outer: outer, parameters: parameters)
            switch term.op {
            case nil, .unionAll?:
                var list = sortedList(rows)
                list.append(contentsOf: termRows)
                rows = .list(list)
            case .union?:
                var set = distinctSet(rows)
                for row in termRows { set[key(of: row)] = row }
                rows = .set(set)
            case .except?:
                var set = distinctSet(rows)
                for row in termRows where !set.isEmpty { set[key(of: row)] = nil }
                rows = .set(set)
            case .intersect?:
                let set = distinctSet(rows)
                var kept: [ByteKey: [Value]] = [:]
                for row in termRows {
                    let k = key(of: row)
                    if let left = set[k] { kept[k] = left }
                }
                rows = .set(kept)
            }
        }
        return sortedList(rows)
    }

    /// Turns the integers of `columns` into reals.
    private static func makeReal(_ columns: [Int], of rows: inout [[Value]]) {
        for r in rows.indices {
            for c in columns where c < rows[r].count {
                if case .integer(let i) = rows[r][c] { rows[r][c] = .real(Double(i)) }
            }
        }
    }

    /// Runs the programs of `term` and concatenates their rows.
    private func run(_ term: CompoundProgram.Term, outer: [Value], parameters: BoundParameters) throws -> [[Value]] {
        var rows: [[Value]] = []
        for program in term.programs {
            let cursor = SelectCursor(program: program)
            cursor.sortMemoryLimit = sortMemoryLimit
            try cursor.open(outer: outer, parameters: parameters)
            defer { cursor.close() }
            while let row = try cursor.next() { rows.append(row) }
        }
        return rows
    }

    /// The key that decides whether two rows are the same: each column in its collation's key form.
    private func key(of row: [Value]) -> ByteKey {
        var bytes: [UInt8] = []
        for (c, value) in row.enumerated() {
            let collation = c < program.collations.count ? program.collations[c] : .binary
            KeyEncoding.append(collation.keyForm(value), to: &bytes)
        }
        return ByteKey(bytes)
    }

    /// `rows` as a set of distinct rows; of rows with equal keys the last one stays.
    private func distinctSet(_ rows: Rows) -> [ByteKey: [Value]] {
        switch rows {
        case .set(let set): return set
        case .list(let list):
            var set: [ByteKey: [Value]] = [:]
            for row in list { set[key(of: row)] = row }
            return set
        }
    }

    /// `rows` as a list: a set's rows in key order.
    private func sortedList(_ rows: Rows) -> [[Value]] {
        switch rows {
        case .list(let list): return list
        case .set(let set):
            return set.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }.map(\.value)
        }
    }
}
