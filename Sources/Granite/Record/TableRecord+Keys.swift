import Foundation

// Primary and unique keys: `Player.fetchOne(db, key: 1)`, `Citizenship.fetchOne(db, key: ["a": 1, "b": 2])`.

/// An error thrown by record methods.
///
/// ```swift
/// do {
///     let player = try Player.find(db, key: 42)
/// } catch RecordError.recordNotFound(let table, let key) { … }
/// ```
public enum RecordError: Error {
    /// No row was found for a key.
    case recordNotFound(databaseTableName: String, key: [String: DatabaseValue])
}

extension RecordError: CustomStringConvertible {
    /// "Key not found in table player: [id:42]"
    public var description: String {
        switch self {
        case .recordNotFound(let databaseTableName, let key):
            let row = Row(pairs: key.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            return "Key not found in table \(databaseTableName): \(row.description)"
        }
    }
}

// MARK: - Filtering by key

/// A record type, captured by the filter of a request.
private struct EncodableRecordType: @unchecked Sendable {
    var type: any EncodableRecord.Type
}

extension TableRequest where Self: FilteredRequest & TypedRequest {
    /// Filters by primary key: `filter(key: 1)` is `WHERE "id" = 1`. A NULL key matches nothing.
    public func filter(key: some DatabaseValueConvertible) -> Self {
        if key.databaseValue.isNull { return none() }
        return filter(singleKey: key)
    }

    /// `filter(keys: [key])` without the array for the usual key types: an array of a generic element type
    /// has its metadata looked up at run time on each call, and lookups by id are hot paths.
    func filter<Key: DatabaseValueConvertible>(singleKey key: Key) -> Self {
        if Self.mayUseEncodingStrategy(Key.self) { return filter(keys: [key]) }
        let values = [key.databaseValue]
        return filter(encodedPrimaryKeys: 1) { _ in values }
    }

    /// Whether keys of type `Key` go through the record's encoding strategies (Data, Date, UUID): a test of
    /// metadata pointers, cheaper than the dynamic cast to ``EncodableRecord`` it spares other key types.
    private static func mayUseEncodingStrategy<Key>(_: Key.Type) -> Bool {
        Key.self == Data.self || Key.self == Data?.self || Key.self == Date.self || Key.self == Date?.self
            || Key.self == UUID.self || Key.self == UUID?.self
    }

    /// Filters by primary keys: `WHERE "id" IN (1, 2, 3)`. Data, Date and UUID keys of an
    /// ``EncodableRecord`` are encoded through the record's strategies for the primary key column.
    public func filter<Keys: Collection>(keys: Keys) -> Self where Keys.Element: DatabaseValueConvertible {
        if Self.mayUseEncodingStrategy(Keys.Element.self),
            let recordType = (RowDecoder.self as? any EncodableRecord.Type).map({ EncodableRecordType(type: $0) })
        {
            if Keys.Element.self == Data.self || Keys.Element.self == Data?.self {
                let datas = keys.compactMap { $0 as? Data }
                return filter(encodedPrimaryKeys: datas.count) { column in
                    let strategy = recordType.type.databaseDataEncodingStrategy(for: column)
                    return try datas.map { try strategy.encode($0) }
                }
            } else if Keys.Element.self == Date.self || Keys.Element.self == Date?.self {
                let dates = keys.compactMap { $0 as? Date }
                return filter(encodedPrimaryKeys: dates.count) { column in
                    let strategy = recordType.type.databaseDateEncodingStrategy(for: column)
                    return dates.map { strategy.encode($0) }
                }
            } else if Keys.Element.self == UUID.self || Keys.Element.self == UUID?.self {
                let uuids = keys.compactMap { $0 as? UUID }
                return filter(encodedPrimaryKeys: uuids.count) { column in
                    let strategy = recordType.type.databaseUUIDEncodingStrategy(for: column)
                    return uuids.map { strategy.encode($0) }
                }
            }
        }
        let values = keys.map { $0.databaseValue }
        return filter(encodedPrimaryKeys: values.count) { _ in values }
    }

    /// Filters by `count` primary key values, encoded for the primary key column once connected.
    private func filter(
        encodedPrimaryKeys count: Int, _ encode: @escaping @Sendable (String) throws -> [DatabaseValue]
    ) -> Self {
        if count == 0 { return none() }
        let tableName = databaseTableName
        return filterWhenConnected { db in
            let column = try db.filteringPrimaryKeyColumn(tableName)
            return SQLExpression.in(.column(column), try encode(column).map(SQLExpression.databaseValue))
        }
    }

    /// Filters by a primary or unique key: `filter(key: ["email": "arthur@example.com"])`. The columns must
    /// cover a primary key or a unique index.
    public func filter(key: [String: (any DatabaseValueConvertible)?]?) -> Self {
        guard let key else { return none() }
        return filter(keys: [key])
    }

    /// Filters by primary or unique keys.
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> Self {
        if keys.isEmpty { return none() }
        let keys = keys.map { key in key.mapValues { $0?.databaseValue ?? .null } }
        let tableName = databaseTableName
        return filterWhenConnected { db in
            let disjuncts = try keys.map { key -> SQLExpression in
                guard let columns = try db.columnsForUniqueKey(key.keys, in: tableName) else {
                    throw DatabaseError(
                        resultCode: .SQLITE_MISUSE,
                        message:
                            "table \(tableName) has no unique key on column(s) \(key.keys.sorted().joined(separator: ", "))"
                    )
                }
                let order = columns.map { $0.lowercased() }
                let sorted = key.sorted { lhs, rhs in
                    guard let l = order.firstIndex(of: lhs.key.lowercased()) else { return false }
                    guard let r = order.firstIndex(of: rhs.key.lowercased()) else { return true }
                    return l < r
                }
                return .associative(.and, sorted.map { .equal(.column($0.key), .databaseValue($0.value)) })
            }
            return SQLExpression.associative(.or, disjuncts)
        }
    }
}

extension TableRequest
where Self: FilteredRequest & TypedRequest, RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// Filters by id (the primary key).
    public func filter(id: RowDecoder.ID) -> Self { filter(key: id) }

    /// Filters by ids.
    public func filter(ids: some Collection<RowDecoder.ID>) -> Self { filter(keys: ids) }
}

extension TableRecord {
    /// Filters by primary key.
    public static func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<Self> {
        all().filter(key: key)
    }

    /// Filters by primary keys.
    public static func filter(keys: some Collection<some DatabaseValueConvertible>) -> QueryInterfaceRequest<Self> {
        all().filter(keys: keys)
    }

    /// Filters by a primary or unique key.
    public static func filter(key: [String: (any DatabaseValueConvertible)?]?) -> QueryInterfaceRequest<Self> {
        all().filter(key: key)
    }

    /// Filters by primary or unique keys.
    public static func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<Self> {
        all().filter(keys: keys)
    }

    /// Whether a row has this primary key.
    public static func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Whether a row has this primary or unique key.
    public static func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Deletes the rows with these primary keys; returns the number of deleted rows.
    @discardableResult
    public static func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary key; returns whether a row was deleted.
    @discardableResult
    public static func deleteOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        if key.databaseValue.isNull { return false }
        return try deleteAll(db, keys: [key]) > 0
    }

    /// Deletes the rows with these primary or unique keys; returns the number of deleted rows.
    @discardableResult
    public static func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary or unique key; returns whether a row was deleted.
    @discardableResult
    public static func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try deleteAll(db, keys: [key]) > 0
    }

    /// The ``RecordError/recordNotFound(databaseTableName:key:)`` error for a primary key.
    public static func recordNotFound(_ db: Database, key: some DatabaseValueConvertible) -> any Error {
        do {
            let column = try db.filteringPrimaryKeyColumn(databaseTableName)
            return RecordError.recordNotFound(databaseTableName: databaseTableName, key: [column: key.databaseValue])
        } catch {
            return error
        }
    }

    /// The ``RecordError/recordNotFound(databaseTableName:key:)`` error for a primary or unique key.
    public static func recordNotFound(key: [String: (any DatabaseValueConvertible)?]) -> RecordError {
        .recordNotFound(databaseTableName: databaseTableName, key: key.mapValues { $0?.databaseValue ?? .null })
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// Filters by id.
    public static func filter(id: ID) -> QueryInterfaceRequest<Self> { all().filter(id: id) }

    /// Filters by ids.
    public static func filter(ids: some Collection<ID>) -> QueryInterfaceRequest<Self> { all().filter(ids: ids) }

    /// Whether a row has this id.
    public static func exists(_ db: Database, id: ID) throws -> Bool {
        if id.databaseValue.isNull { return false }
        return try !filter(id: id).isEmpty(db)
    }

    /// Deletes the rows with these ids; returns the number of deleted rows.
    @discardableResult
    public static func deleteAll(_ db: Database, ids: some Collection<ID>) throws -> Int {
        if ids.isEmpty { return 0 }
        return try filter(ids: ids).deleteAll(db)
    }

    /// Deletes the row with this id; returns whether a row was deleted.
    @discardableResult
    public static func deleteOne(_ db: Database, id: ID) throws -> Bool {
        // deleteAll(db, ids: [id]) without the array of the generic id type (see filter(singleKey:)).
        try all().filter(singleKey: id).deleteAll(db) > 0
    }

    /// Deletes the row with this id (same as ``deleteOne(_:id:)``): `try Place.delete(db, id: 1)`.
    @discardableResult
    public static func delete(_ db: Database, id: ID) throws -> Bool {
        try deleteOne(db, id: id)
    }

    /// The ``RecordError/recordNotFound(databaseTableName:key:)`` error for an id.
    public static func recordNotFound(_ db: Database, id: ID) -> any Error {
        recordNotFound(db, key: id)
    }
}

// MARK: - Fetching by key

extension FetchableRecord where Self: TableRecord {
    /// The record with this primary key, if any. A NULL key returns nil without querying.
    public static func fetchOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Self? {
        if key.databaseValue.isNull { return nil }
        return try filter(key: key).fetchOne(db)
    }

    /// The records with these primary keys.
    public static func fetchAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws
        -> [Self]
    {
        if keys.isEmpty { return [] }
        return try filter(keys: keys).fetchAll(db)
    }

    /// A cursor over the records with these primary keys.
    public static func fetchCursor(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws
        -> RecordCursor<Self>
    {
        try filter(keys: keys).fetchCursor(db)
    }

    /// The record with this primary key, or ``RecordError/recordNotFound(databaseTableName:key:)``.
    public static func find(_ db: Database, key: some DatabaseValueConvertible) throws -> Self {
        guard let record = try fetchOne(db, key: key) else { throw recordNotFound(db, key: key) }
        return record
    }

    /// The record with this primary or unique key, if any.
    public static func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]?) throws -> Self? {
        guard let key else { return nil }
        return try filter(key: key).fetchOne(db)
    }

    /// The records with these primary or unique keys.
    public static func fetchAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> [Self] {
        if keys.isEmpty { return [] }
        return try filter(keys: keys).fetchAll(db)
    }

    /// A cursor over the records with these primary or unique keys.
    public static func fetchCursor(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws
        -> RecordCursor<Self>
    {
        try filter(keys: keys).fetchCursor(db)
    }

    /// The record with this primary or unique key, or ``RecordError/recordNotFound(databaseTableName:key:)``.
    public static func find(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Self {
        guard let record = try fetchOne(db, key: key) else { throw recordNotFound(key: key) }
        return record
    }
}

extension FetchableRecord where Self: TableRecord & Hashable {
    /// The distinct records with these primary keys.
    public static func fetchSet(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws
        -> Set<Self>
    {
        if keys.isEmpty { return [] }
        return try filter(keys: keys).fetchSet(db)
    }

    /// The distinct records with these primary or unique keys.
    public static func fetchSet(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws
        -> Set<Self>
    {
        if keys.isEmpty { return [] }
        return try filter(keys: keys).fetchSet(db)
    }
}

extension FetchableRecord where Self: TableRecord & Identifiable, ID: DatabaseValueConvertible {
    /// The record with this id, if any: `Country.fetchOne(db, id: "FR")`.
    public static func fetchOne(_ db: Database, id: ID) throws -> Self? {
        try fetchOne(db, key: id)
    }

    /// The records with these ids.
    public static func fetchAll(_ db: Database, ids: some Collection<ID>) throws -> [Self] {
        try fetchAll(db, keys: ids)
    }

    /// A cursor over the records with these ids.
    public static func fetchCursor(_ db: Database, ids: some Collection<ID>) throws -> RecordCursor<Self> {
        try fetchCursor(db, keys: ids)
    }

    /// The record with this id, or ``RecordError/recordNotFound(databaseTableName:key:)``.
    public static func find(_ db: Database, id: ID) throws -> Self {
        try find(db, key: id)
    }
}

extension FetchableRecord where Self: TableRecord & Identifiable & Hashable, ID: DatabaseValueConvertible {
    /// The distinct records with these ids.
    public static func fetchSet(_ db: Database, ids: some Collection<ID>) throws -> Set<Self> {
        try fetchSet(db, keys: ids)
    }
}
