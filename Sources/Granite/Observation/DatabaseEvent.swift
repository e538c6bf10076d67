/// A row change reported to ``TransactionObserver/databaseDidChange(with:)``: one row of one table was inserted,
/// updated or deleted.
///
/// An event describes a change that is still pending: it is undone if its transaction rolls back (or, inside a
/// savepoint, if the savepoint rolls back, in which case the event is never delivered).
public struct DatabaseEvent {
    /// What happened to the row. The raw values are SQLite's action codes (`SQLITE_INSERT`, `SQLITE_DELETE`,
    /// `SQLITE_UPDATE`).
    public enum Kind: CInt, Sendable {
        /// A row was inserted.
        case insert = 18
        /// A row was deleted.
        case delete = 9
        /// A row was updated.
        case update = 23
    }

    /// What happened to the row.
    public let kind: Kind
    /// The schema of the table: `main`, or `temp` for a temporary table.
    public let databaseName: String
    /// The name of the table, as spelled in its `CREATE TABLE` statement.
    public let tableName: String
    /// The rowid of the row: after the change for inserts and updates, before it for deletions.
    public let rowID: Int64

    /// An event that may be kept after ``TransactionObserver/databaseDidChange(with:)`` returns. Events hold
    /// their own strings, so the copy is the event itself.
    public func copy() -> DatabaseEvent { self }
}

// Not Sendable, as in GRDB: an event is handed to observers for the duration of a callback.
@available(*, unavailable)
extension DatabaseEvent: Sendable {}

/// A kind of change a statement may make, which ``TransactionObserver/observes(eventsOfKind:)`` accepts or
/// refuses.
@frozen
public enum DatabaseEventKind: Sendable {
    /// Rows inserted into the table.
    case insert(tableName: String)
    /// Rows deleted from the table.
    case delete(tableName: String)
    /// Rows of the table updated by a statement that assigns `columnNames`.
    case update(tableName: String, columnNames: Set<String>)
}

extension DatabaseEventKind {
    /// The name of the changed table.
    public var tableName: String {
        switch self {
        case .insert(let tableName), .delete(let tableName), .update(let tableName, _): return tableName
        }
    }
}
