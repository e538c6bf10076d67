import GraniteStorage

/// A compiled compound select (`… UNION … INTERSECT …`, or a `VALUES` list of several rows): the programs of its
/// terms and how they combine. It produces the compound's rows before `ORDER BY` and `LIMIT`, which the
/// ``SelectProgram`` reading it as its one source applies.
final class CompoundProgram {
    /// One term: the operator joining it to everything on its left (nil for the leftmost term), and the programs
    /// whose rows, concatenated, are its rows: one for a `SELECT`, one per row for a `VALUES` list.
    struct Term {
        let op: CompoundOperator?
        let programs: [SelectProgram]
    }

    /// The terms, leftmost first.
    let terms: [Term]
    /// The collation each result column is compared with to remove duplicates: the collation of the column's
    /// expression in the leftmost term that has one, else `BINARY` (SQLite's `multiSelectCollSeq`).
    let collations: [SQLCollation]
    /// By term, the collation of each result column's expression, nil where it has none.
    let termCollations: [[SQLCollation?]]
    /// The `ORDER BY` keys, by result column; when present the terms are merged (``CompoundMerge``) rather
    /// than combined in a set, and the rows come out sorted.
    let ordering: [SelectProgram.SortTerm]
    /// The columns whose integers are given as reals (see ``SelectCompiler/compileCompound``).
    let realColumns: [Int]
    /// Whether a term reads an enclosing query's row (its rows are then computed again for each outer row).
    let usesOuter: Bool

    init(
        terms: [Term], termCollations: [[SQLCollation?]], ordering: [SelectProgram.SortTerm], realColumns: [Int],
        usesOuter: Bool
    ) {
        self.terms = terms
        self.termCollations = termCollations
        collations = Self.collations(of: termCollations[...])
        self.ordering = ordering
        self.realColumns = realColumns
        self.usesOuter = usesOuter
    }

    /// The collations the terms `range` of the compound, taken as a compound of their own, remove duplicates
    /// with (see ``collations``).
    func collations(ofTerms range: ClosedRange<Int>) -> [SQLCollation] {
        range.count == terms.count ? collations : Self.collations(of: termCollations[range])
    }

    /// Per column, the first collation `termCollations` give it, else `BINARY`.
    static func collations(of termCollations: ArraySlice<[SQLCollation?]>) -> [SQLCollation] {
        let width = termCollations.first?.count ?? 0
        return (0..<width).map { c in termCollations.lazy.compactMap { $0[c] }.first ?? .binary }
    }
}
