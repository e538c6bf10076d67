import GraniteStorage

/// One row inserted, updated or deleted by a statement.
public struct SQLRowChange: Sendable, Equatable {
    /// What happened to the row.
    public enum Kind: Sendable, Equatable {
        case insert
        case update
        case delete
    }

    /// What happened to the row.
    public var kind: Kind
    /// The name of the table, spelled as in its `CREATE TABLE`.
    public var tableName: String
    /// The rowid of the row: after the change for an insert or update (an update that moves the row reports its
    /// new rowid, as SQLite's update hook does), before it for a delete.
    public var rowid: Int64
    /// For an update, the columns the statement assigns (`SET` columns, an upsert's `DO UPDATE SET` columns, or
    /// the child key columns a foreign key action sets), whether or not their values changed, as SQLite's
    /// authorizer reports them; nil for inserts and deletes. A rowid assigned on a table without `INTEGER
    /// PRIMARY KEY` is named `rowid`.
    public var updatedColumnNames: [String]?
    /// Whether the table lives in the connection's temporary schema (`temp`) rather than `main`.
    public var isTemporary: Bool

    public init(
        kind: Kind, tableName: String, rowid: Int64, updatedColumnNames: [String]? = nil, isTemporary: Bool = false
    ) {
        self.kind = kind
        self.tableName = tableName
        self.rowid = rowid
        self.updatedColumnNames = updatedColumnNames
        self.isTemporary = isTemporary
    }
}

/// How a writing statement ended, as far as its row changes are concerned.
public enum SQLStatementResult: Sendable, Equatable {
    /// The rows it reported stay changed: it succeeded, or it failed under `OR FAIL`, which keeps the changes
    /// made before the failure.
    case changesKept
    /// It failed and the rows it reported were put back as they were (by its statement savepoint inside a
    /// transaction, or with the rollback of its own transaction in autocommit mode).
    case changesUndone
}

/// Receives the row changes of an ``SQLConnection`` and the ends of its statements, savepoints and transactions,
/// in the order they happen (see ``SQLConnection/changeObserver``).
///
/// For one writing statement the connection reports each changed row (including rows changed by foreign key
/// actions, rows deleted by `REPLACE` and rows updated by an upsert; not the rows of its internal
/// `granite_sequence` table, as SQLite does not report `sqlite_sequence`), then ``statementDidEnd(_:)``. When the
/// transaction ends it reports ``transactionWillCommit()`` then ``transactionDidCommit()``, or
/// ``transactionDidRollback()``. A statement run outside an explicit transaction (autocommit) is its own
/// transaction, so its changes are followed by a commit or a rollback of their own. Statements that change no
/// row (DDL, `PRAGMA user_version = …`) report no row, only their end and their transaction's.
///
/// Rows are reported as they change, before the statement or the transaction is known to succeed: an observer
/// that publishes changes keeps them until the commit and drops those a ``SQLStatementResult/changesUndone``
/// statement, ``savepointDidRollback(named:)`` or ``transactionDidRollback()`` undid.
///
/// The callbacks run on the connection's thread in the middle of statements: they must not use the connection.
public protocol SQLChangeObserver: AnyObject {
    /// A row was inserted, updated or deleted.
    func rowDidChange(_ change: SQLRowChange)

    /// A writing statement ended; its reported rows stay changed or were undone.
    func statementDidEnd(_ result: SQLStatementResult)

    /// `SAVEPOINT name` opened a savepoint (beginning a transaction when none was open).
    func savepointDidBegin(named name: String)

    /// `RELEASE name` closed savepoint `name` and those opened after it, keeping their changes. Releasing the
    /// savepoint that began the transaction commits it instead, reported as a commit.
    func savepointDidRelease(named name: String)

    /// `ROLLBACK TO name` undid every change made since savepoint `name` began, closing the savepoints opened
    /// after it; `name` stays open.
    func savepointDidRollback(named name: String)

    /// The transaction is about to commit. Throwing vetoes the commit: the transaction is rolled back instead
    /// (reported by ``transactionDidRollback()``), and the statement that would have committed (`COMMIT`, `RELEASE`
    /// or an autocommit statement) throws the error.
    func transactionWillCommit() throws

    /// The transaction committed.
    func transactionDidCommit()

    /// The transaction rolled back (`ROLLBACK`, a vetoed or failed commit, a failed autocommit statement, or a
    /// statement failing with `OR ROLLBACK` or a storage error inside a transaction).
    func transactionDidRollback()
}

extension SQLChangeObserver {
    public func statementDidEnd(_ result: SQLStatementResult) {}
    public func savepointDidBegin(named name: String) {}
    public func savepointDidRelease(named name: String) {}
    public func savepointDidRollback(named name: String) {}
    public func transactionWillCommit() throws {}
    public func transactionDidCommit() {}
    public func transactionDidRollback() {}
}

extension WriteSession {
    /// Reports a changed row of `writer`'s table to the statement's change observer (callers check that there is
    /// one, so that nobody listening costs one test per row; never inlined, to keep the row functions small).
    @inline(never)
    func reportChange(_ kind: SQLRowChange.Kind, _ writer: TableWriter, rowid: Int64) {
        // Like SQLite's update hook, changes to a WITHOUT ROWID table are not reported row by row.
        guard writer.hasRowid else { return }
        changeObserver?.rowDidChange(
            SQLRowChange(
                kind: kind, tableName: writer.table.name, rowid: rowid, isTemporary: writer.table.isTemporary))
    }

    /// Reports the update of the row of `writer`'s table now at `rowid`, with the columns its statement assigns.
    @inline(never)
    func reportUpdate(_ writer: TableWriter, rowid: Int64, assigned: [Int]?) {
        guard writer.hasRowid else { return }
        let columns = writer.table.columns
        let names = (assigned ?? Array(columns.indices)).map { $0 < columns.count ? columns[$0].name : "rowid" }
        changeObserver?.rowDidChange(
            SQLRowChange(
                kind: .update, tableName: writer.table.name, rowid: rowid, updatedColumnNames: names,
                isTemporary: writer.table.isTemporary))
    }

    /// Reports the deletion of stored row `old` of `writer`'s table.
    @inline(never)
    func reportDeletion(_ writer: TableWriter, _ old: [Value]) {
        guard case .integer(let rowid) = old[writer.columnCount] else { return }
        reportChange(.delete, writer, rowid: rowid)
    }
}
