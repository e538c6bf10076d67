// `DELETE FROM t` without WHERE: SQLite's truncate optimization, which empties the table's trees at once when
// nothing needs to see the rows deleted.

import GraniteStorage

extension SQLConnection {
    /// Whether a DELETE of every row of `writer`'s table (no WHERE, no RETURNING) may empty its trees at once
    /// (see ``truncates(hasDeleteTriggers:hasForeignKeys:isReferenced:)``).
    func deletesAllRowsAtOnce(_ writer: TableWriter, _ session: WriteSession) throws -> Bool {
        let triggers = writer.triggers
        return try truncates(
            hasDeleteTriggers: triggers.map { !$0.beforeDelete.isEmpty || !$0.afterDelete.isEmpty } ?? false,
            hasForeignKeys: !writer.table.foreignKeys.isEmpty,
            isReferenced: { !(try session.referencing(writer)).isEmpty })
    }

    /// The rule of SQLite's truncate optimization, shared by DELETE and its `EXPLAIN QUERY PLAN`: a table is
    /// emptied at once when no DELETE trigger and no enforced foreign key (of the table, or referring to it) has
    /// to see the rows, and when no change observer is to be told of each row (SQLite's update hook is not called
    /// for a truncation, which GRDB avoids on the tables it observes). `isReferenced` is asked only when foreign
    /// keys are enforced.
    func truncates(
        hasDeleteTriggers: Bool, hasForeignKeys: Bool, isReferenced: () throws -> Bool
    ) rethrows -> Bool {
        if changeObserver != nil || hasDeleteTriggers { return false }
        guard foreignKeysEnabled else { return true }
        return try !hasForeignKeys && !isReferenced()
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
