// The change counters and last inserted rowid of a connection, which `changes()`, `total_changes()` and
// `last_insert_rowid()` read while statements run.

import GraniteStorage

/// A connection's counters, in an object of their own so that compiled calls of the counter functions can hold
/// it (compiled statements live in the connection's caches: holding the connection itself would be a cycle).
///
/// Unchecked sendability: the counters belong to one connection, which one thread uses at a time; the compiled
/// calls reading them run on that thread, inside that connection's statements.
package final class ConnectionCounters: @unchecked Sendable {
    /// The rowid of the most recent insert into a rowid table. As in SQLite it changes as soon as a row is
    /// inserted, within the statement, and a trigger program restores the value it started with.
    @exclusivity(unchecked) package var lastInsertedRowid: Int64 = 0
    /// The rows inserted, updated or deleted by the most recent completed INSERT, UPDATE or DELETE.
    @exclusivity(unchecked) package var changes = 0
    /// The rows inserted, updated or deleted since the connection opened.
    @exclusivity(unchecked) package var totalChanges = 0

    package init() {}
}

/// One of the SQL functions reading a connection's counters.
enum ConnectionCounterFunction {
    case changes, totalChanges, lastInsertRowid

    /// The function a call of `name` (ASCII-lowercased) is, if it is one of them.
    init?(name: String) {
        switch name {
        case "changes": self = .changes
        case "total_changes": self = .totalChanges
        case "last_insert_rowid": self = .lastInsertRowid
        default: return nil
        }
    }

    /// The names, for the argument-count table: each takes no argument.
    static let arities: [String: (Int, Int?)] = [
        "changes": (0, 0), "total_changes": (0, 0), "last_insert_rowid": (0, 0),
    ]

    /// A node reading the counter from `counters` each time it is evaluated.
    func node(reading counters: ConnectionCounters, name: String) -> EvalNode {
        let read: @Sendable ([Value]) throws -> Value
        switch self {
        case .changes: read = { _ in .integer(Int64(counters.changes)) }
        case .totalChanges: read = { _ in .integer(Int64(counters.totalChanges)) }
        case .lastInsertRowid: read = { _ in .integer(counters.lastInsertedRowid) }
        }
        let function = SQLCustomFunction(name: name, argumentCount: 0, isDeterministic: false, kind: .scalar(read))
        return .userFunction(function, [])
    }
}
