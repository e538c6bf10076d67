import GraniteStorage

/// A unique constraint of a table: its rowid (INTEGER PRIMARY KEY) or one of its unique indexes.
enum UniqueTarget: Equatable {
    /// The rowid alias.
    case rowid
    /// Unique index number `k` of the table's ``TableWriter``.
    case index(Int)
}

/// One compiled `ON CONFLICT` clause of an upsert.
struct UpsertPlan {
    /// The constraint the clause applies to; nil applies to every constraint.
    var target: UniqueTarget?
    /// The `DO UPDATE SET` assignments, compiled over the existing row followed by the `excluded` row; nil for
    /// `DO NOTHING`.
    var assignments: [(column: Int, value: CompiledExpression)]?
    /// The `DO UPDATE … WHERE` condition, if any.
    var condition: CompiledExpression?
    /// Evaluates the subqueries of the assignments and condition, if any.
    var subqueries: WriteSubqueries?
}

/// The state of one writing statement: cached table writers, the change counter and the foreign key violation
/// counter.
///
/// Foreign keys follow SQLite's counting scheme: each row change adjusts a counter of outstanding violations
/// (a child row without parent, or a deleted parent key still referenced), and the statement fails with
/// `FOREIGN KEY constraint failed` if the counter is not zero at its end. Every constraint is immediate here:
/// `DEFERRABLE INITIALLY DEFERRED` constraints are checked at the end of the statement too, not at `COMMIT`.
///
/// The per-statement state is only touched by the statement's own thread, never through overlapping accesses, so
/// its hot properties skip dynamic exclusivity checks.
final class WriteSession {
    let catalog: SchemaCatalog
    @exclusivity(unchecked) private(set) var parameters: BoundParameters
    let foreignKeys: Bool
    /// Outstanding foreign key violations.
    @exclusivity(unchecked) var violations = 0
    /// Rows inserted, updated or deleted directly by the statement (not by REPLACE or foreign key actions).
    @exclusivity(unchecked) var changes = 0
    /// The rowid of the last row inserted by the statement.
    @exclusivity(unchecked) var lastInsertedRowid: Int64?
    /// The counters of the connection running the statement: an insert sets its last inserted rowid at once,
    /// for `last_insert_rowid()` calls later in the statement (as SQLite's `OP_Insert` does).
    @exclusivity(unchecked) var counters: ConnectionCounters?
    /// The statement's `RETURNING` list. SQLite runs it as the first AFTER trigger of each row the statement
    /// itself writes: after the row's foreign key actions, before the table's AFTER triggers.
    @exclusivity(unchecked) var returning: ReturningList?
    /// The rows ``returning`` produced in this run.
    @exclusivity(unchecked) var returnedRows: [[Value]] = []
    /// Whether the statement started changing rows (so that a failure resets the change counter).
    @exclusivity(unchecked) var started = false
    /// Whether the statement inserts a single row with `VALUES`: like SQLite, a missing parent then fails the
    /// statement at once, before the row is stored.
    @exclusivity(unchecked) var singleRowInsert = false
    /// The connection's change observer when the statement started (see ``reportChange(_:_:rowid:)``).
    @exclusivity(unchecked) var changeObserver: (any SQLChangeObserver)?

    private var writers: [String: TableWriter] = [:]
    var parentKeys: [String: ParentKey] = [:]
    /// Per autoincrement table: the rowid of its `granite_sequence` row (if any), its value in the statement,
    /// and the value stored when the statement read it.
    @exclusivity(unchecked) var sequences: [String: (rowid: Int64?, value: Int64, stored: Int64)] = [:]
    /// Per autoincrement table, the rowid its `granite_sequence` row had when a run of this statement last read
    /// or wrote it: the next run looks there first (and checks the row's name) instead of scanning the table.
    @exclusivity(unchecked) var sequenceRowHints: [String: Int64] = [:]
    @exclusivity(unchecked) var sequenceTargets: [TableDefinition] = []

    static let sequenceTable = "granite_sequence"

    init(catalog: SchemaCatalog, parameters: BoundParameters, foreignKeys: Bool) {
        self.catalog = catalog
        self.parameters = parameters
        self.foreignKeys = foreignKeys
    }

    /// Prepares the session for another run of the same statement with `parameters`: the per-statement state is
    /// cleared; the writers and parent keys, which depend only on the schema, are kept.
    func reset(parameters: BoundParameters) {
        self.parameters = parameters
        violations = 0
        changes = 0
        lastInsertedRowid = nil
        if !returnedRows.isEmpty { returnedRows.removeAll() }
        started = false
        singleRowInsert = false
        if !sequences.isEmpty { sequences.removeAll() }
        if !sequenceTargets.isEmpty { sequenceTargets.removeAll() }
    }

    /// Drops the statement's parameters once it has run, so that binding the next ones does not copy them.
    func releaseParameters() {
        parameters = BoundParameters()
    }

    /// The connection whose writer and reference caches the session uses, if set.
    /// Unowned: sessions are kept in statement caches, which the connection itself may hold.
    unowned var connection: SQLConnection?

    /// Registers a writer obtained elsewhere (a statement's cache) as the writer of its table.
    func adopt(_ writer: TableWriter) {
        adopted = writer
    }

    /// The writer of the statement's own table, set by ``adopt(_:)``.
    private var adopted: TableWriter?

    /// The (cached) writer of `table`.
    func writer(_ table: TableDefinition) throws -> TableWriter {
        if let adopted, adopted.table.schemaRowid == table.schemaRowid, adopted.table.name == table.name,
            adopted.table.isTemporary == table.isTemporary
        {
            return adopted
        }
        // A temporary table and the main one it shadows are different tables.
        let key = table.isTemporary ? "temp." + SchemaNames.key(table.name) : SchemaNames.key(table.name)
        if let writer = writers[key] { return writer }
        // A session writes through its connection's transaction, with the connection's cached writers.
        guard let connection else { throw StorageError.noActiveTransaction }
        let writer = try connection.cachedWriter(table)
        writers[key] = writer
        return writer
    }

    /// Fails the statement if foreign key violations remain.
    func finish() throws {
        if foreignKeys && violations > 0 { throw SQLExecutionError.foreignKeyFailure }
        try writeSequences()
    }

    // MARK: Row operations

    /// Inserts `values` (one per declared column, affinities applied, then optionally an explicit hidden rowid)
    /// into `writer`'s table, resolving conflicts with `resolution` (the statement's `OR` action), the
    /// constraints' own clauses and `upsert`. Returns the row written (inserted, or updated by `DO UPDATE`), or
    /// nil when the row was skipped.
    func insert(
        _ writer: TableWriter, _ values: consuming [Value], resolution: ConflictResolution?, upsert: [UpsertPlan] = []
    ) throws -> [Value]? {
        var row = values
        if let triggers = writer.triggers, !triggers.beforeInsert.isEmpty {
            guard try fireBeforeInsert(triggers, writer, row, resolution) else { return nil }
        }
        let rowid: Int64
        let alias = writer.rowidAlias
        /// Whether a table without INTEGER PRIMARY KEY receives a given rowid, which may then conflict.
        var explicitRowid = false
        if alias >= 0, !row[alias].isNull {
            guard case .integer(let i) = row[alias] else { throw SQLExecutionError.datatypeMismatch }
            rowid = i
            // Like SQLite, an explicit rowid raises the sequence even if the row is skipped later.
            if writer.table.isAutoincrement { try raiseSequence(writer.table, to: i) }
        } else if row.count > writer.columnCount, !row[writer.columnCount].isNull {
            guard case .integer(let i) = row.removeLast() else { throw SQLExecutionError.datatypeMismatch }
            rowid = i
            explicitRowid = true
        } else {
            if row.count > writer.columnCount { row.removeLast() }
            rowid = try newRowid(writer)
        }
        if alias >= 0 { row[alias] = .integer(rowid) }
        row.append(.integer(rowid))
        if !writer.generatedColumns.isEmpty { try writer.generatedColumns.compute(&row, parameters: parameters) }
        guard try checkColumns(writer, &row, resolution) else { return nil }
        let childKeys = foreignKeys && !writer.table.foreignKeys.isEmpty
        let order = constraintOrder(writer, resolution, upsert, explicitRowid: explicitRowid)
        /// A rowid conflict failing the statement, checked by the table insert itself rather than by a search
        /// before it: when it is the last check and nothing between the checks and the insert can fail.
        var rowidFailure: ConflictResolution?
        var typesPending = checksTypesLate(writer)
        for (position, (target, action)) in order.enumerated() {
            if typesPending, case .index = target {
                try checkTypes(writer, row)
                typesPending = false
            }
            if target == .rowid, position == order.count - 1, !childKeys, writer.keysCannotFail, !typesPending,
                case .resolution(let resolution) = action, resolution != .ignore, resolution != .replace
            {
                rowidFailure = resolution
                continue
            }
            guard let existing = try conflict(writer, target, row, excluding: nil) else { continue }
            switch action {
            case .upsert(let k):
                return try upsertUpdate(writer, existing: existing, excluded: row, upsert[k])
            case .resolution(.ignore):
                return nil
            case .resolution(.replace):
                try replace(writer, existing, row, excluding: nil)
            case .resolution(let other):
                throw failure(writer, target, other)
            }
        }
        if typesPending { try checkTypes(writer, row) }
        if childKeys {
            try childDelta(writer, row, keys: Array(writer.table.foreignKeys.indices), delta: 1, isNew: true)
        }
        // A new parent key can only resolve outstanding violations.
        if foreignKeys && violations > 0 {
            try parentDelta(writer, row, references: try referencing(writer), delta: -1)
        }
        try writer.store(row, rowidFailure: rowidFailure)
        if changeObserver != nil { reportChange(.insert, writer, rowid: rowid) }
        changes += 1
        // The storage rowid of a WITHOUT ROWID table is not the connection's to report.
        if writer.hasRowid {
            lastInsertedRowid = rowid
            counters?.lastInsertedRowid = rowid
        }
        if returning != nil { try returnRow(row) }
        if let triggers = writer.triggers, !triggers.afterInsert.isEmpty {
            _ = try connection?.fire(triggers.afterInsert, of: triggers, old: nil, new: row, resolution: resolution)
        }
        return row
    }

    /// Replaces stored row `old` by `values` (one per declared column, affinities applied, then optionally a new
    /// hidden rowid), resolving conflicts with `resolution`. Returns the new row, or nil when the change was
    /// skipped (`IGNORE`).
    func update(
        _ writer: TableWriter, old: [Value], values: consuming [Value], resolution: ConflictResolution?,
        direct: Bool = true, assigned: [Int]? = nil
    ) throws -> [Value]? {
        if let triggers = writer.triggers, !triggers.beforeUpdate.isEmpty {
            return try updateFiringBefore(
                triggers, writer, old: old, values: values, resolution: resolution, direct: direct, assigned: assigned)
        }
        return try updateRow(
            writer, old: old, values: values, resolution: resolution, direct: direct, assigned: assigned)
    }

    /// ``update(_:old:values:resolution:direct:assigned:)`` once the BEFORE UPDATE triggers, if any, have run;
    /// `triggerOld` is the OLD row they saw, which the AFTER UPDATE triggers see too (as in SQLite, which does
    /// not read it again), when it is not `old`.
    func updateRow(
        _ writer: TableWriter, old: [Value], values: consuming [Value], resolution: ConflictResolution?,
        direct: Bool, assigned: [Int]?, triggerOld: [Value]? = nil
    ) throws -> [Value]? {
        let n = writer.columnCount
        guard case .integer(let oldRowid) = old[n] else { return nil }
        var row = values
        var rowid = oldRowid
        if writer.rowidAlias >= 0 {
            guard case .integer(let i) = row[writer.rowidAlias] else { throw SQLExecutionError.datatypeMismatch }
            rowid = i
        } else if row.count > n {
            // `SET rowid = …` on a table without INTEGER PRIMARY KEY moves the row.
            guard case .integer(let i) = row.removeLast() else { throw SQLExecutionError.datatypeMismatch }
            rowid = i
        }
        row.append(.integer(rowid))
        if !writer.generatedColumns.isEmpty { try writer.generatedColumns.compute(&row, parameters: parameters) }
        guard try checkColumns(writer, &row, resolution) else { return nil }
        let moved = writer.rowidAlias < 0 && rowid != oldRowid
        var typesPending = checksTypesLate(writer)
        for (target, action) in constraintOrder(writer, resolution, [], explicitRowid: moved) {
            if typesPending, case .index = target {
                try checkTypes(writer, row)
                typesPending = false
            }
            if target == .rowid && rowid == oldRowid { continue }
            guard let existing = try conflict(writer, target, row, excluding: oldRowid) else { continue }
            switch action {
            case .resolution(.ignore):
                return nil
            case .resolution(.replace):
                try replace(writer, existing, row, excluding: oldRowid)
            case .resolution(let other):
                throw failure(writer, target, other)
            case .upsert:
                break
            }
        }
        if typesPending { try checkTypes(writer, row) }
        var childKeys: [Int] = []
        var parents: [(child: TableDefinition, key: Int)] = []
        if foreignKeys {
            // Like SQLite, self-referencing keys are checked on every update.
            for (k, key) in writer.table.foreignKeys.enumerated()
            where SchemaNames.equal(key.parentTable, writer.table.name)
                || key.columns.contains(where: { !Self.identical(old[$0], row[$0]) })
            {
                childKeys.append(k)
            }
            for reference in try referencing(writer) {
                // A key whose columns keep their values is not looked at (as in SQLite, which then raises no
                // mismatch for it either, e.g. when only the hidden rowid moves).
                if Self.keyUnchanged(reference, writer.table, old, row) { continue }
                let parentKey = try self.parentKey(reference.child, reference.key)
                if !sameKey(parentKey, old, row) { parents.append(reference) }
            }
            try childDelta(writer, old, keys: childKeys, delta: -1, isNew: false)
            try parentDelta(writer, old, references: parents, delta: 1, excluding: oldRowid)
        }
        if childKeys.isEmpty && parents.isEmpty {
            // No foreign key looks at the row between its removal and its storage: change it in place.
            try writer.replace(old, with: row)
        } else {
            try writer.remove(old)
            if foreignKeys {
                try childDelta(writer, row, keys: childKeys, delta: 1, isNew: true)
                try parentDelta(writer, row, references: parents, delta: -1)
            }
            try writer.store(row)
        }
        if changeObserver != nil { reportUpdate(writer, rowid: rowid, assigned: assigned) }
        // Counted before the foreign key actions, as SQLite does: an action failing with FAIL keeps the change.
        if direct { changes += 1 }
        if foreignKeys { try actions(writer, old: old, new: row, references: parents) }
        if direct, returning != nil { try returnRow(row) }
        if let triggers = writer.triggers, !triggers.afterUpdate.isEmpty {
            _ = try connection?.fire(
                triggers.afterUpdate, of: triggers, old: triggerOld ?? old, new: row,
                assigned: assignedNames(writer, assigned), resolution: resolution)
        }
        return row
    }

    /// Deletes stored row `old`, applying foreign key actions; `direct` counts it as a change of the statement.
    ///
    /// Returns false when a BEFORE DELETE trigger kept the row (`RAISE(IGNORE)`, or it deleted the row itself).
    @discardableResult
    func delete(_ writer: TableWriter, _ old: [Value], direct: Bool, firesTriggers: Bool = true) throws -> Bool {
        if firesTriggers, let triggers = writer.triggers, !triggers.beforeDelete.isEmpty {
            // A deletion imposes no conflict resolution on its triggers: SQLite's DELETE has none.
            guard let current = try fireBeforeDelete(triggers, writer, old, nil) else { return false }
            try deleteRow(writer, current, direct: direct, firesTriggers: true, triggerOld: old)
            return true
        }
        try deleteRow(writer, old, direct: direct, firesTriggers: firesTriggers)
        return true
    }

    /// ``delete(_:_:direct:firesTriggers:)`` once the BEFORE DELETE triggers, if any, have run; `triggerOld` is
    /// the OLD row they saw, which the AFTER DELETE triggers see too (SQLite does not read it again).
    private func deleteRow(
        _ writer: TableWriter, _ old: [Value], direct: Bool, firesTriggers: Bool, triggerOld: [Value]? = nil
    ) throws {
        var references: [(child: TableDefinition, key: Int)] = []
        if foreignKeys {
            references = try referencing(writer)
            try childDelta(writer, old, keys: Array(writer.table.foreignKeys.indices), delta: -1, isNew: false)
            if case .integer(let rowid) = old[writer.table.columns.count] {
                try parentDelta(writer, old, references: references, delta: 1, excluding: rowid)
            }
        }
        try writer.remove(old)
        if changeObserver != nil { reportDeletion(writer, old) }
        if direct { changes += 1 }
        if foreignKeys { try actions(writer, old: old, new: nil, references: references) }
        if direct, returning != nil { try returnRow(triggerOld ?? old) }
        if firesTriggers, let triggers = writer.triggers, !triggers.afterDelete.isEmpty {
            _ = try connection?.fire(
                triggers.afterDelete, of: triggers, old: triggerOld ?? old, new: nil, resolution: nil)
        }
    }

    /// Evaluates ``returning`` on `row`, a row the statement wrote (the deleted row for a DELETE).
    private func returnRow(_ row: [Value]) throws {
        guard let returning else { return }
        returnedRows.append(try returning.evaluate(row, parameters: parameters))
    }

    // MARK: Constraints

    /// How a unique constraint conflict is resolved.
    enum ConflictAction {
        case resolution(ConflictResolution)
        /// `DO UPDATE` of upsert clause number `k`.
        case upsert(Int)
    }

    /// Applies NOT NULL (substituting defaults for `REPLACE`), the types of a STRICT table, and CHECK constraints;
    /// false when the row is to be skipped (`IGNORE`).
    private func checkColumns(
        _ writer: TableWriter, _ row: inout [Value], _ resolution: ConflictResolution?
    ) throws -> Bool {
        // Two passes, as sqlite3GenerateConstraintChecks makes them: REPLACE substitutes the column's DEFAULT (even
        // DEFAULT NULL) and defers the check of what it substituted to the second pass, so a later column's
        // failure is the one reported; REPLACE without a DEFAULT is ABORT.
        var replaced = false
        for c in writer.notNullColumns where row[c].isNull {
            let table = writer.table
            let column = table.columns[c]
            var action = resolution ?? column.notNullConflict ?? .abort
            if action == .replace {
                if column.defaultValue != nil {
                    row[c] = try writer.defaultValue(ofColumn: c)
                    replaced = true
                    continue
                }
                action = .abort
            }
            if action == .ignore { return false }
            throw SQLExecutionError.constraint(
                .notNull, "NOT NULL constraint failed: \(table.name).\(column.name)", resolution: action)
        }
        if replaced, let c = writer.notNullColumns.first(where: { row[$0].isNull }) {
            let table = writer.table
            throw SQLExecutionError.constraint(
                .notNull, "NOT NULL constraint failed: \(table.name).\(table.columns[c].name)", resolution: .abort)
        }
        if !writer.checks.isEmpty { try checkTypes(writer, row) }
        for check in writer.checks {
            var context = EvaluationContext(row: row, parameters: parameters)
            if !(try check.expression.isTrue(&context)), !(try check.expression.evaluate(&context).isNull) {
                var action = resolution ?? .abort
                if action == .ignore { return false }
                if action == .replace { action = .abort }
                throw SQLExecutionError.constraint(
                    .check, "CHECK constraint failed: \(check.name)", resolution: action)
            }
        }
        return true
    }

    /// Whether a STRICT table's column types are checked among the unique constraints (after the rowid's, before
    /// the indexes'), where SQLite checks them when the table has no CHECK constraint; with one, they are checked
    /// before it (``checkColumns(_:_:_:)``).
    func checksTypesLate(_ writer: TableWriter) -> Bool {
        writer.table.strictTypes != nil && writer.checks.isEmpty
    }

    /// The types of a STRICT table: whatever the conflict resolution, a value of the wrong type fails the
    /// statement, as in SQLite.
    func checkTypes(_ writer: TableWriter, _ row: [Value]) throws {
        guard let types = writer.table.strictTypes else { return }
        for (c, type) in types.enumerated() where c != writer.rowidAlias && !type.accepts(row[c]) {
            let table = writer.table
            throw SQLExecutionError.constraint(
                .datatype,
                "cannot store \(StrictType.storageName(of: row[c])) value in \(type.rawValue) column "
                    + "\(table.name).\(table.columns[c].name)")
        }
    }

    /// The unique constraints of `writer`'s table in SQLite's checking order, with their resolutions: upsert
    /// targets first, then the rowid, then the indexes (those resolving by `REPLACE` last); a rowid resolved by
    /// its own `ON CONFLICT REPLACE` comes after the indexes. With `explicitRowid`, a table without INTEGER
    /// PRIMARY KEY checks its rowid too (a given rowid may be taken).
    func constraintOrder(
        _ writer: TableWriter, _ resolution: ConflictResolution?, _ upsert: [UpsertPlan], explicitRowid: Bool = false
    ) -> [(UniqueTarget, ConflictAction)] {
        // Without an upsert the order depends only on the table and the statement's resolution: kept by the writer.
        var memoKey: Int
        switch resolution {
        case nil: memoKey = 0
        case .rollback: memoKey = 1
        case .abort: memoKey = 2
        case .fail: memoKey = 3
        case .ignore: memoKey = 4
        case .replace: memoKey = 5
        }
        let checksRowid = explicitRowid && writer.rowidAlias < 0
        if checksRowid { memoKey += 6 }
        if upsert.isEmpty, let known = writer.constraintOrders[memoKey] { return known }
        let order = computeConstraintOrder(writer, resolution, upsert, checksRowid: checksRowid)
        if upsert.isEmpty { writer.constraintOrders[memoKey] = order }
        return order
    }

    private func computeConstraintOrder(
        _ writer: TableWriter, _ resolution: ConflictResolution?, _ upsert: [UpsertPlan], checksRowid: Bool
    ) -> [(UniqueTarget, ConflictAction)] {
        let table = writer.table
        func action(_ target: UniqueTarget) -> ConflictAction {
            if let k = upsert.firstIndex(where: { $0.target == nil || $0.target == target }) {
                return upsert[k].assignments == nil ? .resolution(.ignore) : .upsert(k)
            }
            let own: ConflictResolution?
            switch target {
            case .rowid: own = table.primaryKeyConflict
            case .index(let k): own = writer.indexes[k].definition.onConflict
            }
            return .resolution(resolution ?? own ?? .abort)
        }
        var order: [UniqueTarget] = []
        for clause in upsert {
            if let target = clause.target, !order.contains(target) { order.append(target) }
        }
        let unique = writer.indexes.indices.filter { writer.indexes[$0].definition.unique }
        let indexes =
            unique.filter { writer.indexes[$0].definition.onConflict != .replace }
            + unique.filter { writer.indexes[$0].definition.onConflict == .replace }
        var deferRowid = false
        if table.rowidAlias != nil || checksRowid, !order.contains(.rowid) {
            deferRowid =
                resolution == nil && table.primaryKeyConflict == .replace && !unique.isEmpty && upsert.isEmpty
            if !deferRowid { order.append(.rowid) }
        }
        for k in indexes where !order.contains(.index(k)) { order.append(.index(k)) }
        if deferRowid { order.append(.rowid) }
        return order.map { ($0, action($0)) }
    }

    /// The stored row conflicting with `row` on `target`, other than the row of rowid `excluding`.
    func conflict(
        _ writer: TableWriter, _ target: UniqueTarget, _ row: [Value], excluding: Int64?
    ) throws -> [Value]? {
        switch target {
        case .rowid:
            guard case .integer(let rowid) = row[writer.table.columns.count], rowid != excluding else { return nil }
            return try writer.fetch(rowid: rowid)
        case .index(let k):
            guard let (prefix, hasNull) = try writer.indexPrefix(k, row: row), !hasNull,
                let rowid = try writer.conflictingRowid(k, prefix: prefix, excluding: excluding)
            else { return nil }
            return try writer.fetch(rowid: rowid)
        }
    }

    /// The stored row an UPDATE or DELETE finds again for `matched`, a row its search found earlier: the row with
    /// its rowid; for a `WITHOUT ROWID` table, as SQLite finds it, the row holding its primary key now (which may
    /// be another row that took the key meanwhile, e.g. by an UPDATE OR REPLACE of an earlier row).
    func storedRow(_ writer: TableWriter, matched: [Value]) throws -> [Value]? {
        if let k = writer.primaryKeyIndex { return try conflict(writer, .index(k), matched, excluding: nil) }
        guard case .integer(let rowid) = matched[writer.columnCount] else { return nil }
        return try writer.fetch(rowid: rowid)
    }

    func failure(
        _ writer: TableWriter, _ target: UniqueTarget, _ resolution: ConflictResolution
    ) -> SQLExecutionError {
        switch target {
        case .rowid: return writer.rowidFailure(resolution: resolution)
        case .index(let k): return writer.uniqueFailure(k, resolution: resolution)
        }
    }

    private func upsertUpdate(
        _ writer: TableWriter, existing: [Value], excluded: [Value], _ plan: UpsertPlan
    ) throws -> [Value]? {
        guard let assignments = plan.assignments else { return nil }
        var context = EvaluationContext(
            row: existing + excluded, parameters: parameters, subqueries: plan.subqueries?.provider)
        if let condition = plan.condition, !(try condition.isTrue(&context)) { return nil }
        let n = writer.columnCount
        var values = Array(existing.prefix(n))
        for assignment in assignments {
            let value = try assignment.value.evaluate(&context)
            if assignment.column == n {
                // `SET rowid = …` of a table without INTEGER PRIMARY KEY: the row's new rowid.
                if values.count == n { values.append(.null) }
                values[n] = SQLAffinity.integer.apply(to: value)
            } else {
                values[assignment.column] = writer.affinities[assignment.column].apply(to: value)
            }
        }
        return try update(
            writer, old: existing, values: values, resolution: .abort, assigned: assignments.map(\.column))
    }
}
