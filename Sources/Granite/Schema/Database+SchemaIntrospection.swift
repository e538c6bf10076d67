extension Database {
    // MARK: Schema version

    /// The schema version, incremented by each schema change.
    public func schemaVersion() throws -> Int32 {
        try Int32.fetchOne(self, sql: "PRAGMA schema_version") ?? 0
    }

    // MARK: Existence

    /// Whether a table exists (names compare case-insensitively).
    ///
    /// ```swift
    /// if try db.tableExists("player") { ... }
    /// ```
    public func tableExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectName(name, type: "table", in: schemaName) != nil
    }

    /// Whether a view exists (names compare case-insensitively).
    ///
    /// ```swift
    /// if try db.viewExists("bestPlayer") { ... }
    /// ```
    public func viewExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectName(name, type: "view", in: schemaName) != nil
    }

    /// Whether a trigger exists (names compare case-insensitively).
    ///
    /// ```swift
    /// if try db.triggerExists("playerUpdated") { ... }
    /// ```
    public func triggerExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectName(name, type: "trigger", in: schemaName) != nil
    }

    /// Whether `tableName` is an internal table of the engine (`sqlite_…`, `pragma_…`).
    public static func isSQLiteInternalTable(_ tableName: String) -> Bool {
        tableName.starts(with: "sqlite_") || tableName.starts(with: "pragma_")
    }

    /// Whether `tableName` is an internal table of GRDB (`grdb_…`, such as `grdb_migrations`).
    public static func isGRDBInternalTable(_ tableName: String) -> Bool {
        tableName.starts(with: "grdb_")
    }

    // MARK: Columns and keys

    /// The columns of a table or a view, in order.
    ///
    /// A view's columns have the declared type of the table column they read (empty for other expressions),
    /// and are never NOT NULL, defaulted or part of a primary key.
    ///
    /// - throws: `no such table: <name>` when there is no such table or view, and the error of a view whose
    ///   query does not compile.
    public func columns(in tableName: String, in schemaName: String? = nil) throws -> [ColumnInfo] {
        let table = try existingTableOrViewName(tableName, in: schemaName)
        let schema = Self.pragmaSchema(schemaName)
        return try Row.fetchAll(self, sql: "PRAGMA \(schema)table_xinfo(\(table.quotedDatabaseIdentifier))")
            .map(ColumnInfo.init(row:))
            .filter { $0.hidden != 1 }
            .sorted { $0.cid < $1.cid }
    }

    /// The primary key of a table: its `INTEGER PRIMARY KEY`, its declared key, or the hidden rowid.
    ///
    /// ```swift
    /// try db.primaryKey("player").columns  // ["id"]
    /// ```
    ///
    /// A view has a primary key only when the connection's ``schemaSource`` names its columns.
    ///
    /// - throws: `no such table: <name>` when there is no such table or view; `database view <name> has no
    ///   primary key` for a view the schema source says nothing about; `no such column in view <name>: <column>`
    ///   when the schema source names a column the view does not have.
    public func primaryKey(_ tableName: String, in schemaName: String? = nil) throws -> PrimaryKeyInfo {
        if let view = try schemaObjectName(tableName, type: "view", in: schemaName) {
            return try viewPrimaryKey(view)
        }
        let columns = try columns(in: tableName, in: schemaName)
            .filter { $0.primaryKeyIndex > 0 }
            .sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        switch columns.count {
        case 0: return .hiddenRowID
        case 1 where columns[0].type.uppercased() == "INTEGER": return .rowID(columns[0])
        default: return .regular(columns, tableHasRowID: try tableHasRowID(tableName, in: schemaName))
        }
    }

    /// Whether the table has a rowid, from the `wr` column of `PRAGMA table_list` (1 for `WITHOUT ROWID`); with
    /// no schema name, a temporary table shadows a main one.
    private func tableHasRowID(_ tableName: String, in schemaName: String?) throws -> Bool {
        let rows = try Row.fetchAll(self, sql: "PRAGMA table_list(\(tableName.quotedDatabaseIdentifier))")
        let row =
            rows.first { ($0["schema"] as String?) == (schemaName ?? "temp") }
            ?? rows.first { ($0["schema"] as String?) == (schemaName ?? "main") }
        return (row?["wr"] as Int?) != 1
    }

    /// The indexes of a table, automatic ones included. Indexes on expressions are left out.
    ///
    /// - throws: `no such table: <name>` when the table does not exist.
    public func indexes(on tableName: String, in schemaName: String? = nil) throws -> [IndexInfo] {
        let table = try existingTableName(tableName, in: schemaName)
        var indexes: [IndexInfo] = []
        let schema = Self.pragmaSchema(schemaName)
        for row in try Row.fetchAll(self, sql: "PRAGMA \(schema)index_list(\(table.quotedDatabaseIdentifier))") {
            let name: String = row["name"]
            let columnRows = try Row.fetchAll(self, sql: "PRAGMA \(schema)index_info(\(name.quotedDatabaseIdentifier))")
                .sorted { ($0["seqno"] as Int) < ($1["seqno"] as Int) }
            let columns = columnRows.compactMap { $0["name"] as String? }
            guard columns.count == columnRows.count else { continue }
            indexes.append(
                IndexInfo(name: name, columns: columns, isUnique: row["unique"], origin: row["origin"]))
        }
        return indexes
    }

    /// Whether the columns (in any order, case-insensitively) contain the primary key or the columns of a
    /// unique index of the table.
    ///
    /// ```swift
    /// try db.table("player", hasUniqueKey: ["email"])
    /// ```
    public func table(_ tableName: String, hasUniqueKey columns: some Collection<String>) throws -> Bool {
        let wanted = Set(columns.map { $0.lowercased() })
        if wanted.isEmpty { return false }
        let primaryKey = try self.primaryKey(tableName)
        if wanted == ["rowid"] { return true }
        if Set(primaryKey.columns.map { $0.lowercased() }).isSubset(of: wanted) { return true }
        return try indexes(on: tableName).contains { index in
            index.isUnique && Set(index.columns.map { $0.lowercased() }).isSubset(of: wanted)
        }
    }

    /// The foreign keys of a table; a key that references the parent's primary key implicitly lists its
    /// columns.
    ///
    /// - throws: `no such table: <name>` when the table does not exist.
    public func foreignKeys(on tableName: String, in schemaName: String? = nil) throws -> [ForeignKeyInfo] {
        let table = try existingTableName(tableName, in: schemaName)
        var keys: [(id: Int, table: String, pairs: [(origin: String, destination: String?, seq: Int)])] = []
        let schema = Self.pragmaSchema(schemaName)
        for row in try Row.fetchAll(self, sql: "PRAGMA \(schema)foreign_key_list(\(table.quotedDatabaseIdentifier))") {
            let id: Int = row["id"]
            let pair = (origin: row["from"] as String, destination: row["to"] as String?, seq: row["seq"] as Int)
            if let last = keys.indices.last, keys[last].id == id {
                keys[last].pairs.append(pair)
            } else {
                keys.append((id, row["table"], [pair]))
            }
        }
        return try keys.map { key in
            let pairs = key.pairs.sorted { $0.seq < $1.seq }
            var destinations = pairs.compactMap(\.destination)
            if destinations.count != pairs.count {
                destinations = try primaryKey(key.table).columns
            }
            let mapping = zip(pairs, destinations).map { (origin: $0.origin, destination: $1) }
            return ForeignKeyInfo(id: key.id, destinationTable: key.table, mapping: mapping)
        }
    }

    // MARK: Helpers

    /// The primary key the ``schemaSource`` gives the view `view`.
    private func viewPrimaryKey(_ view: String) throws -> PrimaryKeyInfo {
        let id = DatabaseObjectID(name: view, schemaID: .main)
        guard let names = try schemaSource?.columnsForPrimaryKey(self, inView: id), !names.isEmpty else {
            throw DatabaseError(message: "database view \(view) has no primary key")
        }
        let columns = try self.columns(in: view)
        let key = try names.map { name in
            guard let column = columns.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw DatabaseError(message: "no such column in view \(view): \(name)")
            }
            return column
        }
        return .view(key)
    }

    /// The `schema.` prefix of a pragma reading an object of `schemaName` (`main` or `temp`, checked by the
    /// caller), or none.
    static func pragmaSchema(_ schemaName: String?) -> String {
        schemaName.map { "\($0.lowercased())." } ?? ""
    }

    /// The stored name of the table or view, or `no such table`.
    func existingTableOrViewName(_ name: String, in schemaName: String?) throws -> String {
        if let view = try schemaObjectName(name, type: "view", in: schemaName) { return view }
        return try existingTableName(name, in: schemaName)
    }

    /// The stored name of the table, or `no such table`.
    func existingTableName(_ name: String, in schemaName: String?) throws -> String {
        guard let stored = try schemaObjectName(name, type: "table", in: schemaName) else {
            throw DatabaseError(message: "no such table: \(name)")
        }
        return stored
    }

    /// The stored name of the schema object of this type, compared case-insensitively; nil when there is none.
    /// Without a schema name, the connection's temporary schema is searched first, then `main`, as SQLite resolves
    /// names; schemas other than `main` and `temp` throw `no such schema`.
    private func schemaObjectName(_ name: String, type: String, in schemaName: String?) throws -> String? {
        let sql: String
        let arguments: StatementArguments
        switch schemaName?.lowercased() {
        case nil:
            sql = "SELECT name FROM sqlite_temp_master WHERE type = ? UNION ALL "
                + "SELECT name FROM granite_schema WHERE type = ?"
            arguments = [type, type]
        case "main":
            sql = "SELECT name FROM granite_schema WHERE type = ?"
            arguments = [type]
        case "temp":
            sql = "SELECT name FROM sqlite_temp_master WHERE type = ?"
            arguments = [type]
        default:
            throw DatabaseError(message: "no such schema: \(schemaName ?? "")")
        }
        let lowercased = name.lowercased()
        // The temporary schema's names come first.
        return try String.fetchAll(self, sql: sql, arguments: arguments).first { $0.lowercased() == lowercased }
    }
}
