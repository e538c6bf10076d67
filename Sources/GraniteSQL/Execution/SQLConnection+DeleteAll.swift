// `DELETE FROM t` without WHERE: SQLite's truncate optimization, which empties the table's trees at once when
// nothing needs to see the rows deleted.

import GraniteStorage

extension SQLConnection {
    /// Whether a DELETE of every row of `writer`'s table (no WHERE, no RETURNING) may empty its trees at once:
    /// as in SQLite, when no DELETE trigger and no enforced foreign key (of the table, or referring to it) has
    /// to see the rows, and when no change observer is to be told of each row (SQLite's update hook is not called
    /// for a truncation, which GRDB avoids on the tables it observes).
    func deletesAllRowsAtOnce(_ writer: TableWriter, _ session: WriteSession) throws -> Bool {
        if changeObserver != nil { return false }
        if let triggers = writer.triggers, !triggers.beforeDelete.isEmpty || !triggers.afterDelete.isEmpty {
            return false
        }
        if foreignKeysEnabled {
            if !writer.table.foreignKeys.isEmpty { return false }
            if !(try session.referencing(writer)).isEmpty { return false }
        }
        return true
    }

    /// Empties the table of `writer` and its indexes; the rows removed count as the statement's changes, as
    /// SQLite counts them.
    func deleteAllRows(_ writer: TableWriter, session: WriteSession) throws -> (columns: [String], rows: [[Value]]) {
        guard let transaction = try transaction(for: writer.table) as? WriteTransaction else {
            throw StorageError.noActiveTransaction
        }
        let count = try writer.tree.count()
        session.started = true
        if count > 0 {
            // Several trees are emptied: a failure on the way must leave them all as they were.
            try ensureStatementSavepoint()
            try transaction.clearTree(named: writer.table.storageName)
            for index in writer.indexes { try transaction.clearTree(named: index.definition.storageName) }
            session.changes = count
        }
        try session.finish()
        return ([], [])
    }
}
