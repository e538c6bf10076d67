import GraniteStorage

/// Runs a ``SelectProgram``: a nested-loop join over the table cursors, then grouping, `DISTINCT`, sorting and
/// `LIMIT`. Rows are produced one at a time; only aggregation and sorting hold rows in memory.
@usableFromInline
final class SelectCursor {
    let program: SelectProgram
    @usableFromInline @exclusivity(unchecked) var context: EvaluationContext
    private let proxy = SubqueryProxy()

    @exclusivity(unchecked) private var tables: [TableCursor?]
    @exclusivity(unchecked) private var subqueryCursors: [SelectCursor?]
    @exclusivity(unchecked) private var subqueryCache: [Int: SubqueryResult] = [:]
    /// Whether the cursor runs a scalar or `EXISTS` subquery, whose `LIMIT` only says whether it reads a row
    /// (see ``firstRowLimit(_:)``).
    @exclusivity(unchecked) var stopsAtFirstRow = false
    /// Runs ``SelectProgram/bounds``, made on first use.
    @exclusivity(unchecked) private var boundsCursor: SelectCursor?
    @exclusivity(unchecked) var fromRows: [[[Value]]]
    @exclusivity(unchecked) private var fromPositions: [Int]

    // Join state.
    @exclusivity(unchecked) private var joinStarted = false
    @exclusivity(unchecked) private var joinDone = false
    @exclusivity(unchecked) private var level = 0
    @exclusivity(unchecked) private var matched: [Bool]
    @exclusivity(unchecked) private var nullEmitted: [Bool]
    /// With a tallied last level (``SelectProgram/talliesLastLevel``): the number of its rows the join's current
    /// row stands for, and whether it stands for its `LEFT JOIN` NULL row instead.
    @exclusivity(unchecked) var talliedRows = 0
    @exclusivity(unchecked) var talliedNullRow = false

    // Output state.
    /// The current result row (see ``advance()``).
    @usableFromInline @exclusivity(unchecked) var current: [Value] = []
    /// Whether ``current`` holds the current row (else its outputs are read from the join's slots).
    @usableFromInline @exclusivity(unchecked) var projected = true
    @exclusivity(unchecked) private var materialized = false
    @exclusivity(unchecked) var buffered: [[Value]] = []
    @exclusivity(unchecked) private var bufferPosition = 0
    @exclusivity(unchecked) private var sorter: Sorter?
    /// The memory a sort may use before it spills to temporary files.
    @exclusivity(unchecked) var sortMemoryLimit = 64 << 20
    /// Whether the last sort spilled to temporary files (for tests).
    @exclusivity(unchecked) private(set) var sortSpilled = false
    @exclusivity(unchecked) private var toSkip = 0
    @exclusivity(unchecked) private var remaining = Int.max
    @exclusivity(unchecked) private var seen: Set<ByteKey> = []

    init(program: SelectProgram) {
        self.program = program
        context = EvaluationContext()
        let n = program.levels.count
        // The filters of a table level (but a LEFT JOIN's, tested on its NULL row too) that read named slots
        // only are tested by its table cursor, before it decodes the columns they do not read.
        var filters: [[CompiledExpression]] = []
        tables = program.levels.enumerated().map { position, level in
            if case .table(let reader, let path) = level.kind {
                var early: [CompiledExpression] = []
                var rest = level.filters
                if !level.isLeft && level.matchConditions.isEmpty {
                    (early, rest) = TableCursor.earlyFilters(level.filters)
                }
                filters.append(rest)
                return TableCursor(
                    reader: reader, path: path, base: level.source.base, used: level.source.used, filters: early,
                    documentColumns: level.documentColumns, nested: position > 0)
            }
            filters.append(level.filters)
            return nil
        }
        subqueryCursors = Array(repeating: nil, count: program.subqueries.count)
        fromRows = Array(repeating: [], count: n)
        fromPositions = Array(repeating: 0, count: n)
        if program.levels.contains(where: \.isRecursiveTable) { recursiveTables = Array(repeating: nil, count: n) }
        tableFunctions = TableFunctionCursor.cursors(for: program.levels)
        matched = Array(repeating: false, count: n)
        nullEmitted = Array(repeating: false, count: n)
        levelFilters = filters.map { $0.map(Condition.init) }
        levelMatches = program.levels.map { $0.matchConditions.map(Condition.init) }
        levelImplied = program.levels.map { $0.impliedConditions.map(Condition.init) }
        levelHasImplied = program.levels.map { !$0.impliedConditions.isEmpty }
        levelIsLeft = program.levels.map(\.isLeft)
        aggregateArguments = program.aggregates.map(\.arguments)
        aggregateFilters = program.aggregates.map(\.filter)
        hasAggregateFilters = aggregateFilters.contains { $0 != nil }
        outputSlots = program.outputs.map { $0.columnSlot ?? -1 }
        groupBySlots = program.groupBy.map { $0.expression.columnSlot ?? -1 }
        aggregateArgumentSlots = program.aggregates.map {
            $0.arguments.count == 1 ? $0.arguments[0].columnSlot ?? -1 : -1
        }
        bareColumnSlots = program.isAggregate ? Self.bareColumnSlots(of: program) : nil
        outputsAreSlots = !program.distinct && outputSlots.allSatisfy { $0 >= 0 }
        rowWidth = program.scope.width
        outerWidth = program.scope.base
        proxy.cursor = self
    }

    private let levelFilters: [[Condition]]
    private let levelMatches: [[Condition]]
    /// Per level, the terms its table's index search guarantees when its probe is exact.
    private let levelImplied: [[Condition]]
    /// Per level, whether it has ``levelImplied`` terms: read for every candidate row, where a flag costs less
    /// than taking the level's array out of ``levelImplied``.
    private let levelHasImplied: [Bool]
    private let levelIsLeft: [Bool]
    let aggregateArguments: [[CompiledExpression]]
    /// Each aggregate call's `FILTER (WHERE …)` condition, and whether any call has one.
    let aggregateFilters: [CompiledExpression?]
    let hasAggregateFilters: Bool
    /// The argument values of an aggregate call of several arguments, kept to reuse the storage.
    @exclusivity(unchecked) var aggregateArgumentValues: [Value] = []
    /// For each output, the slot it copies when it is a plain column reference, else −1.
    @usableFromInline let outputSlots: [Int]
    /// For each `GROUP BY` term, and for each aggregate call of one argument, the slot it reads when it is a
    /// plain column reference, else −1.
    let groupBySlots: [Int]
    let aggregateArgumentSlots: [Int]
    /// For an aggregate query, the slots of the join's row its groups' results read besides the aggregates (see
    /// ``bareColumnSlots(of:)``); nil when not known, or not an aggregate query.
    let bareColumnSlots: [Int]?
    /// Whether the outputs are all plain column references, read in place (see ``advance()``).
    private let outputsAreSlots: Bool
    /// The number of slots of the row (``QueryScope/width``), and of its enclosing queries' part.
    private let rowWidth: Int
    private let outerWidth: Int

    /// The result column names.
    var columnNames: [String] { program.columnNames }

    /// Starts (or restarts) an execution: `outer` holds the enclosing query's row (empty for a top-level query).
    func open(outer: [Value] = [], parameters: BoundParameters) throws {
        let width = rowWidth
        let base = outerWidth
        if context.row.count != width { context.row = Array(repeating: .null, count: width) }
        // Only the enclosing query's slots are set here. Every other slot is written before it is read: a
        // table's columns and rowid when its row is loaded (or its NULL row written), aggregate results when
        // a group is finished; so a re-execution need not clear the values of the last one.
        for k in 0..<base { context.row[k] = k < outer.count ? outer[k] : .null }
        context.parameters = parameters
        // Set once: assigning the existential again would retain and release the proxy on every execution.
        if context.subqueries == nil { context.subqueries = proxy }
        if !subqueryCache.isEmpty { subqueryCache.removeAll(keepingCapacity: true) }
        // A FROM subquery's (or view's) rows are kept for one execution only: the next may bind other
        // parameters, and the tables may have changed since.
        if !joinRowsCached.isEmpty { joinRowsCached.removeAll(keepingCapacity: true) }
        joinStarted = false
        joinDone = false
        materialized = false
        if !buffered.isEmpty { buffered = [] }
        bufferPosition = 0
        if sorter != nil { sorter = nil }
        if !seen.isEmpty { seen.removeAll(keepingCapacity: true) }
        // A FROM subquery's rows are kept for one execution only: the next may bind other parameters.
        if !joinRowsCached.isEmpty { joinRowsCached.removeAll(keepingCapacity: true) }
        if !recursiveRowsComplete.isEmpty { recursiveRowsComplete.removeAll() }
        toSkip = 0
        remaining = Int.max
        if let bounds = program.bounds { try applyBounds(bounds, parameters: parameters) }
    }

    /// Evaluates `LIMIT` and `OFFSET` (see ``SelectProgram/bounds``) into ``remaining`` and ``toSkip``.
    private func applyBounds(_ bounds: SelectProgram, parameters: BoundParameters) throws {
        let row: [Value]
        if bounds.subqueries.isEmpty {
            // Nothing to run but the expressions (`LIMIT ?`): no cursor needed.
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
        (remaining, toSkip) = try Self.bounds(row, firstRowOnly: stopsAtFirstRow)
    }

    /// Ends an execution early: drops the cursor's share of the bound parameters, so that binding new values
    /// before the next ``open(outer:parameters:)`` does not copy them.
    func close() {
        context.parameters = BoundParameters()
    }

    /// The next result row, or nil at the end.
    ///
    /// The array shares its storage with the cursor's row buffer: a caller that keeps it past the next
    /// ``advance()`` makes that step copy the row, one that drops it lets the cursor refill the same storage.
    func next() throws -> [Value]? {
        try advance() ? currentRow() : nil
    }

    /// Moves to the next result row, read with ``column(_:)`` or ``currentRow()``; false at the end.
    ///
    /// When every output is a plain column of the join's row (and there is no `DISTINCT`), the row is not
    /// copied: ``column(_:)`` reads the join's slots, and ``currentRow()`` copies them only when asked.
    func advance() throws -> Bool {
        if remaining <= 0 { return false }
        if program.isAggregate || !program.ordering.isEmpty {
            if !materialized {
                materialized = true
                try materialize()
            }
            while let row = try nextMaterialized() {
                if program.distinct && program.isAggregate && !isNew(row) { continue }
                if toSkip > 0 {
                    toSkip -= 1
                    continue
                }
                remaining -= 1
                current = row
                projected = true
                return true
            }
            return false
        }
        while try nextJoinRow() {
            if outputsAreSlots {
                if toSkip > 0 {
                    toSkip -= 1
                    continue
                }
                remaining -= 1
                projected = false
                return true
            }
            try projectIntoCurrent()
            projected = true
            if program.distinct && !isNew(current) { continue }
            if toSkip > 0 {
                toSkip -= 1
                continue
            }
            remaining -= 1
            return true
        }
        return false
    }

    /// Column `index` of the current row (see ``advance()``).
    @inlinable
    func column(_ index: Int) -> Value {
        projected ? current[index] : context.row[outputSlots[index]]
    }

    /// Column `index` of the current row when it is an INTEGER, else nil. Read in place: ``column(_:)`` returns a
    /// copy, which costs two calls per value (copy and destroy), even of a number.
    @inlinable @inline(__always)
    func integerColumn(_ index: Int) -> Int64? {
        projected ? Self.integer(in: current, at: index) : Self.integer(in: context.row, at: outputSlots[index])
    }

    /// Whether column `index` of the current row is NULL, read in place (see ``integerColumn(_:)``).
    @inlinable @inline(__always)
    func columnIsNull(_ index: Int) -> Bool {
        projected ? Self.isNull(in: current, at: index) : Self.isNull(in: context.row, at: outputSlots[index])
    }

    /// `values[index]` when it is an INTEGER, read in place: a switch on the array's element copies it, and a
    /// `withUnsafeBufferPointer` closure is left out of line in the cursors' loops (an extra call per value).
    @inlinable @inline(__always)
    static func integer(in values: [Value], at index: Int) -> Int64? {
        if case .integer(let i) = element(of: values, at: index).pointee { return i }
        return nil
    }

    /// Whether `values[index]` is NULL, read in place (see ``integer(in:at:)``).
    @inlinable @inline(__always)
    static func isNull(in values: [Value], at index: Int) -> Bool {
        if case .null = element(of: values, at: index).pointee { return true }
        return false
    }

    /// The address of `values[index]`, checked against the array's bounds; valid while `values` is (the callers
    /// read through it at once, while their argument holds the array). An array of a value type is always
    /// contiguous (only bridged arrays of classes are not).
    @inlinable @inline(__always)
    static func element(of values: [Value], at index: Int) -> UnsafePointer<Value> {
        precondition(index >= 0 && index < values.count, "column index out of range")
        return UnsafePointer(values._baseAddressIfContiguous! + index)
    }

    /// The current row as an array (see ``next()`` for how its storage is shared).
    func currentRow() -> [Value] {
        if !projected {
            let n = outputSlots.count
            if current.count != n { current = Array(repeating: .null, count: n) }
            for k in 0..<n { current[k] = context.row[outputSlots[k]] }
            projected = true
        }
        return current
    }

    /// Evaluates the outputs into ``current``, reusing its storage when no one else holds it.
    private func projectIntoCurrent() throws {
        let n = outputSlots.count
        if current.count != n {
            current = Array(repeating: .null, count: n)
        }
        for k in 0..<n {
            let slot = outputSlots[k]
            current[k] = slot >= 0 ? context.row[slot] : try program.outputs[k].evaluate(&context)
        }
    }

    private func nextMaterialized() throws -> [Value]? {
        if let sorter { return try sorter.next() }
        guard bufferPosition < buffered.count else { return nil }
        bufferPosition += 1
        return buffered[bufferPosition - 1]
    }

    private func project() throws -> [Value] {
        var row: [Value] = []
        row.reserveCapacity(program.outputs.count)
        for output in program.outputs { row.append(try output.evaluate(&context)) }
        return row
    }

    private func isNew(_ row: [Value]) -> Bool {
        var key: [UInt8] = []
        for (k, value) in row.enumerated() {
            KeyEncoding.append((program.outputs[k].collation ?? .binary).keyForm(value), to: &key)
        }
        return seen.insert(ByteKey(key)).inserted
    }

    // MARK: Join

    func nextJoinRow() throws -> Bool {
        if joinDone { return false }
        let n = program.levels.count
        if !joinStarted {
            joinStarted = true
            for condition in program.preconditions where !(try condition.isTrue(&context)) {
                joinDone = true
                return false
            }
            if n == 0 {
                joinDone = true
                return true
            }
            level = 0
            try openLevel(0)
        } else {
            // A tallied last level gave all its rows at once.
            level = program.talliesLastLevel ? n - 2 : n - 1
        }
        while level >= 0 {
            if level == n - 1 && program.talliesLastLevel {
                if try tallyLastLevel(level) { return true }
                level -= 1
                continue
            }
            if try advance(level) {
                if try passes(levelFilters[level]) {
                    if level == n - 1 { return true }
                    level += 1
                    try openLevel(level)
                }
                continue
            }
            if levelIsLeft[level] && !matched[level] && !nullEmitted[level] {
                nullEmitted[level] = true
                writeNulls(level)
                if try passes(levelFilters[level]) {
                    if level == n - 1 { return true }
                    level += 1
                    try openLevel(level)
                    continue
                }
            }
            level -= 1
        }
        joinDone = true
        return false
    }

    @inline(__always)
    private func passes(_ conditions: [Condition]) throws -> Bool {
        if conditions.isEmpty { return true }
        for condition in conditions where !(try condition.isTrue(&context)) { return false }
        return true
    }

    private func openLevel(_ k: Int) throws {
        // Only a LEFT JOIN's level reads these (see ``nextJoinRow()``).
        if levelIsLeft[k] {
            matched[k] = false
            nullEmitted[k] = false
        }
        if let table = tables[k] {
            try table.open(&context)
            return
        }
        if let interruption = program.interruption, interruption.isSet { throw StorageError.interrupted }
        // A table-valued function opens for each row of the levels before it: found through its cursor, not by
        // copying the level out of the program (its source and conditions, a retain and release each).
        if !tableFunctions.isEmpty, let function = tableFunctions[k] {
            try function.open(&context)
            return
        }
        fromPositions[k] = 0
        let sub: SelectProgram
        switch program.levels[k].kind {
        case .subquery(let program): sub = program
        case .compound(let compound):
            // Computed again on each execution: unlike a FROM subquery's, the level belongs to this statement.
            fromRows[k] = try CompoundCursor(program: compound, sortMemoryLimit: sortMemoryLimit)
                .rows(outer: context.row, parameters: context.parameters)
            return
        case .recursiveTable(let table):
            try openRecursiveTable(table, level: k)
            return
        case .workingRow(let row):
            fromRows[k] = [row.values]
            return
        case .windowed(let windows):
            fromRows[k] = try WindowCursor(program: windows, sortMemoryLimit: sortMemoryLimit)
                .rows(outer: context.row, parameters: context.parameters)
            return
        case .tableFunction:
            try tableFunctions[k]?.open(&context)
            return
        case .table: return
        }
        if fromRows[k].isEmpty || sub.scope.usesOuter || !joinRowsCached.contains(k) {
            let cursor = SelectCursor(program: sub)
            cursor.sortMemoryLimit = sortMemoryLimit
            try cursor.open(outer: context.row, parameters: context.parameters)
            var rows: [[Value]] = []
            while let row = try cursor.next() { rows.append(row) }
            fromRows[k] = rows
            joinRowsCached.insert(k)
        }
    }

    @exclusivity(unchecked) private var joinRowsCached: Set<Int> = []
    /// By level: the recursive common table being produced there, while it streams (nil once its rows are all
    /// in ``fromRows``, and for other levels); empty when the query reads no recursive table.
    @exclusivity(unchecked) var recursiveTables: [RecursiveTableCursor?] = []
    /// By level: the cursor of a recursive common table, kept from one opening to the next.
    @exclusivity(unchecked) var recursiveCursors: [Int: RecursiveTableCursor] = [:]
    /// The levels whose recursive common table's rows, all kept in ``fromRows``, are read again when the level
    /// opens again in the same execution.
    @exclusivity(unchecked) var recursiveRowsComplete: Set<Int> = []
    /// By level: the cursor of a table-valued function; empty when the query calls none.
    @exclusivity(unchecked) private var tableFunctions: [TableFunctionCursor?] = []

    private func advance(_ k: Int) throws -> Bool {
        // Reads single fields of `program.levels[k]`: copying the whole level (its source, access path and
        // conditions) once per candidate row costs a retain and a release of each of its references.
        while true {
            if let table = tables[k] {
                guard try table.next(&context) else { return false }
            } else if !recursiveTables.isEmpty, let recursive = recursiveTables[k] {
                guard let values = try nextRecursiveRow(recursive, level: k) else { return false }
                let base = program.levels[k].source.base
                for (c, v) in values.enumerated() { context.row[base + c] = v }
            } else if !tableFunctions.isEmpty, let function = tableFunctions[k] {
                guard try function.next(&context) else { return false }
            } else {
                guard fromPositions[k] < fromRows[k].count else { return false }
                let values = fromRows[k][fromPositions[k]]
                fromPositions[k] += 1
                let base = program.levels[k].source.base
                for (c, v) in values.enumerated() { context.row[base + c] = v }
            }
            if levelHasImplied[k], let table = tables[k], !table.searchIsExact, !(try passes(levelImplied[k])) {
                continue
            }
            if try passes(levelMatches[k]) {
                if levelIsLeft[k] { matched[k] = true }
                return true
            }
        }
    }

    /// Counts the rows the last level `k` (just opened) gives for the current rows of the levels before it into
    /// ``talliedRows``, with ``talliedNullRow`` set when the count is that of a `LEFT JOIN`'s NULL row; false when
    /// it gives none. Without conditions of its own to test, the level's table cursor counts its entries without
    /// decoding them; else each row is loaded and tested as ``advance(_:)`` does.
    private func tallyLastLevel(_ k: Int) throws -> Bool {
        var count = 0
        var matchedAny: Bool
        if let table = tables[k], levelFilters[k].isEmpty, levelMatches[k].isEmpty, table.filters.isEmpty,
            !levelHasImplied[k] || table.searchIsExact
        {
            count = try table.countRows(&context.row)
            matchedAny = count > 0
        } else {
            while try advance(k) {
                if try passes(levelFilters[k]) { count += 1 }
            }
            matchedAny = matched[k]
        }
        talliedNullRow = false
        if count == 0 {
            guard levelIsLeft[k], !matchedAny else { return false }
            writeNulls(k)
            guard try passes(levelFilters[k]) else { return false }
            talliedNullRow = true
            count = 1
        }
        talliedRows = count
        return true
    }

    private func writeNulls(_ k: Int) {
        let source = program.levels[k].source
        for slot in source.base..<(source.base + source.width) { context.row[slot] = .null }
        tables[k]?.forgetDocuments(&context.row)
    }

    // MARK: Aggregation and sorting

    private func materialize() throws {
        var sorter: Sorter?
        if !program.ordering.isEmpty {
            // With ORDER BY … LIMIT (and no DISTINCT or aggregate row filtering after the sort) only the best
            // rows are kept.
            var keep: Int?
            if remaining < Int.max, !(program.distinct && program.isAggregate) {
                let (sum, overflow) = remaining.addingReportingOverflow(toSkip)
                if !overflow && sum <= 100_000 { keep = sum }
            }
            sorter = Sorter(terms: program.ordering, memoryLimit: sortMemoryLimit, keep: keep)
        }
        func emit() throws {
            let row = try project()
            if program.distinct && !program.isAggregate && !isNew(row) { return }
            guard let sorter else {
                buffered.append(row)
                return
            }
            var keys: [Value] = []
            for term in program.ordering {
                if let k = term.output {
                    keys.append(row[k])
                } else if let e = term.expression {
                    keys.append(try e.evaluate(&context))
                }
            }
            try sorter.add(row, keys: keys)
        }
        if program.isAggregate {
            // With LIMIT and no sort (nor DISTINCT) after the grouping, streamed groups stop once enough rows are
            // kept.
            var enough: (() -> Bool)?
            if sorter == nil, !program.distinct, remaining < Int.max {
                let (needed, overflow) = remaining.addingReportingOverflow(toSkip)
                if !overflow { enough = { self.buffered.count >= needed } }
            }
            try aggregate(emit, enough: enough)
        } else {
            while try nextJoinRow() { try emit() }
        }
        if let sorter {
            try sorter.finish()
            sortSpilled = sorter.spilled
            self.sorter = sorter
        }
    }

    // MARK: Subqueries

    /// Runs subquery `id` of the program for the enclosing row in `context` (once, for an uncorrelated one).
    func subquery(_ id: SubqueryID, _ context: inout EvaluationContext) throws -> SubqueryResult {
        let k = id.rawValue
        let sub = program.subqueries[k]
        if !sub.correlated, let cached = subqueryCache[k] { return cached }
        let cursor = subqueryCursors[k] ?? SelectCursor(program: sub.program)
        cursor.sortMemoryLimit = sortMemoryLimit
        cursor.stopsAtFirstRow = !sub.kind.readsEveryRow
        subqueryCursors[k] = cursor
        try cursor.open(outer: context.row, parameters: context.parameters)
        let result: SubqueryResult
        switch sub.kind {
        case .scalar:
            result = .scalar(try cursor.next()?.first ?? .null)
        case .exists:
            result = .exists(try cursor.next() != nil)
        case .inSelect:
            var values: [Value] = []
            while let row = try cursor.next() { values.append(row[0]) }
            result = .values(values)
        case .row(let width):
            result = .row(try cursor.next() ?? Array(repeating: .null, count: width))
        case .inRows:
            var rows: [[Value]] = []
            while let row = try cursor.next() { rows.append(row) }
            result = .rows(rows)
        }
        if !sub.correlated { subqueryCache[k] = result }
        return result
    }
}
