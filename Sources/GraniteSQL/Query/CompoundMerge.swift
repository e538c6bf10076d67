import GraniteStorage

/// A compound with `ORDER BY`, combined as SQLite's merge does (`multiSelectOrderBy`): the rows of everything left
/// of the last operator and those of its right term are each sorted by the `ORDER BY` keys, then merged; a run of
/// more than three terms joined by the same `UNION` or `UNION ALL` is split near its middle instead (SQLite's
/// balanced merge), each part merged on its own.
///
/// The result differs from the unordered evaluation only in which of several rows that compare equal survives:
/// the keys of every operator but `UNION ALL` are extended by the columns the `ORDER BY` lacks; each side is
/// sorted stably; an output row equal to the previous one is dropped, equal in the collations of the terms being
/// merged taken as a compound of their own (so the right part of a balanced merge may drop rows in a collation
/// the whole compound does not use, as SQLite does); and on equal keys `UNION` and `EXCEPT` drop the left row
/// while `INTERSECT` keeps it.
struct CompoundMerge {
    let program: CompoundProgram
    /// Gives the rows of a term, in the order its programs produce them.
    let rowsOf: (CompoundProgram.Term) throws -> [[Value]]

    /// The compound's rows in `ORDER BY` order (`program.ordering`).
    ///
    /// The terms merge in the compound's collations, so an `ORDER BY` collation of its own does not change which
    /// rows are the same (`SELECT 'b' UNION SELECT 'B' ORDER BY 1 COLLATE nocase` keeps both, as in SQLite): it
    /// only sorts the merged rows again, stably.
    func rows() throws -> [[Value]] {
        let ordering = program.ordering
        let merged = try merged(0...(program.terms.count - 1), keys: ordering)
        let ownCollation = ordering.contains { key in key.collation != compoundCollation(key) }
        let deduplicates = program.terms.contains { ($0.op ?? .unionAll) != .unionAll }
        return ownCollation && deduplicates ? sorted(merged, ordering) : merged
    }

    /// The collation of the column `key` sorts by.
    private func compoundCollation(_ key: SelectProgram.SortTerm) -> SQLCollation {
        key.output.flatMap { $0 < program.collations.count ? program.collations[$0] : nil } ?? key.collation
    }

    /// The rows of the terms `range`, sorted by `keys` (extended by the columns they lack unless the last term
    /// joins by `UNION ALL`).
    private func merged(_ range: ClosedRange<Int>, keys parentKeys: [SelectProgram.SortTerm]) throws -> [[Value]] {
        let terms = program.terms
        guard range.count > 1 else { return sorted(try rowsOf(terms[range.lowerBound]), parentKeys) }
        let op = terms[range.upperBound].op ?? .unionAll
        // Terms whose duplicates go merge in the compound's collations (see ``rows()``).
        let keys =
            op == .unionAll
            ? parentKeys
            : extended(
                parentKeys.map { key in
                    SelectProgram.SortTerm(
                        output: key.output, expression: nil, descending: key.descending, nullsFirst: key.nullsFirst,
                        collation: compoundCollation(key))
                })
        let split = splitPoint(of: range)
        let left = try merged(range.lowerBound...(split - 1), keys: keys)
        let right = try merged(split...range.upperBound, keys: keys)
        return merge(left, right, op: op, keys: keys, duplicatesIn: program.collations(ofTerms: range))
    }

    /// The first term of the right part when the terms `range` merge: the last term, but in a run of more than
    /// three terms joined by the same `UNION` or `UNION ALL` at the end of `range`, the term half-way back along
    /// the run (SQLite steps back once for every two terms of the run after the first).
    private func splitPoint(of range: ClosedRange<Int>) -> Int {
        let terms = program.terms
        let last = range.upperBound
        let op = terms[last].op ?? .unionAll
        guard op == .union || op == .unionAll else { return last }
        var runLength = 1
        var k = last
        while k > range.lowerBound && terms[k].op == op {
            runLength += 1
            k -= 1
        }
        return runLength > 3 ? last - (runLength - 1) / 2 : last
    }

    /// `keys` followed by every column none of them sorts by, ascending in its collation.
    private func extended(_ keys: [SelectProgram.SortTerm]) -> [SelectProgram.SortTerm] {
        var result = keys
        let present = Set(keys.compactMap(\.output))
        for (c, collation) in program.collations.enumerated() where !present.contains(c) {
            result.append(.init(output: c, expression: nil, descending: false, nullsFirst: true, collation: collation))
        }
        return result
    }

    private func sorted(_ rows: [[Value]], _ keys: [SelectProgram.SortTerm]) -> [[Value]] {
        Sorting.stableSorted(rows) { compare($0, $1, keys) < 0 }
    }

    /// Merges two sorted parts, dropping an output row equal to the previous one in `collations` (but for
    /// `UNION ALL`).
    private func merge(
        _ left: [[Value]], _ right: [[Value]], op: CompoundOperator, keys: [SelectProgram.SortTerm],
        duplicatesIn collations: [SQLCollation]
    ) -> [[Value]] {
        var output: [[Value]] = []
        output.reserveCapacity(op == .intersect ? min(left.count, right.count) : left.count + right.count)
        func emit(_ row: [Value]) {
            if op != .unionAll, let previous = output.last, Self.sameRow(previous, row, in: collations) { return }
            output.append(row)
        }
        var i = 0
        var j = 0
        while i < left.count && j < right.count {
            let c = compare(left[i], right[j], keys)
            switch op {
            case .unionAll:
                if c <= 0 { emit(left[i]); i += 1 } else { emit(right[j]); j += 1 }
            case .union:
                if c < 0 { emit(left[i]) } else if c > 0 { emit(right[j]); j += 1; continue }
                i += 1
            case .except:
                if c < 0 { emit(left[i]) } else if c > 0 { j += 1; continue }
                i += 1
            case .intersect:
                if c == 0 { emit(left[i]) } else if c > 0 { j += 1; continue }
                i += 1
            }
        }
        if op != .intersect { for row in left[i...] { emit(row) } }
        if op == .union || op == .unionAll { for row in right[j...] { emit(row) } }
        return output
    }

    /// Compares two rows by `keys`: negative when `a` comes first.
    private func compare(_ a: [Value], _ b: [Value], _ keys: [SelectProgram.SortTerm]) -> Int {
        for key in keys {
            guard let c = key.output, c < a.count, c < b.count else { continue }
            let x = a[c]
            let y = b[c]
            if x.isNull || y.isNull {
                if x.isNull && y.isNull { continue }
                return x.isNull == key.nullsFirst ? -1 : 1
            }
            let order = SQLComparison.compare(x, y, collation: key.collation)
            if order != 0 { return key.descending ? -order : order }
        }
        return 0
    }

    /// Whether two rows are the same row of a set: every column equal in its collation of `collations`.
    private static func sameRow(_ a: [Value], _ b: [Value], in collations: [SQLCollation]) -> Bool {
        for (c, collation) in collations.enumerated() where c < a.count && c < b.count {
            if a[c].isNull != b[c].isNull { return false }
            if !a[c].isNull && SQLComparison.compare(a[c], b[c], collation: collation) != 0 { return false }
        }
        return true
    }
}
