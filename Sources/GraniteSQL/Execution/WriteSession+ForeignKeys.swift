// Foreign key enforcement of a writing statement: parent keys, the violation counter kept as rows change, and
// the ON DELETE / ON UPDATE actions.

import GraniteStorage

/// The parent key a foreign key refers to.
struct ParentKey {
    /// The parent table.
    var parent: TableDefinition
    /// The unique index of the parent's writer holding the key, or nil for the rowid.
    var index: Int?
    /// The parent columns matching the foreign key's child columns, in the same order.
    var columns: [Int]
}

extension WriteSession {
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
        // A foreign key references a table of its own schema.
        let tables = table.isTemporary ? catalog.temporarySchema?.tables ?? [] : catalog.tables
        for child in tables.sorted(by: { $0.schemaRowid < $1.schemaRowid }) {
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
        let cacheKey = "\(child.isTemporary ? "temp." : "")\(SchemaNames.key(child.name))\u{0}\(k)"
        if let cached = parentKeys[cacheKey] { return cached }
        let key = child.foreignKeys[k]
        let parentName = QualifiedName(schema: child.isTemporary ? "temp" : "main", name: key.parentTable)
        guard let parent = catalog.table(parentName) else {
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
    func sameKey(_ key: ParentKey, _ a: [Value], _ b: [Value]) -> Bool {
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
    func childDelta(_ writer: TableWriter, _ row: [Value], keys: [Int], delta: Int, isNew: Bool) throws {
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

    /// Whether a row of the parent table has the key `values` (the child's, given the parent columns' affinities).
    func parentExists(_ key: ParentKey, _ values: [Value]) throws -> Bool {
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
    func parentDelta(
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
        var rows: [[Value]] = []
        /// Keeps the candidates that reference the parent key.
        func keepReferencing(_ candidates: [[Value]]) {
            for row in candidates {
                if let excluding, row[n] == .integer(excluding) { continue }
                let matches = comparisons.allSatisfy { comparison in
                    SQLComparison.evaluate(
                        .equal, comparison.value, row[comparison.child], leftAffinity: comparison.affinity,
                        rightAffinity: child.columns[comparison.child].affinity, collation: comparison.collation)
                        == true
                }
                if matches { rows.append(row) }
            }
        }
        if let (k, probe) = childIndex(writer, comparisons) {
            var candidates: [[Value]] = []
            for rowid in try writer.rowids(k, prefix: writer.keyPrefix(k, values: probe)) {
                if let row = try writer.fetch(rowid: rowid) { candidates.append(row) }
            }
            keepReferencing(candidates)
        } else {
            // Without an index the whole child table is read; batches keep only the referencing rows in memory.
            try writer.scan(inBatches: keepReferencing)
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
    func actions(
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
            // Like SQLite, which runs each action as one statement of a trigger program, the action's changes
            // count once it has changed every child row (a failure on the way counts none of them).
            var changed = 0
            for row in rows {
                guard case .integer(let rowid) = row[n], let current = try childWriter.fetch(rowid: rowid) else {
                    continue
                }
                if action == .cascade && new == nil {
                    if try delete(childWriter, current, direct: false) { changed += 1 }
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
                    default: updated[c] = try childWriter.defaultValue(ofColumn: c)
                    }
                }
                let changedRow = try update(
                    childWriter, old: current, values: updated, resolution: .abort, direct: false,
                    assigned: foreignKey.columns)
                if changedRow != nil { changed += 1 }
            }
            counters?.totalChanges += changed
        }
    }
}
