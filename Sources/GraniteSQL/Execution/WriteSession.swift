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

/// The parent key a foreign key refers to.
struct ParentKey {
    /// The parent table.
    var parent: TableDefinition
    /// The unique index of the parent's writer holding the key, or nil for the rowid.
    var index: Int?
    /// The parent columns matching the foreign key's child columns, in the same order.
    var columns: [Int]
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
    let engine: StorageEngine
    @exclusivity(unchecked) private(set) var parameters: BoundParameters
    let foreignKeys: Bool
    /// Outstanding foreign key violations.
    @exclusivity(unchecked) var violations = 0
    /// Rows inserted, updated or deleted directly by the statement (not by REPLACE or foreign key actions).
    @exclusivity(unchecked) var changes = 0
    /// Rows changed by foreign key actions: SQLite adds them to `total_changes()` as they happen.
    @exclusivity(unchecked) var actionChanges = 0
    /// The rowid of the last row inserted by the statement.
    @exclusivity(unchecked) var lastInsertedRowid: Int64?
    /// Whether the statement started changing rows (so that a failure resets the change counter).
    @exclusivity(unchecked) var started = false
    /// Whether the statement inserts a single row with `VALUES`: like SQLite, a missing parent then fails the
    /// statement at once, before the row is stored.
    @exclusivity(unchecked) var singleRowInsert = false
    /// The connection's change observer when the statement started (see ``reportChange(_:_:rowid:)``).
    @exclusivity(unchecked) var changeObserver: (any SQLChangeObserver)?

    private var writers: [String: TableWriter] = [:]
    private var parentKeys: [String: ParentKey] = [:]
    /// Per autoincrement table: the rowid of its `granite_sequence` row (if any), its value in the statement,
    /// and the value stored when the statement read it.
    @exclusivity(unchecked) private var sequences: [String: (rowid: Int64?, value: Int64, stored: Int64)] = [:]
    /// Per autoincrement table, the rowid its `granite_sequence` row had when a run of this statement last read
    /// or wrote it: the next run looks there first (and checks the row's name) instead of scanning the table.
    @exclusivity(unchecked) private var sequenceRowHints: [String: Int64] = [:]
    @exclusivity(unchecked) private var sequenceTargets: [TableDefinition] = []

    static let sequenceTable = "granite_sequence"

    init(catalog: SchemaCatalog, engine: StorageEngine, parameters: BoundParameters, foreignKeys: Bool) {
        self.catalog = catalog
        self.engine = engine
        self.parameters = parameters
        self.foreignKeys = foreignKeys
    }

    /// Prepares the session for another run of the same statement with `parameters`: the per-statement state is
    /// cleared; the writers and parent keys, which depend only on the schema, are kept.
    func reset(parameters: BoundParameters) {
        self.parameters = parameters
        violations = 0
        changes = 0
        actionChanges = 0
        lastInsertedRowid = nil
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
        if let adopted, adopted.table.schemaRowid == table.schemaRowid, adopted.table.name == table.name {
            return adopted
        }
        let key = SchemaNames.key(table.name)
        if let writer = writers[key] { return writer }
        let writer =
            try connection?.cachedWriter(table)
            ?? TableWriter(table: table, catalog: catalog, engine: engine, parameters: parameters)
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
        guard try checkColumns(writer, &row, resolution) else { return nil }
        let childKeys = foreignKeys && !writer.table.foreignKeys.isEmpty
        let order = constraintOrder(writer, resolution, upsert, explicitRowid: explicitRowid)
        /// A rowid conflict failing the statement, checked by the table insert itself rather than by a search
        /// before it: when it is the last check and nothing between the checks and the insert can fail.
        var rowidFailure: ConflictResolution?
        for (position, (target, action)) in order.enumerated() {
            if target == .rowid, position == order.count - 1, !childKeys, writer.keysCannotFail,
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
                try delete(writer, existing, direct: false)
            case .resolution(let other):
                throw failure(writer, target, other)
            }
        }
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
        lastInsertedRowid = rowid
        return row
    }

    /// Replaces stored row `old` by `values` (one per declared column, affinities applied, then optionally a new
    /// hidden rowid), resolving conflicts with `resolution`. Returns the new row, or nil when the change was
    /// skipped (`IGNORE`).
    func update(
        _ writer: TableWriter, old: [Value], values: consuming [Value], resolution: ConflictResolution?,
        direct: Bool = true
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
        guard try checkColumns(writer, &row, resolution) else { return nil }
        let moved = writer.rowidAlias < 0 && rowid != oldRowid
        for (target, action) in constraintOrder(writer, resolution, [], explicitRowid: moved) {
            if target == .rowid && rowid == oldRowid { continue }
            guard let existing = try conflict(writer, target, row, excluding: oldRowid) else { continue }
            switch action {
            case .resolution(.ignore):
                return nil
            case .resolution(.replace):
                try delete(writer, existing, direct: false)
            case .resolution(let other):
                throw failure(writer, target, other)
            case .upsert:
                break
            }
        }
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
        if changeObserver != nil { reportChange(.update, writer, rowid: rowid) }
        if foreignKeys { try actions(writer, old: old, new: row, references: parents) }
        if direct { changes += 1 }
        return row
    }

    /// Deletes stored row `old`, applying foreign key actions; `direct` counts it as a change of the statement.
    func delete(_ writer: TableWriter, _ old: [Value], direct: Bool) throws {
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
        if foreignKeys { try actions(writer, old: old, new: nil, references: references) }
        if direct { changes += 1 }
    }

    // MARK: Constraints

    /// How a unique constraint conflict is resolved.
    enum ConflictAction {
        case resolution(ConflictResolution)
        /// `DO UPDATE` of upsert clause number `k`.
        case upsert(Int)
    }

    /// Applies NOT NULL (substituting defaults for `REPLACE`) and CHECK constraints; false when the row is
    /// to be skipped (`IGNORE`).
    private func checkColumns(
        _ writer: TableWriter, _ row: inout [Value], _ resolution: ConflictResolution?
    ) throws -> Bool {
        for c in writer.notNullColumns where row[c].isNull {
            let table = writer.table
            let column = table.columns[c]
            var action = resolution ?? column.notNullConflict ?? .abort
            if action == .replace {
                if !writer.defaults[c].isNull {
                    row[c] = writer.defaults[c]
                    continue
                }
                action = .abort
            }
            if action == .ignore { return false }
            throw SQLExecutionError.constraint(
                .notNull, "NOT NULL constraint failed: \(table.name).\(column.name)", resolution: action)
        }
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
    private func conflict(
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

    private func failure(
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
        return try update(writer, old: existing, values: values, resolution: .abort)
    }

    // MARK: Rowids and AUTOINCREMENT

    /// The rowid for a new row without an explicit one.
    private func newRowid(_ writer: TableWriter) throws -> Int64 {
        let full = SQLExecutionError(.full, "database or disk is full")
        var next: Int64 = 1
        if let last = try writer.tree.lastRowid() {
            guard last < Int64.max else { throw full }
            next = last + 1
        }
        if writer.table.isAutoincrement {
            let sequence = try sequence(writer.table).value
            guard sequence < Int64.max else { throw full }
            next = max(next, sequence + 1)
            // The new rowid is used up even if the row is skipped later.
            try raiseSequence(writer.table, to: next)
        }
        return next
    }

    /// Raises the in-statement sequence value of AUTOINCREMENT table `table` to `rowid` if it is larger.
    private func raiseSequence(_ table: TableDefinition, to rowid: Int64) throws {
        var current = try sequence(table)
        if rowid > current.value {
            current.value = rowid
            sequences[SchemaNames.key(table.name)] = current
        }
    }

    private func sequenceWriter() throws -> TableWriter? {
        guard let table = catalog.table(named: Self.sequenceTable) else { return nil }
        return try writer(table)
    }

    private func sequence(_ table: TableDefinition) throws -> (rowid: Int64?, value: Int64, stored: Int64) {
        let key = SchemaNames.key(table.name)
        if let cached = sequences[key] { return cached }
        var result: (rowid: Int64?, value: Int64, stored: Int64) = (nil, 0, 0)
        if let writer = try sequenceWriter() {
            if let hint = sequenceRowHints[key], let row = try writer.fetch(rowid: hint),
                let found = Self.sequenceEntry(row, of: table)
            {
                result = found
            } else {
                for row in try writer.scan() {
                    guard let found = Self.sequenceEntry(row, of: table) else { continue }
                    result = found
                    break
                }
            }
        }
        sequences[key] = result
        if let rowid = result.rowid { sequenceRowHints[key] = rowid }
        return result
    }

    /// The rowid and value of `granite_sequence` row `row` (evaluation layout) when it belongs to `table`.
    private static func sequenceEntry(_ row: [Value], of table: TableDefinition) -> (
        rowid: Int64?, value: Int64, stored: Int64
    )? {
        guard row.count >= 3, case .text(let name) = row[0], SchemaNames.equal(name, table.name),
            case .integer(let rowid) = row[row.count - 1]
        else { return nil }
        // A value that is not an integer counts as 0, and is rewritten as an integer by the next store.
        guard case .integer(let value) = SQLAffinity.integer.apply(to: row[1]) else { return (rowid, 0, .min) }
        return (rowid, value, value)
    }

    /// Stores the sequence value of every AUTOINCREMENT table inserted into (SQLite does this at the end of
    /// the statement, even when no row was inserted). An unchanged value is not rewritten; a changed one
    /// replaces the row's payload in place.
    private func writeSequences() throws {
        guard !sequenceTargets.isEmpty, let writer = try sequenceWriter() else { return }
        for table in sequenceTargets {
            let key = SchemaNames.key(table.name)
            guard var current = sequences[key] else { continue }
            let row: [Value] = [.text(table.name), .integer(current.value), .integer(current.rowid ?? 0)]
            if let stored = current.rowid {
                if current.value == current.stored { continue }
                if writer.indexes.isEmpty, try writer.tree.replace(rowid: stored, payload: writer.payload(row)) {
                    // Rewritten in place: the table has no index to maintain.
                } else if let old = try writer.fetch(rowid: stored) {
                    try writer.replace(old, with: row)
                } else {
                    try writer.store(row)
                }
            } else {
                let next = (try writer.tree.lastRowid() ?? 0) + 1
                try writer.store([.text(table.name), .integer(current.value), .integer(next)])
                current.rowid = next
                sequenceRowHints[key] = next
            }
            current.stored = current.value
            sequences[key] = current
        }
    }

    /// Registers `table` as the target of an INSERT: its sequence is stored by ``finish()``.
    func insertTarget(_ table: TableDefinition) throws {
        guard table.isAutoincrement else { return }
        _ = try sequence(table)
        sequenceTargets.append(table)
    }

    /// Renames the `granite_sequence` row of table `old` (after `ALTER TABLE … RENAME TO`).
    func renameSequence(from old: String, to new: String) throws {
        guard let writer = try sequenceWriter() else { return }
        for row in try writer.scan() {
            guard case .text(let name) = row[0], SchemaNames.equal(name, old) else { continue }
            try writer.remove(row)
            var renamed = row
            renamed[0] = .text(new)
            try writer.store(renamed)
        }
    }

    /// Removes `table`'s `granite_sequence` row (when the table is dropped).
    func dropSequence(_ table: TableDefinition) throws {
        guard table.isAutoincrement, let writer = try sequenceWriter() else { return }
        if let stored = try sequence(table).rowid, let old = try writer.fetch(rowid: stored) { try writer.remove(old) }
        sequences[SchemaNames.key(table.name)] = nil
        sequenceRowHints[SchemaNames.key(table.name)] = nil
    }

    // MARK: Foreign keys

    /// The foreign keys (child table, key number) referring to `table`.
    func referencing(_ writer: TableWriter) throws -> [(child: TableDefinition, key: Int)] {
        // A writer lives no longer than the schema version it was built for.
        if let known = writer.references { return known }
        let references = try referencing(writer.table)
        writer.references = references
        return references
    }

    /// The foreign keys (child table, key number) referring to `table`.
    func referencing(_ table: TableDefinition) throws -> [(child: TableDefinition, key: Int)] {
        if let connection { return connection.cachedReferences(table) }
        return Self.references(to: table, in: catalog)
    }

    /// The foreign keys referencing `table`, the most recently declared first.
    static func references(to table: TableDefinition, in catalog: SchemaCatalog) -> [(
        child: TableDefinition, key: Int
    )] {
        let name = SchemaNames.key(table.name)
        var result: [(child: TableDefinition, key: Int)] = []
        for child in catalog.tables.sorted(by: { $0.schemaRowid < $1.schemaRowid }) {
            for (k, key) in child.foreignKeys.enumerated() where SchemaNames.key(key.parentTable) == name {
                result.append((child, k))
            }
        }
        // SQLite keeps the most recently declared reference first (which orders the foreign key actions).
        result.reverse()
        return result
    }

    /// The parent key of foreign key number `k` of `child`; throws SQLite's errors for a missing parent table or
    /// a parent key that is neither the primary key nor covered by a unique index.
    func parentKey(_ child: TableDefinition, _ k: Int) throws -> ParentKey {
        let cacheKey = "\(SchemaNames.key(child.name))\u{0}\(k)"
        if let cached = parentKeys[cacheKey] { return cached }
        let key = child.foreignKeys[k]
        guard let parent = catalog.table(named: key.parentTable) else {
            throw SQLExecutionError.noSuchTable("main.\(key.parentTable)")
        }
        let mismatch = SQLExecutionError("foreign key mismatch - \"\(child.name)\" referencing \"\(key.parentTable)\"")
        let writer = try writer(parent)
        var columns: [Int]
        if key.parentColumns.isEmpty {
            if key.columns.count == 1, let alias = parent.rowidAlias {
                columns = [alias]
            } else {
                columns = parent.primaryKey.map(\.column)
            }
        } else {
            columns = []
            for name in key.parentColumns {
                guard let c = parent.columnIndex(named: name) else { throw mismatch }
                columns.append(c)
            }
        }
        guard !columns.isEmpty, columns.count == key.columns.count else { throw mismatch }
        var result: ParentKey?
        if columns.count == 1, columns[0] == parent.rowidAlias {
            result = ParentKey(parent: parent, index: nil, columns: columns)
        } else {
            for (i, entry) in writer.indexes.enumerated() {
                let index = entry.definition
                guard index.unique, index.whereClause == nil, index.columns.count == columns.count,
                    !key.parentColumns.isEmpty || index.origin == .primaryKey
                else { continue }
                var matched = true
                var seen = Set<Int>()
                for column in index.columns {
                    guard case .column(let c) = column.target, columns.contains(c), seen.insert(c).inserted,
                        SchemaNames.key(column.collation ?? "binary")
                            == SchemaNames.key(parent.columns[c].collation ?? "binary")
                    else {
                        matched = false
                        break
                    }
                }
                if matched {
                    result = ParentKey(parent: parent, index: i, columns: columns)
                    break
                }
            }
        }
        guard let result else { throw mismatch }
        parentKeys[cacheKey] = result
        return result
    }

    /// Checks the foreign keys a write to `table` uses, raising missing-table and mismatch errors before any row
    /// is touched: as a child when `asChild`, as a parent when `asParent`; for an UPDATE, `assigned` limits
    /// both to the keys whose columns it assigns (self-references are always checked, as SQLite does).
    func prepareForeignKeys(
        _ table: TableDefinition, asChild: Bool, asParent: Bool, assigned: Set<Int>? = nil
    ) throws {
        guard foreignKeys else { return }
        if asChild {
            for (k, key) in table.foreignKeys.enumerated() {
                if let assigned, !SchemaNames.equal(key.parentTable, table.name),
                    !key.columns.contains(where: assigned.contains)
                {
                    continue
                }
                _ = try parentKey(table, k)
            }
        }
        if asParent {
            for reference in try referencing(table) {
                if let assigned {
                    let key = reference.child.foreignKeys[reference.key]
                    var columns: [Int] = []
                    if key.parentColumns.isEmpty {
                        columns = table.primaryKey.map(\.column)
                    } else {
                        for name in key.parentColumns {
                            // An unknown column is a mismatch: keep it so that the error is raised.
                            columns.append(table.columnIndex(named: name) ?? assigned.first ?? 0)
                        }
                    }
                    if !columns.contains(where: assigned.contains) { continue }
                }
                _ = try parentKey(reference.child, reference.key)
            }
        }
    }

    static func identical(_ a: Value, _ b: Value) -> Bool { a.type == b.type && a == b }

    /// Whether every parent column of foreign key `reference` (into `table`) holds identical values in rows `old`
    /// and `new`; false when a parent column is unknown, so that the mismatch is still raised.
    static func keyUnchanged(
        _ reference: (child: TableDefinition, key: Int), _ table: TableDefinition, _ old: [Value], _ new: [Value]
    ) -> Bool {
        let key = reference.child.foreignKeys[reference.key]
        var columns: [Int] = []
        if key.parentColumns.isEmpty {
            if key.columns.count == 1, let alias = table.rowidAlias {
                columns = [alias]
            } else {
                columns = table.primaryKey.map(\.column)
            }
        } else {
            for name in key.parentColumns {
                guard let c = table.columnIndex(named: name) else { return false }
                columns.append(c)
            }
        }
        guard !columns.isEmpty else { return false }
        return columns.allSatisfy { identical(old[$0], new[$0]) }
    }

    /// The parent key values of parent row `row`.
    private func keyValues(_ key: ParentKey, _ row: [Value]) -> [Value] {
        key.columns.map { row[$0] }
    }

    /// Whether parent rows `a` and `b` have the same key (`IS`, with the parent columns' collations).
    private func sameKey(_ key: ParentKey, _ a: [Value], _ b: [Value]) -> Bool {
        for c in key.columns {
            let x = a[c]
            let y = b[c]
            if x.isNull || y.isNull {
                if x.isNull && y.isNull { continue }
                return false
            }
            let collation = key.parent.columns[c].collation.flatMap { SQLCollation(name: $0) } ?? .binary
            if x.type != y.type || SQLComparison.compare(x, y, collation: collation) != 0 { return false }
        }
        return true
    }

    /// Adjusts the violation counter for child row `row` of `writer`'s table, for foreign keys `keys`: by `delta`
    /// for each one whose parent row is missing. A new row may reference itself.
    private func childDelta(_ writer: TableWriter, _ row: [Value], keys: [Int], delta: Int, isNew: Bool) throws {
        let table = writer.table
        for k in keys {
            let values = table.foreignKeys[k].columns.map { row[$0] }
            if values.contains(where: \.isNull) { continue }
            let key = try parentKey(table, k)
            if isNew, SchemaNames.equal(key.parent.name, table.name), referencesItself(key, row, values) { continue }
            if !(try parentExists(key, values)) {
                if singleRowInsert && delta > 0 { throw SQLExecutionError.foreignKeyFailure }
                violations += delta
            }
        }
    }

    private func referencesItself(_ key: ParentKey, _ row: [Value], _ values: [Value]) -> Bool {
        for (i, c) in key.columns.enumerated() {
            let column = key.parent.columns[c]
            let value = (key.index == nil ? SQLAffinity.integer : column.affinity).apply(to: values[i])
            let own = row[c]
            let collation = column.collation.flatMap { SQLCollation(name: $0) } ?? .binary
            if own.isNull || SQLComparison.compare(value, own, collation: collation) != 0 { return false }
        }
        return true
    }

    private func parentExists(_ key: ParentKey, _ values: [Value]) throws -> Bool {
        let writer = try writer(key.parent)
        guard let k = key.index else {
            guard case .integer(let rowid) = SQLAffinity.integer.apply(to: values[0]) else { return false }
            return try writer.tree.contains(rowid: rowid)
        }
        var row = Array(repeating: Value.null, count: key.parent.columns.count + 1)
        for (i, c) in key.columns.enumerated() { row[c] = key.parent.columns[c].affinity.apply(to: values[i]) }
        guard let (prefix, hasNull) = try writer.indexPrefix(k, row: row), !hasNull else { return false }
        return try writer.indexContains(k, prefix: prefix)
    }

    /// Adjusts the violation counter for parent row `row` by `delta` per child row referencing its key. New keys
    /// (negative `delta`) can only resolve outstanding violations, so they are skipped when there are none.
    private func parentDelta(
        _ writer: TableWriter, _ row: [Value], references: [(child: TableDefinition, key: Int)], delta: Int,
        excluding: Int64? = nil
    ) throws {
        for reference in references {
            if delta < 0 && violations <= 0 { return }
            let key = try parentKey(reference.child, reference.key)
            let values = keyValues(key, row)
            if values.contains(where: \.isNull) { continue }
            let selfReference = SchemaNames.equal(reference.child.name, writer.table.name)
            let count = try children(reference, key, values, excluding: selfReference ? excluding : nil).count
            violations += delta * count
        }
    }

    /// The child rows of `reference` whose key equals parent key `values`.
    private func children(
        _ reference: (child: TableDefinition, key: Int), _ key: ParentKey, _ values: [Value], excluding: Int64?
    ) throws -> [[Value]] {
        let child = reference.child
        let foreignKey = child.foreignKeys[reference.key]
        let writer = try writer(child)
        let n = child.columns.count
        var comparisons: [(child: Int, value: Value, affinity: SQLAffinity, collation: SQLCollation)] = []
        for (i, c) in foreignKey.columns.enumerated() {
            let parentColumn = key.parent.columns[key.columns[i]]
            let affinity = key.index == nil ? SQLAffinity.integer : parentColumn.affinity
            comparisons.append(
                (
                    c, affinity.apply(to: values[i]), affinity,
                    parentColumn.collation.flatMap { SQLCollation(name: $0) } ?? .binary
                ))
        }
        var candidates: [[Value]]
        if let (k, probe) = childIndex(writer, comparisons) {
            candidates = []
            for rowid in try writer.rowids(k, prefix: writer.keyPrefix(k, values: probe)) {
                if let row = try writer.fetch(rowid: rowid) { candidates.append(row) }
            }
        } else {
            candidates = try writer.scan()
        }
        var rows: [[Value]] = []
        for row in candidates {
            if let excluding, row[n] == .integer(excluding) { continue }
            let matches = comparisons.allSatisfy { comparison in
                SQLComparison.evaluate(
                    .equal, comparison.value, row[comparison.child], leftAffinity: comparison.affinity,
                    rightAffinity: child.columns[comparison.child].affinity, collation: comparison.collation) == true
            }
            if matches { rows.append(row) }
        }
        return rows
    }

    /// An index of the child table whose leading columns are the foreign key's columns and whose entries can be
    /// probed for the parent key: same collations, and no affinity conversion of the stored child values (a
    /// numeric parent key against a child column without numeric affinity compares converted child values).
    /// Returns the index and the probe values in index order.
    private func childIndex(
        _ writer: TableWriter,
        _ comparisons: [(child: Int, value: Value, affinity: SQLAffinity, collation: SQLCollation)]
    ) -> (Int, [Value])? {
        for comparison in comparisons {
            let childAffinity = writer.table.columns[comparison.child].affinity
            if comparison.affinity.isNumeric && !childAffinity.isNumeric { return nil }
        }
        for (k, entry) in writer.indexes.enumerated() {
            let index = entry.definition
            guard index.whereClause == nil, index.columns.count >= comparisons.count else { continue }
            var probe: [Value] = []
            for column in index.columns.prefix(comparisons.count) {
                guard case .column(let c) = column.target,
                    let comparison = comparisons.first(where: { $0.child == c }),
                    SQLCollation(name: column.collation ?? "binary") == comparison.collation
                else { break }
                let childAffinity = writer.table.columns[c].affinity
                probe.append(
                    SQLComparison.prepareOperands(
                        comparison.value, comparison.affinity, comparison.value, childAffinity
                    ).0)
            }
            if probe.count == comparisons.count && Set(comparisons.map(\.child)).count == comparisons.count {
                return (k, probe)
            }
        }
        return nil
    }

    /// Runs the `ON DELETE` (when `new` is nil) or `ON UPDATE` actions of the foreign keys referring to
    /// `writer`'s table for parent row `old`.
    private func actions(
        _ writer: TableWriter, old: [Value], new: [Value]?, references: [(child: TableDefinition, key: Int)]
    ) throws {
        for reference in references {
            let foreignKey = reference.child.foreignKeys[reference.key]
            let action = new == nil ? foreignKey.onDelete : foreignKey.onUpdate
            if action == .noAction { continue }
            let key = try parentKey(reference.child, reference.key)
            let values = keyValues(key, old)
            if values.contains(where: \.isNull) { continue }
            if let new, sameKey(key, old, new) { continue }
            let childWriter = try self.writer(reference.child)
            let n = reference.child.columns.count
            let rows = try children(reference, key, values, excluding: nil)
            if action == .restrict {
                if !rows.isEmpty { throw SQLExecutionError.foreignKeyFailure }
                continue
            }
            for row in rows {
                guard case .integer(let rowid) = row[n], let current = try childWriter.fetch(rowid: rowid) else {
                    continue
                }
                actionChanges += 1
                if action == .cascade && new == nil {
                    try delete(childWriter, current, direct: false)
                    continue
                }
                var updated = Array(current.prefix(n))
                for (i, c) in foreignKey.columns.enumerated() {
                    switch action {
                    case .cascade:
                        if let new {
                            updated[c] = reference.child.columns[c].affinity.apply(to: new[key.columns[i]])
                        }
                    case .setNull: updated[c] = .null
                    default: updated[c] = childWriter.defaults[c]
                    }
                }
                _ = try update(childWriter, old: current, values: updated, resolution: .abort, direct: false)
            }
        }
    }
}
