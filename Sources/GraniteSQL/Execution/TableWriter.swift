import GraniteStorage

/// Reads and writes the rows of one table, maintaining its indexes and checking its constraints.
final class TableWriter {
    let table: TableDefinition
    let tree: TableTree
    let indexes:
        [(definition: IndexDefinition, tree: IndexTree, keys: [CompiledExpression?], filter: CompiledExpression?)]
    let scope: TableScope
    /// The column defaults that are constants, NULL for the others (see ``rowDefaults``).
    let defaults: [Value]
    /// The defaults that are not constants (`random()`, `CURRENT_TIMESTAMP`, `changes()`…), by column position:
    /// as in SQLite, they are evaluated for each row that needs them.
    let rowDefaults: [(position: Int, expression: CompiledExpression)]
    let checks: [(name: String, expression: CompiledExpression)]
    /// The generated columns, computed before the constraints are checked.
    let generatedColumns: GeneratedColumns
    let parameters: BoundParameters
    /// The order in which conflicts are checked, by statement resolution (see `WriteSession.constraintOrder`):
    /// slot 0 for no resolution, then one per ``ConflictResolution`` case; slots 6 to 11 the same with an
    /// explicit hidden rowid.
    @exclusivity(unchecked) var constraintOrders: [[(UniqueTarget, WriteSession.ConflictAction)]?] = Array(
        repeating: nil, count: 12)
    /// Per index: how each key column is computed (a column slot or an expression) and its collation, and the
    /// partial index condition — resolved once, since keys are computed for every row written.
    private let keyParts:
        [(
            columns: [(slot: Int, expression: CompiledExpression?, collation: SQLCollation)],
            filter: CompiledExpression?
        )]
    /// The number of declared columns (the rowid follows them in an evaluation row).
    let columnCount: Int
    /// The affinity of each column.
    let affinities: [SQLAffinity]
    /// The columns declared NOT NULL.
    let notNullColumns: [Int]
    /// The position of the rowid alias column, or -1.
    let rowidAlias: Int
    /// Whether SQL sees the table's rowid (false for a `WITHOUT ROWID` table).
    let hasRowid: Bool
    /// For a `WITHOUT ROWID` table, the position in ``indexes`` of its primary key's index, which identifies its
    /// rows; nil otherwise.
    let primaryKeyIndex: Int?
    /// Whether computing the index keys of a row cannot fail: every key part is a column, no index is partial.
    let keysCannotFail: Bool
    /// Per column: whether an index key uses it.
    private let keyColumns: [Bool]
    /// The index trees, in the order of `indexes`.
    private let trees: [IndexTree]
    @exclusivity(unchecked) private var encoder = RowEncoder()
    /// Which of the rows' long texts are tried compressed, learnt from the rows this writer wrote.
    @exclusivity(unchecked) private var compressionBackoff = CompressionBackoff()
    /// The triggers on the table, nil when it has none (set by the connection that caches the writer).
    var triggers: TableTriggers?
    /// The UTF-8 length from which the TEXT values of rows written are stored compressed (`nil`: never); see
    /// ``SQLConnection/textCompressionThreshold``.
    var compressionThreshold: Int? {
        get { encoder.compressionThreshold }
        set {
            encoder = RowEncoder(compressionThreshold: newValue)
            compressionBackoff = CompressionBackoff()
        }
    }
    /// The foreign keys referring to the table, once ``WriteSession`` looked them up.
    @exclusivity(unchecked) var references: [(child: TableDefinition, key: Int)]?
    // Buffers reused by every row written: the encoded row, and index keys. Only this object's methods touch
    // them, never re-entrantly, so dynamic exclusivity checks are not needed.
    @exclusivity(unchecked) private var rowBuffer: [UInt8] = []
    @exclusivity(unchecked) private var keyBuffer: [UInt8] = []
    @exclusivity(unchecked) private var oldKeyBuffer: [UInt8] = []
    @exclusivity(unchecked) private var keyEnds: [Int] = []
    @exclusivity(unchecked) private var oldKeyEnds: [Int] = []
    @exclusivity(unchecked) private var decoder = RowDecoder()

    init(
        table: TableDefinition, catalog: SchemaCatalog, transaction: StorageTransaction, parameters: BoundParameters,
        counters: ConnectionCounters?
    ) throws {
        self.table = table
        self.parameters = parameters
        tree = try transaction.table(named: table.storageName)
        let scope = TableScope(table: table, counters: counters)
        self.scope = scope
        var indexes: [(IndexDefinition, IndexTree, [CompiledExpression?], CompiledExpression?)] = []
        // SQLite checks the most recently created index first.
        for index in catalog.indexes(of: table).reversed() {
            let keys: [CompiledExpression?] = try index.columns.map { column in
                guard case .expression(let e) = column.target else { return nil }
                return try Self.compile(e, scope, .indexExpression)
            }
            let filter = try index.whereClause.map { try Self.compile($0, scope, .partialIndexWhere) }
            indexes.append((index, try transaction.index(named: index.storageName), keys, filter))
        }
        self.indexes = indexes
        trees = indexes.map(\.1)
        keysCannotFail = indexes.allSatisfy { index in index.3 == nil && index.2.allSatisfy { $0 == nil } }
        var keyColumns = Array(repeating: false, count: table.columns.count)
        for index in indexes {
            for column in index.0.columns {
                if case .column(let c) = column.target, c < keyColumns.count { keyColumns[c] = true }
            }
        }
        self.keyColumns = keyColumns
        columnCount = table.columns.count
        notNullColumns = table.columns.indices.filter { table.columns[$0].notNull }
        affinities = table.columns.map(\.affinity)
        rowidAlias = table.rowidAlias ?? -1
        hasRowid = table.hasRowid
        primaryKeyIndex = table.withoutRowidKeyIndexName.flatMap { name in
            indexes.firstIndex { $0.0.name == name }
        }
        keyParts = indexes.map { index in
            let columns = index.0.columns.enumerated().map { position, column in
                var slot = -1
                if case .column(let c) = column.target { slot = c }
                let collation = column.collation.flatMap { SQLCollation(name: $0) } ?? .binary
                return (slot, index.2[position], collation)
            }
            return (columns, index.3)
        }
        var defaults: [Value] = []
        var rowDefaults: [(position: Int, expression: CompiledExpression)] = []
        for (position, column) in table.columns.enumerated() {
            // SQLite ignores the DEFAULT of an INTEGER PRIMARY KEY: an omitted rowid is assigned, never defaulted.
            guard let expression = column.defaultValue, position != table.rowidAlias else {
                defaults.append(.null)
                continue
            }
            let compiled = try ExpressionCompiler.compile(expression, resolver: EmptyColumnResolver(counters: counters))
            if compiled.prelude.isEmpty, let constant = compiled.root.constantValue {
                defaults.append(column.affinity.apply(to: constant))
            } else {
                defaults.append(.null)
                rowDefaults.append((position, compiled))
            }
        }
        self.defaults = defaults
        self.rowDefaults = rowDefaults
        checks = try table.checks.map { check in
            let name = check.name ?? check.expression.sourceText(in: table.sql) ?? ""
            return (name, try Self.compile(check.expression, scope, .check))
        }
        generatedColumns = try GeneratedColumns(table: table, scope: scope)
    }

    /// The values of a new row before the statement's own are stored in it: the column defaults, those that are
    /// not constants evaluated now.
    @inline(__always)
    func newRowDefaults() throws -> [Value] {
        if rowDefaults.isEmpty { return defaults }
        return try evaluatedDefaults()
    }

    /// The default of column `position` for one row (a foreign key's `SET DEFAULT`, a NOT NULL column's
    /// `ON CONFLICT REPLACE`).
    func defaultValue(ofColumn position: Int) throws -> Value {
        guard !rowDefaults.isEmpty, let entry = rowDefaults.first(where: { $0.position == position }) else {
            return defaults[position]
        }
        var context = EvaluationContext()
        return table.columns[position].affinity.apply(to: try entry.expression.evaluate(&context))
    }

    private func evaluatedDefaults() throws -> [Value] {
        var values = defaults
        var context = EvaluationContext()
        for (position, expression) in rowDefaults {
            values[position] = table.columns[position].affinity.apply(to: try expression.evaluate(&context))
        }
        return values
    }

    /// What resolves column names of a statement writing the table under `alias`: ``scope`` without one (the
    /// table's name qualifies), else a scope where only the alias does. Made while a statement compiles, never
    /// per row.
    func scope(alias: String?) -> TableScope {
        guard let alias else { return scope }
        return TableScope(table: table, alias: alias, counters: scope.connectionCounters)
    }

    /// Compiles a schema expression of the table, which SQLite restricts (see ``RestrictedUse``).
    static func compile(_ expression: SQLExpression, _ scope: TableScope, _ use: RestrictedUse) throws
        -> CompiledExpression
    {
        var compiler = ExpressionCompiler()
        compiler.restrictedUse = use
        return try compiler.compile(expression, resolver: scope)
    }

    // MARK: Reading

    /// The evaluation row for stored `payload`: the column values (the rowid alias filled in), then the rowid.
    func row(rowid: Int64, payload: [UInt8]) throws -> [Value] {
        try row(rowid: rowid, values: RowDecoder.decode(payload))
    }

    /// The evaluation row for the decoded stored `values`.
    private func row(rowid: Int64, values: consuming [Value]) -> [Value] {
        var values = values
        if values.count > table.columns.count { values.removeLast(values.count - table.columns.count) }
        while values.count < table.columns.count { values.append(defaults[values.count]) }
        if let alias = table.rowidAlias { values[alias] = .integer(rowid) }
        values.append(.integer(rowid))
        return values
    }

    /// The number of rows ``scan(inBatches:)`` reads before handing them over: enough to make the seek that
    /// starts each batch negligible, few enough that a table of any size costs a bounded amount of memory.
    static let scanBatchRows = 1_024

    /// Calls `body` with every row, in rowid order, ``scanBatchRows`` at a time.
    ///
    /// `body` may write to the table and to others (inserting index entries, replacing or deleting the rows it
    /// is given): each batch starts with a seek past the last rowid handed over, so the scan never depends on a
    /// cursor position that the writes may have moved. Rows that `body` inserts after the batch it runs in are
    /// visited later, as a cursor-driven scan would visit them.
    func scan(inBatches body: ([[Value]]) throws -> Void) throws {
        let cursor = try tree.makeCursor()
        var batch: [[Value]] = []
        batch.reserveCapacity(Self.scanBatchRows)
        var valid = try cursor.first()
        while valid {
            batch.removeAll(keepingCapacity: true)
            var lastRowid = Int64.min
            while valid && batch.count < Self.scanBatchRows {
                lastRowid = cursor.rowid
                batch.append(try row(rowid: lastRowid, payload: try cursor.payload()))
                valid = try cursor.next()
            }
            try body(batch)
            guard valid, lastRowid < Int64.max else { return }
            valid = try cursor.seek(atOrAfter: lastRowid + 1)
        }
    }

    /// Every row, in rowid order, held in memory at once: for tables known to be small (the sequence table) or
    /// callers that need all rows before writing; ``scan(inBatches:)`` otherwise.
    func scan() throws -> [[Value]] {
        var rows: [[Value]] = []
        let cursor = try tree.makeCursor()
        var valid = try cursor.first()
        while valid {
            rows.append(try row(rowid: cursor.rowid, payload: try cursor.payload()))
            valid = try cursor.next()
        }
        return rows
    }

    // MARK: Index keys

    /// The key of `row` in index number `k` without the rowid, or nil when the row is not in a partial index.
    /// `hasNull` reports whether any key value is NULL (such entries never conflict).
    func indexPrefix(_ k: Int, row: [Value]) throws -> (key: [UInt8], hasNull: Bool)? {
        var key: [UInt8] = []
        key.reserveCapacity(32)
        guard let hasNull = try appendKey(k, row: row, to: &key) else { return nil }
        return (key, hasNull)
    }

    /// Appends the key of `row` in index number `k` (without the rowid) to `key`; returns whether a key value is
    /// NULL, or nil (appending nothing) when the row is not in a partial index.
    private func appendKey(_ k: Int, row: [Value], to key: inout [UInt8]) throws -> Bool? {
        var context: EvaluationContext?
        if let filter = keyParts[k].filter {
            var c = EvaluationContext(row: row, parameters: parameters)
            if !(try filter.isTrue(&c)) { return nil }
            context = c
        }
        var hasNull = false
        for part in keyParts[k].columns {
            if let compiled = part.expression {
                if context == nil { context = EvaluationContext(row: row, parameters: parameters) }
                let value = part.collation.keyForm(try compiled.evaluate(&context!))
                if value.isNull { hasNull = true }
                KeyEncoding.append(value, to: &key)
            } else if part.slot >= 0 {
                if !part.collation.isBinary, row[part.slot].isText {
                    KeyEncoding.append(part.collation.keyForm(row[part.slot]), to: &key)
                } else {
                    if row[part.slot].isNull { hasNull = true }
                    KeyEncoding.append(row[part.slot], to: &key)
                }
            } else {
                hasNull = true
                KeyEncoding.append(.null, to: &key)
            }
        }
        return hasNull
    }

    /// The key prefix of index `k` for its first `values.count` columns holding `values`.
    func keyPrefix(_ k: Int, values: [Value]) -> [UInt8] {
        var key: [UInt8] = []
        for (position, column) in indexes[k].definition.columns.prefix(values.count).enumerated() {
            let collation = column.collation.flatMap { SQLCollation(name: $0) } ?? .binary
            KeyEncoding.append(collation.keyForm(values[position]), to: &key)
        }
        return key
    }

    /// The rowids of the entries of index `k` whose leading values are those of `prefix`.
    func rowids(_ k: Int, prefix: [UInt8]) throws -> [Int64] {
        var rowids: [Int64] = []
        let cursor = try indexes[k].tree.makeCursor()
        var valid = try cursor.seek(atOrAfter: prefix)
        while valid {
            let key = cursor.key
            // Keys whose number continues with a fraction sort after every exact match.
            guard KeyEncoding.startsWithValues(key, prefix) else { break }
            if let rowid = try key.withUnsafeBytes({ try KeyEncoding.trailingInteger($0) }) { rowids.append(rowid) }
            valid = try cursor.next()
        }
        return rowids
    }

    static func fullKey(_ prefix: [UInt8], rowid: Int64) -> [UInt8] {
        var key = prefix
        KeyEncoding.append(integer: rowid, to: &key)
        return key
    }

    /// Whether index `k` holds an entry whose values equal `prefix`.
    func indexContains(_ k: Int, prefix: [UInt8]) throws -> Bool {
        let cursor = try indexes[k].tree.makeCursor()
        guard try cursor.seek(atOrAfter: prefix) else { return false }
        let key = cursor.key
        return key.count > prefix.count && KeyEncoding.startsWithValues(key, prefix)
    }

    /// The row of `rowid` whose index entry in index `k` has key `prefix`, other than `excluding`, if any.
    func conflictingRowid(_ k: Int, prefix: [UInt8], excluding: Int64?) throws -> Int64? {
        let cursor = try indexes[k].tree.makeCursor()
        var valid = try cursor.seek(atOrAfter: prefix)
        while valid {
            let key = cursor.key
            guard key.count > prefix.count, KeyEncoding.startsWithValues(key, prefix) else { return nil }
            if let rowid = try key.withUnsafeBytes({ try KeyEncoding.trailingInteger($0) }), rowid != excluding {
                return rowid
            }
            valid = try cursor.next()
        }
        return nil
    }

    /// The error for a violation of unique index number `k`.
    func uniqueFailure(_ k: Int, resolution: ConflictResolution? = nil) -> SQLExecutionError {
        let index = indexes[k].definition
        let code: SQLExecutionError.ExtendedCode = index.origin == .primaryKey ? .primaryKey : .unique
        var names: [String] = []
        for column in index.columns {
            guard case .column(let c) = column.target else {
                return .constraint(code, "UNIQUE constraint failed: index '\(index.name)'", resolution: resolution)
            }
            names.append("\(table.name).\(table.columns[c].name)")
        }
        return .constraint(
            code, "UNIQUE constraint failed: \(names.joined(separator: ", "))", resolution: resolution)
    }

    /// The error for a rowid conflict: of the INTEGER PRIMARY KEY, or of an explicit hidden rowid.
    func rowidFailure(resolution: ConflictResolution? = nil) -> SQLExecutionError {
        .constraint(
            rowidAlias >= 0 ? .primaryKey : .rowid, "UNIQUE constraint failed: \(table.name).\(rowidName)",
            resolution: resolution)
    }

    // MARK: Writing

    /// Builds the full keys (rowid appended) of `row` in every index into ``keyBuffer``: `keyEnds[k]` is the end
    /// of index `k`'s key, or -1 when the row is not in that (partial) index.
    private func buildKeys(_ row: [Value], rowid: Int64) throws {
        var keys = takeBuffer(&keyBuffer)
        defer { keyBuffer = keys }
        keyEnds.removeAll(keepingCapacity: true)
        for k in indexes.indices {
            if try appendKey(k, row: row, to: &keys) != nil {
                KeyEncoding.append(integer: rowid, to: &keys)
                keyEnds.append(keys.count)
            } else {
                keyEnds.append(-1)
            }
        }
    }

    /// Inserts the keys ``buildKeys(_:rowid:)`` built.
    private func insertBuiltKeys() throws {
        try keyBuffer.withUnsafeBytes { all in
            var start = 0
            for k in keyEnds.indices where keyEnds[k] >= 0 {
                let end = keyEnds[k]
                try trees[k].insert(
                    key: UnsafeRawBufferPointer(rebasing: all[start..<end]),
                    value: UnsafeRawBufferPointer(start: nil, count: 0))
                start = end
            }
        }
    }

    /// Empties `buffer` (keeping its capacity) and hands it over, leaving an empty array behind, so that it can
    /// be filled without exclusive access to this object.
    private func takeBuffer(_ buffer: inout [UInt8]) -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &buffer)
        taken.removeAll(keepingCapacity: true)
        return taken
    }

    /// The stored form of `row` (evaluation layout): its declared columns, the rowid alias stored as NULL.
    func payload(_ row: [Value]) -> [UInt8] {
        var bytes: [UInt8] = []
        encoder.encode(
            row, count: columnCount, nullAt: table.rowidAlias ?? -1, into: &bytes, backoff: &compressionBackoff)
        return bytes
    }

    /// Calls `body` with the stored form of `row`, encoded into a reused buffer.
    private func withPayload<R>(_ row: [Value], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var bytes = takeBuffer(&rowBuffer)
        defer { rowBuffer = bytes }
        encoder.encode(row, count: columnCount, nullAt: rowidAlias, into: &bytes, backoff: &compressionBackoff)
        return try bytes.withUnsafeBytes(body)
    }

    var rowidName: String {
        table.rowidAlias.map { table.columns[$0].name } ?? "rowid"
    }

    /// Whether an index key uses column `column` (as a plain column).
    func isKeyColumn(_ column: Int) -> Bool { keyColumns[column] }

    /// The stored row of `rowid` (evaluation layout), if it exists.
    ///
    /// With `keysOnly`, only the columns the index keys use are read (the others are NULL), when the keys are plain
    /// columns: enough to remove the row. Columns marked in `unread` are left NULL too (an UPDATE that overwrites
    /// them).
    func fetch(rowid: Int64, keysOnly: Bool = false, unread: [Bool]? = nil) throws -> [Value]? {
        let keysOnly = keysOnly && keysCannotFail
        return try tree.withPayload(rowid: rowid) { payload in
            try decoder.reset(payload)
            // The evaluation layout directly: declared columns (defaults for those added after the row was
            // written), the rowid alias filled in, then the rowid.
            var values: [Value] = []
            values.reserveCapacity(columnCount + 1)
            let stored = min(decoder.count, columnCount)
            if keysOnly {
                for c in 0..<stored { values.append(keyColumns[c] ? try decoder.value(at: c) : .null) }
            } else if let unread, unread.count >= stored {
                for c in 0..<stored { values.append(unread[c] ? .null : try decoder.value(at: c)) }
            } else {
                for c in 0..<stored { values.append(try decoder.value(at: c)) }
            }
            for c in stored..<columnCount { values.append(defaults[c]) }
            if rowidAlias >= 0 { values[rowidAlias] = .integer(rowid) }
            values.append(.integer(rowid))
            return values
        }
    }

    /// Stores `row` (evaluation layout, the rowid in its last slot) with its index entries; constraints must
    /// have been checked.
    ///
    /// With `rowidFailure`, the rowid has not been checked: an existing row with that rowid fails the store, with
    /// that resolution, before anything is written.
    func store(_ row: [Value], rowidFailure: ConflictResolution? = nil) throws {
        guard case .integer(let rowid) = row[columnCount] else { return }
        // Keys first: evaluating an index expression may fail, before anything is written.
        try buildKeys(row, rowid: rowid)
        do {
            try withPayload(row) { try tree.insert(rowid: rowid, payload: $0) }
        } catch StorageError.duplicateKey where rowidFailure != nil {
            throw self.rowidFailure(resolution: rowidFailure)
        }
        try insertBuiltKeys()
    }

    /// Replaces stored row `old` by `new` (evaluation layouts): the table row in place when the rowid stays, and
    /// only the index entries whose keys change.
    func replace(_ old: [Value], with new: [Value]) throws {
        guard case .integer(let oldRowid) = old[columnCount], case .integer(let rowid) = new[columnCount] else {
            return
        }
        // Every key first (evaluating an index expression may fail before anything is written): the entries to
        // remove in `before` (ends in `oldKeyEnds`), those to add in `keys` (ends in `keyEnds`).
        var keys = takeBuffer(&keyBuffer)
        var before = takeBuffer(&oldKeyBuffer)
        defer {
            keyBuffer = keys
            oldKeyBuffer = before
        }
        keyEnds.removeAll(keepingCapacity: true)
        oldKeyEnds.removeAll(keepingCapacity: true)
        for k in indexes.indices {
            let oldStart = before.count
            let start = keys.count
            let hadEntry = try appendKey(k, row: old, to: &before) != nil
            let hasEntry = try appendKey(k, row: new, to: &keys) != nil
            if rowid == oldRowid && hadEntry == hasEntry && keys[start...].elementsEqual(before[oldStart...]) {
                keys.removeSubrange(start...)
                before.removeSubrange(oldStart...)
                keyEnds.append(-1)
                oldKeyEnds.append(-1)
                continue
            }
            if hadEntry {
                KeyEncoding.append(integer: oldRowid, to: &before)
                oldKeyEnds.append(before.count)
            } else {
                oldKeyEnds.append(-1)
            }
            if hasEntry {
                KeyEncoding.append(integer: rowid, to: &keys)
                keyEnds.append(keys.count)
            } else {
                keyEnds.append(-1)
            }
        }
        // The table row first: an UPDATE rewrites the row it has just read, where the lookup left off.
        if rowid == oldRowid {
            _ = try withPayload(new) { try tree.replace(rowid: rowid, payload: $0) }
        } else {
            _ = try tree.delete(rowid: oldRowid)
            try withPayload(new) { try tree.insert(rowid: rowid, payload: $0) }
        }
        try before.withUnsafeBytes { all in
            var start = 0
            for k in oldKeyEnds.indices where oldKeyEnds[k] >= 0 {
                let end = oldKeyEnds[k]
                _ = try trees[k].delete(key: UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
        keyBuffer = keys
        try insertBuiltKeys()
        keys = keyBuffer
    }

    /// Removes stored row `row` (evaluation layout) and its index entries.
    func remove(_ row: [Value]) throws {
        guard case .integer(let rowid) = row[columnCount] else { return }
        // Keys first (evaluating an index expression may fail before anything is written), then the table row: a
        // DELETE removes the row it has just read, where the lookup left off.
        try buildKeys(row, rowid: rowid)
        _ = try tree.delete(rowid: rowid)
        try keyBuffer.withUnsafeBytes { all in
            var start = 0
            for k in keyEnds.indices where keyEnds[k] >= 0 {
                let end = keyEnds[k]
                _ = try trees[k].delete(key: UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
    }
}
