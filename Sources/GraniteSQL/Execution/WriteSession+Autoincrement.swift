// Rowids for new rows and AUTOINCREMENT: the per-statement sequence values of autoincrement tables and their
// rows in granite_sequence.

import GraniteStorage

extension WriteSession {
    /// The rowid for a new row without an explicit one: one more than the largest, as SQLite's
    /// `sqlite3NewRowid`; once the largest is 2^63 - 1, a random unused one (AUTOINCREMENT tables: the table is
    /// full).
    func newRowid(_ writer: TableWriter) throws -> Int64 {
        let full = SQLExecutionError(.full, "database or disk is full")
        var next: Int64 = 1
        if let last = try writer.tree.lastRowid() {
            guard last < Int64.max else {
                if writer.table.isAutoincrement { throw full }
                return try randomUnusedRowid(writer) ?? { throw full }()
            }
            next = last + 1
        }
        if writer.table.isAutoincrement {
            let key = Self.sequenceKey(writer.table)
            var current = try sequence(writer.table, key: key)
            guard current.value < Int64.max else { throw full }
            next = max(next, current.value + 1)
            // The new rowid is used up even if the row is skipped later.
            current.value = next
            sequences[key] = current
        }
        return next
    }

    /// SQLite's fallback when rowids ran out at the top: up to 100 random candidates in 1...2^62, the first that
    /// no row holds; nil when all were taken.
    private func randomUnusedRowid(_ writer: TableWriter) throws -> Int64? {
        for _ in 0..<100 {
            let candidate = Int64.random(in: 1...(Int64.max >> 1) + 1)
            if try writer.fetch(rowid: candidate) == nil { return candidate }
        }
        return nil
    }

    /// Raises the in-statement sequence value of AUTOINCREMENT table `table` to `rowid` if it is larger.
    func raiseSequence(_ table: TableDefinition, to rowid: Int64) throws {
        let key = Self.sequenceKey(table)
        var current = try sequence(table, key: key)
        if rowid > current.value {
            current.value = rowid
            sequences[key] = current
        }
    }

    /// The writer of the sequence table of the schema `table` is in (a temporary table's is `temp`'s own).
    private func sequenceWriter(for table: TableDefinition) throws -> TableWriter? {
        try sequenceWriter(temporary: table.isTemporary)
    }

    private func sequenceWriter(temporary: Bool) throws -> TableWriter? {
        let name = QualifiedName(schema: temporary ? "temp" : "main", name: Self.sequenceTable)
        guard let table = catalog.table(name) else { return nil }
        return try writer(table)
    }

    /// The key of `table`'s sequence in the statement's caches: a temporary table's apart from a main one's.
    private static func sequenceKey(_ table: TableDefinition) -> String {
        table.isTemporary ? "temp." + SchemaNames.key(table.name) : SchemaNames.key(table.name)
    }

    /// The statement's sequence entry of AUTOINCREMENT table `table`, whose name has lookup key `key`.
    private func sequence(
        _ table: TableDefinition, key: String
    ) throws -> (rowid: Int64?, value: Int64, stored: Int64) {
        if let cached = sequences[key] { return cached }
        var result: (rowid: Int64?, value: Int64, stored: Int64) = (nil, 0, 0)
        if let writer = try sequenceWriter(for: table) {
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
    func writeSequences() throws {
        guard !sequenceTargets.isEmpty else { return }
        for table in sequenceTargets {
            guard let writer = try sequenceWriter(for: table) else { continue }
            let key = Self.sequenceKey(table)
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
        _ = try sequence(table, key: Self.sequenceKey(table))
        sequenceTargets.append(table)
    }

    /// Renames the `granite_sequence` row of table `old` (after `ALTER TABLE … RENAME TO`), of the temporary
    /// schema's sequence table when `temporary`.
    func renameSequence(from old: String, to new: String, temporary: Bool = false) throws {
        guard let writer = try sequenceWriter(temporary: temporary) else { return }
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
        guard table.isAutoincrement, let writer = try sequenceWriter(for: table) else { return }
        let key = Self.sequenceKey(table)
        if let stored = try sequence(table, key: key).rowid, let old = try writer.fetch(rowid: stored) {
            try writer.remove(old)
        }
        sequences[key] = nil
        sequenceRowHints[key] = nil
    }
}
