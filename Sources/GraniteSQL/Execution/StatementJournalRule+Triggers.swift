// The statement journal rule (StatementJournalRule.swift) for the triggers a write fires. SQLite codes each trigger
// program into the statement that fires it, so what the program runs decides whether the statement may abort: a
// trigger whose body only inserts into an unconstrained log table leaves a statement that needs no journal.

extension SQLConnection {
    /// Whether running `triggers` (triggers of `set` that a write fires) may abort the statement firing them, as
    /// SQLite decides by coding their programs into it: a `WHEN` or body query that calls a function, a
    /// `RAISE(ABORT)`, a body INSERT, UPDATE or DELETE that may abort by the rules of a statement of its own, its
    /// conflict resolution replaced by the firing statement's `resolution` when that has one.
    ///
    /// `firing` holds the programs already looked at, by trigger and resolution: SQLite codes each once per
    /// statement, and a trigger firing itself adds nothing. A program that does not parse, or whose statements
    /// write a view or a missing table, counts as aborting (the statement fails before it writes anyway).
    func triggersMayAbort(
        _ triggers: [CompiledTrigger], of set: TableTriggers, resolution: ConflictResolution?,
        firing: inout Set<String>
    ) -> Bool {
        for trigger in triggers {
            let definition = trigger.definition
            let schema = definition.isTemporary ? "temp" : "main"
            let key = "\(schema).\(SchemaNames.key(definition.name)).\(resolution?.rawValue ?? "")"
            guard firing.insert(key).inserted else { continue }
            guard let program = try? set.program(of: trigger),
                let aborts = try? bindingNames(of: trigger, { programMayAbort(program, resolution, &firing) })
            else { return true }
            if aborts { return true }
        }
        return false
    }

    /// Whether one trigger program may abort, its INSERT and UPDATE statements resolving conflicts with
    /// `resolution` when the firing statement has one (SQLite's `OR` of the outer statement wins over the body's).
    private func programMayAbort(
        _ program: TriggerProgram, _ resolution: ConflictResolution?, _ firing: inout Set<String>
    ) -> Bool {
        let search = abortingSearch()
        if let when = program.when, case .select(let condition) = when.kind, search.found(in: condition) {
            return true
        }
        for step in program.body {
            switch step.statement.kind {
            case .select(let query):
                if search.found(in: query) { return true }
            case .insert(var insert):
                guard let table = catalog.table(insert.table) else { return true }
                if let resolution { insert.orAction = resolution }
                if insertMayAbort(insert, table, firing: &firing) { return true }
            case .update(var update):
                guard let table = catalog.table(update.table) else { return true }
                if let resolution { update.orAction = resolution }
                if updateMayAbort(update, table, firing: &firing) { return true }
            case .delete(let delete):
                guard let table = catalog.table(delete.table) else { return true }
                if deleteMayAbort(delete, table, firing: &firing) { return true }
            default:
                return true
            }
        }
        return false
    }

    /// Whether a DELETE of a trigger body may abort: an enforced foreign key of or to its table, a function in
    /// its condition, or a DELETE trigger it fires (coded, as SQLite does, with no conflict resolution).
    private func deleteMayAbort(_ delete: DeleteStatement, _ table: TableDefinition, firing: inout Set<String>) -> Bool {
        if writeMayAbort(table, delete.with, delete.returning) { return true }
        if let condition = delete.whereClause, abortingSearch().found(in: condition) { return true }
        guard let triggers = tableTriggers(table) else { return false }
        return triggersMayAbort(
            triggers.triggers(insert: false, update: false, updated: nil, delete: true), of: triggers,
            resolution: nil, firing: &firing)
    }

    /// Whether a REPLACE of the write may delete rows that fire DELETE triggers (only with `recursive_triggers`
    /// on, as in SQLite); counted as aborting rather than looked into.
    func replaceMayFireDeleteTriggers(_ table: TableDefinition, _ resolution: ConflictResolution?) -> Bool {
        guard recursiveTriggers, resolution == nil || resolution == .replace,
            let triggers = tableTriggers(table)
        else { return false }
        return !triggers.beforeDelete.isEmpty || !triggers.afterDelete.isEmpty
    }
}
