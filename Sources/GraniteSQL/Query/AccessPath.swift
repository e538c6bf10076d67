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
    /// The table tree; nil for `granite_schema` in a database that has no schema yet (or a connection that has no
    /// temporary schema, for `sqlite_temp_master`).
    let tree: TableTree?
    /// The indexes on the table, in the order the catalog lists them.
    let indexes: [(definition: IndexDefinition, tree: IndexTree)]
    /// The column defaults, for rows stored before `ALTER TABLE ADD COLUMN`.
    let defaults: [Value]
    /// The indexes the table may be read through, from the reference's `INDEXED BY` / `NOT INDEXED`.
    var restriction = IndexRestriction.any

    /// `transaction` is nil only for the temporary schema's table of a connection that has none: it reads no row.
    init(table: TableDefinition, catalog: SchemaCatalog, transaction: StorageTransaction?) throws {
        self.table = table
        guard let transaction else {
            guard table.storageName == SchemaCatalog.schemaTableName else { throw StorageError.noActiveTransaction }
            tree = nil
            indexes = []
            defaults = table.columns.map { _ in .null }
            return
        }
        if table.storageName == SchemaCatalog.schemaTableName {
            let exists = try transaction.treeInfo(named: table.storageName) != nil
            tree = exists ? try transaction.table(named: table.storageName) : nil
        } else {
            tree = try transaction.table(named: table.storageName)
        }
        indexes = try catalog.indexes(of: table).map { ($0, try transaction.index(named: $0.storageName)) }
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
        var bytes: [UInt8] = []
        return appendIndexValue(value, affinity: affinity, collation: collation, to: &bytes) ? bytes : nil
    }

    /// Appends ``indexValue(_:affinity:collation:)`` to `key` and returns true; returns false, appending nothing,
    /// when the index cannot be searched with `value`.
    static func appendIndexValue(
        _ value: Value, affinity: SQLAffinity, collation: SQLCollation, to key: inout [UInt8]
    ) -> Bool {
        var v = value
        switch affinity {
        case .integer, .real, .numeric:
            v = SQLAffinity.numeric.apply(to: value)
            switch v {
            case .integer: break
            case .real(let d) where !d.isNaN: break
            default: return false
            }
        case .text:
            v = SQLAffinity.text.apply(to: value)
            guard v.isText else { return false }
        case .blob:
            switch v {
            case .null: return false
            case .real(let d) where d.isNaN: return false
            default: break
            }
        }
        KeyEncoding.append(collation.keyForm(v), to: &key)
        return true
    }
}
