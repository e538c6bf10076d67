import GraniteStorage

/// One side of a key range: the bounding value (evaluated when the cursor opens) and whether it is excluded.
struct KeyBound {
    var value: CompiledExpression
    var strict: Bool
}

/// An index search: equality values on leading columns, then an optional range on the next one.
struct IndexSearch {
    /// The position of the index in ``TableReader/indexes``.
    var index: Int
    /// For each leading column, the values it may equal (more than one for an `IN` list).
    var equalities: [[CompiledExpression]]
    /// Lower bounds on the column after the equalities.
    var lows: [KeyBound] = []
    /// Upper bounds on the column after the equalities.
    var highs: [KeyBound] = []
    /// Whether the index holds every column the query reads (the table row is not fetched).
    var covering = false
}

/// How one table of a query produces its candidate rows.
///
/// A path only narrows the candidates: it yields every row that can satisfy the conditions it was built from
/// (possibly more), and the executor still evaluates every condition.
enum AccessMethod {
    /// Every row, in rowid order.
    case scan
    /// The rows whose rowid equals one of the values.
    case rowids([CompiledExpression])
    /// The rows whose rowid is within the bounds.
    case rowidRange(lows: [KeyBound], highs: [KeyBound])
    /// The rows found through an index, in index order.
    case index(IndexSearch)
}

/// A chosen access method, its direction, and its `EXPLAIN QUERY PLAN` line.
struct AccessPath {
    var method: AccessMethod
    /// Whether rows come in descending key order.
    var descending = false
    /// E.g. `SEARCH t USING INDEX t_a (a=?)`.
    var detail: String
}

/// The storage objects a query reads for one table.
struct TableReader {
    let table: TableDefinition
    /// The table tree; nil for `granite_schema` in a database that has no schema yet.
    let tree: TableTree?
    /// The indexes on the table, in the order the catalog lists them.
    let indexes: [(definition: IndexDefinition, tree: IndexTree)]
    /// The column defaults, for rows stored before `ALTER TABLE ADD COLUMN`.
    let defaults: [Value]

    init(table: TableDefinition, catalog: SchemaCatalog, engine: StorageEngine) throws {
        self.table = table
        if table.storageName == SchemaCatalog.schemaTableName {
            tree =
                try engine.treeInfo(named: table.storageName) == nil ? nil : try engine.table(named: table.storageName)
        } else {
            tree = try engine.table(named: table.storageName)
        }
        indexes = try catalog.indexes(on: table.name).map { ($0, try engine.index(named: $0.storageName)) }
        var defaults: [Value] = []
        for column in table.columns {
            guard let expression = column.defaultValue else {
                defaults.append(.null)
                continue
            }
            var context = EvaluationContext()
            let compiled = try? ExpressionCompiler.compile(expression, resolver: EmptyColumnResolver())
            let value = (try? compiled?.evaluate(&context)) ?? nil
            defaults.append(column.affinity.apply(to: value ?? .null))
        }
        self.defaults = defaults
    }
}

/// Conversions between SQL values and the keys the storage trees are searched with.
enum AccessKeys {
    /// The rowid equal to `value` under SQLite's comparison with an INTEGER column, or nil when no integer is.
    static func rowid(_ value: Value) -> Int64? {
        if case .integer(let i) = value { return i }
        switch SQLAffinity.numeric.apply(to: value) {
        case .integer(let i): return i
        case .real(let d) where d == -9_223_372_036_854_775_808.0: return Int64.min
        default: return nil
        }
    }

    enum Bound {
        case bound(Int64)
        case empty
        case none
    }

    private static let twoTo63 = 9_223_372_036_854_775_808.0

    /// The smallest rowid that can be `>` (or `>=`) `value`.
    static func lowerRowid(_ value: Value, strict: Bool) -> Bound {
        switch SQLAffinity.numeric.apply(to: value) {
        case .integer(let i):
            if strict { return i == Int64.max ? .empty : .bound(i + 1) }
            return .bound(i)
        case .real(let d) where !d.isNaN:
            if d >= twoTo63 { return .empty }
            if d < -twoTo63 { return .none }
            let up = d.rounded(.up)
            if strict && up == d { return up + 1 >= twoTo63 ? .empty : .bound(Int64(up) + 1) }
            return .bound(Int64(up))
        case .null:
            return .empty
        default:
            // TEXT and BLOB sort after every number.
            return .empty
        }
    }

    /// The largest rowid that can be `<` (or `<=`) `value`.
    static func upperRowid(_ value: Value, strict: Bool) -> Bound {
        switch SQLAffinity.numeric.apply(to: value) {
        case .integer(let i):
            if strict { return i == Int64.min ? .empty : .bound(i - 1) }
            return .bound(i)
        case .real(let d) where !d.isNaN:
            if d < -twoTo63 { return .empty }
            if d >= twoTo63 { return .none }
            let down = d.rounded(.down)
            if strict && down == d { return down - 1 < -twoTo63 ? .empty : .bound(Int64(down) - 1) }
            return .bound(Int64(down))
        case .null:
            return .empty
        default:
            return .none
        }
    }

    /// The encoded key of `value` compared with an indexed column of `affinity` under `collation`, as SQLite
    /// converts it (the column's affinity applied to the value); nil when the index cannot be searched with it.
    static func indexValue(_ value: Value, affinity: SQLAffinity, collation: SQLCollation) -> [UInt8]? {
        var v = value
        switch affinity {
        case .integer, .real, .numeric:
            v = SQLAffinity.numeric.apply(to: value)
            switch v {
            case .integer: break
            case .real(let d) where !d.isNaN: break
            default: return nil
            }
        case .text:
            v = SQLAffinity.text.apply(to: value)
            guard case .text = v else { return nil }
        case .blob:
            switch v {
            case .null: return nil
            case .real(let d) where d.isNaN: return nil
            default: break
            }
        }
        v = collation.keyForm(v)
        var bytes: [UInt8] = []
        KeyEncoding.append(v, to: &bytes)
        return bytes
    }
}

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
    /// plain TEXT and the operand is TEXT: a row they reject is skipped before any column is decoded.
    private let rawFilters: [RawFilter]
    /// For each of ``rawFilters``, its operand's UTF-8 bytes in this execution (inactive when the operand is not
    /// TEXT: the filter is then tested the general way). The bytes are owned by the cursor.
    @exclusivity(unchecked) private var rawOperands: [RawOperand] = []
    /// For each of ``rawFilters``, the text its operand's bytes were made of, to reuse them.
    @exclusivity(unchecked) private var rawOperandTexts: [String?] = []
    /// How many of ``filters`` (leading ones) the current row was found to pass by their byte test.
    @exclusivity(unchecked) private var rawPassed = 0
    /// The columns decoded before ``filters`` are tested (all of ``needed`` when there are no filters).
    private let firstColumns: [Int]
    /// The columns decoded once a row passes ``filters``.
    private let restColumns: [Int]
    /// The cursor whose current row still has ``restColumns`` to decode, if any (one of this cursor's own tree
    /// cursors, which it keeps alive).
    @exclusivity(unchecked) private unowned(unsafe) var pendingRest: TreeCursor?
    /// The bytes of that row when the page holds all of them: still valid when the rest is decoded, since only
    /// ``filters`` run in between, which read no tree.
    @exclusivity(unchecked) private var pendingBytes: UnsafeRawBufferPointer?
    /// One past the last of ``firstColumns`` and of ``restColumns``: the row header is parsed that far only.
    private let firstLimit: Int
    private let restLimit: Int
    /// The column limit of the decoder's current row.
    @exclusivity(unchecked) private var decoderLimit = 0
    /// For a covering index search: (position in the index key, column) pairs.
    private let coveringColumns: [(key: Int, column: Int, real: Bool)]
    private let columnCount: Int
    private let rowidAlias: Int?
    private let defaults: [Value]
    private let tree: TableTree?
    private let descending: Bool
    /// The access method without its payload, so that stepping does not copy (and retain) the payload.
    private enum Method { case scan, rowids, rowidRange, index }
    private let method: Method
    /// For an index search: the affinity and collation keys are built with, per index column.
    private let indexRules: [(SQLAffinity, SQLCollation)]
    /// The rowid values of a `.rowids` method.
    private let rowidValues: [CompiledExpression]
    /// For `rowid = ?` (a `.rowids` method of one value that is a bare parameter): the parameter's index, read
    /// directly when the cursor opens; 0 otherwise.
    private let rowidParameter: Int
    /// Whether an index search reads every needed column from the index (``IndexSearch/covering``), kept apart
    /// so that stepping does not copy the search.
    private let covering: Bool

    @exclusivity(unchecked) private var decoder = RowDecoder()
    @exclusivity(unchecked) private var cursor: TreeCursor?
    @exclusivity(unchecked) private var rowids: [Int64] = []
    /// The rowid of a `.rowids` method of one value (nil when the value is no integer), kept out of ``rowids``
    /// so that opening the cursor writes no array.
    @exclusivity(unchecked) private var singleRowid: Int64?
    @exclusivity(unchecked) private var rowidPosition = 0
    @exclusivity(unchecked) private var range: (low: Int64?, high: Int64?) = (nil, nil)
    @exclusivity(unchecked) private var prefixes: [[UInt8]] = []
    @exclusivity(unchecked) private var prefixPosition = 0
    /// Whether `prefixes[prefixPosition]` is empty (no equality columns).
    @exclusivity(unchecked) private var prefixIsEmpty = true
    @exclusivity(unchecked) private var low: [UInt8]?
    @exclusivity(unchecked) private var high: [UInt8]?
    @exclusivity(unchecked) private var lowKey: [UInt8] = []
    @exclusivity(unchecked) private var highKey: [UInt8]?
    @exclusivity(unchecked) private var exhausted = true
    @exclusivity(unchecked) private var positioned = false

    /// A cursor over `reader`'s table through `path`, writing the `used` columns (relative positions) into the
    /// slots from `base`. `filters` are conditions of the query that read nothing but this table's columns and
    /// slots set before it (see ``earlyFilters(_:)``): the cursor tests them on each candidate row
    /// after decoding only the columns they read, and yields only the rows that pass.
    init(reader: TableReader, path: AccessPath, base: Int, used: Set<Int>, filters: [CompiledExpression] = []) {
        self.reader = reader
        (rawFilters, rawConstants) = Self.rawFilters(filters.map(Condition.init), base: base, table: reader.table)
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
        if filters.isEmpty {
            firstColumns = needed
            restColumns = []
        } else {
            var read = Set<Int>()
            for filter in filters { read.formUnion(filter.readSlots ?? []) }
            firstColumns = needed.filter { read.contains(base + $0) }
            restColumns = needed.filter { !read.contains(base + $0) }
        }
        firstLimit = (firstColumns.last ?? -1) + 1
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

    /// Positions the cursor before its first row; `context.row` holds the values of the earlier tables.
    func open(_ context: inout EvaluationContext) throws {
        exhausted = tree == nil
        if !rawFilters.isEmpty { setRawOperands(context) }
        positioned = false
        if method == .rowids && rowidValues.count == 1 {
            // `rowid = ?`, the common case: no set to deduplicate and nothing to sort.
            rowidPosition = 0
            let value = rowidParameter > 0 ? context.parameters[rowidParameter] : try rowidValues[0].evaluate(&context)
            singleRowid = AccessKeys.rowid(value)
            return
        }
        switch path.method {
        case .scan:
            range = (nil, nil)
        case .rowids(let values):
            // One value is handled above.
            rowidPosition = 0
            var set = Set<Int64>()
            for value in values {
                if let rowid = AccessKeys.rowid(try value.evaluate(&context)) { set.insert(rowid) }
            }
            rowids = set.sorted()
            if path.descending { rowids.reverse() }
        case .rowidRange(let lows, let highs):
            var low: Int64?
            var high: Int64?
            for bound in lows {
                switch AccessKeys.lowerRowid(try bound.value.evaluate(&context), strict: bound.strict) {
                case .bound(let b): low = max(low ?? b, b)
                case .empty: exhausted = true
                case .none: break
                }
            }
            for bound in highs {
                switch AccessKeys.upperRowid(try bound.value.evaluate(&context), strict: bound.strict) {
                case .bound(let b): high = min(high ?? b, b)
                case .empty: exhausted = true
                case .none: break
                }
            }
            if let low, let high, low > high { exhausted = true }
            range = (low, high)
        case .index(let search):
            try openIndex(search, &context)
        }
    }

    private func openIndex(_ search: IndexSearch, _ context: inout EvaluationContext) throws {
        var prefixes: [[UInt8]] = [[]]
        var complete = true
        for (position, values) in search.equalities.enumerated() {
            let (affinity, collation) = indexRules[position]
            var keys: [[UInt8]] = []
            for value in values {
                let v = try value.evaluate(&context)
                if v.isNull { continue }  // `= NULL` never matches
                guard let key = AccessKeys.indexValue(v, affinity: affinity, collation: collation) else {
                    complete = false
                    break
                }
                keys.append(key)
            }
            if !complete { break }
            if keys.isEmpty {
                exhausted = true
                return
            }
            let unique = Set(keys).sorted { $0.lexicographicallyPrecedes($1) }
            prefixes = prefixes.flatMap { p in unique.map { p + $0 } }
        }
        low = nil
        high = nil
        if complete, search.equalities.count < indexRules.count {
            let (affinity, collation) = indexRules[search.equalities.count]
            for bound in search.lows {
                let v = try bound.value.evaluate(&context)
                if v.isNull {
                    exhausted = true
                    return
                }
                guard let key = AccessKeys.indexValue(v, affinity: affinity, collation: collation) else { continue }
                if low.map({ $0.lexicographicallyPrecedes(key) }) ?? true { low = key }
            }
            for bound in search.highs {
                let v = try bound.value.evaluate(&context)
                if v.isNull {
                    exhausted = true
                    return
                }
                guard let key = AccessKeys.indexValue(v, affinity: affinity, collation: collation) else { continue }
                if high.map({ key.lexicographicallyPrecedes($0) }) ?? true { high = key }
            }
            // Numbers never compare equal to NULL: skip the NULL entries when only an upper bound is given.
            if low == nil, high != nil { low = [KeyEncoding.nullTag + 1] }
        }
        self.prefixes = path.descending ? prefixes.reversed() : prefixes
        prefixPosition = 0
        if cursor == nil { cursor = try reader.indexes[search.index].tree.makeCursor() }
    }

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

    /// A filter tested on the encoded row (see ``rawFilters``).
    private struct RawFilter {
        let op: SQLComparisonOperator
        /// The column (relative position).
        let column: Int
        let collation: SQLCollation
        /// The operand: a parameter index, or −1 for ``TableCursor/rawConstants``' entry.
        let parameter: Int
    }

    /// The UTF-8 bytes of a ``RawFilter``'s operand.
    private struct RawOperand {
        var start: UnsafeMutableRawPointer?
        var count = 0
        var active = false
    }

    /// The constant operand of each of ``rawFilters`` (NULL for a parameter).
    private let rawConstants: [Value]

    deinit {
        for operand in rawOperands { operand.start?.deallocate() }
    }

    /// The leading `conditions` that can be tested on the encoded row (see ``rawFilters``), with their constants:
    /// a column of the table (not the rowid nor its alias) compared with a parameter or constant, under an
    /// affinity that leaves TEXT unchanged, so that a TEXT column against a TEXT operand compares their UTF-8
    /// bytes under the collation, as ``SQLComparison/evaluate(_:_:_:leftAffinity:rightAffinity:collation:)``
    /// does.
    private static func rawFilters(_ conditions: [Condition], base: Int, table: TableDefinition) -> (
        [RawFilter], [Value]
    ) {
        var filters: [RawFilter] = []
        var constants: [Value] = []
        for condition in conditions {
            let op: SQLComparisonOperator
            let slot: Int
            let rule: ComparisonRule
            var parameter = -1
            var constant = Value.null
            switch condition {
            case .columnParameter(let o, let s, let index, let r):
                (op, slot, rule, parameter) = (o, s, r, index)
            case .columnConstant(let o, let s, let value, let r):
                (op, slot, rule, constant) = (o, s, r, value)
            case .general:
                return (filters, constants)
            }
            let column = slot - base
            guard column >= 0, column < table.columns.count, column != table.rowidAlias else {
                return (filters, constants)
            }
            if let affinity = SQLComparison.comparisonAffinity(rule.leftAffinity, rule.rightAffinity),
                affinity.isNumeric
            {
                return (filters, constants)
            }
            filters.append(RawFilter(op: op, column: column, collation: rule.collation, parameter: parameter))
            constants.append(constant)
        }
        return (filters, constants)
    }

    /// Sets ``rawOperands`` for an execution with `context`'s parameters.
    private func setRawOperands(_ context: EvaluationContext) {
        if rawOperands.count != rawFilters.count {
            rawOperands = Array(repeating: RawOperand(), count: rawFilters.count)
            rawOperandTexts = Array(repeating: nil, count: rawFilters.count)
        }
        for k in rawFilters.indices {
            let filter = rawFilters[k]
            let value = filter.parameter >= 0 ? context.parameters[filter.parameter] : rawConstants[k]
            guard case .text(let text) = value else {
                rawOperands[k].active = false
                continue
            }
            rawOperands[k].active = true
            // Compared by their bytes: `==` would take canonically equivalent texts (é and e + U+0301) for equal.
            if let old = rawOperandTexts[k], old.utf8.elementsEqual(text.utf8) { continue }
            rawOperandTexts[k] = text
            rawOperands[k].start?.deallocate()
            var source = text
            let count = source.utf8.count
            let start = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 8)
            source.withUTF8 { if let base = $0.baseAddress { start.copyMemory(from: base, byteCount: count) } }
            rawOperands[k].start = start
            rawOperands[k].count = count
        }
    }

    /// Tests the leading ``rawFilters`` on the encoded row `raw`, as far as their byte test decides them (the
    /// column holds plain ASCII TEXT, the header up to ``firstLimit`` is well formed, the operand is TEXT); sets
    /// ``rawPassed``. False when the row fails one.
    @inline(__always)
    private func passesRawFilters(_ raw: UnsafeRawBufferPointer) -> Bool {
        rawPassed = 0
        let limit = firstLimit
        for k in 0..<rawFilters.count {
            let filter = rawFilters[k]
            let operand = rawOperands[k]
            guard operand.active, let (serialType, bytes) = RowDecoder.locate(raw, column: filter.column, limit: limit),
                serialType >= 12, (serialType - 12) % 3 == 0, CodecBytes.isASCII(bytes)
            else { return true }
            let holds: Bool
            if filter.collation == .binary && bytes.count != operand.count
                && (filter.op == .equal || filter.op == .is)
            {
                holds = false
            } else {
                let c = filter.collation.compareBytes(
                    bytes.assumingMemoryBound(to: UInt8.self),
                    UnsafeBufferPointer(start: operand.start?.assumingMemoryBound(to: UInt8.self), count: operand.count)
                )
                switch filter.op {
                case .equal, .is: holds = c == 0
                case .notEqual, .isNot: holds = c != 0
                case .less: holds = c < 0
                case .lessOrEqual: holds = c <= 0
                case .greater: holds = c > 0
                case .greaterOrEqual: holds = c >= 0
                }
            }
            if !holds { return false }
            rawPassed = k + 1
        }
        return true
    }

    /// Decodes the columns of the current row left out before its filters were tested.
    private func loadRest(_ row: inout [Value]) throws {
        guard let cursor = pendingRest else { return }
        pendingRest = nil
        if let raw = try pendingBytes ?? cursor.localPayload() {
            // The decoder still holds the row when its bytes are the same (nothing moved them since) and it
            // parsed the header far enough.
            if raw.baseAddress != decoder.buffer.baseAddress || raw.count != decoder.buffer.count
                || decoderLimit < restLimit
            {
                try decoder.reset(raw, columnLimit: restLimit)
                decoderLimit = restLimit
            }
            try decode(restColumns, &row)
        } else {
            try cursor.withPayload { raw in
                try decoder.reset(raw, columnLimit: restLimit)
                decoderLimit = restLimit
                try decode(restColumns, &row)
            }
        }
    }

    /// Advances to the next candidate row and writes its rowid and first columns into `row`; false when done.
    private func step(_ row: inout [Value]) throws -> Bool {
        if exhausted { return false }
        rawPassed = 0
        switch method {
        case .scan, .rowidRange:
            guard let cursor = try tableTreeCursor() else { return false }
            while true {
                var valid: Bool
                if !positioned {
                    positioned = true
                    if descending {
                        if let high = range.high {
                            valid = try cursor.seek(atOrAfter: high)
                            if valid, cursor.rowid > high {
                                valid = try cursor.previous()
                            } else if !valid {
                                valid = try cursor.last()
                            }
                        } else {
                            valid = try cursor.last()
                        }
                    } else {
                        valid = try range.low.map { try cursor.seek(atOrAfter: $0) } ?? (try cursor.first())
                    }
                } else {
                    valid = descending ? try cursor.previous() : try cursor.next()
                }
                if valid {
                    if descending, let low = range.low, cursor.rowid < low { valid = false }
                    if !descending, let high = range.high, cursor.rowid > high { valid = false }
                }
                guard valid else {
                    exhausted = true
                    return false
                }
                if try load(cursor, &row) { return true }
            }
        case .rowids:
            guard let cursor = try tableTreeCursor() else { return false }
            if rowidValues.count == 1 {
                if rowidPosition == 0, let rowid = singleRowid {
                    rowidPosition = 1
                    // The row may still fail a filter tested on its bytes (``load(_:_:)`` returns false).
                    if try cursor.seek(rowid: rowid), try load(cursor, &row) { return true }
                }
                exhausted = true
                return false
            }
            while rowidPosition < rowids.count {
                let rowid = rowids[rowidPosition]
                rowidPosition += 1
                if try cursor.seek(rowid: rowid), try load(cursor, &row) { return true }
            }
            exhausted = true
            return false
        case .index:
            guard let cursor else { return false }
            while prefixPosition < prefixes.count {
                var valid: Bool
                if !positioned {
                    let prefix = prefixes[prefixPosition]
                    prefixIsEmpty = prefix.isEmpty
                    positioned = true
                    lowKey = prefix + (low ?? [])
                    highKey = high.map { prefix + $0 }
                    if descending {
                        // Just above the keys to visit. Without an upper bound: the first key whose number continues
                        // the prefix's last value with a fraction (another value), which sorts after every key that
                        // continues the prefix with a tag (at most 0x40). With one: above every key starting with the
                        // bound, which continues with a tag or a fraction 0xFF ‹8 bytes, not all 0xFF›.
                        let sentinel =
                            highKey == nil && !prefix.isEmpty
                            ? prefix + [KeyEncoding.fractionMarker]
                            : (highKey ?? prefix) + [UInt8](repeating: 0xFF, count: 10)
                        valid = try cursor.seek(atOrAfter: sentinel)
                        valid = valid ? try cursor.previous() : try cursor.last()
                    } else {
                        valid = try cursor.seek(atOrAfter: lowKey)
                    }
                } else {
                    valid = descending ? try cursor.previous() : try cursor.next()
                }
                if valid {
                    let key = cursor.key
                    // The prefix is read only when there is one (reading the array element retains it). A key whose
                    // number continues the prefix with a fraction holds another value, and so does every later key.
                    if !prefixIsEmpty && !KeyEncoding.startsWithValues(key, prefixes[prefixPosition]) {
                        valid = false
                    } else if descending {
                        if low != nil, key.lexicographicallyPrecedes(lowKey) { valid = false }
                    } else if let highKey, highKey.lexicographicallyPrecedes(key), !key.starts(with: highKey) {
                        valid = false
                    }
                    if valid {
                        if try loadFromIndex(key, &row) { return true }
                        continue
                    }
                }
                prefixPosition += 1
                positioned = false
            }
            exhausted = true
            return false
        }
    }

    /// The cursor over the table tree (made on first use); nil when the table has no tree.
    private func tableTreeCursor() throws -> TreeCursor? {
        if let cursor { return cursor }
        guard let tree else { return nil }
        let made = try tree.makeCursor()
        cursor = made
        return made
    }

    /// Writes the rowid and first columns of `cursor`'s current row into `row`; false, writing nothing, when the
    /// row fails one of the ``rawFilters``.
    private func load(_ cursor: TreeCursor, _ row: inout [Value]) throws -> Bool {
        // Read once: the byte tests and the decoder use the same local payload.
        let raw = rawFilters.isEmpty && firstColumns.isEmpty ? nil : try cursor.localPayload()
        // The byte tests come first: a row they reject costs no decoded value.
        if !rawFilters.isEmpty, let raw, !passesRawFilters(raw) { return false }
        let rowid = cursor.rowid
        row[base + columnCount] = .integer(rowid)
        if let alias = rowidAlias { row[base + alias] = .integer(rowid) }
        if !restColumns.isEmpty {
            pendingRest = cursor
            pendingBytes = nil
        }
        guard !firstColumns.isEmpty else {
            // The decoder holds an earlier row: make ``loadRest(_:)`` load this one whatever its address.
            decoderLimit = 0
            return true
        }
        if let raw {
            if !restColumns.isEmpty { pendingBytes = raw }
            try decodeFirst(raw, &row)
        } else {
            try cursor.withPayload { try decodeFirst($0, &row) }
        }
        return true
    }

    /// Loads the encoded row `raw` into the decoder (its header up to ``firstLimit``) and writes ``firstColumns``.
    private func decodeFirst(_ raw: UnsafeRawBufferPointer, _ row: inout [Value]) throws {
        try decoder.reset(raw, columnLimit: firstLimit)
        decoderLimit = firstLimit
        try decode(firstColumns, &row)
    }

    /// Writes `columns` of the decoder's row into `row`.
    @inline(__always)
    private func decode(_ columns: [Int], _ row: inout [Value]) throws {
        // Local copies: reading the stored decoder for each column would retain and release its storage.
        let decoder = self.decoder
        let count = decoder.count
        let base = self.base
        for c in columns {
            row[base + c] = c < count ? try decoder.value(at: c) : defaults[c]
        }
    }

    /// Loads the row of the index entry `key` (the index cursor's current one); false when the entry's row is
    /// missing (a damaged index).
    private func loadFromIndex(_ key: [UInt8], _ row: inout [Value]) throws -> Bool {
        if covering {
            let values = try KeyEncoding.decode(key)
            guard case .integer(let rowid)? = values.last else {
                throw StorageError.corrupt(page: 0, "index entry without a rowid")
            }
            row[base + columnCount] = .integer(rowid)
            for (key, column, real) in coveringColumns where key < values.count - 1 {
                var v = values[key]
                if real, case .integer(let i) = v { v = .real(Double(i)) }
                row[base + column] = v
            }
            if let alias = rowidAlias { row[base + alias] = .integer(rowid) }
            return true
        }
        guard let rowid = try key.withUnsafeBytes({ try KeyEncoding.trailingInteger($0) }) else {
            throw StorageError.corrupt(page: 0, "index entry without a rowid")
        }
        // Through the unmanaged reference: a strong one would be retained and released for each row.
        return try tableCursor()._withUnsafeGuaranteedRef { tableCursor in
            guard try tableCursor.seek(rowid: rowid) else { return false }
            return try load(tableCursor, &row)
        }
    }

    /// The cursor over the table tree that index entries are looked up in (made on first use), and an unmanaged
    /// reference to it.
    @exclusivity(unchecked) private var rowCursor: TreeCursor?
    @exclusivity(unchecked) private var rowCursorReference: Unmanaged<TreeCursor>?
    @inline(__always)
    private func tableCursor() throws -> Unmanaged<TreeCursor> {
        if let rowCursorReference { return rowCursorReference }
        guard let tree else { throw StorageError.corrupt(page: 0, "index without a table") }
        let c = try tree.makeCursor()
        rowCursor = c
        rowCursorReference = Unmanaged.passUnretained(c)
        return rowCursorReference!
    }

    /// Sets every slot of the table to NULL (the row of an unmatched `LEFT JOIN`).
    func writeNulls(_ row: inout [Value]) {
        for k in 0...columnCount { row[base + k] = .null }
    }
}
