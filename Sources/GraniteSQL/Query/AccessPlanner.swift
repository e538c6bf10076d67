import GraniteStorage

/// Chooses how one table of a query reads its rows, from the terms that constrain it and the order wanted.
///
/// A usable term compares a column of the table with a value that reads only parameters, enclosing queries and
/// tables placed before this one. Preference: rowid equality or `IN`; a unique index fully matched by
/// equalities; the index with the most equality columns (then a range on the next column); a rowid range; an
/// index range; a full scan. When `ORDER BY` would otherwise need a sort and no equality narrows the search, an
/// index (or rowid) order that yields the rows sorted is used instead.
struct AccessPlanner {
    let reader: TableReader
    let source: QuerySource
    let sourceIndex: Int
    let scope: QueryScope
    /// The sources whose values are known when this table is read.
    let earlier: Set<Int>
    let outputs: [CompiledExpression]

    enum Operator {
        case equal, less, lessOrEqual, greater, greaterOrEqual, list
    }

    /// One usable comparison: `column op value(s)`.
    struct Constraint {
        /// The relative slot of the column (``QuerySource/rowidSlot`` for the rowid).
        var column: Int
        var op: Operator
        var values: [CompiledExpression]
        var collation: SQLCollation
        /// The affinity of the value side, when it has one (a column or a CAST).
        var valueAffinity: SQLAffinity?
        /// The position of the term it comes from among the terms planned with.
        var term: Int = 0
        /// Whether it is `column = value` (not `IS`, which matches NULL) with a value that reads the same each
        /// time it is evaluated (a column, literal or parameter): an index search with it finds exactly the rows
        /// the term accepts whenever the search's probe is exact (see ``TableCursor/searchIsExact``).
        var isPlainEquality = false
    }

    /// Resolves names for value expressions: only sources in `allowed`, enclosing queries and parameters.
    private struct ValueResolver: ColumnResolver {
        let scope: QueryScope
        let allowed: Set<Int>

        var connectionCounters: ConnectionCounters? { scope.connectionCounters }

        func resolve(_ reference: ColumnReference) throws -> ResolvedColumn {
            let resolved = try scope.resolve(reference)
            if resolved.slot < scope.base { return resolved }
            guard
                let k = scope.sources.firstIndex(where: {
                    $0.base <= resolved.slot && resolved.slot < $0.base + $0.width
                }),
                allowed.contains(k)
            else { throw SQLEvaluationError("not a value") }
            return resolved
        }

        func resolveAggregate(_ call: FunctionCall) throws -> Int { throw SQLEvaluationError("not a value") }

        func registerSubquery(_ select: SelectStatement, kind: SubqueryKind) throws -> SubqueryID {
            throw SQLEvaluationError("not a value")
        }
    }

    var table: TableDefinition { reader.table }

    private func isRowid(_ column: Int) -> Bool { column == source.rowidSlot || column == table.rowidAlias }

    /// For a `WITHOUT ROWID` table, the position in ``TableReader/indexes`` of its primary key's index, which
    /// stands for the table: its full scan replaces the rowid-order scan, so rows come in primary-key order.
    var primaryKeyIndex: Int? {
        guard let name = table.withoutRowidKeyIndexName else { return nil }
        return reader.indexes.firstIndex { $0.definition.name == name }
    }

    /// The relative column a plain reference to this table names.
    func column(_ e: SQLExpression) -> (column: Int, collation: SQLCollation)? {
        guard case .column(let reference) = e.kind, let resolved = try? scope.resolve(reference),
            resolved.slot >= source.base, resolved.slot < source.base + source.width
        else { return nil }
        return (resolved.slot - source.base, resolved.collation)
    }

    private func value(_ e: SQLExpression) -> CompiledExpression? {
        if case .collate = e.kind { return nil }
        return try? ExpressionCompiler.compile(e, resolver: ValueResolver(scope: scope, allowed: earlier))
    }

    /// The usable constraints among `terms`.
    func constraints(_ terms: [SQLExpression]) -> [Constraint] {
        var result: [Constraint] = []
        for (position, term) in terms.enumerated() {
            let first = result.count
            defer {
                for k in first..<result.count { result[k].term = position }
            }
            switch term.kind {
            case .binary(let op, let l, let r):
                let ops: [BinaryOperator: (Operator, Operator)] = [
                    .equal: (.equal, .equal), .less: (.less, .greater), .lessOrEqual: (.lessOrEqual, .greaterOrEqual),
                    .greater: (.greater, .less), .greaterOrEqual: (.greaterOrEqual, .lessOrEqual),
                    .is: (.equal, .equal),
                ]
                guard let (direct, flipped) = ops[op] else { continue }
                if let c = column(l), let v = value(r) {
                    if op == .is, v.constantValue?.isNull ?? true { continue }
                    result.append(
                        Constraint(
                            column: c.column, op: direct, values: [v], collation: c.collation, valueAffinity: v.affinity,
                            isPlainEquality: op == .equal && Self.isStable(r)))
                } else if let c = column(r), let v = value(l) {
                    if op == .is, v.constantValue?.isNull ?? true { continue }
                    // The comparison uses the left operand's collation when it is a column.
                    let collation = v.collation ?? c.collation
                    result.append(
                        Constraint(
                            column: c.column, op: flipped, values: [v], collation: collation, valueAffinity: v.affinity,
                            isPlainEquality: op == .equal && Self.isStable(l)))
                }
            case .between(let e, let low, let high, negated: false):
                guard let c = column(e), let lo = value(low), let hi = value(high) else { continue }
                result.append(
                    Constraint(
                        column: c.column, op: .greaterOrEqual, values: [lo], collation: c.collation,
                        valueAffinity: lo.affinity))
                result.append(
                    Constraint(
                        column: c.column, op: .lessOrEqual, values: [hi], collation: c.collation,
                        valueAffinity: hi.affinity))
            case .inList(let e, let list, negated: false):
                guard let c = column(e), !list.isEmpty else { continue }
                var values: [CompiledExpression] = []
                for item in list {
                    guard let v = value(item) else { break }
                    values.append(v)
                }
                guard values.count == list.count else { continue }
                result.append(
                    Constraint(column: c.column, op: .list, values: values, collation: c.collation, valueAffinity: nil))
            default:
                continue
            }
        }
        return result
    }

    /// Whether `e` gives the same value each time it is evaluated in one execution of the query.
    private static func isStable(_ e: SQLExpression) -> Bool {
        switch e.kind {
        case .column, .literal, .parameter: return true
        default: return false
        }
    }

    /// Whether an index column of `affinity` can be searched with a value of `valueAffinity`: SQLite converts
    /// the column side in some mixed comparisons, which the stored keys cannot reproduce.
    private static func searchable(column affinity: SQLAffinity, value: SQLAffinity?) -> Bool {
        guard let value else { return true }
        switch affinity {
        case .integer, .real, .numeric: return true
        // TEXT against a BLOB-affinity column compares without conversion (3 < '1'), but the key would be
        // converted to text: not searchable.
        case .text: return value == .text
        case .blob: return value == .blob
        }
    }

    private struct Candidate {
        var path: AccessPath
        var score: Double
        /// Estimated rows.
        var rows: Double
        /// For index searches: the number of single-valued equality columns, or nil when one has several values.
        var singleEqualities: Int?
        /// For index searches: the constrained columns as `EXPLAIN QUERY PLAN` lists them (`a=?`, `b>?`).
        var constraintText: [String] = []
        /// For index searches: the terms (positions among those planned with) that every entry an exact search
        /// finds satisfies.
        var impliedTerms: [Int] = []
    }

    /// The `EXPLAIN QUERY PLAN` line of a search (or, without constraints, an ordered scan) of index `k`.
    private func indexDetail(_ k: Int, _ constraints: [String], covering: Bool) -> String {
        // SQLite names the primary key of a WITHOUT ROWID table, which is the table itself.
        if k == primaryKeyIndex {
            if constraints.isEmpty { return "SCAN \(source.name)" }
            return "SEARCH \(source.name) USING PRIMARY KEY (\(constraints.joined(separator: " AND ")))"
        }
        let index = "USING \(covering ? "COVERING " : "")INDEX \(reader.indexes[k].definition.name)"
        if constraints.isEmpty { return "SCAN \(source.name) \(index)" }
        return "SEARCH \(source.name) \(index) (\(constraints.joined(separator: " AND ")))"
    }

    /// The ways to read the table under `constraints` that the restriction allows; none when `INDEXED BY` names
    /// a partial index whose `WHERE` `terms` do not imply.
    private func candidates(_ constraints: [Constraint], terms: [SQLExpression]) -> [Candidate] {
        var result = allowsRowidSearch ? rowidCandidates(constraints) : []
        for (k, index) in reader.indexes.enumerated()
        where allowsIndex(k) && indexHoldsCandidates(k, terms: terms) {
            if let candidate = indexCandidate(k, index.definition, constraints) { result.append(candidate) }
        }
        if allowsRowidSearch, let range = rowidRangeCandidate(constraints) { result.append(range) }
        if let k = namedIndex ?? primaryKeyIndex {
            guard indexHoldsCandidates(k, terms: terms) else { return result }
            let search = IndexSearch(index: k, equalities: [])
            result.append(
                Candidate(
                    path: AccessPath(method: .index(search), detail: indexDetail(k, [], covering: false)), score: 0,
                    rows: 1_000_000, singleEqualities: 0))
        } else {
            result.append(
                Candidate(path: AccessPath(method: .scan, detail: "SCAN \(source.name)"), score: 0, rows: 1_000_000))
        }
        return result
    }

    /// Lookups of the rowids an equality or `IN` list gives.
    private func rowidCandidates(_ constraints: [Constraint]) -> [Candidate] {
        let name = source.name
        var result: [Candidate] = []
        if let c = constraints.first(where: { isRowid($0.column) && $0.op == .equal }) {
            result.append(
                Candidate(
                    path: AccessPath(
                        method: .rowids(c.values), detail: "SEARCH \(name) USING INTEGER PRIMARY KEY (rowid=?)"),
                    score: 1000, rows: 1))
        }
        if let c = constraints.first(where: { isRowid($0.column) && $0.op == .list }) {
            result.append(
                Candidate(
                    path: AccessPath(
                        method: .rowids(c.values), detail: "SEARCH \(name) USING INTEGER PRIMARY KEY (rowid=?)"),
                    score: 900, rows: Double(c.values.count)))
        }
        return result
    }

    /// A walk of the rowids between the bounds the constraints give, if they give any.
    private func rowidRangeCandidate(_ constraints: [Constraint]) -> Candidate? {
        var lows: [KeyBound] = []
        var highs: [KeyBound] = []
        for c in constraints where isRowid(c.column) {
            switch c.op {
            case .greater, .greaterOrEqual: lows.append(KeyBound(value: c.values[0], strict: c.op == .greater))
            case .less, .lessOrEqual: highs.append(KeyBound(value: c.values[0], strict: c.op == .less))
            default: break
            }
        }
        guard !lows.isEmpty || !highs.isEmpty else { return nil }
        var parts: [String] = []
        if !lows.isEmpty { parts.append("rowid>?") }
        if !highs.isEmpty { parts.append("rowid<?") }
        let detail = "SEARCH \(source.name) USING INTEGER PRIMARY KEY (\(parts.joined(separator: " AND ")))"
        return Candidate(
            path: AccessPath(method: .rowidRange(lows: lows, highs: highs), detail: detail), score: 1.5,
            rows: lows.isEmpty || highs.isEmpty ? 250_000 : 60_000)
    }

    private func indexCandidate(_ k: Int, _ index: IndexDefinition, _ constraints: [Constraint]) -> Candidate? {
        var equalities: [[CompiledExpression]] = []
        var parts: [String] = []
        var lows: [KeyBound] = []
        var highs: [KeyBound] = []
        var single = true
        var implied: [Int] = []
        for indexColumn in index.columns {
            guard case .column(let c) = indexColumn.target,
                let collation = SQLCollation(name: indexColumn.collation ?? "BINARY")
            else { break }
            let affinity = table.columns[c].affinity
            let usable = constraints.filter {
                $0.column == c && $0.collation == collation
                    && Self.searchable(column: affinity, value: $0.valueAffinity)
                    && $0.values.allSatisfy { v in
                        v.constantValue.map {
                            AccessKeys.indexValue($0, affinity: affinity, collation: collation) != nil
                        } ?? true
                    }
            }
            let columnName = table.columns[c].name
            if let eq = usable.first(where: { $0.op == .equal && $0.isPlainEquality })
                ?? usable.first(where: { $0.op == .equal })
            {
                if eq.isPlainEquality { implied.append(eq.term) }
                equalities.append(eq.values)
                parts.append("\(columnName)=?")
                continue
            }
            if let list = usable.first(where: { $0.op == .list }) {
                equalities.append(list.values)
                parts.append("\(columnName)=?")
                single = false
                continue
            }
            for c in usable {
                switch c.op {
                case .greater, .greaterOrEqual: lows.append(KeyBound(value: c.values[0], strict: c.op == .greater))
                case .less, .lessOrEqual: highs.append(KeyBound(value: c.values[0], strict: c.op == .less))
                default: break
                }
            }
            if !lows.isEmpty { parts.append("\(columnName)>?") }
            if !highs.isEmpty { parts.append("\(columnName)<?") }
            break
        }
        let hasRange = !lows.isEmpty || !highs.isEmpty
        guard !equalities.isEmpty || hasRange else { return nil }
        var score = Double(2 * equalities.count) + (hasRange ? 1 : 0)
        var rows = 1_000_000 / pow10(equalities.count) * (hasRange ? 0.25 : 1)
        if index.unique && single && equalities.count == index.columns.count {
            score = 500
            rows = 1
        }
        let search = IndexSearch(index: k, equalities: equalities, lows: lows, highs: highs)
        return Candidate(
            path: AccessPath(method: .index(search), detail: indexDetail(k, parts, covering: false)), score: score,
            rows: rows,
            singleEqualities: single ? equalities.count : nil, constraintText: parts, impliedTerms: implied)
    }

    private func pow10(_ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<n { r *= 10 }
        return r
    }

    /// The estimated number of rows one search of this table yields under `terms`.
    func estimate(_ terms: [SQLExpression]) -> Double {
        let all = candidates(constraints(terms), terms: terms)
        return all.max { $0.score < $1.score }?.rows ?? 1_000_000
    }

    // MARK: Ordering

    /// The relative column (or rowid slot) an `ORDER BY` term sorts by, when it is a plain column of this table.
    private func sortColumn(_ term: SelectProgram.SortTerm) -> Int? {
        let slot: Int?
        if let k = term.output {
            slot = k < outputs.count ? outputs[k].columnSlot : nil
        } else {
            slot = term.expression?.columnSlot
        }
        guard let slot, slot >= source.base, slot < source.base + source.width else { return nil }
        return slot - source.base
    }

    /// Whether `candidate` yields rows in the `ordering` order, and in which direction.
    private func orders(_ candidate: Candidate, _ ordering: [SelectProgram.SortTerm]) -> Bool? {
        guard !ordering.isEmpty else { return nil }
        let descending = ordering[0].descending
        for term in ordering {
            guard term.descending == descending, term.nullsFirst == !descending else { return nil }
        }
        switch candidate.path.method {
        case .scan, .rowidRange:
            // The rowid is unique: the terms after it, columns of this table, change nothing.
            guard let c = sortColumn(ordering[0]), isRowid(c), ordering.allSatisfy({ sortColumn($0) != nil }) else {
                return nil
            }
            return descending
        case .rowids(let values):
            guard ordering.count == 1, let c = sortColumn(ordering[0]), isRowid(c) || values.count == 1 else {
                return nil
            }
            return descending
        case .index(let search):
            guard let single = candidate.singleEqualities else { return nil }
            let index = reader.indexes[search.index].definition
            let fixed: Set<Int> = Set(
                index.columns.prefix(single).compactMap {
                    if case .column(let c) = $0.target { return c } else { return nil }
                })
            var position = single
            for term in ordering {
                guard let c = sortColumn(term) else { return nil }
                if fixed.contains(c) { continue }
                if position == index.columns.count {
                    guard isRowid(c) else { return nil }
                    position += 1
                    continue
                }
                guard position < index.columns.count, case .column(let ic) = index.columns[position].target, ic == c,
                    (SQLCollation(name: index.columns[position].collation ?? "BINARY") ?? .binary) == term.collation
                else { return nil }
                position += 1
            }
            return descending
        }
    }

    /// An ordered full scan of index `k`, if it yields rows in the `ordering` order.
    private func orderedIndexScan(_ k: Int, _ ordering: [SelectProgram.SortTerm]) -> Candidate? {
        let index = reader.indexes[k].definition
        guard index.whereClause == nil else { return nil }
        let candidate = Candidate(
            path: AccessPath(
                method: .index(IndexSearch(index: k, equalities: [])), detail: indexDetail(k, [], covering: false)),
            score: 0, rows: 1_000_000, singleEqualities: 0)
        return orders(candidate, ordering) != nil ? candidate : nil
    }

    /// The chosen path, and whether it yields the rows in `ordering`'s order (so no sort is needed). With
    /// `eitherDirection`, rows in the reverse order serve too, and the path walks in the table's own order.
    /// `impliedTerms` are the positions among `terms` of those an index search finds only rows satisfying,
    /// when its probe is exact (``TableCursor/searchIsExact``): the level tests them only when it is not.
    /// `levelTerms` are all the terms the level tests (`terms` when nil): a partial index an `INDEXED BY` names
    /// serves when they imply its `WHERE`, even through terms no search can use.
    func plan(
        _ terms: [SQLExpression], levelTerms: [SQLExpression]? = nil, ordering: [SelectProgram.SortTerm],
        eitherDirection: Bool = false
    ) throws(SQLExecutionError) -> (path: AccessPath, satisfiesOrdering: Bool, impliedTerms: [Int]) {
        let all = candidates(constraints(terms), terms: levelTerms ?? terms)
        guard var best = all.first else {
            // SQLite's message when the index an INDEXED BY names cannot serve the query.
            throw SQLExecutionError(.unusableIndex(namedIndex.map { reader.indexes[$0].definition.name } ?? ""))
        }
        for c in all.dropFirst() {
            if c.score > best.score
                || (c.score == best.score && orders(c, ordering) != nil && orders(best, ordering) == nil)
            {
                best = c
            }
        }
        // A full scan that would need a sort reads an index whose order is the one wanted instead.
        if best.score == 0, !ordering.isEmpty, orders(best, ordering) == nil,
            let scan = reader.indexes.indices.lazy.filter(allowsIndex).compactMap({ orderedIndexScan($0, ordering) })
                .first
        {
            best = scan
        }
        let descending = orders(best, ordering)
        var path = best.path
        path.descending =
            descending.map { eitherDirection ? primaryKeyOrderIsDescending(path.method) : $0 }
            ?? primaryKeyOrderIsDescending(path.method)
        if case .index(var search) = path.method, isCovering(search.index) {
            search.covering = true
            path.method = .index(search)
            path.detail = indexDetail(search.index, best.constraintText, covering: true)
        }
        let implied: [Int]
        if case .index = path.method { implied = best.impliedTerms } else { implied = [] }
        return (path, descending != nil, implied)
    }

    /// Whether a search of a `WITHOUT ROWID` table's primary key index walks it backwards when no order is asked
    /// for, so that rows come in primary-key order as in SQLite: index keys are always ascending, and the column
    /// after the equalities is declared `DESC`. (A key mixing directions after that column is not served.)
    private func primaryKeyOrderIsDescending(_ method: AccessMethod) -> Bool {
        guard case .index(let search) = method, search.index == primaryKeyIndex, !table.primaryKey.isEmpty else {
            return false
        }
        return table.primaryKey[min(search.equalities.count, table.primaryKey.count - 1)].order == .descending
    }

    /// Whether index `k` holds every column of the table the query reads, in a form that decodes exactly.
    private func isCovering(_ k: Int) -> Bool {
        let index = reader.indexes[k].definition
        var available: Set<Int> = [source.rowidSlot]
        if let alias = table.rowidAlias { available.insert(alias) }
        for column in index.columns {
            guard case .column(let c) = column.target,
                (SQLCollation(name: column.collation ?? "BINARY") ?? .binary) == .binary
            else { continue }
            switch table.columns[c].affinity {
            case .integer, .real, .numeric, .text: available.insert(c)
            case .blob: continue
            }
        }
        return source.used.isSubset(of: available)
    }
}
