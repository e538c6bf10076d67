// SQLite's rule for when a writing statement inside a transaction runs with a statement journal, the undo log that
// lets it take back its own changes when it fails. SQLite opens one only for a statement that may both write
// several rows and "abort": run a constraint check whose resolution is ABORT, call a (non-inlined) scalar function,
// or fire triggers and foreign-key actions. A statement without one that fails on another error (a `datatype
// mismatch` on an INTEGER PRIMARY KEY, a STRICT column's type) keeps the rows it wrote before it, inside an
// explicit transaction; Granite then releases its statement savepoint instead of rolling back to it (a storage
// failure, an interrupt among them, still undoes the statement alone).

extension SQLConnection {
    /// Whether SQLite would run `statement` (an INSERT or UPDATE of a table) with no statement journal: nothing
    /// it runs may abort, the programs of the triggers it fires included (see `triggersMayAbort`). Foreign keys
    /// and views read by the statement count as aborting (SQLite looks at the code they run; Granite does not).
    func runsWithoutStatementJournal(_ statement: Statement) -> Bool {
        var firing: Set<String> = []
        switch statement.kind {
        case .insert(let insert):
            guard let table = catalog.table(insert.table) else { return false }
            return !insertMayAbort(insert, table, firing: &firing)
        case .update(let update):
            guard let table = catalog.table(update.table) else { return false }
            return !updateMayAbort(update, table, firing: &firing)
        default:
            return false
        }
    }

    /// Whether an INSERT into `table` may abort; `firing` holds the triggers whose programs are being looked at
    /// (see `triggersMayAbort`).
    func insertMayAbort(_ insert: InsertStatement, _ table: TableDefinition, firing: inout Set<String>) -> Bool {
        if writeMayAbort(table, insert.with, insert.returning) { return true }
        if replaceMayFireDeleteTriggers(table, insert.orAction) { return true }
        if let triggers = tableTriggers(table),
            triggersMayAbort(
                triggers.triggers(insert: true, update: false, updated: nil, delete: false), of: triggers,
                resolution: insert.orAction, firing: &firing)
        {
            return true
        }
        let search = abortingSearch()
        if case .select(let select) = insert.source, search.found(in: select) { return true }
        // DO UPDATE runs an UPDATE with its own (ABORT) checks; an untargeted DO NOTHING turns every uniqueness
        // check into IGNORE (a targeted one only its target's: the others count as the statement's own).
        if insert.upsert.contains(where: { if case .update = $0.action { true } else { false } }) { return true }
        let uniquenessIgnored = insert.upsert.contains { $0.target == nil }
        let supplied = insertedSlots(insert, table)
        // Defaults are computed only for the columns the statement leaves out.
        for (slot, column) in table.columns.enumerated() where !supplied.contains(slot) {
            if let value = column.defaultValue, search.found(in: value) { return true }
        }
        let rowidSupplied = supplied.contains(table.rowidAlias ?? table.columns.count)
        return constraintsMayAbort(
            table, resolution: insert.orAction, uniqueChecked: !uniquenessIgnored,
            rowidChecked: rowidSupplied && !uniquenessIgnored,
            columnChecked: { _ in true })
    }

    /// Whether an UPDATE of `table` may abort (see ``insertMayAbort(_:_:firing:)``).
    func updateMayAbort(_ update: UpdateStatement, _ table: TableDefinition, firing: inout Set<String>) -> Bool {
        if writeMayAbort(table, update.with, update.returning) { return true }
        if replaceMayFireDeleteTriggers(table, update.orAction) { return true }
        if let triggers = tableTriggers(table),
            triggersMayAbort(
                triggers.triggers(
                    insert: false, update: true, updated: update.assignments.flatMap(\.columns), delete: false),
                of: triggers, resolution: update.orAction, firing: &firing)
        {
            return true
        }
        let search = abortingSearch()
        if update.assignments.contains(where: { search.found(in: $0.value) }) { return true }
        if let from = update.from, search.found(in: from) { return true }
        if let condition = update.whereClause, search.found(in: condition) { return true }
        var assigned = Set<Int>()
        for assignment in update.assignments {
            for name in assignment.columns {
                if let slot = Self.writableSlot(name, table) { assigned.insert(slot) }
            }
        }
        let rowid = table.rowidAlias ?? table.columns.count
        let rowidChanged = table.hasRowid && assigned.contains(rowid)
        return constraintsMayAbort(
            table, resolution: update.orAction, uniqueChecked: true, rowidChecked: rowidChanged,
            columnChecked: { assigned.contains($0) })
    }

    /// What aborts whatever the statement: foreign keys, views and scalar functions of the schema's expressions.
    func writeMayAbort(_ table: TableDefinition, _ with: WithClause?, _ returning: [ResultColumn]?) -> Bool {
        if foreignKeysEnabled && (!table.foreignKeys.isEmpty || !cachedReferences(table).isEmpty) { return true }
        let search = abortingSearch()
        if let with, with.tables.contains(where: { search.found(in: $0.select) }) { return true }
        if search.found(in: returning) { return true }
        if table.columns.contains(where: { $0.generated.map { search.found(in: $0.expression) } ?? false }) {
            return true
        }
        if table.checks.contains(where: { search.found(in: $0.expression) }) { return true }
        return catalog.indexes(of: table).contains { index in
            if let condition = index.whereClause, search.found(in: condition) { return true }
            return index.columns.contains { column in
                if case .expression(let expression) = column.target { return search.found(in: expression) }
                return false
            }
        }
    }

    /// Whether a constraint check SQLite codes for the write resolves to ABORT. `columnChecked` says whether the
    /// write checks a column's NOT NULL and the CHECKs and indexes reading it (an UPDATE checks the columns it
    /// assigns, and every index when the rowid changes).
    private func constraintsMayAbort(
        _ table: TableDefinition, resolution: ConflictResolution?, uniqueChecked: Bool, rowidChecked: Bool,
        columnChecked: (Int) -> Bool
    ) -> Bool {
        func aborts(_ declared: ConflictResolution?) -> Bool { (resolution ?? declared ?? .abort) == .abort }
        if rowidChecked, table.hasRowid, aborts(table.primaryKeyConflict) { return true }
        for (slot, column) in table.columns.enumerated() where column.notNull && slot != table.rowidAlias {
            guard columnChecked(slot) || column.generated != nil else { continue }
            // REPLACE on NOT NULL aborts when no default applies (and on SQLite's second pass over the columns).
            let effective = resolution ?? column.notNullConflict ?? .abort
            if effective == .abort || effective == .replace { return true }
        }
        let statementResolution = resolution ?? .abort
        if statementResolution == .abort || statementResolution == .replace {
            if table.checks.contains(where: { reads($0.expression, table, columnChecked) }) { return true }
        }
        guard uniqueChecked else { return false }
        return catalog.indexes(of: table).contains { index in
            guard index.unique, aborts(index.onConflict) else { return false }
            if rowidChecked { return true }
            if let condition = index.whereClause, reads(condition, table, columnChecked) { return true }
            return index.columns.contains { column in
                switch column.target {
                case .column(let slot): return columnChecked(slot)
                case .expression(let expression): return reads(expression, table, columnChecked)
                }
            }
        }
    }

    /// Whether `expression` reads a column of `table` that `columnChecked` selects.
    private func reads(_ expression: SQLExpression, _ table: TableDefinition, _ columnChecked: (Int) -> Bool) -> Bool {
        withoutActuallyEscaping(columnChecked) { columnChecked in
            SyntaxSearch(matchesExpression: { node in
                guard case .column(let reference) = node.kind,
                    let slot = Self.writableSlot(reference.column, table)
                else { return false }
                return columnChecked(slot)
            }).found(in: expression)
        }
    }

    /// The slots an INSERT supplies values for: its named columns, else every column (none for DEFAULT VALUES).
    private func insertedSlots(_ insert: InsertStatement, _ table: TableDefinition) -> Set<Int> {
        if case .defaultValues = insert.source { return [] }
        guard let names = insert.columns else { return Set(table.columns.indices) }
        return Set(names.compactMap { Self.writableSlot($0, table) })
    }

    /// Finds what makes SQLite mark a statement as one that may abort: a call of a scalar function it does not
    /// inline (aggregates and window functions run otherwise), the operators that are function calls (`LIKE`,
    /// `GLOB`, `->`, …), `CURRENT_TIME` and its kin, and views, whose queries Granite does not look into.
    func abortingSearch() -> SyntaxSearch {
        SyntaxSearch(
            matchesExpression: { expression in
                switch expression.kind {
                case .function(let call):
                    // RAISE(ABORT) aborts; RAISE(IGNORE), ROLLBACK and FAIL halt without a statement journal.
                    if call.name == TriggerRow.raiseFunction { return Self.raisesAbort(call) }
                    if call.over != nil || WindowFunction.isAggregateCall(call) { return false }
                    return !Self.inlinedFunctions.contains(SchemaNames.key(call.name))
                case .like:
                    return true
                case .binary(let op, _, _):
                    return op == .extract || op == .extractValue
                case .literal(let literal):
                    switch literal {
                    case .currentTime, .currentDate, .currentTimestamp: return true
                    default: return false
                    }
                default:
                    return false
                }
            },
            matchesTable: { [catalog] name in catalog.view(name) != nil })
    }

    /// Whether `call`, the internal call of a `RAISE`, is a `RAISE(ABORT, …)`.
    private static func raisesAbort(_ call: FunctionCall) -> Bool {
        guard case .list(let arguments, _) = call.arguments, let action = arguments.first,
            case .literal(.string(let name)) = action.kind
        else { return false }
        return RaiseAction(rawValue: name) == .abort
    }

    /// The functions SQLite codes inline rather than as a call (so they never abort a statement).
    private static let inlinedFunctions: Set<String> = ["coalesce", "ifnull", "iif", "likely", "unlikely", "likelihood"]
}
