import GraniteStorage

extension TableWriter {
    /// The number of entries ``fill(index:)`` collects and sorts before inserting them into the index.
    ///
    /// Inserted in table order, the entries of an index land at random places of its tree, and once the tree
    /// outgrows the page cache nearly every insert reads and dirties a leaf that is not cached. Sorted, a run of
    /// entries walks the tree's leaves from left to right, each leaf read and written once per run. A run this
    /// long holds a few tens of MB of keys at most, so the memory stays bounded whatever the table's size; a table
    /// of several runs makes several sweeps over the tree, each still in key order.
    static let indexFillRunEntries = 1 << 18

    /// One entry waiting in a run of ``fill(index:)``: its full key (values, then rowid), the length of the values'
    /// part, and whether it must be checked against the index's other entries (a UNIQUE index, no NULL value).
    private struct PendingEntry {
        var key: [UInt8]
        var prefixCount: Int
        var checksUniqueness: Bool
    }

    /// Fills index `name` (just created, empty) from the table's rows, in sorted runs of
    /// ``indexFillRunEntries`` entries.
    ///
    /// - Throws: the UNIQUE constraint failure when two rows have the same non-NULL values in a UNIQUE index
    ///   (the statement's savepoint then removes what was inserted); errors of the partial index's condition or
    ///   of an expression key.
    func fill(index name: String) throws {
        guard let k = indexes.firstIndex(where: { SchemaNames.equal($0.definition.name, name) }) else { return }
        let unique = indexes[k].definition.unique
        var run: [PendingEntry] = []
        run.reserveCapacity(Self.indexFillRunEntries)
        /// Sorts the run and inserts it into the index.
        func insertRun() throws {
            run.sort { a, b in
                a.key.withUnsafeBytes { a in b.key.withUnsafeBytes { b in CodecBytes.compare(a, b) < 0 } }
            }
            for entry in run {
                // Earlier runs and the entries of this run before this one are in the tree: an equal one among
                // them is found by the same search as on any insert.
                if entry.checksUniqueness, try indexContains(k, prefix: Array(entry.key[..<entry.prefixCount])) {
                    throw uniqueFailure(k)
                }
                try indexes[k].tree.insert(key: entry.key)
            }
            run.removeAll(keepingCapacity: true)
        }
        try scan(inBatches: { rows in
            for row in rows {
                guard case .integer(let rowid) = row[table.columns.count],
                    let (prefix, hasNull) = try indexPrefix(k, row: row)
                else { continue }
                run.append(
                    PendingEntry(
                        key: Self.fullKey(prefix, rowid: rowid), prefixCount: prefix.count,
                        checksUniqueness: unique && !hasNull))
                if run.count == Self.indexFillRunEntries { try insertRun() }
            }
        })
        try insertRun()
    }
}
