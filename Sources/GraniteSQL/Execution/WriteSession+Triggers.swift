// The BEFORE triggers of a row change, run by the session's row operations (which run the AFTER triggers
// themselves, once the change is made). Only tables with triggers come here.

import GraniteStorage

extension WriteSession {
    /// Runs the BEFORE INSERT triggers for `row` (the declared columns, then optionally an explicit rowid). As in
    /// SQLite, NEW.rowid (and an INTEGER PRIMARY KEY left NULL) reads -1 when the rowid is not chosen yet.
    /// Returns false when `RAISE(IGNORE)` skips the row.
    func fireBeforeInsert(
        _ triggers: TableTriggers, _ writer: TableWriter, _ row: [Value], _ resolution: ConflictResolution?
    ) throws -> Bool {
        let n = writer.columnCount
        var new = Array(row.prefix(n))
        var rowid: Value = row.count > n && !row[n].isNull ? row[n] : .integer(-1)
        let alias = writer.rowidAlias
        if alias >= 0 {
            if new[alias].isNull { new[alias] = .integer(-1) }
            rowid = new[alias]
        }
        new.append(rowid)
        guard let connection else { return true }
        return try connection.fire(triggers.beforeInsert, of: triggers, old: nil, new: new, resolution: resolution)
    }

    /// Runs the BEFORE UPDATE triggers for stored row `old` becoming `new`. Returns the row as stored after
    /// them (a trigger may have changed it), or nil when the change is skipped: by `RAISE(IGNORE)`, or because a
    /// trigger deleted the row.
    func fireBeforeUpdate(
        _ triggers: TableTriggers, _ writer: TableWriter, old: [Value], new: [Value], assigned: [Int]?,
        resolution: ConflictResolution?
    ) throws -> [Value]? {
        guard let connection else { return old }
        let names = assignedNames(writer, assigned)
        guard
            try connection.fire(
                triggers.beforeUpdate, of: triggers, old: old, new: new, assigned: names, resolution: resolution)
        else {
            return nil
        }
        guard case .integer(let rowid) = old[writer.columnCount] else { return nil }
        return try writer.fetch(rowid: rowid)
    }

    /// Runs the BEFORE DELETE triggers for stored row `old`. Returns the row as stored after them, or nil when
    /// the deletion is skipped (`RAISE(IGNORE)`, or a trigger already deleted the row).
    func fireBeforeDelete(
        _ triggers: TableTriggers, _ writer: TableWriter, _ old: [Value], _ resolution: ConflictResolution?
    ) throws -> [Value]? {
        guard let connection else { return old }
        guard try connection.fire(triggers.beforeDelete, of: triggers, old: old, new: nil, resolution: resolution)
        else { return nil }
        guard case .integer(let rowid) = old[writer.columnCount] else { return nil }
        return try writer.fetch(rowid: rowid)
    }

    /// The names of the columns an UPDATE assigns (for `UPDATE OF` triggers); nil stands for every column.
    func assignedNames(_ writer: TableWriter, _ assigned: [Int]?) -> [String]? {
        guard let assigned else { return nil }
        let columns = writer.table.columns
        return assigned.map { $0 < columns.count ? columns[$0].name : "rowid" }
    }
}
