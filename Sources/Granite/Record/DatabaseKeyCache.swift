/// The primary keys and unique indexes that requests consult (to filter by key, and to skip `LIMIT 1` on
/// unique keys), cached per connection until the schema changes.
struct DatabaseKeyCache {
    private var schemaVersion = -1
    fileprivate var primaryKeys: [String: PrimaryKeyInfo] = [:]
    fileprivate var uniqueIndexes: [String: [[String]]] = [:]
    fileprivate var tableExistence: [String: Bool] = [:]
    fileprivate var columnNames: [String: [String]] = [:]
    fileprivate var foreignKeys: [String: [ForeignKeyInfo]] = [:]
    /// The SQL text of record statements: an UPDATE's depends on the table's columns.
    fileprivate var persistenceSQL: [PersistenceSQLKey: PersistenceSQL] = [:]

    /// Forgets everything when the catalog changed.
    fileprivate mutating func validate(_ version: Int) {
        if version != schemaVersion {
            self = DatabaseKeyCache()
            schemaVersion = version
        }
    }

    fileprivate mutating func value<T>(
        _ path: WritableKeyPath<DatabaseKeyCache, [String: T]>, _ key: String, _ load: () throws -> T
    ) rethrows -> T {
        if let cached = self[keyPath: path][key] { return cached }
        let value = try load()
        self[keyPath: path][key] = value
        return value
    }
}

extension Database {
    private func withKeyCache<T>(_ body: (inout DatabaseKeyCache) throws -> T) rethrows -> T {
        keyCache.validate(connection.catalog.schemaVersion)
        return try body(&keyCache)
    }

    /// The primary key of a table (cached).
    func cachedPrimaryKey(_ tableName: String) throws -> PrimaryKeyInfo {
        try withKeyCache { cache in
            try cache.value(\.primaryKeys, tableName.lowercased()) { try primaryKey(tableName) }
        }
    }

    /// Whether a table exists (cached).
    func cachedTableExists(_ tableName: String) throws -> Bool {
        try withKeyCache { cache in
            try cache.value(\.tableExistence, tableName.lowercased()) { try tableExists(tableName) }
        }
    }

    /// The foreign keys of a table (cached): associations look them up each time they generate SQL.
    func cachedForeignKeys(_ tableName: String) throws -> [ForeignKeyInfo] {
        try withKeyCache { cache in
            try cache.value(\.foreignKeys, tableName.lowercased()) { try foreignKeys(on: tableName) }
        }
    }

    /// The names of the columns of a table, in order (cached).
    func cachedColumnNames(_ tableName: String) throws -> [String] {
        try withKeyCache { cache in
            try cache.value(\.columnNames, tableName.lowercased()) { try columns(in: tableName).map(\.name) }
        }
    }

    /// The SQL text for `key`, built by `make` the first time (GRDB rebuilds it per record; the text is the
    /// same until the schema changes).
    func persistenceSQL(_ key: PersistenceSQLKey, _ make: () throws -> PersistenceSQL) rethrows -> PersistenceSQL {
        if let sql = withKeyCache({ $0.persistenceSQL[key] }) { return sql }
        // Built outside the cache's access: `make` reads the cached column names.
        let sql = try make()
        withKeyCache { cache in
            if cache.persistenceSQL.count >= 256 { cache.persistenceSQL.removeAll() }
            cache.persistenceSQL[key] = sql
        }
        return sql
    }

    /// The columns of the unique indexes of a table (cached).
    func cachedUniqueIndexes(_ tableName: String) throws -> [[String]] {
        try withKeyCache { cache in
            try cache.value(\.uniqueIndexes, tableName.lowercased()) {
                try indexes(on: tableName).filter(\.isUnique).map(\.columns)
            }
        }
    }

    /// The columns of the primary key or unique index that `columns` cover, or nil (case-insensitive).
    ///
    /// Keys and filters have a handful of columns, so nested scans beat building lowercased sets: `fetchOne`
    /// asks this for every request filtered by equalities.
    func columnsForUniqueKey(_ columns: some Collection<String>, in tableName: String) throws -> [String]? {
        if columns.isEmpty { return nil }
        let primaryKey = try cachedPrimaryKey(tableName)
        if columns.allSatisfy({ RowLayout.equalIgnoringCase($0, Column.rowID.name) }) { return [Column.rowID.name] }
        func isCovered(_ key: [String]) -> Bool {
            key.allSatisfy { keyColumn in columns.contains { RowLayout.equalIgnoringCase($0, keyColumn) } }
        }
        if isCovered(primaryKey.columns) { return primaryKey.columns }
        return try cachedUniqueIndexes(tableName).first(where: isCovered)
    }

    /// The single column of the primary key of `tableName`, used to filter by key.
    func filteringPrimaryKeyColumn(_ tableName: String) throws -> String {
        let columns = try cachedPrimaryKey(tableName).columns
        guard columns.count == 1 else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "Filtering by primary key requires a single-column primary key in the table '\(tableName)'")
        }
        return columns[0]
    }
}
