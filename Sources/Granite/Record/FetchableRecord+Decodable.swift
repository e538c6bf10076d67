import Foundation

// Decodable records: `init(row:)` for free.

extension FetchableRecord where Self: Decodable {
    /// Decodes the record from the columns of `row`, through the record's coding strategies.
    ///
    /// ```swift
    /// struct Player: Decodable, FetchableRecord { var id: Int64; var name: String }
    /// let players = try Player.fetchAll(db, sql: "SELECT * FROM player")
    /// ```
    public init(row: Row) throws {
        self = try FetchableRecordDecoder().decode(Self.self, from: row)
    }
}

/// Decodes Decodable records from rows.
///
/// ```swift
/// let player = try FetchableRecordDecoder().decode(Player.self, from: row)
/// ```
public class FetchableRecordDecoder {
    /// A decoder.
    public init() {}

    /// Decodes a record from `row`.
    public func decode<T: FetchableRecord & Decodable>(_ type: T.Type, from row: Row) throws -> T {
        try T(from: RowDecoder<T>(row: row, codingPath: [], columnStrategy: T.databaseColumnDecodingStrategy))
    }
}

/// Thrown by a column decoder when the value needs a keyed or unkeyed container: it is JSON.
struct JSONRequiredError: Error {}

/// The decoder of a record: keyed by column.
private struct RowDecoder<R: FetchableRecord>: Decoder {
    var row: Row
    var codingPath: [any CodingKey]
    var columnStrategy: DatabaseColumnDecodingStrategy
    var userInfo: [CodingUserInfoKey: Any] { R.databaseDecodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedContainer<R, Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let key = codingPath.last else {
            throw DecodingError.typeMismatch(
                [Any].self,
                DecodingError.Context(
                    codingPath: codingPath, debugDescription: "unkeyed decoding from a database row is not supported"))
        }
        // A collection property without a column.
        throw DecodingError.keyNotFound(
            key,
            DecodingError.Context(codingPath: codingPath.dropLast(), debugDescription: "No available prefetched rows"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard let key = codingPath.last else {
            return SingleValueRowDecoder<R>(row: row, columnStrategy: columnStrategy)
        }
        guard let index = row.index(forColumn: key.stringValue) else {
            throw RowDecodingError.columnNotFound(key.stringValue, row: row)
        }
        return ColumnDecoder<R>(row: row, index: index, codingPath: codingPath)
    }
}

/// The keyed container of a record decoder: a key is a column.
private final class KeyedContainer<R: FetchableRecord, Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: RowDecoder<R>
    var codingPath: [any CodingKey] { decoder.codingPath }
    /// Column names by key string, when the column strategy is not `.useDefaultKeys` (built on first use).
    private var columnsByKey: [String: String]? {
        if let built = columnsByKeyStorage { return built }
        let built = makeColumnsByKey()
        columnsByKeyStorage = .some(built)
        return built
    }
    // The container is used by the one decoding that made it: its state needs no dynamic exclusivity checks,
    // which cost more than the plan's lookups they guard.
    @exclusivity(unchecked) private var columnsByKeyStorage: [String: String]??
    /// The first missing key decoded from the whole row.
    private var rootKey: (any CodingKey)?
    /// The statement's decoding plan, when the row is the current row of a running statement.
    private let plan: RecordDecodingPlan?
    /// The plan position where the next key is expected.
    @exclusivity(unchecked) private var expectedPosition = 0

    init(decoder: RowDecoder<R>) {
        self.decoder = decoder
        if decoder.row.prepared != nil {
            let usesDefaultKeys: Bool
            if case .useDefaultKeys = decoder.columnStrategy { usesDefaultKeys = true } else { usesDefaultKeys = false }
            plan = decoder.row.layout.recordDecodingPlan(
                owner: ObjectIdentifier(KeyedContainer<R, Key>.self), usesDefaultKeys: usesDefaultKeys)
        } else {
            plan = nil
        }
    }

    private func makeColumnsByKey() -> [String: String]? {
        if case .useDefaultKeys = decoder.columnStrategy { return nil }
        var columnsByKey: [String: String] = [:]
        for column in decoder.row.columnNames {
            if let key: Key = decoder.columnStrategy.key(forColumn: column), columnsByKey[key.stringValue] == nil {
                columnsByKey[key.stringValue] = column
            }
        }
        return columnsByKey
    }

    var row: Row { decoder.row }

    var allKeys: [Key] {
        let names = columnsByKey.map { Array($0.keys) } ?? row.columnNames
        return Set(names).union(row.scopesTree.names).union(row.prefetchedRows.keys)
            .compactMap(Key.init(stringValue:))
    }

    func contains(_ key: Key) -> Bool {
        index(forKey: key) != nil || row.scopesTree[key.stringValue] != nil
            || row.prefetchedRows[key.stringValue] != nil
    }

    /// The index of the column for `key`, if any.
    private func index(forKey key: Key) -> Int? {
        if let position = planPosition(forKey: key) { return plan.unsafelyUnwrapped.entries[position].index }
        return unplannedIndex(forKey: key)
    }

    /// The index of the column for `key`, searched in the row's columns.
    private func unplannedIndex(forKey key: Key) -> Int? {
        guard let columnsByKey else { return row.index(forColumn: key.stringValue) }
        return columnsByKey[key.stringValue].flatMap(row.index(forColumn:))
    }

    /// The position of `key`'s entry in the plan, added on first use; nil without a plan, or when the key has
    /// no column (scopes, prefetched rows and missing keys take the unplanned paths).
    private func planPosition(forKey key: Key) -> Int? {
        guard let plan else { return nil }
        let name = key.stringValue
        let position: Int
        if let known = plan.position(of: name, expected: expectedPosition) {
            position = known
        } else {
            guard let index = unplannedIndex(forKey: key) else { return nil }
            position = plan.append(key: name, index: index)
        }
        expectedPosition = position + 1
        return position
    }

    /// The column for `key`, or a ``RowDecodingError`` that names the key and its conversion.
    private func column(forKey key: Key) throws -> String {
        guard let columnsByKey else { return key.stringValue }
        if let column = columnsByKey[key.stringValue] { return column }
        var description = "\(key) (\(String(reflecting: key.stringValue)))"
        if case .convertFromSnakeCase = decoder.columnStrategy {
            let snake = DatabaseColumnEncodingStrategy.snakeCase(fromCamelCase: key.stringValue)
            let back = DatabaseColumnDecodingStrategy.camelCase(fromSnakeCase: snake)
            if back != key.stringValue {
                description += ", with divergent representation \(back), converted to \(snake)"
            } else if snake != key.stringValue {
                description += ", converted to \(snake)"
            }
        }
        throw RowDecodingError(
            kind: .keyNotFound, message: "key not found: \(description)", row: row,
            key: .columnName(key.stringValue))
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let index = index(forKey: key) else {
            if row.prefetchedRows[key.stringValue] != nil { return false }
            // A scope of NULLs is a missing associated record (a left join without match).
            return !(row.scopesTree[key.stringValue]?.containsNonNullValue ?? false)
        }
        return row.hasNull(atIndex: index)
    }

    // Inlined into each overload below, where `V` is a concrete type: a generic body would look up the metadata
    // of `V?` at run time on every call (about 300 instructions, through a locked cache).
    @inline(__always)
    private func decodePrimitive<V: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: V.Type, forKey key: Key
    ) throws -> V {
        if let position = planPosition(forKey: key) {
            return try row.decode(V.self, atIndex: plan.unsafelyUnwrapped.entries[position].index)
        }
        return try row.decode(V.self, forColumn: column(forKey: key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodePrimitive(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodePrimitive(type, forKey: key) }

    /// `decodeIfPresent` of a primitive type: a NULL is nil, another value is decoded as ``decodePrimitive`` does.
    /// Without these overloads the standard library's defaults would call `contains`, `decodeNil` and `decode`,
    /// three lookups of the key.
    @inline(__always)
    private func decodePrimitiveIfPresent<V: DatabaseValueConvertible & StatementColumnConvertible & Decodable>(
        _ type: V.Type, forKey key: Key
    ) throws -> V? {
        guard let position = planPosition(forKey: key) else {
            // No plan, or no column for the key (a scope, prefetched rows or a missing key).
            return try decodeIfPresent(V.self, forKey: key)
        }
        let index = plan.unsafelyUnwrapped.entries[position].index
        if row.hasNull(atIndex: index) { return nil }
        return try row.decode(V.self, atIndex: index)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        if let position = planPosition(forKey: key) {
            let index = plan.unsafelyUnwrapped.entries[position].index
            if row.hasNull(atIndex: index) { return nil }
            let kind = plan.unsafelyUnwrapped.valueKind(at: position, for: T.self)
            return try decode(type, atIndex: index, key: key, kind: kind)
        }
        guard let index = unplannedIndex(forKey: key) else {
            if let rows = row.prefetchedRows[key.stringValue] {
                return try decode(type, fromPrefetchedRows: rows, key: key)
            }
            // A scope of NULLs is a missing associated record (a left join without match).
            guard let scopedRow = row.scopesTree[key.stringValue], scopedRow.containsNonNullValue else { return nil }
            return try decode(type, fromScope: scopedRow, key: key)
        }
        if row.hasNull(atIndex: index) { return nil }
        return try decode(type, atIndex: index, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let position = planPosition(forKey: key) {
            let index = plan.unsafelyUnwrapped.entries[position].index
            let kind = plan.unsafelyUnwrapped.valueKind(at: position, for: T.self)
            return try decode(type, atIndex: index, key: key, kind: kind)
        }
        if let index = unplannedIndex(forKey: key) {
            return try decode(type, atIndex: index, key: key)
        }
        if let scopedRow = row.scopesTree[key.stringValue] {
            return try decode(type, fromScope: scopedRow, key: key)
        }
        if let rows = row.prefetchedRows[key.stringValue] {
            return try decode(type, fromPrefetchedRows: rows, key: key)
        }
        // A missing column: the first such key decodes a value from the whole row (a nested record).
        if let rootKey {
            let keys = [rootKey.stringValue, key.stringValue].sorted()
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath, debugDescription: "No such key: \(keys.joined(separator: " or "))"))
        }
        rootKey = key
        if let recordType = T.self as? any FetchableRecord.Type {
            return try recordType.init(row: row) as! T
        }
        return try T(
            from: RowDecoder<R>(row: row, codingPath: codingPath + [key], columnStrategy: .useDefaultKeys))
    }

    /// Decodes a value from the row of a scope (defined by a row adapter): a record, or a Decodable value
    /// decoded from the scope's columns.
    private func decode<T: Decodable>(_ type: T.Type, fromScope scopedRow: Row, key: Key) throws -> T {
        if let recordType = T.self as? any FetchableRecord.Type {
            return try recordType.init(row: scopedRow) as! T
        }
        return try T(
            from: RowDecoder<R>(row: scopedRow, codingPath: codingPath + [key], columnStrategy: .useDefaultKeys))
    }

    /// Decodes a collection of records from the rows prefetched for `key` (`including(all:)`).
    private func decode<T: Decodable>(_ type: T.Type, fromPrefetchedRows rows: [Row], key: Key) throws -> T {
        try T(from: PrefetchedRowsDecoder<R>(rows: rows, codingPath: codingPath + [key]))
    }

    /// Decodes the column at `index`: natively, or from JSON.
    private func decode<T: Decodable>(
        _ type: T.Type, atIndex index: Int, key: Key, kind: ColumnValueKind = ColumnValueKind(T.self)
    ) throws -> T {
        try decodeColumn(type, kind: kind, record: R.self, row: row, index: index) {
            do {
                return try T(from: ColumnDecoder<R>(row: row, index: index, codingPath: codingPath + [key]))
            } catch is JSONRequiredError {
                return try decodeJSON(type, atIndex: index, key: key)
            }
        }
    }

    /// Decodes the JSON text (or blob) of the column at `index` as the record's JSON decoder does, through the
    /// fast JSON decoder when it can (see ``JSONFastDecoding``). The bytes are read in place, never copied into a
    /// new `Data`.
    private func decodeJSON<T: Decodable>(_ type: T.Type, atIndex index: Int, key: Key) throws -> T {
        let decoder = R.databaseJSONDecoder(for: key.stringValue)
        switch try row.decode(DatabaseValue.self, atIndex: index).storage {
        case .string(var text):
            return try text.withUTF8 { utf8 in
                try JSONFastDecoding.decode(T.self, from: UnsafeRawBufferPointer(utf8), with: decoder)
            }
        case .blob(let data):
            return try data.withUnsafeBytes { bytes in try JSONFastDecoding.decode(T.self, from: bytes, with: decoder) }
        case .null, .int64, .double:
            throw DecodingError.valueNotFound(
                Data.self, DecodingError.Context(codingPath: codingPath + [key], debugDescription: "Missing Data"))
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw DecodingError.typeMismatch(
            KeyedDecodingContainer<NestedKey>.self,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "not implemented: building a nested container for the key '\(key.stringValue)'"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            (any UnkeyedDecodingContainer).self,
            DecodingError.Context(codingPath: codingPath, debugDescription: "unkeyed decoding is not supported"))
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// The single value container of a whole row (a record that decodes itself from one value).
private struct SingleValueRowDecoder<R: FetchableRecord>: SingleValueDecodingContainer {
    var row: Row
    var columnStrategy: DatabaseColumnDecodingStrategy
    var codingPath: [any CodingKey] { [] }
    private var first: ColumnDecoder<R> { ColumnDecoder(row: row, index: 0, codingPath: []) }

    init(row: Row, columnStrategy: DatabaseColumnDecodingStrategy) {
        self.row = row
        self.columnStrategy = columnStrategy
    }

    private func checkFirst() throws -> ColumnDecoder<R> {
        guard row.count > 0 else {
            throw DecodingError.valueNotFound(
                Any.self, DecodingError.Context(codingPath: [], debugDescription: "the row has no column"))
        }
        return first
    }

    func decodeNil() -> Bool { row.count == 0 || row.hasNull(atIndex: 0) }
    func decode(_ type: Bool.Type) throws -> Bool { try checkFirst().decode(type) }
    func decode(_ type: String.Type) throws -> String { try checkFirst().decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try checkFirst().decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try checkFirst().decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try checkFirst().decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try checkFirst().decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try checkFirst().decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try checkFirst().decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try checkFirst().decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try checkFirst().decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try checkFirst().decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try checkFirst().decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try checkFirst().decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try checkFirst().decode(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let recordType = T.self as? any FetchableRecord.Type {
            return try recordType.init(row: row) as! T
        }
        return try T(from: RowDecoder<R>(row: row, codingPath: [], columnStrategy: columnStrategy))
    }
}

/// The decoder of one column: single values only; keyed and unkeyed containers mean JSON.
private struct ColumnDecoder<R: FetchableRecord>: Decoder, SingleValueDecodingContainer {
    var row: Row
    var index: Int
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { R.databaseDecodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw JSONRequiredError()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw JSONRequiredError() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { row.hasNull(atIndex: index) }

    func decode(_ type: Bool.Type) throws -> Bool { try row.decode(atIndex: index) }
    func decode(_ type: String.Type) throws -> String { try row.decode(atIndex: index) }
    func decode(_ type: Double.Type) throws -> Double { try row.decode(atIndex: index) }
    func decode(_ type: Float.Type) throws -> Float { try row.decode(atIndex: index) }
    func decode(_ type: Int.Type) throws -> Int { try row.decode(atIndex: index) }
    func decode(_ type: Int8.Type) throws -> Int8 { try row.decode(atIndex: index) }
    func decode(_ type: Int16.Type) throws -> Int16 { try row.decode(atIndex: index) }
    func decode(_ type: Int32.Type) throws -> Int32 { try row.decode(atIndex: index) }
    func decode(_ type: Int64.Type) throws -> Int64 { try row.decode(atIndex: index) }
    func decode(_ type: UInt.Type) throws -> UInt { try row.decode(atIndex: index) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try row.decode(atIndex: index) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try row.decode(atIndex: index) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try row.decode(atIndex: index) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try row.decode(atIndex: index) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeColumn(type, kind: ColumnValueKind(T.self), record: R.self, row: row, index: index) {
            try T(from: self)
        }
    }
}

/// Decodes a collection (an array, a set) from prefetched rows: one element per row.
private struct PrefetchedRowsDecoder<R: FetchableRecord>: Decoder {
    let rows: [Row]
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { R.databaseDecodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch(
            [String: Any].self,
            DecodingError.Context(codingPath: codingPath, debugDescription: "prefetched rows decode as a collection"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        PrefetchedRowsContainer<R>(rows: rows, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self,
            DecodingError.Context(codingPath: codingPath, debugDescription: "prefetched rows decode as a collection"))
    }
}

/// The elements of a collection decoded from prefetched rows: records, or `Decodable` values decoded from the
/// columns of each row.
private struct PrefetchedRowsContainer<R: FetchableRecord>: UnkeyedDecodingContainer {
    let rows: [Row]
    var codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { rows.count }
    var isAtEnd: Bool { currentIndex >= rows.count }

    init(rows: [Row], codingPath: [any CodingKey]) {
        self.rows = rows
        self.codingPath = codingPath
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: codingPath, debugDescription: "no more prefetched rows"))
        }
        let row = rows[currentIndex]
        currentIndex += 1
        if let recordType = T.self as? any FetchableRecord.Type {
            return try recordType.init(row: row) as! T
        }
        return try T(from: RowDecoder<R>(row: row, codingPath: codingPath, columnStrategy: .useDefaultKeys))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: codingPath, debugDescription: "prefetched rows are records"))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, DecodingError.Context(codingPath: codingPath, debugDescription: "prefetched rows are records"))
    }

    mutating func superDecoder() throws -> any Decoder {
        throw DecodingError.typeMismatch(
            Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "prefetched rows are records"))
    }
}
