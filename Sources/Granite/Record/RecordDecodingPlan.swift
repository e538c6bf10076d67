import Foundation

/// Where the coding keys of a Decodable record read their columns in the rows of one statement, and how each
/// value decodes: resolved on the statement's first row, reused by the following ones.
///
/// Without a plan, every key of every row searches the row's column names (case-insensitively) and every
/// value asks the runtime whether its type conforms to ``StatementColumnConvertible``; a plan keeps both
/// answers. A plan belongs to one row layout (one statement) and one record decoding (the keyed container's
/// type and column strategy), and is only used for the current row of a running statement: that row is used
/// by one thread at a time, so the plan needs no lock.
final class RecordDecodingPlan {
    /// The decoding this plan serves: the keyed container's type, and whether keys are column names as is.
    let owner: ObjectIdentifier
    let usesDefaultKeys: Bool
    /// The keys seen so far, in the order the record decodes them (synthesized `init(from:)` decodes them in
    /// declaration order, so the next key is almost always the entry after the last one).
    /// Unchecked exclusivity: only the current row's decoding reaches the plan (see above).
    @exclusivity(unchecked) private(set) var entries: [Entry] = []

    struct Entry {
        let key: String
        /// The column of the key.
        let index: Int
        /// The type the record last decoded from this key, and how that type decodes.
        var valueType: ObjectIdentifier?
        var valueKind: ColumnValueKind = .other
    }

    init(owner: ObjectIdentifier, usesDefaultKeys: Bool) {
        self.owner = owner
        self.usesDefaultKeys = usesDefaultKeys
    }

    /// The position of `key`'s entry, looked for at `expected` first; nil when the key has no entry yet.
    func position(of key: String, expected: Int) -> Int? {
        if expected < entries.count, entries[expected].key == key { return expected }
        return entries.firstIndex { $0.key == key }
    }

    /// Adds the entry of a key found at column `index`, and returns its position.
    func append(key: String, index: Int) -> Int {
        entries.append(Entry(key: key, index: index))
        return entries.count - 1
    }

    /// How a value of type `T` decodes from the entry at `position`, resolved once per entry and type.
    func valueKind<T>(at position: Int, for type: T.Type) -> ColumnValueKind {
        let typeID = ObjectIdentifier(T.self)
        if entries[position].valueType == typeID { return entries[position].valueKind }
        let kind = ColumnValueKind(T.self)
        entries[position].valueType = typeID
        entries[position].valueKind = kind
        return kind
    }
}

extension RowLayout {
    /// The decoding plan of `owner` for the rows of this layout, made when `owner` decodes a second row; nil
    /// for the first one: a statement that returns a single row (a fetch by key) would pay for a plan it never
    /// uses. A layout keeps one plan: a row decoded as two different records alternates plans, and stays
    /// correct.
    func recordDecodingPlan(owner: ObjectIdentifier, usesDefaultKeys: Bool) -> RecordDecodingPlan? {
        if let plan = decodingPlan, plan.owner == owner, plan.usesDefaultKeys == usesDefaultKeys { return plan }
        guard decodingPlanCandidate == owner else {
            decodingPlanCandidate = owner
            return nil
        }
        let plan = RecordDecodingPlan(owner: owner, usesDefaultKeys: usesDefaultKeys)
        decodingPlan = plan
        return plan
    }
}

/// How a Decodable value type reads a column: through the record's Data or Date strategy, through the
/// `StatementColumnConvertible` fast path, through `DatabaseValueConvertible`, or otherwise (its own
/// `init(from:)`, JSON).
enum ColumnValueKind {
    case data
    case date
    // The common column types, decoded by specialized code: the generic paths below pay a runtime metadata
    // lookup (the value's Optional type) on every value.
    case int
    case int64
    case double
    case bool
    case string
    case uuid
    case fast(any (DatabaseValueConvertible & StatementColumnConvertible).Type)
    case value(any DatabaseValueConvertible.Type)
    case other

    init<T>(_ type: T.Type) {
        if T.self == Data.self {
            self = .data
        } else if T.self == Date.self {
            self = .date
        } else if T.self == Int.self {
            self = .int
        } else if T.self == Int64.self {
            self = .int64
        } else if T.self == Double.self {
            self = .double
        } else if T.self == Bool.self {
            self = .bool
        } else if T.self == String.self {
            self = .string
        } else if T.self == UUID.self {
            self = .uuid
        } else if let type = T.self as? any (DatabaseValueConvertible & StatementColumnConvertible).Type {
            self = .fast(type)
        } else if let type = T.self as? any DatabaseValueConvertible.Type {
            self = .value(type)
        } else {
            self = .other
        }
    }
}

/// Decodes the column at `index` of `row` as `T`, whose kind is `kind`, through the strategies of `R`;
/// `makeOtherwise` decodes the values of kind `.other`.
func decodeColumn<R: FetchableRecord, T>(
    _ type: T.Type, kind: ColumnValueKind, record: R.Type, row: Row, index: Int,
    otherwise makeOtherwise: () throws -> T
) throws -> T {
    // Each kind was resolved from T itself, so the value has type T: the casts below reinterpret, they never
    // convert.
    switch kind {
    case .data:
        let column = row.columnNames[index]
        let data = try R.databaseDataDecodingStrategy(for: column).decode(fromRow: row, atIndex: index)
        return unsafeBitCast(data, to: T.self)
    case .date:
        let column = row.columnNames[index]
        let date = try R.databaseDateDecodingStrategy(for: column).decode(fromRow: row, atIndex: index)
        return unsafeBitCast(date, to: T.self)
    case .int: return unsafeBitCast(try row.decode(Int.self, atIndex: index), to: T.self)
    case .int64: return unsafeBitCast(try row.decode(Int64.self, atIndex: index), to: T.self)
    case .double: return unsafeBitCast(try row.decode(Double.self, atIndex: index), to: T.self)
    case .bool: return unsafeBitCast(try row.decode(Bool.self, atIndex: index), to: T.self)
    case .string: return unsafeBitCast(try row.decode(String.self, atIndex: index), to: T.self)
    case .uuid: return unsafeBitCast(try row.decode(UUID.self, atIndex: index), to: T.self)
    case .fast(let valueType):
        return try decodeFast(valueType, as: T.self, row: row, index: index)
    case .value(let valueType):
        return try decodeValue(valueType, as: T.self, row: row, index: index)
    case .other:
        return try makeOtherwise()
    }
}

/// The opened-existential helpers of ``decodeColumn(_:kind:record:row:index:otherwise:)``: `V` is `T`.
private func decodeFast<V: DatabaseValueConvertible & StatementColumnConvertible, T>(
    _ type: V.Type, as target: T.Type, row: Row, index: Int
) throws -> T {
    let value = try row.decode(V.self, atIndex: index)
    return unsafeBitCast(value, to: T.self)
}

private func decodeValue<V: DatabaseValueConvertible, T>(
    _ type: V.Type, as target: T.Type, row: Row, index: Int
) throws -> T {
    let value = try row.decode(V.self, atIndex: index)
    return unsafeBitCast(value, to: T.self)
}
