// The BEFORE triggers of a row change, run by the session's row operations (which run the AFTER triggers
// themselves, once the change is made). Only tables with triggers come here.

import GraniteStorage

extension WriteSession {
    /// Runs the BEFORE INSERT triggers for `row` (the declared columns, then optionally an explicit rowid). As in
    /// SQLite, NEW.rowid (and an INTEGER PRIMARY KEY left NULL) reads -1 when the rowid is not chosen yet, and a
    /// given rowid that is not an integer fails the row (`datatype mismatch`) before the triggers run.
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
        try Self.requireIntegerRowid(rowid)
        new.append(rowid)
        guard let connection else { return true }
        return try connection.fire(triggers.beforeInsert, of: triggers, old: nil, new: new, resolution: resolution)
    }

    /// An UPDATE of a table with BEFORE UPDATE triggers: runs them for stored row `old` becoming `values` (the
    /// declared columns, then optionally a new rowid), then updates the row as it is stored after them (a trigger
    /// may have changed it; as SQLite does, the columns the UPDATE does not assign are read again). The change
    /// is skipped (nil) by `RAISE(IGNORE)`, or when a trigger deleted the row.
    func updateFiringBefore(
        _ triggers: TableTriggers, _ writer: TableWriter, old: [Value], values: [Value],
        resolution: ConflictResolution?, direct: Bool, assigned: [Int]?
    ) throws -> [Value]? {
        let n = writer.columnCount
        guard let connection, case .integer(let oldRowid) = old[n] else { return nil }
        var new = Array(values.prefix(n))
        if writer.rowidAlias >= 0 {
            new.append(new[writer.rowidAlias])
        } else {
            new.append(values.count > n ? values[n] : .integer(oldRowid))
        }
        try Self.requireIntegerRowid(new[n])
        if !writer.generatedColumns.isEmpty { try writer.generatedColumns.compute(&new, parameters: parameters) }
        let names = assignedNames(writer, assigned)
        guard
            try connection.fire(
                triggers.beforeUpdate, of: triggers, old: old, new: new, assigned: names, resolution: resolution),
            let current = try writer.fetch(rowid: oldRowid)
        else { return nil }
        var merged = values
        if let assigned, current != old {
            for c in 0..<n where c != writer.rowidAlias && !assigned.contains(c) { merged[c] = current[c] }
        }
        return try updateRow(
            writer, old: current, values: merged, resolution: resolution, direct: direct, assigned: assigned,
            triggerOld: old)
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

    /// REPLACE's deletion of `existing`, a row conflicting with `row`. With `recursive_triggers` on, it fires the
    /// DELETE triggers, which may store a row conflicting with `row` again: as SQLite does, the unique constraints
    /// are then checked once more, a conflict failing the statement (`excluding`: the rowid of an updated row).
    func replace(_ writer: TableWriter, _ existing: [Value], _ row: [Value], excluding: Int64?) throws {
        guard connection?.recursiveTriggers == true, let triggers = writer.triggers,
            !triggers.beforeDelete.isEmpty || !triggers.afterDelete.isEmpty
        else {
            try delete(writer, existing, direct: false, firesTriggers: false)
            return
        }
        try delete(writer, existing, direct: false, firesTriggers: true)
        for (target, _) in constraintOrder(writer, .abort, [], explicitRowid: true) {
            if let _ = try conflict(writer, target, row, excluding: excluding) {
                throw failure(writer, target, .abort)
            }
        }
    }

    /// The names of the columns an UPDATE assigns (for `UPDATE OF` triggers); nil stands for every column.
    func assignedNames(_ writer: TableWriter, _ assigned: [Int]?) -> [String]? {
        guard let assigned else { return nil }
        let columns = writer.table.columns
        return assigned.map { $0 < columns.count ? columns[$0].name : "rowid" }
    }

    /// Fails with `datatype mismatch` unless `rowid`, the rowid a BEFORE trigger would see, is an integer: SQLite
    /// checks it (its `MustBeInt`) before the triggers, so a row failing on its rowid never runs them.
    private static func requireIntegerRowid(_ rowid: Value) throws {
        guard case .integer = rowid else { throw SQLExecutionError.datatypeMismatch }
    }
}
