import GraniteStorage

/// `PRAGMA integrity_check` and `PRAGMA quick_check` beyond the storage layer's structural check: every row of
/// every table is decoded and checked against its table's NOT NULL and CHECK constraints, and (not in a quick
/// check) against every index of the table, whose entries are then checked against the rows. Each problem is one
/// line, worded like SQLite's where SQLite reports the same problem:
///
/// - `NULL value in t.a`, `CHECK constraint failed in t`
/// - `row 2 missing from index i`: the row's entry (with its key as computed now) is not in the index
/// - `non-unique entry in index i`: a UNIQUE index holds two entries with the same non-NULL key
/// - `wrong # of entries in index i`: the index holds more or fewer entries than its rows call for
///
/// and, for problems SQLite reports as a statement error or not at all:
///
/// - `row 2 of t: …`: the row cannot be decoded (or a key or CHECK expression fails on it)
/// - `entry for row 2 in index i does not match a row of t`: the entry's row is missing or has another key
/// - `index i: …`, `table t: …`: a tree cannot be read to the end, or an index entry cannot be decoded
///
/// Reading goes on past each problem until `limit` problems are found.
struct DatabaseCheck {
    let catalog: SchemaCatalog
    /// The read transaction the check reads in.
    let transaction: StorageTransaction
    /// Whether this is a quick check (`PRAGMA quick_check`): rows against their constraints only.
    let quick: Bool
    let limit: Int
    /// The one table (or view, which has nothing to check) to check, with its indexes, for
    /// `PRAGMA integrity_check(t)`; nil checks the whole database.
    var onlyTable: String?
    /// The connection's counters, which CHECK constraints calling the counter functions read.
    let counters: ConnectionCounters?
    private(set) var problems: [String] = []

    init(
        catalog: SchemaCatalog, transaction: StorageTransaction, quick: Bool, limit: Int,
        counters: ConnectionCounters? = nil
    ) {
        self.catalog = catalog
        self.counters = counters
        self.transaction = transaction
        self.quick = quick
        self.limit = limit
    }

    var isFull: Bool { problems.count >= limit }

    mutating func report(_ problem: String) {
        if problems.count < limit { problems.append(problem) }
    }

    /// Runs the structural check, then checks every table and its indexes.
    mutating func run() {
        var trees: Set<String>?
        if let onlyTable {
            if let table = catalog.table(named: onlyTable) {
                trees = Set([table.storageName] + catalog.indexes(of: table).map(\.storageName))
            } else if let schema = SchemaCatalog.schemaTable(named: onlyTable) {
                trees = [schema.storageName]
            } else {
                trees = []
            }
        }
        for problem in transaction.engine.checkIntegrity(maxProblems: limit, trees: trees).problems {
            report(problem)
        }
        runLogical()
    }

    /// Checks every table (or only ``onlyTable``) and its indexes (not the file's structure).
    mutating func runLogical() {
        for table in catalog.tables {
            if let onlyTable, !SchemaNames.equal(table.name, onlyTable) { continue }
            if isFull { return }
            let writer: TableWriter
            do {
                writer = try TableWriter(
                    table: table, catalog: catalog, transaction: transaction, parameters: BoundParameters([]),
                    counters: counters)
            } catch {
                report("table \(table.name): \(error)")
                continue
            }
            check(writer)
        }
    }

    /// An upper bound on the entries of any tree of the file: a walk longer than this is going round a cycle.
    private var maximumEntries: Int {
        let pager = transaction.engine.pager
        return Int(pager.pageCount) * pager.pageSize / 4 + 1
    }

    // MARK: Rows

    /// Checks the rows of `writer`'s table, then (unless quick) its indexes' entries.
    private mutating func check(_ writer: TableWriter) {
        // Per index: the entries the rows call for, and the rows that may have one (undecodable rows, rows a key
        // expression fails on): the number of entries must lie between.
        var expected = Array(repeating: 0, count: writer.indexes.count)
        var uncertain = Array(repeating: 0, count: writer.indexes.count)
        let name = writer.table.name
        do {
            let cursor = try writer.tree.makeCursor()
            var valid = try cursor.first()
            var walked = 0
            while valid, !isFull {
                walked += 1
                if walked > maximumEntries { throw StorageError.corrupt(page: 0, "the tree does not end") }
                let rowid = cursor.rowid
                do {
                    let row = try writer.row(rowid: rowid, payload: try cursor.payload())
                    try check(row: row, rowid: rowid, writer, expected: &expected)
                } catch {
                    report("row \(rowid) of \(name): \(error)")
                    for k in uncertain.indices { uncertain[k] += 1 }
                }
                valid = try cursor.next()
            }
        } catch {
            report("table \(name): \(error)")
            return
        }
        if quick { return }
        for k in writer.indexes.indices where !isFull {
            checkEntries(of: k, writer, expected: expected[k]...(expected[k] + uncertain[k]))
        }
    }

    /// Checks one decoded row against its table's constraints and indexes; counts its index entries.
    private mutating func check(row: [Value], rowid: Int64, _ writer: TableWriter, expected: inout [Int]) throws {
        let table = writer.table
        for c in writer.notNullColumns where row[c].isNull {
            report("NULL value in \(table.name).\(table.columns[c].name)")
        }
        var context = EvaluationContext(row: row)
        for check in writer.checks where try check.expression.evaluate(&context).sqlTruth == false {
            report("CHECK constraint failed in \(table.name)")
            break
        }
        if quick { return }
        for k in writer.indexes.indices {
            guard let (prefix, _) = try writer.indexPrefix(k, row: row) else { continue }
            expected[k] += 1
            if !(try writer.indexes[k].tree.contains(key: TableWriter.fullKey(prefix, rowid: rowid))) {
                report("row \(rowid) missing from index \(writer.indexes[k].definition.name)")
            }
        }
    }

    // MARK: Index entries

    /// Walks index `k` of `writer`: each entry must decode, end with the rowid of an existing row whose key it
    /// holds, and (in a UNIQUE index) differ from the previous one unless a key value is NULL; the number of
    /// entries must lie in `expected`.
    private mutating func checkEntries(of k: Int, _ writer: TableWriter, expected: ClosedRange<Int>) {
        let index = writer.indexes[k].definition
        var count = 0
        var previous: [UInt8]?
        do {
            let cursor = try writer.indexes[k].tree.makeCursor()
            var valid = try cursor.first()
            while valid, !isFull {
                count += 1
                if count > maximumEntries { throw StorageError.corrupt(page: 0, "the tree does not end") }
                let key = cursor.key
                do {
                    let values = try KeyEncoding.decode(key)
                    guard case .integer(let rowid)? = values.last else {
                        throw StorageError.malformed("the entry does not end with a rowid")
                    }
                    let prefix = Array(key.dropLast(TableWriter.fullKey([], rowid: rowid).count))
                    if index.unique, prefix == previous, !values.dropLast().contains(where: \.isNull) {
                        report("non-unique entry in index \(index.name)")
                    }
                    previous = prefix
                    if !(try entryMatchesRow(prefix, rowid: rowid, k, writer)) {
                        report(
                            "entry for row \(rowid) in index \(index.name) does not match a row of \(writer.table.name)"
                        )
                    }
                } catch {
                    report("index \(index.name): \(error)")
                    previous = nil
                }
                valid = try cursor.next()
            }
        } catch {
            report("index \(index.name): \(error)")
            return
        }
        if !isFull, !expected.contains(count) { report("wrong # of entries in index \(index.name)") }
    }

    /// Whether the row `rowid` exists and its key in index `k` is `prefix`. A row that cannot be decoded (already
    /// reported) matches.
    private func entryMatchesRow(_ prefix: [UInt8], rowid: Int64, _ k: Int, _ writer: TableWriter) throws -> Bool {
        guard let payload = try writer.tree.get(rowid: rowid) else { return false }
        guard let row = try? writer.row(rowid: rowid, payload: payload) else { return true }
        let computed: [UInt8]?
        do {
            computed = try writer.indexPrefix(k, row: row)?.key
        } catch {
            return true
        }
        return computed == prefix
    }
}
