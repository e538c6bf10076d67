import GraniteStorage

/// Reads and writes the rows of one table, maintaining its indexes and checking its constraints.
final class TableWriter {
    let table: TableDefinition
    let tree: TableTree
    let indexes:
        [(definition: IndexDefinition, tree: IndexTree, keys: [CompiledExpression?], filter: CompiledExpression?)]
    let scope: TableScope
    let defaults: [Value]
    let checks: [(name: String, expression: CompiledExpression)]
    let parameters: BoundParameters
    /// The order in which conflicts are checked, by statement resolution (see `WriteSession.constraintOrder`).
    var constraintOrders: [String: [(UniqueTarget, WriteSession.ConflictAction)]] = [:]
    /// Per index: how each key column is computed (a column slot or an expression) and its collation, and the
    /// partial index condition — resolved once, since keys are computed for every row written.
    private let keyParts:
        [(
            columns: [(slot: Int, expression: CompiledExpression?, collation: SQLCollation)],
            filter: CompiledExpression?
        )]

    init(table: TableDefinition, catalog: SchemaCatalog, engine: StorageEngine, parameters: BoundParameters) throws {
        self.table = table
        self.parameters = parameters
        tree = try engine.table(named: table.storageName)
        let scope = TableScope(table: table)
        self.scope = scope
        var indexes: [(IndexDefinition, IndexTree, [CompiledExpression?], CompiledExpression?)] = []
        // SQLite checks the most recently created index first.
        for index in catalog.indexes(on: table.name).reversed() {
            let keys: [CompiledExpression?] = try index.columns.map { column in
                if case .expression(let e) = column.target { return try ExpressionCompiler.compile(e, resolver: scope) }
                return nil
            }
            let filter = try index.whereClause.map { try ExpressionCompiler.compile($0, resolver: scope) }
            indexes.append((index, try engine.index(named: index.storageName), keys, filter))
        }
        self.indexes = indexes
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
        for column in table.columns {
            guard let expression = column.defaultValue else {
                defaults.append(.null)
                continue
            }
            var context = EvaluationContext()
            let value = try ExpressionCompiler.compile(expression, resolver: EmptyColumnResolver()).evaluate(&context)
            defaults.append(column.affinity.apply(to: value))
        }
        self.defaults = defaults
        checks = try table.checks.map { check in
            let name = check.name ?? check.expression.sourceText(in: table.sql) ?? ""
            return (name, try ExpressionCompiler.compile(check.expression, resolver: scope))
        }
    }

    // MARK: Reading

    /// The evaluation row for stored `payload`: the column values (the rowid alias filled in), then the rowid.
    func row(rowid: Int64, payload: [UInt8]) throws -> [Value] {
        var values = try RowDecoder.decode(payload)
        if values.count > table.columns.count { values.removeLast(values.count - table.columns.count) }
        while values.count < table.columns.count { values.append(defaults[values.count]) }
        if let alias = table.rowidAlias { values[alias] = .integer(rowid) }
        values.append(.integer(rowid))
        return values
    }

    /// Every row, in rowid order.
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
        let parts = keyParts[k]
        var context: EvaluationContext?
        if let filter = parts.filter {
            var c = EvaluationContext(row: row, parameters: parameters)
            if !(try filter.isTrue(&c)) { return nil }
            context = c
        }
        var key: [UInt8] = []
        key.reserveCapacity(32)
        var hasNull = false
        for part in parts.columns {
            var value: Value
            if let compiled = part.expression {
                if context == nil { context = EvaluationContext(row: row, parameters: parameters) }
                value = try compiled.evaluate(&context!)
            } else if part.slot >= 0 {
                value = row[part.slot]
            } else {
                value = .null
            }
            value = part.collation.keyForm(value)
            if value.isNull { hasNull = true }
            KeyEncoding.append(value, to: &key)
        }
        return (key, hasNull)
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

    /// The rowids of the entries of index `k` starting with `prefix` (a superset of the matching rows: a number's
    /// key may continue with a remainder).
    func rowids(_ k: Int, prefix: [UInt8]) throws -> [Int64] {
        var rowids: [Int64] = []
        let cursor = try indexes[k].tree.makeCursor()
        var valid = try cursor.seek(atOrAfter: prefix)
        while valid {
            let key = cursor.key
            guard key.starts(with: prefix) else { break }
            if case .integer(let rowid)? = try KeyEncoding.decode(key).last { rowids.append(rowid) }
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
        guard key.count > prefix.count, key.starts(with: prefix) else { return false }
        // A number's encoding may continue with a remainder marker: then it is a different value.
        return key[prefix.count] != KeyEncoding.remainderMarker
    }

    /// The row of `rowid` whose index entry in index `k` has key `prefix`, other than `excluding`, if any.
    func conflictingRowid(_ k: Int, prefix: [UInt8], excluding: Int64?) throws -> Int64? {
        let cursor = try indexes[k].tree.makeCursor()
        var valid = try cursor.seek(atOrAfter: prefix)
        while valid {
            let key = cursor.key
            guard key.count > prefix.count, key.starts(with: prefix) else { return nil }
            // A number's encoding may continue with a remainder marker: then it is a different value.
            guard key[prefix.count] != KeyEncoding.remainderMarker else { return nil }
            if case .integer(let rowid)? = try KeyEncoding.decode(key).last, rowid != excluding { return rowid }
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

    /// The error for a rowid (INTEGER PRIMARY KEY) conflict.
    func rowidFailure(resolution: ConflictResolution? = nil) -> SQLExecutionError {
        .constraint(.primaryKey, "UNIQUE constraint failed: \(table.name).\(rowidName)", resolution: resolution)
    }

    // MARK: Writing

    func insertEntries(_ prefixes: [[UInt8]?], rowid: Int64) throws {
        for (k, prefix) in prefixes.enumerated() {
            if let prefix { try indexes[k].tree.insert(key: Self.fullKey(prefix, rowid: rowid)) }
        }
    }

    func deleteEntries(of row: [Value], rowid: Int64) throws {
        for k in indexes.indices {
            if let (prefix, _) = try indexPrefix(k, row: row) {
                _ = try indexes[k].tree.delete(key: Self.fullKey(prefix, rowid: rowid))
            }
        }
    }

    func payload(_ row: [Value]) -> [UInt8] {
        var values = Array(row.prefix(table.columns.count))
        if let alias = table.rowidAlias { values[alias] = .null }
        return RowEncoder().encode(values)
    }

    var rowidName: String {
        table.rowidAlias.map { table.columns[$0].name } ?? "rowid"
    }

    /// The stored row of `rowid` (evaluation layout), if it exists.
    func fetch(rowid: Int64) throws -> [Value]? {
        guard let payload = try tree.get(rowid: rowid) else { return nil }
        return try row(rowid: rowid, payload: payload)
    }

    /// Stores `row` (evaluation layout, the rowid in its last slot) with its index entries; constraints must
    /// have been checked.
    func store(_ row: [Value]) throws {
        guard case .integer(let rowid) = row[table.columns.count] else { return }
        var prefixes: [[UInt8]?] = []
        for k in indexes.indices { prefixes.append(try indexPrefix(k, row: row)?.key) }
        try tree.insert(rowid: rowid, payload: payload(row))
        try insertEntries(prefixes, rowid: rowid)
    }

    /// Replaces stored row `old` by `new` (evaluation layouts): the table row in place when the rowid stays, and
    /// only the index entries whose keys change.
    func replace(_ old: [Value], with new: [Value]) throws {
        let n = table.columns.count
        guard case .integer(let oldRowid) = old[n], case .integer(let rowid) = new[n] else { return }
        var inserts: [[UInt8]?] = []
        for k in indexes.indices {
            let before = try indexPrefix(k, row: old)?.key
            let after = try indexPrefix(k, row: new)?.key
            if before == after && rowid == oldRowid {
                inserts.append(nil)
                continue
            }
            if let before { _ = try indexes[k].tree.delete(key: Self.fullKey(before, rowid: oldRowid)) }
            inserts.append(after)
        }
        if rowid == oldRowid {
            _ = try tree.replace(rowid: rowid, payload: payload(new))
        } else {
            _ = try tree.delete(rowid: oldRowid)
            try tree.insert(rowid: rowid, payload: payload(new))
        }
        try insertEntries(inserts, rowid: rowid)
    }

    /// Removes stored row `row` (evaluation layout) and its index entries.
    func remove(_ row: [Value]) throws {
        guard case .integer(let rowid) = row[table.columns.count] else { return }
        try deleteEntries(of: row, rowid: rowid)
        _ = try tree.delete(rowid: rowid)
    }

    /// Fills index `name` (just created, empty) from the table's rows.
    func fill(index name: String) throws {
        guard let k = indexes.firstIndex(where: { SchemaNames.equal($0.definition.name, name) }) else { return }
        for row in try scan() {
            guard case .integer(let rowid) = row[table.columns.count],
                let (prefix, hasNull) = try indexPrefix(k, row: row)
            else { continue }
            if indexes[k].definition.unique, !hasNull, try indexContains(k, prefix: prefix) { throw uniqueFailure(k) }
            try indexes[k].tree.insert(key: Self.fullKey(prefix, rowid: rowid))
        }
    }
}
