import GraniteStorage

/// Runs a ``RecursiveTableProgram`` one row at a time, so that a query that stops early (`LIMIT` on the query
/// reading the table) stops the recursion too.
///
/// As in SQLite, a row is produced before the steps run over it: the steps for the last row produced run when the
/// next row is asked for. A row skipped by the table's `OFFSET` still feeds the steps; once its `LIMIT` is reached
/// the recursion ends.
final class RecursiveTableCursor {
    let program: RecursiveTableProgram
    private var queue: RecursiveTableQueue
    private var seen: Set<ByteKey> = []
    private var stepCursors: [SelectCursor]
    private var boundsCursor: SelectCursor?
    /// The last row produced, whose steps have not run yet.
    private var pending: [Value]?
    private var remaining = Int.max
    private var toSkip = 0
    private var outer: [Value] = []
    private var parameters = BoundParameters()
    var sortMemoryLimit = 64 << 20

    init(program: RecursiveTableProgram) {
        self.program = program
        queue = RecursiveTableQueue(ordering: program.ordering)
        stepCursors = program.steps.map { SelectCursor(program: $0) }
    }

    /// Starts an execution: `outer` is the row of the query reading the table (whose enclosing queries' part the
    /// table's queries may read).
    func open(outer: [Value], parameters: BoundParameters) throws {
        self.outer = outer
        self.parameters = parameters
        queue.removeAll()
        if !seen.isEmpty { seen.removeAll(keepingCapacity: true) }
        pending = nil
        (remaining, toSkip) = (Int.max, 0)
        if let bounds = program.bounds { try applyBounds(bounds) }
        guard remaining > 0 else { return }
        let setup = SelectCursor(program: program.setup)
        setup.sortMemoryLimit = sortMemoryLimit
        try setup.open(outer: outer, parameters: parameters)
        defer { setup.close() }
        while let row = try setup.next() { enqueue(row) }
    }

    /// The next row of the table, or nil at the end.
    func next() throws -> [Value]? {
        if let row = pending {
            pending = nil
            try runSteps(over: row)
        }
        while remaining > 0, let row = queue.pop() {
            if program.interruption.isSet { throw StorageError.interrupted }
            if toSkip > 0 {
                toSkip -= 1
                try runSteps(over: row)
                continue
            }
            if remaining != Int.max { remaining -= 1 }
            if remaining > 0 {
                pending = row
            } else {
                queue.removeAll()
            }
            return row
        }
        return nil
    }

    /// Ends an execution: drops the rows still queued and the share of the bound parameters.
    func close() {
        queue.removeAll()
        pending = nil
        parameters = BoundParameters()
        for cursor in stepCursors { cursor.close() }
    }

    private func enqueue(_ row: [Value]) {
        if program.distinct {
            var key: [UInt8] = []
            for (k, value) in row.enumerated() {
                let collation = k < program.collations.count ? program.collations[k] : .binary
                KeyEncoding.append(collation.keyForm(value), to: &key)
            }
            guard seen.insert(ByteKey(key)).inserted else { return }
        }
        queue.push(row)
    }

    /// Runs each recursive step over `row` as the working row, queueing what they produce.
    private func runSteps(over row: [Value]) throws {
        program.workingRow.values = row
        for cursor in stepCursors {
            cursor.sortMemoryLimit = sortMemoryLimit
            try cursor.open(outer: outer, parameters: parameters)
            while let produced = try cursor.next() { enqueue(produced) }
        }
    }

    /// Evaluates the table's `LIMIT` and `OFFSET` into ``remaining`` and ``toSkip``.
    private func applyBounds(_ bounds: SelectProgram) throws {
        let row: [Value]
        if bounds.subqueries.isEmpty {
            var context = EvaluationContext(parameters: parameters)
            row = try bounds.outputs.map { try $0.evaluate(&context) }
        } else {
            let cursor = boundsCursor ?? SelectCursor(program: bounds)
            boundsCursor = cursor
            try cursor.open(parameters: parameters)
            defer { cursor.close() }
            guard let first = try cursor.next() else { return }
            row = first
        }
        (remaining, toSkip) = try SelectCursor.bounds(row, firstRowOnly: false)
    }
}
