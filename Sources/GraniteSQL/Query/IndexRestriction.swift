// INDEXED BY and NOT INDEXED: which of a table's indexes the planner may read it through.

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
}
