// The cursor that produces one table's rows for a level of a query: its state and the per-row entry point.
// Opening it, stepping through the tree or index, and the byte-level filters are in TableCursor+*.swift.

import GraniteStorage

/// Produces the rows of one table for one level of a query, writing them into the shared row.
final class TableCursor {
    let reader: TableReader
    let path: AccessPath
    /// The first slot of the table's row.
    let base: Int
    /// The columns to decode (relative positions), ascending; the rowid alias column is not among them (it is
    /// set from the rowid).
    let needed: [Int]
    /// The conditions tested as soon as the columns they read are loaded, before the other columns are decoded
    /// (see ``init(reader:path:base:used:filters:)``).
    let filters: [Condition]
    /// The leading ``filters`` of the form `column <op> ?` or `column <op> constant` (a column of this table,
    /// compared without numeric affinity), which are tested on the row's encoded bytes when the column holds
    /// plain TEXT and the operand is TEXT, and of the form `json_extract(column, 'path') <op> operand` (or `->`,
    /// `->>`; a located call, see JSONLocatedCall.swift), tested on the column's bytes when it holds plain TEXT
    /// that is well-formed JSON: a row they reject is skipped before any column is decoded.
    let rawFilters: [RawFilter]
    /// For each of ``rawFilters``, its operand's UTF-8 bytes in this execution (inactive when the operand is not
    /// TEXT: the filter is then tested the general way). The bytes are owned by the cursor.
    @exclusivity(unchecked) var rawOperands: [RawOperand] = []
    /// For each of ``rawFilters``, the text its operand's bytes were made of, to reuse them.
    @exclusivity(unchecked) var rawOperandTexts: [String?] = []
    /// For each of ``rawFilters`` that tests a located JSON call, its operand in this execution.
    @exclusivity(unchecked) var rawOperandValues: [Value] = []
    /// The evaluation context's cache of located JSON calls, shared by the located ``rawFilters`` so that the
    /// calls on the decoded row find what the byte test found (set when the cursor opens, if it has such a filter).
    @exclusivity(unchecked) var jsonLocations: JSONLocationCache?
    /// How many of ``filters`` (leading ones) the current row was found to pass by their byte test.
    @exclusivity(unchecked) var rawPassed = 0
    /// The columns of ``needed`` the query reads only as JSON documents (none for a covering index search): a
    /// TEXT among them is kept as bytes in its ``StoredDocument`` instead of being decoded, before ``filters``
    /// are tested.
    let documentColumns: [Int]
    /// Whether a located call among ``rawFilters`` reads one of ``documentColumns``: the documents are then loaded
    /// before the raw filters are tested.
    let documentsBeforeRawFilters: Bool
    /// The stored documents of ``documentColumns``, from the evaluation context's ``JSONLocationCache`` (set when
    /// the cursor opens).
    @exclusivity(unchecked) var documents: [StoredDocument] = []
    /// The cache ``documents`` came from.
    @exclusivity(unchecked) var documentsCache: JSONLocationCache?
    /// The columns decoded before ``filters`` are tested (all of ``needed`` when there are no filters), but for
    /// ``documentColumns``.
    let firstColumns: [Int]
    /// The columns decoded once a row passes ``filters``.
    let restColumns: [Int]
    /// The cursor whose current row still has ``restColumns`` to decode, if any (one of this cursor's own tree
    /// cursors, which it keeps alive).
    @exclusivity(unchecked) unowned(unsafe) var pendingRest: TreeCursor?
    /// The bytes of that row when the page holds all of them: still valid when the rest is decoded, since only
    /// ``filters`` run in between, which read no tree.
    @exclusivity(unchecked) var pendingBytes: UnsafeRawBufferPointer?
    /// One past the last of ``firstColumns`` and ``documentColumns``, and of ``restColumns``: the row header is
    /// parsed that far only.
    let firstLimit: Int
    let restLimit: Int
    /// The column limit of the decoder's current row.
    @exclusivity(unchecked) var decoderLimit = 0
    /// For a covering index search: (position in the index key, column) pairs.
    let coveringColumns: [(key: Int, column: Int, real: Bool)]
    let columnCount: Int
    let rowidAlias: Int?
    let defaults: [Value]
    let tree: TableTree?
    let descending: Bool
    /// The access method without its payload, so that stepping does not copy (and retain) the payload.
    enum Method { case scan, rowids, rowidRange, index }
    let method: Method
    /// For an index search: the affinity and collation keys are built with, per index column.
    let indexRules: [(SQLAffinity, SQLCollation)]
    /// The rowid values of a `.rowids` method.
    let rowidValues: [CompiledExpression]
    /// For `rowid = ?` (a `.rowids` method of one value that is a bare parameter): the parameter's index, read
    /// directly when the cursor opens; 0 otherwise.
    let rowidParameter: Int
    /// Whether the cursor serves a level after the first of a join, opened again for each row of the levels
    /// before it: its index searches then start from the entry the last one stopped at
    /// (``TreeCursor/seekNearby(atOrAfter:)``).
    let nested: Bool
    /// Whether an index search reads every needed column from the index (``IndexSearch/covering``), kept apart
    /// so that stepping does not copy the search.
    let covering: Bool

    @exclusivity(unchecked) var decoder = RowDecoder()
    @exclusivity(unchecked) var cursor: TreeCursor?
    @exclusivity(unchecked) var rowids: [Int64] = []
    /// The rowid of a `.rowids` method of one value (nil when the value is no integer), kept out of ``rowids``
    /// so that opening the cursor writes no array.
    @exclusivity(unchecked) var singleRowid: Int64?
    @exclusivity(unchecked) var rowidPosition = 0
    @exclusivity(unchecked) var range: (low: Int64?, high: Int64?) = (nil, nil)
    @exclusivity(unchecked) var prefixes: [[UInt8]] = []
    @exclusivity(unchecked) var prefixPosition = 0
    /// Whether `prefixes[prefixPosition]` is empty (no equality columns).
    @exclusivity(unchecked) var prefixIsEmpty = true
    /// Whether the open index search found its keys from probes that compare with the indexed columns exactly
    /// as SQL's `=` does: no affinity conversion changed a probe's type (a number for a numeric column, TEXT for a
    /// TEXT one, any non-NULL value for a BLOB one) and every equality column got a key. Every entry such a search
    /// yields then satisfies the level's ``SelectProgram/Level/impliedConditions``.
    @exclusivity(unchecked) var searchIsExact = false
    @exclusivity(unchecked) var low: [UInt8]?
    @exclusivity(unchecked) var high: [UInt8]?
    @exclusivity(unchecked) var lowKey: [UInt8] = []
    @exclusivity(unchecked) var highKey: [UInt8]?
    /// Whether ``step(_:)`` only moves to the next row, writing nothing (see ``countRows(_:)``).
    @exclusivity(unchecked) var countsOnly = false
    @exclusivity(unchecked) var exhausted = true
    @exclusivity(unchecked) var positioned = false

    /// A cursor over `reader`'s table through `path`, writing the `used` columns (relative positions) into the
    /// slots from `base`. `filters` are conditions of the query that read nothing but this table's columns and
    /// slots set before it (see ``earlyFilters(_:)``): the cursor tests them on each candidate row
    /// after decoding only the columns they read, and yields only the rows that pass.
    init(
        reader: TableReader, path: AccessPath, base: Int, used: Set<Int>, filters: [CompiledExpression] = [],
        documentColumns: Set<Int> = [], nested: Bool = false
    ) {
        self.reader = reader
        self.nested = nested
        var (byteFilters, byteConstants) = Self.rawFilters(
            filters.map(Condition.init), base: base, table: reader.table)
        self.path = path
        self.base = base
        columnCount = reader.table.columns.count
        rowidAlias = reader.table.rowidAlias
        defaults = reader.defaults
        tree = reader.tree
        descending = path.descending
        switch path.method {
        case .scan: method = .scan
        case .rowids: method = .rowids
        case .rowidRange: method = .rowidRange
        case .index: method = .index
        }
        if case .rowids(let values) = path.method { rowidValues = values } else { rowidValues = [] }
        if rowidValues.count == 1, rowidValues[0].prelude.isEmpty, case .parameter(let index) = rowidValues[0].root {
            rowidParameter = index
        } else {
            rowidParameter = 0
        }
        if case .index(let search) = path.method { covering = search.covering } else { covering = false }
        let alias = reader.table.rowidAlias
        let needed = used.filter { $0 < reader.table.columns.count && $0 != alias }.sorted()
        self.needed = needed
        self.filters = filters.map(Condition.init)
        var coversAll = false
        if case .index(let search) = path.method { coversAll = search.covering }
        let documents = coversAll ? [] : needed.filter { documentColumns.contains($0) }
        self.documentColumns = documents
        for k in byteFilters.indices where byteFilters[k].located != nil {
            byteFilters[k].document = documents.firstIndex(of: byteFilters[k].column)
        }
        rawFilters = byteFilters
        rawConstants = byteConstants
        documentsBeforeRawFilters = byteFilters.contains { $0.document != nil }
        let decoded = needed.filter { !documents.contains($0) }
        if filters.isEmpty {
            firstColumns = decoded
            restColumns = []
        } else {
            var read = Set<Int>()
            for filter in filters { read.formUnion(filter.readSlots ?? []) }
            firstColumns = decoded.filter { read.contains(base + $0) }
            restColumns = decoded.filter { !read.contains(base + $0) }
        }
        firstLimit = max(firstColumns.last ?? -1, documents.last ?? -1) + 1
        restLimit = max(firstLimit, (restColumns.last ?? -1) + 1)
        var covering: [(Int, Int, Bool)] = []
        if case .index(let search) = path.method, search.covering {
            for (k, column) in reader.indexes[search.index].definition.columns.enumerated() {
                if case .column(let c) = column.target, used.contains(c) {
                    covering.append((k, c, reader.table.columns[c].affinity == .real))
                }
            }
        }
        coveringColumns = covering
        if case .index(let search) = path.method {
            let definition = reader.indexes[search.index].definition
            indexRules = definition.columns.indices.map { Self.columnRule(reader, definition, $0) }
        } else {
            indexRules = []
        }
    }

    /// The constant operand of each of ``rawFilters`` (NULL for a parameter).
    let rawConstants: [Value]

    deinit {
        for operand in rawOperands { operand.start?.deallocate() }
    }

    /// The cursor over the table tree that index entries are looked up in (made on first use), and an unmanaged
    /// reference to it.
    @exclusivity(unchecked) var rowCursor: TreeCursor?
    @exclusivity(unchecked) var rowCursorReference: Unmanaged<TreeCursor>?

    private static func columnRule(_ reader: TableReader, _ index: IndexDefinition, _ position: Int) -> (
        SQLAffinity, SQLCollation
    ) {
        let column = index.columns[position]
        let collation = SQLCollation(name: column.collation ?? "BINARY") ?? .binary
        guard case .column(let c) = column.target else { return (.blob, collation) }
        return (reader.table.columns[c].affinity, collation)
    }

    /// The conditions among `filters` (a level's, which read this table and earlier ones) that the cursor can
    /// test itself (see ``init(reader:path:base:used:filters:)``): those that read named slots only (no
    /// subquery, which may read any slot, nor aggregate). The others are returned in `rest`, in their order.
    static func earlyFilters(_ filters: [CompiledExpression]) -> (
        early: [CompiledExpression], rest: [CompiledExpression]
    ) {
        var early: [CompiledExpression] = []
        var rest: [CompiledExpression] = []
        for filter in filters {
            if filter.readSlots != nil { early.append(filter) } else { rest.append(filter) }
        }
        return (early, rest)
    }

    /// Advances to the next row that passes ``filters`` and writes its needed columns and rowid into
    /// `context.row`; false when done.
    func next(_ context: inout EvaluationContext) throws -> Bool {
        if filters.isEmpty { return try step(&context.row) }
        while try step(&context.row) {
            if try passesFilters(&context) {
                try loadRest(&context.row)
                return true
            }
        }
        return false
    }

    /// Whether the current row passes the ``filters`` its byte test (see ``rawFilters``) did not already pass.
    @inline(__always)
    private func passesFilters(_ context: inout EvaluationContext) throws -> Bool {
        let filters = self.filters
        for k in rawPassed..<filters.count where !(try filters[k].isTrue(&context)) { return false }
        return true
    }

    /// Sets every slot of the table to NULL (the row of an unmatched `LEFT JOIN`).
    func writeNulls(_ row: inout [Value]) {
        for k in 0...columnCount { row[base + k] = .null }
        forgetDocuments(&row)
    }

    /// Makes the ``documents`` read their slots, which hold NULL (the NULL row of an unmatched `LEFT JOIN`).
    func forgetDocuments(_ row: inout [Value]) {
        for document in documents { document.set(.null, into: &row) }
    }
}
