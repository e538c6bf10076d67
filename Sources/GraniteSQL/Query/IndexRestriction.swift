// INDEXED BY and NOT INDEXED: which of a table's indexes the planner may read it through, and whether a partial
// index named by INDEXED BY can serve the query at all.

/// Which of a table's indexes a query may read it through, resolved from its reference's ``IndexHint``.
enum IndexRestriction {
    /// Any index: the reference has no hint.
    case any
    /// No index (`NOT INDEXED`). A rowid lookup or range still serves, and so does the primary key of a
    /// `WITHOUT ROWID` table, which is the table itself.
    case none
    /// Only the index at this position in ``TableReader/indexes`` (`INDEXED BY`): searched when a term
    /// narrows it, else scanned whole.
    case only(Int)

    /// Resolves `hint` against `indexes`, the indexes of the table it follows; an `INDEXED BY` naming none of
    /// them is SQLite's `no such index` (an index of another table included).
    init(_ hint: IndexHint?, indexes: [IndexDefinition]) throws(SQLExecutionError) {
        switch hint {
        case nil: self = .any
        case .notIndexed: self = .none
        case .indexedBy(let name):
            guard let k = indexes.firstIndex(where: { SchemaNames.equal($0.name, name) }) else {
                throw SQLExecutionError(.noSuchIndex(name))
            }
            self = .only(k)
        }
    }
}

extension AccessPlanner {
    /// Whether the restriction lets the planner read index `k` (the table itself, for a `WITHOUT ROWID` table's
    /// primary key, unless `INDEXED BY` names another index).
    func allowsIndex(_ k: Int) -> Bool {
        switch reader.restriction {
        case .any: return true
        case .none: return k == primaryKeyIndex
        case .only(let named): return k == named
        }
    }

    /// Whether rowid lookups and ranges may be used: not under `INDEXED BY`, which SQLite honours even then.
    var allowsRowidSearch: Bool {
        if case .only = reader.restriction { return false }
        return true
    }

    /// The index an `INDEXED BY` names, if any.
    var namedIndex: Int? {
        if case .only(let k) = reader.restriction { return k }
        return nil
    }

    /// Whether index `k` holds an entry for every row `terms` can accept: always for a full index; for a
    /// partial one, only when it is the index `INDEXED BY` names (the planner reads no other partial index) and
    /// `terms` imply each conjunct of its `WHERE`.
    func indexHoldsCandidates(_ k: Int, terms: [SQLExpression]) -> Bool {
        guard let predicate = reader.indexes[k].definition.whereClause else { return true }
        guard namedIndex == k else { return false }
        var conjuncts: [SQLExpression] = []
        SelectCompiler.flatten(predicate, into: &conjuncts)
        let normalizedTerms = terms.map { withOperands($0, bare: queryColumn) }
        return conjuncts.allSatisfy { conjunct in
            let conjunct = withOperands(conjunct, bare: indexColumn)
            return normalizedTerms.contains { implies($0, conjunct) }
        }
    }

    /// Whether the query term `term` (normalized) implies the index's `conjunct`: it is the same expression, or
    /// the conjunct is `column IS NOT NULL` and the term a comparison that no NULL in that column satisfies. These
    /// are the forms of SQLite's own test that partial indexes are written with.
    private func implies(_ term: SQLExpression, _ conjunct: SQLExpression) -> Bool {
        if term == conjunct { return true }
        guard let column = Self.notNullOperand(conjunct), case .column = column.kind else { return false }
        if Self.notNullOperand(term) == column { return true }
        switch term.kind {
        case .binary(let op, let l, let r):
            let nullRejecting: Set<BinaryOperator> = [
                .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual,
            ]
            return nullRejecting.contains(op) && (l == column || r == column)
        case .between(let e, _, _, negated: false):
            return e == column
        default:
            return false
        }
    }

    /// The operand of `e IS NOT NULL` (or `e NOTNULL`, `e NOT NULL`), if `test` is one.
    private static func notNullOperand(_ test: SQLExpression) -> SQLExpression? {
        switch test.kind {
        case .isNull(let e, negated: true): return e
        case .binary(.isNot, let e, let null) where null.kind == .literal(.null): return e
        default: return nil
        }
    }

    /// A reference in the query to a column of this table, as the bare column name an index's `WHERE` uses.
    private func queryColumn(_ e: SQLExpression) -> SQLExpression {
        guard let c = column(e), c.column < table.columns.count else { return e }
        return SQLExpression(.column(ColumnReference(column: table.columns[c.column].name)))
    }

    /// A reference in an index's `WHERE` to a column of this table, spelled as the table declares it.
    private func indexColumn(_ e: SQLExpression) -> SQLExpression {
        guard case .column(let reference) = e.kind, reference.table == nil,
            let declared = table.columns.first(where: { SchemaNames.equal($0.name, reference.column) })
        else { return e }
        return SQLExpression(.column(ColumnReference(column: declared.name)))
    }

    /// `term` with each direct operand rewritten by `bare`, so that a query term and an index's conjunct naming
    /// the same column compare equal (`x.d > 0` and `D > 0` both become `d > 0`).
    private func withOperands(_ term: SQLExpression, bare: (SQLExpression) -> SQLExpression) -> SQLExpression {
        switch term.kind {
        case .binary(let op, let l, let r): return SQLExpression(.binary(op, bare(l), bare(r)))
        case .isNull(let e, let negated): return SQLExpression(.isNull(bare(e), negated: negated))
        case .between(let e, let low, let high, let negated):
            return SQLExpression(.between(bare(e), low: bare(low), high: bare(high), negated: negated))
        case .inList(let e, let list, let negated): return SQLExpression(.inList(bare(e), list, negated: negated))
        default: return term
        }
    }
}
