import GraniteStorage

/// Reads and writes the rows of one table, maintaining its indexes and checking its constraints.
struct TableWriter {
    let table: TableDefinition
    let tree: TableTree
    let indexes:
        [(definition: IndexDefinition, tree: IndexTree, keys: [CompiledExpression?], filter: CompiledExpression?)]
    let scope: TableScope
    let defaults: [Value]
    let checks: [(name: String, expression: CompiledExpression)]
    let parameters: BoundParameters

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
            let name = check.name ?? Self.text(of: check.expression, in: table.sql)
            return (name, try ExpressionCompiler.compile(check.expression, resolver: scope))
        }
    }

    static func text(of expression: SQLExpression, in sql: String, offset: Int = 0) -> String {
        let bytes = Array(sql.utf8)
        let range = (expression.range.offsets.lowerBound - offset)..<(expression.range.offsets.upperBound - offset)
        guard range.lowerBound >= 0, range.upperBound <= bytes.count, !range.isEmpty else { return "" }
        return String(decoding: bytes[range], as: UTF8.self)
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
        let index = indexes[k]
        var context = EvaluationContext(row: row, parameters: parameters)
        if let filter = index.filter, !(try filter.isTrue(&context)) { return nil }
        var key: [UInt8] = []
        var hasNull = false
        for (position, column) in index.definition.columns.enumerated() {
            var value: Value
            if let compiled = index.keys[position] {
                value = try compiled.evaluate(&context)
            } else if case .column(let c) = column.target {
                value = row[c]
            } else {
                value = .null
            }
            if case .text(let s) = value, let name = column.collation, let collation = SQLCollation(name: name) {
                switch collation {
                case .nocase: value = .text(Self.asciiLowercased(s))
                case .rtrim: value = .text(Self.trimmingTrailingSpaces(s))
                case .binary: break
                }
            }
            if value.isNull { hasNull = true }
            KeyEncoding.append(value, to: &key)
        }
        return (key, hasNull)
    }

    static func asciiLowercased(_ s: String) -> String {
        var bytes = Array(s.utf8)
        for i in bytes.indices where bytes[i] >= 0x41 && bytes[i] <= 0x5A { bytes[i] += 0x20 }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func trimmingTrailingSpaces(_ s: String) -> String {
        var bytes = Array(s.utf8)
        while bytes.last == 0x20 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
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

    func uniqueFailure(_ k: Int) -> SQLExecutionError {
        let index = indexes[k].definition
        var names: [String] = []
        for column in index.columns {
            guard case .column(let c) = column.target else {
                return .constraint("UNIQUE constraint failed: index '\(index.name)'")
            }
            names.append("\(table.name).\(table.columns[c].name)")
        }
        return .constraint("UNIQUE constraint failed: \(names.joined(separator: ", "))")
    }

    // MARK: Writing

    /// Applies affinities and checks NOT NULL and CHECK constraints; `row` has the rowid slot already set.
    func checkRow(_ row: [Value]) throws {
        for (position, column) in table.columns.enumerated() where column.notNull && row[position].isNull {
            throw SQLExecutionError.constraint("NOT NULL constraint failed: \(table.name).\(column.name)")
        }
        for check in checks {
            var context = EvaluationContext(row: row, parameters: parameters)
            if !(try check.expression.isTrue(&context)), !(try check.expression.evaluate(&context).isNull) {
                throw SQLExecutionError.constraint("CHECK constraint failed: \(check.name)")
            }
        }
    }

    /// Checks the unique indexes for `row` (whose own old entries must already be gone), returning every
    /// index's key prefix.
    func checkUnique(_ row: [Value]) throws -> [[UInt8]?] {
        var prefixes: [[UInt8]?] = []
        for k in indexes.indices {
            guard let (prefix, hasNull) = try indexPrefix(k, row: row) else {
                prefixes.append(nil)
                continue
            }
            if indexes[k].definition.unique, !hasNull, try indexContains(k, prefix: prefix) {
                throw uniqueFailure(k)
            }
            prefixes.append(prefix)
        }
        return prefixes
    }

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

    /// The rowid for a new row whose rowid-alias value (after affinity) is `value`.
    func newRowid(_ value: Value?) throws -> Int64 {
        switch value {
        case .integer(let i)?: return i
        case .null?, nil:
            let last = try tree.lastRowid() ?? 0
            guard last < Int64.max else { throw SQLExecutionError(.full, "database or disk is full") }
            return max(last, 0) + 1
        default: throw SQLExecutionError.datatypeMismatch
        }
    }

    var rowidName: String {
        table.rowidAlias.map { table.columns[$0].name } ?? "rowid"
    }

    /// Inserts `values` (one per declared column, affinities applied).
    func insert(_ values: [Value]) throws {
        var row = values
        let rowid = try newRowid(table.rowidAlias.map { row[$0] })
        if let alias = table.rowidAlias { row[alias] = .integer(rowid) }
        row.append(.integer(rowid))
        try checkRow(row)
        if try tree.contains(rowid: rowid) {
            throw SQLExecutionError.constraint("UNIQUE constraint failed: \(table.name).\(rowidName)")
        }
        let prefixes = try checkUnique(row)
        try tree.insert(rowid: rowid, payload: payload(row))
        try insertEntries(prefixes, rowid: rowid)
    }

    /// Replaces stored row `old` by `values` (one per declared column, affinities applied).
    func update(old: [Value], values: [Value]) throws {
        guard case .integer(let oldRowid) = old[table.columns.count] else { return }
        var row = values
        var rowid = oldRowid
        if let alias = table.rowidAlias {
            guard case .integer(let i) = row[alias] else { throw SQLExecutionError.datatypeMismatch }
            rowid = i
        }
        row.append(.integer(rowid))
        try checkRow(row)
        if rowid != oldRowid, try tree.contains(rowid: rowid) {
            throw SQLExecutionError.constraint("UNIQUE constraint failed: \(table.name).\(rowidName)")
        }
        try deleteEntries(of: old, rowid: oldRowid)
        let prefixes = try checkUnique(row)
        if rowid != oldRowid {
            _ = try tree.delete(rowid: oldRowid)
            try tree.insert(rowid: rowid, payload: payload(row))
        } else {
            _ = try tree.replace(rowid: rowid, payload: payload(row))
        }
        try insertEntries(prefixes, rowid: rowid)
    }

    /// Deletes stored row `old`.
    func delete(old: [Value]) throws {
        guard case .integer(let rowid) = old[table.columns.count] else { return }
        try deleteEntries(of: old, rowid: rowid)
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
