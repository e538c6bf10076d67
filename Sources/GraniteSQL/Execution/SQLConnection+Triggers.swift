// Firing triggers: finding a table's triggers, checking their WHEN, running their bodies, and RAISE.

import GraniteStorage

extension SQLConnection {
    /// SQLite's `SQLITE_MAX_TRIGGER_DEPTH`: how deeply trigger programs may nest.
    static let maximumTriggerDepth = 1000

    /// The triggers of `table` for the current schema, nil when it has none (the usual case, which costs one
    /// check of the catalog).
    func tableTriggers(_ table: TableDefinition) -> TableTriggers? {
        if catalog.triggersByKey.isEmpty { return nil }
        return TableTriggers.of(table, in: catalog)
    }

    /// Prepares the triggers a statement may fire (see ``TableTriggers/triggers(insert:update:updated:delete:)``)
    /// as SQLite does when it codes them with the statement, so that their errors are the statement's before it
    /// changes anything: their programs are parsed (an unknown `NEW.x` is an error), their queries compiled and
    /// the tables they write looked up.
    func prepare(
        _ triggers: TableTriggers, insert: Bool = false, update: Bool = false, updated: [String]? = nil,
        delete: Bool = false
    ) throws {
        for trigger in triggers.triggers(insert: insert, update: update, updated: updated, delete: delete)
        where !trigger.isChecked {
            let program = try triggers.program(of: trigger)
            if let when = program.when, case .select(let condition) = when.kind {
                _ = try compileSelect(condition, statement: when)
            }
            for step in program.body {
                let statement = step.statement
                let target: QualifiedName
                switch statement.kind {
                case .select(let query):
                    _ = try compileSelect(query, statement: statement)
                    continue
                case .insert(let insert): target = insert.table
                case .update(let update): target = update.table
                case .delete(let delete): target = delete.table
                default: continue
                }
                if catalog.table(named: target.name) == nil, catalog.view(named: target.name) == nil {
                    throw SQLExecutionError.noSuchTable(target.name)
                }
            }
            trigger.isChecked = true
        }
    }

    /// Runs `triggers` (the triggers of `set` for one moment of one row change) for a row whose OLD and NEW
    /// values are `old` and `new` (each: the columns, then the rowid). An UPDATE passes the columns its `SET`
    /// assigns (`assigned`, nil for all), which `UPDATE OF` triggers look at.
    ///
    /// Returns false when a `RAISE(IGNORE)` abandoned the row change (and the rest of its trigger programs).
    /// A running trigger does not fire again (`recursive_triggers` is off, as by default in SQLite).
    ///
    /// `resolution` is the conflict resolution of the statement making the change when it has one: it then
    /// replaces the resolutions of the body's statements (and of the triggers they fire), as in SQLite.
    func fire(
        _ triggers: [CompiledTrigger], of set: TableTriggers, old: [Value]?, new: [Value]?,
        assigned: [String]? = nil, resolution: ConflictResolution?
    ) throws -> Bool {
        for trigger in triggers where !trigger.isRunning && trigger.definition.fires(onUpdateOf: assigned) {
            let program = try set.program(of: trigger)
            let parameters = program.parameters(old: old, new: new)
            if triggerDepth >= Self.maximumTriggerDepth {
                throw SQLExecutionError("too many levels of trigger recursion")
            }
            trigger.isRunning = true
            triggerDepth += 1
            // Inserts of the trigger's body set last_insert_rowid() only while it runs, as in SQLite.
            let rowidBefore = lastInsertedRowid
            let inheritedBefore = inheritedResolution
            inheritedResolution = resolution
            defer {
                trigger.isRunning = false
                triggerDepth -= 1
                lastInsertedRowid = rowidBefore
                inheritedResolution = inheritedBefore
            }
            do {
                if let when = program.when, case .select(let condition) = when.kind,
                    try select(condition, statement: when, parameters: parameters).rows.isEmpty
                {
                    continue
                }
                for step in program.body {
                    let (statement, cache) = step.statement(resolvedBy: resolution)
                    if case .select(let query) = statement.kind {
                        _ = try select(query, statement: statement, parameters: parameters)
                    } else {
                        _ = try write(statement, parameters: parameters, cache: cache)
                    }
                }
            } catch let raise as TriggerRaise {
                if raise.action == .ignore { return false }
                throw raise.failure
            }
        }
        return true
    }
}
