import GraniteStorage

/// How a single-table statement finds its candidate rows.
///
/// A plan only narrows the candidates: it must yield every row that can satisfy the `WHERE` clause (it may yield
/// more), and the executor still evaluates the whole `WHERE` clause on each candidate.
struct QueryPlan: Equatable {
    enum Access: Equatable {
        /// Every row, in rowid order.
        case fullScan
        /// The rows with these rowids (ascending, without duplicates).
        case rowids([Int64])
        /// The rows whose rowid is within `low...high` (nil: unbounded).
        case rowidRange(low: Int64?, high: Int64?)
        /// The rows whose entries in index number `index` (of ``TableWriter/indexes``) start with one of
        /// `prefixes` (the encoded values of the leading columns) and continue with a value between `low` and `high`
        /// (encoded values; an entry continuing with `high` itself is included).
        case index(index: Int, prefixes: [[UInt8]], low: [UInt8]?, high: [UInt8]?)
    }

    var access: Access
    /// The `EXPLAIN QUERY PLAN` line, e.g. `SEARCH t USING INTEGER PRIMARY KEY (rowid=?)`.
    var detail: String
}

/// Chooses a ``QueryPlan`` from the top-level `AND` terms of a `WHERE` clause.
enum QueryPlanner {
    private enum Operator {
        case equal, less, lessOrEqual, greater, greaterOrEqual, list
    }

    /// One usable term: `column op constant(s)`.
    private struct Constraint {
        var column: ResolvedColumn
        var op: Operator
        var values: [Value]
    }

    static func plan(
        _ condition: SQLExpression?, writer: TableWriter, scope: TableScope, parameters: BoundParameters
    ) -> QueryPlan {
        let table = writer.table
        let name = scope.alias ?? table.name
        let scan = QueryPlan(access: .fullScan, detail: "SCAN \(name)")
        guard let condition else { return scan }
        var terms: [SQLExpression] = []
        flatten(condition, into: &terms)
        var constraints: [Constraint] = []
        for term in terms {
            constraints += self.constraints(term, scope: scope, parameters: parameters)
        }
        let isRowid = { (c: ResolvedColumn) in c.slot == scope.rowidSlot || c.slot == table.rowidAlias }
        let rowidLabel = "rowid"

        // 1. rowid equality; 3. rowid IN (list).
        if let c = constraints.first(where: { isRowid($0.column) && $0.op == .equal }) {
            let rowids = rowidKey(c.values[0]).map { [$0] } ?? []
            return QueryPlan(access: .rowids(rowids), detail: "SEARCH \(name) USING INTEGER PRIMARY KEY (rowid=?)")
        }
        if let c = constraints.first(where: { isRowid($0.column) && $0.op == .list }) {
            var set = Set<Int64>()
            for v in c.values { if let k = rowidKey(v) { set.insert(k) } }
            return QueryPlan(
                access: .rowids(set.sorted()), detail: "SEARCH \(name) USING INTEGER PRIMARY KEY (rowid=?)")
        }

        // 4. Index equality on a prefix, then optionally a range on the next column.
        var best: (score: Int, plan: QueryPlan)?
        for (k, index) in writer.indexes.enumerated() where index.filter == nil {
            if let candidate = indexPlan(k, index.definition, constraints, table: table, name: name),
                candidate.score > 0,
                candidate.score > (best?.score ?? 0)
            {
                best = candidate
            }
        }
        if let best, best.score >= 2 { return best.plan }

        // 2. rowid ranges.
        var low: Int64?
        var high: Int64?
        var hasLow = false
        var hasHigh = false
        var empty = false
        for c in constraints where isRowid(c.column) {
            switch c.op {
            case .greater, .greaterOrEqual:
                switch lowerBound(c.values[0], strict: c.op == .greater) {
                case .bound(let b):
                    low = max(low ?? b, b)
                    hasLow = true
                case .empty: empty = true
                case .none: break
                }
            case .less, .lessOrEqual:
                switch upperBound(c.values[0], strict: c.op == .less) {
                case .bound(let b):
                    high = min(high ?? b, b)
                    hasHigh = true
                case .empty: empty = true
                case .none: break
                }
            default: break
            }
        }
        if hasLow || hasHigh || empty {
            var parts: [String] = []
            if hasLow { parts.append("\(rowidLabel)>?") }
            if hasHigh { parts.append("\(rowidLabel)<?") }
            if parts.isEmpty { parts.append("\(rowidLabel)>?") }
            let detail = "SEARCH \(name) USING INTEGER PRIMARY KEY (\(parts.joined(separator: " AND ")))"
            if empty { return QueryPlan(access: .rowids([]), detail: detail) }
            return QueryPlan(access: .rowidRange(low: low, high: high), detail: detail)
        }
        if let best { return best.plan }
        return scan
    }

    // MARK: Terms

    private static func flatten(_ e: SQLExpression, into terms: inout [SQLExpression]) {
        if case .binary(.and, let l, let r) = e.kind {
            flatten(l, into: &terms)
            flatten(r, into: &terms)
        } else {
            terms.append(e)
        }
    }

    /// The value of a constant expression (a literal or parameter, possibly negated), or nil.
    private static func constant(_ e: SQLExpression, _ parameters: BoundParameters) -> Value? {
        switch e.kind {
        case .literal(let l):
            switch l {
            case .currentDate, .currentTime, .currentTimestamp: return nil
            default: break
            }
        case .parameter: break
        case .unary(.negate, let inner), .unary(.plus, let inner):
            guard constant(inner, parameters) != nil else { return nil }
        default: return nil
        }
        do {
            var context = EvaluationContext(parameters: parameters)
            return try ExpressionCompiler.compile(e, resolver: EmptyColumnResolver()).evaluate(&context)
        } catch {
            return nil
        }
    }

    private static func column(_ e: SQLExpression, _ scope: TableScope) -> ResolvedColumn? {
        guard case .column(let reference) = e.kind else { return nil }
        return try? scope.resolve(reference)
    }

    private static func constraints(_ term: SQLExpression, scope: TableScope, parameters: BoundParameters)
        -> [Constraint]
    {
        switch term.kind {
        case .binary(let op, let l, let r):
            let ops: [BinaryOperator: (Operator, Operator)] = [
                .equal: (.equal, .equal), .less: (.less, .greater), .lessOrEqual: (.lessOrEqual, .greaterOrEqual),
                .greater: (.greater, .less), .greaterOrEqual: (.greaterOrEqual, .lessOrEqual),
            ]
            guard let (direct, flipped) = ops[op] else { return [] }
            if let c = column(l, scope), let v = constant(r, parameters) {
                return [Constraint(column: c, op: direct, values: [v])]
            }
            if let c = column(r, scope), let v = constant(l, parameters) {
                return [Constraint(column: c, op: flipped, values: [v])]
            }
            return []
        case .between(let e, let low, let high, negated: false):
            guard let c = column(e, scope), let lo = constant(low, parameters), let hi = constant(high, parameters)
            else { return [] }
            return [
                Constraint(column: c, op: .greaterOrEqual, values: [lo]),
                Constraint(column: c, op: .lessOrEqual, values: [hi]),
            ]
        case .inList(let e, let list, negated: false):
            guard let c = column(e, scope) else { return [] }
            var values: [Value] = []
            for item in list {
                guard let v = constant(item, parameters) else { return [] }
                values.append(v)
            }
            return [Constraint(column: c, op: .list, values: values)]
        default:
            return []
        }
    }

    // MARK: Rowid keys

    /// The rowid equal to `value` under SQLite's comparison with an INTEGER column, or nil when no integer is.
    static func rowidKey(_ value: Value) -> Int64? {
        switch SQLAffinity.numeric.apply(to: value) {
        case .integer(let i): return i
        case .real(let d) where d == -9_223_372_036_854_775_808.0: return Int64.min
        default: return nil
        }
    }

    private enum Bound {
        case bound(Int64)
        case empty
        case none
    }

    private static let twoTo63 = 9_223_372_036_854_775_808.0

    /// The smallest rowid that can be `>` (or `>=`) `value`.
    private static func lowerBound(_ value: Value, strict: Bool) -> Bound {
        switch SQLAffinity.numeric.apply(to: value) {
        case .integer(let i):
            if strict { return i == Int64.max ? .empty : .bound(i + 1) }
            return .bound(i)
        case .real(let d) where !d.isNaN:
            if d >= twoTo63 { return .empty }
            if d < -twoTo63 { return .none }
            return .bound(Int64(d.rounded(.up)))
        default:
            return .none
        }
    }

    /// The largest rowid that can be `<` (or `<=`) `value`.
    private static func upperBound(_ value: Value, strict: Bool) -> Bound {
        switch SQLAffinity.numeric.apply(to: value) {
        case .integer(let i):
            if strict { return i == Int64.min ? .empty : .bound(i - 1) }
            return .bound(i)
        case .real(let d) where !d.isNaN:
            if d < -twoTo63 { return .empty }
            if d >= twoTo63 { return .none }
            return .bound(Int64(d.rounded(.down)))
        default:
            return .none
        }
    }

    // MARK: Indexes

    /// The constant of a comparison with `column` as SQLite converts it (the column's affinity applied to the
    /// constant), transformed like the index stores values under `collation`; nil when the index must not be used.
    private static func indexKeyValue(_ value: Value, column: ResolvedColumn, collation: SQLCollation) -> Value? {
        var v = value
        switch column.affinity {
        case .integer, .real, .numeric:
            v = SQLAffinity.numeric.apply(to: value)
            switch v {
            case .integer: break
            case .real(let d) where !d.isNaN: break
            default: return nil
            }
        case .text:
            v = SQLAffinity.text.apply(to: value)
            guard case .text = v else { return nil }
        case .blob, nil:
            switch v {
            case .null: return nil
            case .real(let d) where d.isNaN: return nil
            default: break
            }
        }
        if case .text(let s) = v {
            switch collation {
            case .nocase: v = .text(TableWriter.asciiLowercased(s))
            case .rtrim: v = .text(TableWriter.trimmingTrailingSpaces(s))
            case .binary: break
            }
        }
        return v
    }

    private static func indexPlan(
        _ k: Int, _ index: IndexDefinition, _ constraints: [Constraint], table: TableDefinition, name: String
    ) -> (score: Int, plan: QueryPlan)? {
        var prefixes: [[UInt8]] = [[]]
        var score = 0
        var parts: [String] = []
        var low: [UInt8]?
        var high: [UInt8]?
        for indexColumn in index.columns {
            guard case .column(let slot) = indexColumn.target,
                let collation = SQLCollation(name: indexColumn.collation ?? "BINARY")
            else { break }
            let usable = constraints.filter { $0.column.slot == slot && $0.column.collation == collation }
            let columnName = table.columns[slot].name
            /// The encodings of every value of `c`, or nil when one cannot be looked up.
            func keys(_ c: Constraint) -> [[UInt8]]? {
                var result: [[UInt8]] = []
                for value in c.values {
                    guard let v = indexKeyValue(value, column: c.column, collation: collation) else { return nil }
                    var bytes: [UInt8] = []
                    KeyEncoding.append(v, to: &bytes)
                    result.append(bytes)
                }
                return result
            }
            if let eq = usable.first(where: { $0.op == .equal && keys($0) != nil }), let bytes = keys(eq)?.first {
                prefixes = prefixes.map { $0 + bytes }
                score += 2
                parts.append("\(columnName)=?")
                continue
            }
            if let list = usable.first(where: { $0.op == .list && keys($0) != nil }), let values = keys(list),
                prefixes.count * values.count <= 256
            {
                let unique = Set(values).sorted { $0.lexicographicallyPrecedes($1) }
                prefixes = prefixes.flatMap { p in unique.map { p + $0 } }
                score += 2
                parts.append("\(columnName)=?")
                continue
            }
            var hasLow = false
            var hasHigh = false
            for c in usable where c.op != .equal && c.op != .list {
                guard let bytes = keys(c)?.first else { continue }
                switch c.op {
                case .greater, .greaterOrEqual:
                    if low.map({ $0.lexicographicallyPrecedes(bytes) }) ?? true { low = bytes }
                    hasLow = true
                case .less, .lessOrEqual:
                    if high.map({ bytes.lexicographicallyPrecedes($0) }) ?? true { high = bytes }
                    hasHigh = true
                default: break
                }
            }
            if hasLow { parts.append("\(columnName)>?") }
            if hasHigh { parts.append("\(columnName)<?") }
            if hasLow || hasHigh { score += 1 }
            break
        }
        guard score > 0 else { return nil }
        let detail = "SEARCH \(name) USING INDEX \(index.name) (\(parts.joined(separator: " AND ")))"
        return (score, QueryPlan(access: .index(index: k, prefixes: prefixes, low: low, high: high), detail: detail))
    }
}

extension TableWriter {
    /// Calls `body` with each candidate row of `plan`, in rowid order (descending when `descending`), until it
    /// returns false.
    func forEachCandidate(_ plan: QueryPlan, descending: Bool, _ body: ([Value]) throws -> Bool) throws {
        switch plan.access {
        case .fullScan:
            try forEachInRange(low: nil, high: nil, descending: descending, body)
        case .rowidRange(let low, let high):
            if let low, let high, low > high { return }
            try forEachInRange(low: low, high: high, descending: descending, body)
        case .rowids(let rowids):
            try forEach(rowids: descending ? rowids.reversed() : rowids, body)
        case .index(let k, let prefixes, let low, let high):
            var rowids: [Int64] = []
            let cursor = try indexes[k].tree.makeCursor()
            for prefix in prefixes {
                let end = high.map { prefix + $0 }
                var valid = try cursor.seek(atOrAfter: prefix + (low ?? []))
                while valid {
                    let key = cursor.key
                    guard key.starts(with: prefix) else { break }
                    if let end, end.lexicographicallyPrecedes(key), !key.starts(with: end) { break }
                    if case .integer(let rowid)? = try KeyEncoding.decode(key).last { rowids.append(rowid) }
                    valid = try cursor.next()
                }
            }
            let sorted = Set(rowids).sorted()
            try forEach(rowids: descending ? sorted.reversed() : sorted, body)
        }
    }

    private func forEach(rowids: [Int64], _ body: ([Value]) throws -> Bool) throws {
        for rowid in rowids {
            guard let payload = try tree.get(rowid: rowid) else { continue }
            if !(try body(try row(rowid: rowid, payload: payload))) { return }
        }
    }

    private func forEachInRange(low: Int64?, high: Int64?, descending: Bool, _ body: ([Value]) throws -> Bool)
        throws
    {
        let cursor = try tree.makeCursor()
        if descending {
            var valid: Bool
            if let high {
                valid = try cursor.seek(atOrAfter: high)
                if valid, cursor.rowid > high {
                    valid = try cursor.previous()
                } else if !valid {
                    valid = try cursor.last()
                }
            } else {
                valid = try cursor.last()
            }
            while valid {
                if let low, cursor.rowid < low { return }
                if !(try body(try row(rowid: cursor.rowid, payload: try cursor.payload()))) { return }
                valid = try cursor.previous()
            }
        } else {
            var valid = try low.map { try cursor.seek(atOrAfter: $0) } ?? (try cursor.first())
            while valid {
                if let high, cursor.rowid > high { return }
                if !(try body(try row(rowid: cursor.rowid, payload: try cursor.payload()))) { return }
                valid = try cursor.next()
            }
        }
    }
}
