// Opening a TableCursor: evaluating its access path's rowids, rowid range or index keys for one execution.

import GraniteStorage

extension TableCursor {
    /// Positions the cursor before its first row; `context.row` holds the values of the earlier tables.
    func open(_ context: inout EvaluationContext) throws {
        exhausted = tree == nil
        if !rawFilters.isEmpty {
            setRawOperands(context)
            if rawFilters.contains(where: { $0.located != nil }) { jsonLocations = context.sharedJSONLocations() }
        }
        if !documentColumns.isEmpty { shareDocuments(&context) }
        positioned = false
        if method == .rowids && rowidValues.count == 1 {
            // `rowid = ?`, the common case: no set to deduplicate and nothing to sort.
            rowidPosition = 0
            let value = rowidParameter > 0 ? context.parameters[rowidParameter] : try rowidValues[0].evaluate(&context)
            singleRowid = AccessKeys.rowid(value)
            return
        }
        switch path.method {
        case .scan:
            range = (nil, nil)
        case .rowids(let values):
            // One value is handled above.
            rowidPosition = 0
            var set = Set<Int64>()
            for value in values {
                if let rowid = AccessKeys.rowid(try value.evaluate(&context)) { set.insert(rowid) }
            }
            rowids = set.sorted()
            if path.descending { rowids.reverse() }
        case .rowidRange(let lows, let highs):
            var low: Int64?
            var high: Int64?
            for bound in lows {
                switch AccessKeys.lowerRowid(try bound.value.evaluate(&context), strict: bound.strict) {
                case .bound(let b): low = max(low ?? b, b)
                case .empty: exhausted = true
                case .none: break
                }
            }
            for bound in highs {
                switch AccessKeys.upperRowid(try bound.value.evaluate(&context), strict: bound.strict) {
                case .bound(let b): high = min(high ?? b, b)
                case .empty: exhausted = true
                case .none: break
                }
            }
            if let low, let high, low > high { exhausted = true }
            range = (low, high)
        case .index(let search):
            try openIndex(search, &context)
        }
    }

    private func openIndex(_ search: IndexSearch, _ context: inout EvaluationContext) throws {
        var complete = true
        var exact = true
        if search.equalities.count == 1 && search.equalities[0].count == 1 {
            // One value for the first column (a join's `x = outer.y`, opened once per outer row): its key is
            // written over the last execution's, in the same storage.
            let v = try search.equalities[0][0].evaluate(&context)
            if v.isNull {  // `= NULL` never matches
                exhausted = true
                return
            }
            if prefixes.count != 1 { prefixes = [[]] }
            prefixes[0].removeAll(keepingCapacity: true)
            let (affinity, collation) = indexRules[0]
            if AccessKeys.appendIndexValue(v, affinity: affinity, collation: collation, to: &prefixes[0]) {
                exact = Self.probeIsExact(v, affinity: affinity)
            } else {
                // No key: the whole index is read, and the level's conditions test each entry.
                complete = false
            }
        } else {
            guard let equalities = try equalityPrefixes(search, &context) else {
                exhausted = true
                return
            }
            (complete, exact) = (equalities.complete, equalities.exact)
            prefixes = path.descending ? equalities.prefixes.reversed() : equalities.prefixes
        }
        searchIsExact = complete && exact
        low = nil
        high = nil
        if complete, search.equalities.count < indexRules.count {
            let (affinity, collation) = indexRules[search.equalities.count]
            for bound in search.lows {
                let v = try bound.value.evaluate(&context)
                if v.isNull {
                    exhausted = true
                    return
                }
                guard let key = AccessKeys.indexValue(v, affinity: affinity, collation: collation) else { continue }
                if low.map({ $0.lexicographicallyPrecedes(key) }) ?? true { low = key }
            }
            for bound in search.highs {
                let v = try bound.value.evaluate(&context)
                if v.isNull {
                    exhausted = true
                    return
                }
                guard let key = AccessKeys.indexValue(v, affinity: affinity, collation: collation) else { continue }
                if high.map({ key.lexicographicallyPrecedes($0) }) ?? true { high = key }
            }
            // Numbers never compare equal to NULL: skip the NULL entries when only an upper bound is given.
            if low == nil, high != nil { low = [KeyEncoding.nullTag + 1] }
        }
        prefixPosition = 0
        if cursor == nil { cursor = try reader.indexes[search.index].tree.makeCursor() }
    }

    /// The keys of the index's equality columns for this execution, in ascending order (every combination of
    /// the values of each column, without repeats); whether a key was found for every column (when not, the
    /// prefixes stop at the first column without one); and whether every probe is exact (see ``searchIsExact``).
    /// Nil when a column has no value to search for (all NULL): nothing matches.
    private func equalityPrefixes(_ search: IndexSearch, _ context: inout EvaluationContext) throws -> (
        prefixes: [[UInt8]], complete: Bool, exact: Bool
    )? {
        var prefixes: [[UInt8]] = [[]]
        var complete = true
        var exact = true
        for (position, values) in search.equalities.enumerated() {
            let (affinity, collation) = indexRules[position]
            var keys: [[UInt8]] = []
            for value in values {
                let v = try value.evaluate(&context)
                if v.isNull { continue }  // `= NULL` never matches
                guard let key = AccessKeys.indexValue(v, affinity: affinity, collation: collation) else {
                    complete = false
                    break
                }
                if exact && !Self.probeIsExact(v, affinity: affinity) { exact = false }
                keys.append(key)
            }
            if !complete { break }
            if keys.isEmpty { return nil }
            let unique = keys.count == 1 ? keys : Set(keys).sorted { $0.lexicographicallyPrecedes($1) }
            if prefixes.count == 1 && prefixes[0].isEmpty {
                prefixes = unique
            } else {
                prefixes = prefixes.flatMap { p in unique.map { p + $0 } }
            }
        }
        return (prefixes, complete, exact)
    }

    /// Whether `value`, searched for in an index column of `affinity`, is already of the type SQLite's `=`
    /// would compare it as (the key was built without converting it), so that equal keys mean `=` holds.
    static func probeIsExact(_ value: Value, affinity: SQLAffinity) -> Bool {
        switch (affinity, value) {
        case (.integer, .integer), (.real, .integer), (.numeric, .integer): return true
        case (.integer, .real(let d)), (.real, .real(let d)), (.numeric, .real(let d)): return !d.isNaN
        case (.text, .text): return true
        case (.blob, .real(let d)): return !d.isNaN
        case (.blob, .null): return false
        case (.blob, _): return true
        default: return false
        }
    }

    /// Registers ``documents`` with the context's ``JSONLocationCache``, through which the JSON calls read them.
    private func shareDocuments(_ context: inout EvaluationContext) {
        let cache = context.sharedJSONLocations()
        guard cache !== documentsCache else { return }
        documents = documentColumns.map { cache.storedDocument(slot: base + $0) }
        documentsCache = cache
    }
}
