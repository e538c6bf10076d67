import Foundation
import GraniteSQL
import GraniteStorage

/// The column names of rows from one statement, shared by those rows, with a case-insensitive lookup.
final class RowLayout: @unchecked Sendable {
    let names: [String]
    // Built on first lookup; a layout is used by one thread at a time (the one its statement runs on) or is
    // immutable after building (copies made for errors build it before sharing).
    private var lookup: [String: Int]?
    /// Whether the rows come from a statement (rather than from values built in memory): a ``Record``
    /// remembers the values of fetched rows only. Declared last: placed before `lookup` it took a padded
    /// word, and each statement's layout moved up a malloc size class.
    let isFetched: Bool
    /// How the last Decodable record decoded from these rows read them (see ``RecordDecodingPlan``); only
    /// used while the rows are a running statement's, on its thread.
    @exclusivity(unchecked) var decodingPlan: RecordDecodingPlan?
    /// The record decoding that decoded a row of this layout without a plan (it gets one on its next row).
    @exclusivity(unchecked) var decodingPlanCandidate: ObjectIdentifier?

    init(names: [String], isFetched: Bool = false) {
        self.names = names
        self.isFetched = isFetched
    }

    /// Whether two names are equal ignoring case (ASCII fast path, Unicode lowercasing otherwise).
    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        var ai = a.utf8.makeIterator()
        var bi = b.utf8.makeIterator()
        while true {
            switch (ai.next(), bi.next()) {
            case (nil, nil):
                return true
            case (let x?, let y?):
                if x == y { continue }
                if x >= 0x80 || y >= 0x80 { return a.lowercased() == b.lowercased() }
                let lx = x >= 0x41 && x <= 0x5A ? x | 0x20 : x
                let ly = y >= 0x41 && y <= 0x5A ? y | 0x20 : y
                if lx != ly { return false }
            default:
                return false
            }
        }
    }

    /// Whether no two names are equal ignoring case (computed on first use).
    private var distinctIgnoringCase: Bool?

    /// The index of the leftmost column named `name`, case-insensitively.
    func index(of name: String) -> Int? {
        if names.count <= 8 {
            // When no two names are equal ignoring case, a name spelled exactly as a column's is that column:
            // comparing exact spellings first skips the case-insensitive comparisons of the usual lookup.
            let distinct = distinctIgnoringCase ?? computeDistinctIgnoringCase()
            if distinct, let index = names.firstIndex(of: name) { return index }
            return names.firstIndex { RowLayout.equalIgnoringCase($0, name) }
        }
        if lookup == nil {
            var table: [String: Int] = [:]
            for (i, n) in names.enumerated().reversed() { table[n.lowercased()] = i }
            lookup = table
        }
        return lookup![name.lowercased()]
    }
}

extension RowLayout {
    fileprivate func computeDistinctIgnoringCase() -> Bool {
        var distinct = true
        outer: for i in names.indices {
            for j in names.indices where j > i && RowLayout.equalIgnoringCase(names[i], names[j]) {
                distinct = false
                break outer
            }
        }
        distinctIgnoringCase = distinct
        return distinct
    }
}

/// A database row: an ordered collection of (column name, value) pairs.
///
/// ```swift
/// let rows = try Row.fetchAll(db, sql: "SELECT id, name FROM player")
/// for row in rows {
///     let id: Int64 = row["id"]
///     let name: String? = row["name"]
/// }
/// ```
///
/// Column names are looked up case-insensitively; when several columns share a name, the leftmost wins.
/// Rows iterated from a ``RowCursor`` are one reused instance: call ``copy()`` to keep one.
public final class Row {
    /// The values of a row that owns them (empty while the row is a cursor's view of its statement).
    @exclusivity(unchecked) @usableFromInline var values: [GraniteStorage.Value]
    /// The running statement whose current row this row shows, or nil when the row owns its values. Unretained:
    /// ``statement`` keeps it alive, and reading a column neither retains nor releases it.
    @exclusivity(unchecked) @usableFromInline var prepared: Unmanaged<PreparedStatement>?
    let layout: RowLayout
    /// The statement the row comes from, while it is the current row of a cursor (for error context).
    @exclusivity(unchecked) @usableFromInline var statement: Statement?
    /// The number of columns (the statement's, or the number of values).
    @usableFromInline let columnCount: Int
    /// Set on adapted rows only: the unadapted row and the adapter, for scopes and ``unadapted`` (the values
    /// of an adapted row are its own, so reading them never looks here).
    var adaptation: RowAdaptation?

    /// The rows prefetched with this row, by association key (filled by requests that prefetch associated
    /// records; empty otherwise).
    public internal(set) var prefetchedRows = PrefetchedRowsView()

    /// The number of columns.
    @inlinable
    public var count: Int { columnCount }

    /// Whether the row was fetched from the database (copies of fetched rows included).
    var isFetched: Bool { layout.isFetched }

    /// The engine value at `index` (unchecked).
    @inlinable
    func value(at index: Int) -> GraniteStorage.Value {
        if let prepared { return prepared._withUnsafeGuaranteedRef { $0.currentValue(at: index) } }
        return values[index]
    }

    /// A row that shows the current row of a running statement, without copying it.
    init(prepared: PreparedStatement, layout: RowLayout, statement: Statement) {
        values = []
        self.prepared = Unmanaged.passUnretained(prepared)
        self.layout = layout
        self.statement = statement
        columnCount = layout.names.count
    }

    /// The values, copied out of the statement when the row shows one.
    var ownedValues: [GraniteStorage.Value] {
        guard prepared != nil else { return values }
        return (0..<count).map(value(at:))
    }

    /// Stops showing the statement: the row keeps the values of the current row while the statement still
    /// has one (its cursor goes away), and reads as NULLs when the execution has ended.
    func detach() {
        guard let prepared else { return }
        values =
            prepared._withUnsafeGuaranteedRef { $0.isActive }
            ? ownedValues : Array(repeating: .null, count: layout.names.count)
        self.prepared = nil
    }

    init(values: [GraniteStorage.Value], layout: RowLayout, statement: Statement? = nil) {
        self.values = values
        self.layout = layout
        self.statement = statement
        columnCount = values.count
    }

    /// An empty row.
    public convenience init() {
        self.init(values: [], layout: RowLayout(names: []))
    }

    /// A row from a dictionary (columns in the dictionary's order).
    public convenience init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        self.init(pairs: dictionary.map { ($0.key, $0.value?.databaseValue ?? .null) })
    }

    /// A row from a dictionary of any values; nil when a key is not a string or a value not convertible.
    public convenience init?(_ dictionary: [AnyHashable: Any]) {
        var pairs: [(String, DatabaseValue)] = []
        for (key, element) in dictionary {
            guard let name = key as? String, let value = DatabaseValue(value: element) else { return nil }
            pairs.append((name, value))
        }
        self.init(pairs: pairs)
    }

    convenience init(pairs: [(String, DatabaseValue)]) {
        self.init(values: pairs.map(\.1.engineValue), layout: RowLayout(names: pairs.map(\.0)))
    }

    /// A copy that keeps its values when the original is a cursor's reused row.
    public func copy() -> Row {
        if adaptation != nil || !prefetchedRows.isEmpty { return adaptedCopy() }
        return Row(values: ownedValues, layout: layout)
    }

    // MARK: Columns

    /// The column names, from left to right.
    public var columnNames: [String] { layout.names }

    /// The values, from left to right.
    public var databaseValues: [DatabaseValue] { ownedValues.map(DatabaseValue.init) }

    /// Whether the row has a column named `columnName` (case-insensitively).
    public func hasColumn(_ columnName: String) -> Bool { layout.index(of: columnName) != nil }

    /// The index of the leftmost column named `name` (case-insensitively).
    public func index(forColumn name: String) -> Int? { layout.index(of: name) }

    /// Whether a value is not NULL, in the row's columns or in one of its scopes (a scope whose columns are
    /// all NULL is usually a missing associated record).
    public var containsNonNullValue: Bool {
        for index in 0..<count {
            if case .null = value(at: index) { continue }
            return true
        }
        return adaptation != nil && scopes.contains { $0.row.containsNonNullValue }
    }

    /// Whether the value at `index` is NULL.
    public func hasNull(atIndex index: Int) -> Bool {
        checkIndex(index)
        if case .null = value(at: index) { return true }
        return false
    }

    @inlinable
    func checkIndex(_ index: Int) {
        precondition(index >= 0 && index < columnCount, "row index out of range")
    }

    // MARK: Untyped subscripts

    /// `Int64`, `Double`, `String`, `Data` or nil, depending on the value at `index`.
    public subscript(_ index: Int) -> (any DatabaseValueConvertible)? {
        checkIndex(index)
        return DatabaseValue(value(at: index)).storage.value
    }

    /// `Int64`, `Double`, `String`, `Data` or nil, depending on the value of the column; nil when the column
    /// is missing.
    public subscript(_ columnName: String) -> (any DatabaseValueConvertible)? {
        guard let index = layout.index(of: columnName) else { return nil }
        return DatabaseValue(value(at: index)).storage.value
    }

    /// `Int64`, `Double`, `String`, `Data` or nil, depending on the value of the column; nil when the column
    /// is missing.
    public subscript(_ column: some ColumnExpression) -> (any DatabaseValueConvertible)? {
        self[column.name]
    }

    // MARK: Typed subscripts (a decoding failure is a programmer error, as in GRDB; use `decode` to catch it)

    /// The value at `index`, converted to `Value`.
    @inlinable
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        try! decode(Value.self, atIndex: index)
    }

    /// The value at `index`, converted to `Value` through its fast path.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) -> Value {
        try! decode(Value.self, atIndex: index)
    }

    /// The value of the column, converted to `Value` (`fromMissingColumn()` when missing: nil for optionals).
    @inlinable
    public subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value {
        try! decode(Value.self, forColumn: columnName)
    }

    /// The value of the column, converted to `Value` through its fast path.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ columnName: String) -> Value {
        try! decode(Value.self, forColumn: columnName)
    }

    /// The value of the column, converted to `Value`.
    @inlinable
    public subscript<Value: DatabaseValueConvertible>(_ column: some ColumnExpression) -> Value {
        try! decode(Value.self, forColumn: column.name)
    }

    /// The value of the column, converted to `Value` through its fast path.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: some ColumnExpression)
        -> Value
    {
        try! decode(Value.self, forColumn: column.name)
    }

    // MARK: Decoding

    /// The value at `index` converted to `Value`; throws ``RowDecodingError`` when it cannot be.
    public func decode<Value: DatabaseValueConvertible>(
        _ type: Value.Type = Value.self, atIndex index: Int
    ) throws -> Value {
        checkIndex(index)
        let dbValue = DatabaseValue(value(at: index))
        if let value = Value.fromDatabaseValue(dbValue) { return value }
        throw RowDecodingError.valueMismatch(Value.self, row: self, key: .columnIndex(index), databaseValue: dbValue)
    }

    /// The value at `index` converted to `Value` through its fast path; throws ``RowDecodingError``. Always
    /// inlined, like `fastDecode(_:at:)`: `row[0]` costs no call.
    @inlinable @inline(__always)
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, atIndex index: Int
    ) throws -> Value {
        checkIndex(index)
        return try fastDecode(Value.self, at: index)
    }

    /// Decodes the value at `index`: through SQLite's column conversions while the row is a cursor's current
    /// row (as GRDB does on statement rows), through `fromDatabaseValue` on copied rows.
    ///
    /// Always inlined: the specializations for `Int?` and `Int64?` are the same machine code, and once the
    /// compiler merged them each call went through a thunk into a body that takes the type as a parameter.
    @inlinable @inline(__always)
    func fastDecode<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ type: Value.Type, at index: Int)
        throws -> Value
    {
        if let prepared {
            // A cursor's current row (which always has its statement).
            if let value = Value.fromStatement(SQLiteStatement(unmanaged: prepared), atUncheckedIndex: CInt(index)) {
                return value
            }
        } else if statement != nil {
            if let value = Value.fromStatement(SQLiteStatement(values: values), atUncheckedIndex: CInt(index)) {
                return value
            }
        } else if let value = Value.fromDatabaseValue(DatabaseValue(value(at: index))) {
            return value
        }
        throw fastDecodingFailure(Value.self, index: index)
    }

    @usableFromInline
    func fastDecodingFailure(_ type: Any.Type, index: Int) -> RowDecodingError {
        RowDecodingError.valueMismatch(
            type, row: self, key: .columnIndex(index), databaseValue: DatabaseValue(value(at: index)))
    }

    /// The value of the column converted to `Value`; `Value.fromMissingColumn()` when the column is missing
    /// (nil for optionals), and a ``RowDecodingError`` when that fails or the value cannot be converted.
    public func decode<Value: DatabaseValueConvertible>(
        _ type: Value.Type = Value.self, forColumn columnName: String
    ) throws -> Value {
        guard let index = layout.index(of: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            throw RowDecodingError.columnNotFound(columnName, row: self)
        }
        let dbValue = DatabaseValue(value(at: index))
        if let value = Value.fromDatabaseValue(dbValue) { return value }
        throw RowDecodingError.valueMismatch(
            Value.self, row: self, key: .columnName(columnName), databaseValue: dbValue)
    }

    /// The value of the column converted to `Value` through its fast path.
    @inlinable
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, forColumn columnName: String
    ) throws -> Value {
        guard let index = index(forColumn: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            throw RowDecodingError.columnNotFound(columnName, row: self)
        }
        return try fastDecode(Value.self, at: index)
    }

    /// The value of the column converted to `Value`.
    public func decode<Value: DatabaseValueConvertible>(
        _ type: Value.Type = Value.self, forKey column: some ColumnExpression
    ) throws -> Value {
        try decode(type, forColumn: column.name)
    }

    /// The first non-NULL value among the columns, converted to `T`.
    public func coalesce<T: DatabaseValueConvertible>(_ columns: some Collection<String>) -> T? {
        for name in columns {
            guard let index = layout.index(of: name) else { continue }
            let dbValue = DatabaseValue(value(at: index))
            if !dbValue.isNull, let converted = T.fromDatabaseValue(dbValue) { return converted }
        }
        return nil
    }

    /// The first non-NULL value among the columns, converted to `T`.
    public func coalesce<T: DatabaseValueConvertible>(_ columns: some Collection<any ColumnExpression>) -> T? {
        coalesce(columns.map(\.name))
    }

    /// The blob (or text bytes) at `index`, nil for NULL.
    public func dataNoCopy(atIndex index: Int) -> Data? {
        checkIndex(index)
        switch value(at: index) {
        case .null: return nil
        case .blob(let b), .invalidUTF8Text(let b): return Data(b)
        case .text(let s): return Data(s.utf8)
        default: return nil
        }
    }

    /// The blob (or text bytes) of the column, nil for NULL or a missing column.
    public func dataNoCopy(named columnName: String) -> Data? {
        guard let index = layout.index(of: columnName) else { return nil }
        return dataNoCopy(atIndex: index)
    }

    /// The blob (or text bytes) of the column, nil for NULL or a missing column.
    public func dataNoCopy(_ column: some ColumnExpression) -> Data? {
        dataNoCopy(named: column.name)
    }

    /// Calls `body` with the blob (or text bytes) at `index`, nil for NULL.
    public func withUnsafeData<T>(atIndex index: Int, _ body: (Data?) throws -> T) throws -> T {
        try body(dataNoCopy(atIndex: index))
    }

    /// Calls `body` with the blob (or text bytes) of the column, nil for NULL or a missing column.
    public func withUnsafeData<T>(named columnName: String, _ body: (Data?) throws -> T) throws -> T {
        try body(dataNoCopy(named: columnName))
    }
}

@available(*, unavailable)
extension Row: Sendable {}

extension Row: RandomAccessCollection {
    /// A position in a row.
    public struct Index: Comparable, Strideable, Sendable {
        let offset: Int
        init(_ offset: Int) { self.offset = offset }
        /// Orders positions.
        public static func < (lhs: Index, rhs: Index) -> Bool { lhs.offset < rhs.offset }
        /// The distance between positions.
        public func distance(to other: Index) -> Int { other.offset - offset }
        /// The position `n` columns further.
        public func advanced(by n: Int) -> Index { Index(offset + n) }
        /// Whether the positions are the same column.
        public static func == (lhs: Index, rhs: Index) -> Bool { lhs.offset == rhs.offset }
    }

    /// The first position.
    public var startIndex: Index { Index(0) }
    /// The position past the last column.
    public var endIndex: Index { Index(count) }

    /// The column name and value at `position`.
    public subscript(position: Index) -> (String, DatabaseValue) {
        (layout.names[position.offset], DatabaseValue(value(at: position.offset)))
    }
}

extension Row: Hashable {
    /// Rows are equal when they have the same column names and values, in the same order, and equal scopes
    /// and prefetched rows.
    public static func == (lhs: Row, rhs: Row) -> Bool {
        if lhs === rhs { return true }
        guard lhs.count == rhs.count else { return false }
        for (l, r) in zip(lhs, rhs) where l.0 != r.0 || l.1 != r.1 { return false }
        if lhs.adaptation != nil || rhs.adaptation != nil, !lhs.hasSameScopes(as: rhs) { return false }
        return lhs.prefetchedRows == rhs.prefetchedRows
    }

    /// Hashes the column names and values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for (name, value) in self {
            hasher.combine(name)
            hasher.combine(value)
        }
    }
}

extension Row: CustomStringConvertible, CustomDebugStringConvertible {
    /// `[id:1 name:"Arthur"]`.
    public var description: String {
        "[" + map { "\($0.0):\($0.1)" }.joined(separator: " ") + "]"
    }

    /// The ``description``, then for adapted rows the unadapted row, scopes (indented by depth) and the
    /// number of prefetched rows of each key.
    public var debugDescription: String { debugDescription(depth: 0) }
}

extension Row: ExpressibleByDictionaryLiteral {
    /// A row with the columns in literal order: `["id": 1, "name": "Arthur"]`.
    public convenience init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init(pairs: elements.map { ($0.0, $0.1?.databaseValue ?? .null) })
    }
}
