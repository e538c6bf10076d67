import GraniteStorage

extension SQLConnection {
    /// Runs a single-table (or table-less) `SELECT`: full scan, filter, optional aggregation, sort, limit.
    func select(
        _ select: SelectStatement, statement: Statement, parameters: BoundParameters, explain: Bool = false
    ) throws -> (
        columns: [String], rows: [[Value]]
    ) {
        guard select.with == nil else { throw SQLExecutionError.unsupported("WITH") }
        guard select.compounds.isEmpty else { throw SQLExecutionError.unsupported("compound SELECT") }
        guard case .select(let core) = select.first else { throw SQLExecutionError.unsupported("VALUES as a query") }
        if core.distinct { throw SQLExecutionError.unsupported("SELECT DISTINCT") }
        if !core.groupBy.isEmpty || core.having != nil { throw SQLExecutionError.unsupported("GROUP BY") }

        var table: TableDefinition?
        var alias: String?
        if let from = core.from {
            guard from.joins.isEmpty else { throw SQLExecutionError.unsupported("joins") }
            guard case .table(let name, let a) = from.first else {
                throw SQLExecutionError.unsupported("subqueries in FROM")
            }
            if let schema = name.schema, !SchemaNames.equal(schema, "main") {
                throw SQLExecutionError.noSuchTable("\(schema).\(name.name)")
            }
            guard let definition = catalog.table(named: name.name) else {
                throw SQLExecutionError.noSuchTable(name.name)
            }
            table = definition
            alias = a
        }
        let scope = TableScope(table: table, alias: alias)

        // Result columns.
        var names: [String] = []
        var outputs: [CompiledExpression?] = []  // nil: a plain slot copy (from `*`)
        var outputSlots: [Int] = []
        scope.allowAggregates = true
        for column in core.columns {
            switch column {
            case .all, .allOf:
                if case .allOf(let name) = column, !SchemaNames.equal(name, alias ?? table?.name ?? "") {
                    throw SQLExecutionError("no such table: \(name)")
                }
                guard let table else { throw SQLExecutionError("no tables specified") }
                for (k, c) in table.columns.enumerated() {
                    names.append(c.name)
                    outputs.append(nil)
                    outputSlots.append(k)
                }
            case .expression(let expression, let name):
                names.append(name ?? Self.columnName(expression, statement: statement))
                outputs.append(try ExpressionCompiler.compile(expression, resolver: scope))
                outputSlots.append(-1)
            }
        }
        let resultAggregates = scope.aggregates.count
        scope.allowAggregates = false
        let filter = try core.whereClause.map { try ExpressionCompiler.compile($0, resolver: scope) }

        // ORDER BY: a result column number, a result alias, or an expression over the row.
        var ordering: [(output: Int?, expression: CompiledExpression?, descending: Bool, nullsFirst: Bool)] = []
        scope.allowAggregates = true
        for term in select.orderBy {
            let descending = term.order == .descending
            let nullsFirst = term.nulls.map { $0 == .first } ?? !descending
            if case .literal(.integer(let k)) = term.expression.kind {
                guard k >= 1 && k <= names.count else {
                    throw SQLExecutionError("1st ORDER BY term out of range - should be between 1 and \(names.count)")
                }
                ordering.append((Int(k - 1), nil, descending, nullsFirst))
                continue
            }
            if case .column(let reference) = term.expression.kind, reference.table == nil,
                let k = core.columns.firstIndex(where: {
                    if case .expression(_, let a?) = $0 { return SchemaNames.equal(a, reference.column) }
                    return false
                })
            {
                ordering.append((k, nil, descending, nullsFirst))
                continue
            }
            ordering.append(
                (nil, try ExpressionCompiler.compile(term.expression, resolver: scope), descending, nullsFirst))
        }
        scope.allowAggregates = false
        let aggregateCalls = scope.aggregates
        let isAggregate = !aggregateCalls.isEmpty
        if isAggregate && resultAggregates == 0 && !select.orderBy.isEmpty && core.columns.isEmpty {
            throw SQLExecutionError("misuse of aggregate")
        }

        // Plan: the candidate rows, and whether ORDER BY is satisfied by rowid order.
        var plan: QueryPlan?
        var writer: TableWriter?
        if let table {
            let w = try TableWriter(table: table, catalog: catalog, engine: engine, parameters: parameters)
            writer = w
            plan = QueryPlanner.plan(core.whereClause, writer: w, scope: scope, parameters: parameters)
        }
        var descending = false
        if !isAggregate, ordering.count == 1, ordering[0].output == nil, let table,
            case .column(let reference) = select.orderBy[0].expression.kind,
            let resolved = try? scope.resolve(reference),
            resolved.slot == scope.rowidSlot || resolved.slot == table.rowidAlias
        {
            descending = ordering[0].descending
            ordering = []
        }
        if explain {
            var details = [plan?.detail ?? "SCAN CONSTANT ROW"]
            if !ordering.isEmpty && !isAggregate { details.append("USE TEMP B-TREE FOR ORDER BY") }
            let rows: [[Value]] = details.enumerated().map { k, detail in
                [.integer(Int64(k + 2)), .integer(0), .integer(0), .text(detail)]
            }
            return (["id", "parent", "notused", "detail"], rows)
        }
        var limitCount: Int64?
        var limitOffset: Int64?
        if let limit = select.limit {
            var context = EvaluationContext(parameters: parameters)
            limitCount = try Self.integer(
                try ExpressionCompiler.compile(limit.limit, resolver: EmptyColumnResolver()).evaluate(&context))
            limitOffset = try limit.offset.map {
                try Self.integer(try ExpressionCompiler.compile($0, resolver: EmptyColumnResolver()).evaluate(&context))
            }
        }
        // Without a sort, a LIMIT stops the scan early.
        var needed = Int.max
        if !isAggregate, ordering.isEmpty, let count = limitCount, count >= 0 {
            let (sum, overflow) = Int(clamping: count).addingReportingOverflow(max(0, Int(clamping: limitOffset ?? 0)))
            needed = overflow ? Int.max : sum
        }

        // Rows.
        var inputs: [[Value]]
        if let writer, let plan {
            inputs = []
            if needed > 0 {
                try writer.forEachCandidate(plan, descending: descending) { row in
                    if let filter {
                        var context = EvaluationContext(row: row, parameters: parameters)
                        guard try filter.isTrue(&context) else { return true }
                    }
                    inputs.append(row)
                    return inputs.count < needed
                }
            }
        } else {
            inputs = []
            var context = EvaluationContext(parameters: parameters)
            if try filter.map({ try $0.isTrue(&context) }) ?? true { inputs.append([.null]) }
        }
        if isAggregate {
            inputs = [try aggregate(aggregateCalls, over: inputs, scope: scope, parameters: parameters)]
        }

        // Project and sort.
        var keyed: [(row: [Value], keys: [Value])] = []
        for input in inputs {
            var context = EvaluationContext(row: input, parameters: parameters)
            var row: [Value] = []
            for (k, output) in outputs.enumerated() {
                row.append(try output.map { try $0.evaluate(&context) } ?? input[outputSlots[k]])
            }
            var keys: [Value] = []
            for term in ordering {
                if let output = term.output {
                    keys.append(row[output])
                } else if let e = term.expression {
                    keys.append(try e.evaluate(&context))
                }
            }
            keyed.append((row, keys))
        }
        if !ordering.isEmpty {
            let collations: [SQLCollation] = ordering.map { term in
                if let e = term.expression { return e.collation ?? .binary }
                if let k = term.output, let e = outputs[k] { return e.collation ?? .binary }
                if let k = term.output, let table {
                    return table.columns[outputSlots[k]].collation.flatMap { SQLCollation(name: $0) } ?? .binary
                }
                return .binary
            }
            keyed = Self.stableSorted(keyed) { a, b in
                for (i, term) in ordering.enumerated() {
                    let x = a.keys[i]
                    let y = b.keys[i]
                    if x.isNull || y.isNull {
                        if x.isNull && y.isNull { continue }
                        return x.isNull == term.nullsFirst
                    }
                    let c = SQLComparison.compare(x, y, collation: collations[i])
                    if c != 0 { return term.descending ? c > 0 : c < 0 }
                }
                return false
            }
        }
        var rows = keyed.map(\.row)

        if let count = limitCount {
            let offset = limitOffset
            if let offset, offset > 0 { rows.removeFirst(min(rows.count, Int(clamping: offset))) }
            if count >= 0 && count < rows.count { rows.removeLast(rows.count - Int(count)) }
        }
        return (names, rows)
    }

    private static func integer(_ value: Value) throws -> Int64 {
        switch SQLAffinity.integer.apply(to: value) {
        case .integer(let i): return i
        default: throw SQLExecutionError.datatypeMismatch
        }
    }

    private static func columnName(_ expression: SQLExpression, statement: Statement) -> String {
        if case .column(let reference) = expression.kind { return reference.column }
        let bytes = Array(statement.sourceText.utf8)
        let start = expression.range.start.offset - statement.range.start.offset
        let end = expression.range.end.offset - statement.range.start.offset
        guard start >= 0, end <= bytes.count, start < end else { return "?" }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Merge sort (stable, unlike the standard library's sort's documented contract).
    private static func stableSorted<T>(_ items: [T], by less: (T, T) -> Bool) -> [T] {
        if items.count <= 1 { return items }
        let middle = items.count / 2
        let left = stableSorted(Array(items[..<middle]), by: less)
        let right = stableSorted(Array(items[middle...]), by: less)
        var merged: [T] = []
        merged.reserveCapacity(items.count)
        var i = 0
        var j = 0
        while i < left.count && j < right.count {
            if less(right[j], left[i]) {
                merged.append(right[j])
                j += 1
            } else {
                merged.append(left[i])
                i += 1
            }
        }
        merged.append(contentsOf: left[i...])
        merged.append(contentsOf: right[j...])
        return merged
    }

    /// Computes `calls` over `rows`, returning the row to evaluate the result columns against: the last input
    /// row (or NULLs) followed by the aggregate results in their slots.
    private func aggregate(
        _ calls: [FunctionCall], over rows: [[Value]], scope: TableScope, parameters: BoundParameters
    )
        throws -> [Value]
    {
        var results: [Value] = []
        for call in calls {
            let name = SchemaNames.key(call.name)
            var arguments: [CompiledExpression] = []
            if case .list(let list, let distinct) = call.arguments {
                if distinct { throw SQLExecutionError.unsupported("DISTINCT aggregates") }
                arguments = try list.map { try ExpressionCompiler.compile($0, resolver: scope) }
            }
            var values: [[Value]] = []
            for row in rows {
                var context = EvaluationContext(row: row, parameters: parameters)
                values.append(try arguments.map { try $0.evaluate(&context) })
            }
            switch name {
            case "count":
                var count: Int64 = 0
                for v in values where arguments.isEmpty || !v[0].isNull { count += 1 }
                results.append(.integer(count))
            case "sum", "total", "avg":
                var a = SQLSumAggregate(name == "sum" ? .sum : name == "total" ? .total : .avg)
                for v in values { a.step(v[0]) }
                results.append(try a.finish())
            case "min", "max":
                var a = SQLMinMaxAggregate(isMax: name == "max", collation: arguments.first?.collation ?? .binary)
                for v in values { a.step(v[0]) }
                results.append(a.finish())
            case "group_concat":
                var a = SQLGroupConcatAggregate()
                for v in values { a.step(v[0], separator: v.count > 1 ? v[1] : nil) }
                results.append(a.finish())
            default:
                throw SQLExecutionError.unsupported("aggregate \(call.name)()")
            }
        }
        var row = rows.last ?? Array(repeating: .null, count: scope.columnCount + 1)
        if row.count < scope.columnCount + 1 {
            row += Array(repeating: .null, count: scope.columnCount + 1 - row.count)
        }
        return row + results
    }
}
