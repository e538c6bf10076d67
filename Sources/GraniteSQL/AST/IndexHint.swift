/// `INDEXED BY name` or `NOT INDEXED` after a table name: which indexes the planner may read that table through.
///
/// The hint changes only the access path, never the rows a statement sees or changes.
package enum IndexHint: Sendable, Equatable {
    /// `INDEXED BY name`: the table is read through that index (a full scan of it when no term narrows it).
    case indexedBy(String)
    /// `NOT INDEXED`: no index is read; a rowid lookup or range still may be. SQLite 3.40 ignores it on a
    /// `WITHOUT ROWID` table, and so does Granite.
    case notIndexed
}

extension IndexHint: CustomStringConvertible {
    /// `INDEXED BY name` or `NOT INDEXED`.
    package var description: String {
        switch self {
        case .indexedBy(let name): return "INDEXED BY " + SQLFormat.identifier(name)
        case .notIndexed: return "NOT INDEXED"
        }
    }
}
