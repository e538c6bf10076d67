// The triggers of one table or view, grouped by the row change and moment they fire at, and their programs.

import GraniteStorage

/// The `RAISE(…)` of a trigger program, thrown by its evaluation and caught where the trigger fired.
struct TriggerRaise: Error {
    /// What the raise does.
    var action: RaiseAction
    /// The message of `ROLLBACK`, `ABORT` and `FAIL` (empty for `IGNORE`).
    var message: String

    /// The raise that the arguments of the internal raise call describe (its action's name, then its message).
    init(_ arguments: [Value]) {
        if case .text(let name)? = arguments.first, let action = RaiseAction(rawValue: name) {
            self.action = action
        } else {
            action = .abort
        }
        if arguments.count > 1, case .text(let message) = arguments[1] {
            self.message = message
        } else {
            message = ""
        }
    }

    /// The error the statement fails with: a constraint failure (`SQLITE_CONSTRAINT_TRIGGER`) carrying the
    /// message, resolved as the raise says.
    var failure: SQLExecutionError {
        var error = SQLExecutionError(.constraint, message)
        error.extendedCode = .trigger
        switch action {
        case .rollback: error.resolution = .rollback
        case .fail: error.resolution = .fail
        case .abort, .ignore: error.resolution = .abort
        }
        return error
    }
}

/// One trigger ready to fire: its definition and, once a statement fired it, its parsed program.
final class CompiledTrigger {
    let definition: TriggerDefinition
    /// The program, parsed at the first firing (against the table's columns of this schema version).
    var program: TriggerProgram?
    /// How many firings of the trigger are running: with `recursive_triggers` off, a trigger does not fire
    /// itself.
    var running = 0
    /// Whether the program's queries and target tables were checked (see `SQLConnection.prepare`).
    var isChecked = false

    init(_ definition: TriggerDefinition) {
        self.definition = definition
    }
}

/// A trigger's parsed program: its `WHEN` condition as a query, its body statements (each with its write cache),
/// and where each of its `NEW.x` / `OLD.x` parameters takes its value.
struct TriggerProgram {
    /// Where a parameter's value comes from: a slot of the OLD or NEW row (the declared columns, then the rowid).
    struct Binding {
        var isNew: Bool
        var slot: Int
    }

    /// `SELECT 1 WHERE condition`, when the trigger has a `WHEN`.
    var when: Statement?
    /// The body statements.
    var body: [TriggerStep]
    /// The binding of each parameter, by index - 1.
    var bindings: [Binding]

    /// The parameters of one firing: each `NEW.x` / `OLD.x` bound to the value of its row.
    func parameters(old: [Value]?, new: [Value]?) -> BoundParameters {
        BoundParameters(
            bindings.map { binding in
                let row = binding.isNew ? new : old
                guard let row, binding.slot < row.count else { return .null }
                return row[binding.slot]
            })
    }
}

/// One statement of a trigger body, with its write caches: one for the statement as written, one per conflict
/// resolution that the statement firing the trigger imposes on it (see ``statement(resolvedBy:)``).
final class TriggerStep {
    let statement: Statement
    let cache = WriteCache()
    private var overridden: [String: (statement: Statement, cache: WriteCache)] = [:]

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// The statement to run and its cache when the firing statement resolves conflicts with `resolution`: as in
    /// SQLite, an explicit resolution of the outer statement (`INSERT OR IGNORE …`) replaces the body's own
    /// (`INSERT OR REPLACE …`) on its INSERT and UPDATE statements.
    func statement(resolvedBy resolution: ConflictResolution?) -> (statement: Statement, cache: WriteCache) {
        guard let resolution else { return (statement, cache) }
        var kind = statement.kind
        switch kind {
        case .insert(var insert):
            insert.orAction = resolution
            kind = .insert(insert)
        case .update(var update):
            update.orAction = resolution
            kind = .update(update)
        default:
            return (statement, cache)
        }
        if let known = overridden[resolution.rawValue] { return known }
        var changed = statement
        changed.kind = kind
        let entry = (changed, WriteCache())
        overridden[resolution.rawValue] = entry
        return entry
    }
}

/// The triggers of one table or view, by event and timing (each list newest first, SQLite's firing order).
final class TableTriggers {
    var beforeInsert: [CompiledTrigger] = []
    var afterInsert: [CompiledTrigger] = []
    var beforeUpdate: [CompiledTrigger] = []
    var afterUpdate: [CompiledTrigger] = []
    var beforeDelete: [CompiledTrigger] = []
    var afterDelete: [CompiledTrigger] = []
    var insteadOfInsert: [CompiledTrigger] = []
    var insteadOfUpdate: [CompiledTrigger] = []
    var insteadOfDelete: [CompiledTrigger] = []
    /// The column names of the table or view, in order: what `NEW.x` and `OLD.x` may name.
    let columns: [String]
    /// The collation of each column (by ``SchemaNames/key(_:)``), given to `NEW.x` / `OLD.x`.
    let collations: [String: SQLCollation]
    /// Whether the triggers are on a table (whose rows have a rowid `NEW.rowid` can name) rather than a view.
    let hasRowid: Bool
    /// The slot `NEW.rowid` reads: the INTEGER PRIMARY KEY, or the slot after the columns.
    let rowidSlot: Int
    /// For a view: the affinity of each column (from its declared type), which an UPDATE's NEW row takes.
    var affinities: [SQLAffinity?] = []

    init(
        _ definitions: [TriggerDefinition], columns: [String], collations: [String: SQLCollation], hasRowid: Bool,
        rowidSlot: Int
    ) {
        self.columns = columns
        self.collations = collations
        self.hasRowid = hasRowid
        self.rowidSlot = rowidSlot
        // SQLite fires the triggers of one event and moment newest first.
        for definition in definitions.reversed() {
            let trigger = CompiledTrigger(definition)
            switch (definition.timing, definition.event) {
            case (.before, .insert): beforeInsert.append(trigger)
            case (.after, .insert): afterInsert.append(trigger)
            case (.before, .update): beforeUpdate.append(trigger)
            case (.after, .update): afterUpdate.append(trigger)
            case (.before, .delete): beforeDelete.append(trigger)
            case (.after, .delete): afterDelete.append(trigger)
            case (.insteadOf, .insert): insteadOfInsert.append(trigger)
            case (.insteadOf, .update): insteadOfUpdate.append(trigger)
            case (.insteadOf, .delete): insteadOfDelete.append(trigger)
            }
        }
    }

    /// The triggers of a table: nil when it has none.
    static func of(_ table: TableDefinition, in catalog: SchemaCatalog) -> TableTriggers? {
        of(table, catalog.triggers(of: table))
    }

    /// `definitions` (triggers on `table`) ready to fire: nil when there are none.
    static func of(_ table: TableDefinition, _ definitions: [TriggerDefinition]) -> TableTriggers? {
        if definitions.isEmpty { return nil }
        var collations: [String: SQLCollation] = [:]
        for column in table.columns {
            collations[SchemaNames.key(column.name)] = column.collation.flatMap { SQLCollation(name: $0) } ?? .binary
        }
        return TableTriggers(
            definitions, columns: table.columns.map(\.name), collations: collations, hasRowid: table.hasRowid,
            rowidSlot: table.rowidAlias ?? table.columns.count)
    }

    /// Parses `trigger`'s program against these columns: every `NEW.x` / `OLD.x` must name a column (or, on a
    /// table, the rowid) of a row the event has (`no such column: new.x` otherwise, as SQLite says).
    func program(of trigger: CompiledTrigger) throws -> TriggerProgram {
        if let program = trigger.program { return program }
        var rowidNames: Set<String> = []
        if hasRowid {
            for name in ["rowid", "oid", "_rowid_"] where slot(of: name) == rowidSlot { rowidNames.insert(name) }
            if rowidSlot < columns.count { rowidNames.insert(SchemaNames.key(columns[rowidSlot])) }
        }
        let statement = try Parser.parseTrigger(
            trigger.definition.sql, collations: collations, rowidNames: rowidNames)
        guard case .createTrigger(let create) = statement.kind else {
            throw SQLExecutionError("malformed trigger \(trigger.definition.name)")
        }
        var bindings: [TriggerProgram.Binding] = []
        for name in create.parameters.names {
            guard let name, let reference = TriggerRow.reference(name) else {
                throw SQLExecutionError("trigger cannot use variables")
            }
            let hasRow: Bool
            switch create.event {
            case .insert: hasRow = reference.isNew
            case .delete: hasRow = !reference.isNew
            case .update: hasRow = true
            }
            guard hasRow, let slot = self.slot(of: reference.column) else {
                throw SQLExecutionError("no such column: \(reference.qualifier).\(reference.column)")
            }
            bindings.append(TriggerProgram.Binding(isNew: reference.isNew, slot: slot))
        }
        var when: Statement?
        if let condition = create.when {
            let clause = SelectClause(
                distinct: false, columns: [.expression(SQLExpression(.literal(.integer(1))), alias: nil)], from: nil,
                whereClause: condition, groupBy: [], having: nil)
            when = Statement(
                .select(SelectStatement(first: .select(clause))), range: statement.range,
                sourceText: statement.sourceText, parameters: create.parameters)
        }
        let program = TriggerProgram(when: when, body: create.body.map(TriggerStep.init), bindings: bindings)
        trigger.program = program
        return program
    }

    /// The triggers a statement may fire: the INSERT triggers (`insert`), the UPDATE triggers an UPDATE of
    /// `updated` columns fires (`update`; all columns when `updated` is nil), the DELETE triggers (`delete`).
    func triggers(insert: Bool, update: Bool, updated: [String]?, delete: Bool) -> [CompiledTrigger] {
        var triggers: [CompiledTrigger] = []
        if insert { triggers += beforeInsert + afterInsert + insteadOfInsert }
        if update {
            triggers += (beforeUpdate + afterUpdate + insteadOfUpdate).filter {
                $0.definition.fires(onUpdateOf: updated)
            }
        }
        if delete { triggers += beforeDelete + afterDelete + insteadOfDelete }
        return triggers
    }

    /// The row slot a `NEW.x` / `OLD.x` column name reads.
    private func slot(of column: String) -> Int? {
        if let index = columns.firstIndex(where: { SchemaNames.equal($0, column) }) { return index }
        if hasRowid, SchemaNames.isRowidName(column) { return rowidSlot }
        return nil
    }
}
