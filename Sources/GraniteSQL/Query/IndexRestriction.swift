// INDEXED BY and NOT INDEXED: which of a table's indexes the planner may read it through.

/// Which of a table's indexes a query may read it through, resolved from its reference's ``IndexHint``.
enum IndexRestriction {
    /// Any index: the reference has no hint.
    case any
    /// No index (`NOT INDEXED` on a rowid table): a rowid lookup or range still serves.
    case none
    /// Only the index at this position in ``TableReader/indexes`` (`INDEXED BY`): searched when a term
    /// narrows it, else scanned whole.
    case only(Int)

    /// Resolves `hint` against `indexes`, the indexes of `table`, the table it follows; an `INDEXED BY` naming
    /// none of them is SQLite's `no such index` (an index of another table included).
    ///
    /// `NOT INDEXED` on a `WITHOUT ROWID` table restricts nothing: SQLite 3.40 still searches its secondary
    /// indexes there (its planner drops them only after the rowid table's stand-in for the primary key).
    init(_ hint: IndexHint?, table: TableDefinition, indexes: [IndexDefinition]) throws(SQLExecutionError) {
        switch hint {
        case nil: self = .any
        case .notIndexed: self = table.hasRowid ? .none : .any
        case .indexedBy(let name):
            guard let k = indexes.firstIndex(where: { SchemaNames.equal($0.name, name) }) else {
                throw SQLExecutionError(.noSuchIndex(name))
            }
            self = .only(k)
        }
    }
}

extension AccessPlanner {
    /// Whether the restriction lets the planner read index `k`.
    func allowsIndex(_ k: Int) -> Bool {
        switch reader.restriction {
        case .any: return true
        case .none: return false
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
}
