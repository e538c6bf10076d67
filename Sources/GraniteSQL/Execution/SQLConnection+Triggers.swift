// Firing triggers: finding a table's triggers, checking their WHEN, running their bodies, and RAISE.

import GraniteStorage

extension SQLConnection {
    /// How deeply trigger programs may nest before a statement fails with SQLite's `too many levels of trigger
    /// recursion`. SQLite allows 1000 (`SQLITE_MAX_TRIGGER_DEPTH`); Granite runs each level on the stack (a
    /// nested statement takes some 20 KB of it in debug builds), so it stops at 100, which fits in the 8 MB of a
    /// main thread with room to spare, like the parser's nesting limit.
    static let maximumTriggerDepth = 100

    /// The triggers of `table` for the current schema, nil when it has none (the usual case, which costs two
    /// checks of the catalog: no trigger, no temporary schema).
    func tableTriggers(_ table: TableDefinition) -> TableTriggers? {
        if catalog.triggersByKey.isEmpty && !catalog.hasTemporarySchema { return nil }
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
            try bindingNames(of: trigger) { try check(trigger, of: triggers) }
            trigger.isChecked = true
        }
    }

    /// Compiles the queries of `trigger`'s program and looks up the tables its statements write.
    private func check(_ trigger: CompiledTrigger, of triggers: TableTriggers) throws {
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
                throw SQLExecutionError.noSuchTable(unboundTableName(target))
            }
        }
    }

    /// Runs `body` with the names of `trigger`'s program bound as SQLite binds them: a main trigger's to the main
    /// schema alone (a temporary table shadowing a main one is not seen, and a missing table is reported as
    /// `main.x`), a temporary trigger's to the temporary schema first, then main.
    func bindingNames<T>(of trigger: CompiledTrigger, _ body: () throws -> T) throws -> T {
        let toMain = !trigger.definition.isTemporary
        let saved = catalog.bindsNamesToMain
        if saved == toMain { return try body() }
        catalog.bindsNamesToMain = toMain
        defer { catalog.bindsNamesToMain = saved }
        return try body()
    }

    /// The name a statement's missing table is reported under: `main.x` for the unqualified `x` of a main
    /// trigger's program, as SQLite says.
    func unboundTableName(_ name: QualifiedName) -> String {
        if let schema = name.schema { return "\(schema).\(name.name)" }
        return catalog.bindsNamesToMain ? "main.\(name.name)" : name.name
    }

    /// After `ALTER TABLE … DROP COLUMN` or `RENAME`: refuses the change when a trigger no longer compiles, as
    /// SQLite does (`error in trigger tr after drop column: no such column: new.b`). Its `NEW.x` / `OLD.x`, `WHEN`
    /// and queries are checked, and the tables its statements write.
    func checkTriggersCompile(after context: String) throws {
        for definition in catalog.triggers {
            let triggers: TableTriggers
            if let table = catalog.table(named: definition.table), let made = TableTriggers.of(table, [definition]) {
                triggers = made
            } else if let view = catalog.view(named: definition.table),
                let made = try? makeViewTriggers(view, [definition])
            {
                triggers = made
            } else {
                continue
            }
            do {
                try prepare(triggers, insert: true, update: true, delete: true)
            } catch let error as SQLExecutionError {
                throw SQLExecutionError("error in trigger \(definition.name) after \(context): \(error.message)")
            } catch let error as SQLEvaluationError {
                throw SQLExecutionError("error in trigger \(definition.name) after \(context): \(error.message)")
            }
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
        for trigger in triggers
        where (trigger.running == 0 || recursiveTriggers)
            && trigger.definition.fires(onUpdateOf: assigned)
        {
            let program = try set.program(of: trigger)
            let parameters = program.parameters(old: old, new: new)
            if triggerDepth >= Self.maximumTriggerDepth {
                throw SQLExecutionError("too many levels of trigger recursion")
            }
            // A trigger firing itself (recursive_triggers on) runs its statements with fresh caches: the cached
            // ones hold the state of the statements running below it.
            let reentered = trigger.running > 0
            trigger.running += 1
            triggerDepth += 1
            // The statements of the trigger's body set last_insert_rowid() and changes() only while it runs, as
            // SQLite restores both when a trigger program ends.
            let rowidBefore = lastInsertedRowid
            let changesBefore = changes
            defer {
                trigger.running -= 1
                triggerDepth -= 1
                lastInsertedRowid = rowidBefore
                changes = changesBefore
            }
            do {
                try bindingNames(of: trigger) {
                    if let when = program.when, case .select(let condition) = when.kind,
                        try select(condition, statement: when, parameters: parameters).rows.isEmpty
                    {
                        return
                    }
                    for step in program.body {
                        let (statement, stepCache) = step.statement(resolvedBy: resolution)
                        let cache = reentered ? WriteCache() : stepCache
                        if case .select(let query) = statement.kind {
                            _ = try select(query, statement: statement, parameters: parameters)
                        } else {
                            _ = try write(statement, parameters: parameters, cache: cache)
                        }
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
