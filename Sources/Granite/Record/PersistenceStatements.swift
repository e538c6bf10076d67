/// Builds the statements of a record's persistence methods, with the SQL text GRDB generates:
/// `INSERT INTO "player" ("id", "name") VALUES (?,?)`, `UPDATE "player" SET "name"=? WHERE "id"=?`,
/// `DELETE FROM "player" WHERE "id"=?`, `SELECT EXISTS (SELECT 1 FROM "player" WHERE "id"=?)`.
struct PersistenceStatements {
    let db: Database
    let container: PersistenceContainer
    let tableName: String
    let primaryKey: PrimaryKeyInfo

    init<Record: EncodableRecord & TableRecord>(_ db: Database, _ record: Record) throws {
        self.db = db
        // The dynamic type: a Record subclass used through a base class reference names its own table.
        tableName = type(of: record).databaseTableName
        primaryKey = try db.cachedPrimaryKey(tableName)
        container = try PersistenceContainer(db, record)
        if container.isEmpty {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(type(of: record)): invalid empty persistence container")
        }
    }

    /// The primary key values, or nil when they are all NULL (the record can't match any row).
    private var primaryKeyValues: [DatabaseValue]? {
        let values = primaryKey.columns.map { container.databaseValue(at: $0) }
        return values.allSatisfy(\.isNull) ? nil : values
    }

    private var primaryKeyCondition: String {
        primaryKey.columns.map { "\($0.quotedDatabaseIdentifier)=?" }.joined(separator: " AND ")
    }

    func insertStatement(
        onConflict conflictResolution: Database.ConflictResolution, returning selection: [any SQLSelectable]
    ) throws -> Statement {
        let key = PersistenceSQLKey(kind: .insert(conflictResolution), table: tableName, columns: container.columns)
        let sql = db.persistenceSQL(key) {
            let verb = conflictResolution == .abort ? "INSERT" : "INSERT OR \(conflictResolution.rawValue)"
            let columns = container.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            let table = tableName.quotedDatabaseIdentifier
            return PersistenceSQL(
                text: "\(verb) INTO \(table) (\(columns)) VALUES (\(questionMarks(container.count)))",
                assignedColumns: container.columns)
        }.text
        return try makeStatement(sql: sql, arguments: container.values, returning: selection)
    }

    func upsertStatement<Record>(
        onConflict conflictTarget: [String],
        updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Record>) -> [ColumnAssignment])?,
        returning selection: [any SQLSelectable]
    ) throws -> Statement {
        let columns = container.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        var sql =
            "INSERT INTO \(tableName.quotedDatabaseIdentifier) (\(columns)) VALUES (\(questionMarks(container.count)))"
        if conflictTarget.isEmpty {
            sql += " ON CONFLICT"
        } else {
            sql += " ON CONFLICT(\(conflictTarget.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))"
        }
        sql += " DO UPDATE SET "
        let excluded = TableAlias<Record>(name: "excluded")
        var assignments = assignments?(excluded) ?? []
        if strategy.contains(.allColumns) {
            // Overwrite the columns that neither identify the row nor are explicitly assigned.
            let skipped = Set((primaryKey.columns + conflictTarget).map { $0.lowercased() })
            for column in container.columns {
                let lowercased = column.lowercased()
                if skipped.contains(lowercased) { continue }
                if assignments.contains(where: { $0.columnName.lowercased() == lowercased }) { continue }
                assignments.append(Column(column).set(to: excluded[column]))
            }
        }
        let context = SQLGenerationContext(db)
        let updates = try assignments.filter(\.overwrites).map { try $0.sql(context) }.joined(separator: ", ")
        if updates.isEmpty {
            // Without any assignment, a conflict would return no row: update a primary key column with
            // itself so that RETURNING always produces the row.
            let column = primaryKey.columns[0].quotedDatabaseIdentifier
            sql += "\(column) = \(column)"
        } else {
            sql += updates
        }
        return try makeStatement(sql: sql, arguments: container.values + context.arguments, returning: selection)
    }

    /// nil when the primary key is NULL.
    func updateStatement(
        columns: Set<String>, onConflict conflictResolution: Database.ConflictResolution,
        returning selection: [any SQLSelectable]
    ) throws -> Statement? {
        guard let keyValues = primaryKeyValues else { return nil }
        let key = PersistenceSQLKey(
            kind: .update(conflictResolution), table: tableName, columns: container.columns, requestedColumns: columns)
        let sql = try db.persistenceSQL(key) { try updateSQL(columns: columns, onConflict: conflictResolution) }
        let values = sql.assignedColumns.map { container.databaseValue(at: $0) } + keyValues
        return try makeStatement(sql: sql.text, arguments: values, returning: selection)
    }

    /// `UPDATE "player" SET "name"=?, "score"=? WHERE "id"=?`, and the assigned columns in order.
    private func updateSQL(
        columns: Set<String>, onConflict conflictResolution: Database.ConflictResolution
    ) throws -> PersistenceSQL {
        // Only update columns that were asked for, that the record encodes, and that are not in the key.
        let wanted = Set(columns.map { $0.lowercased() })
            .intersection(container.columns.map { $0.lowercased() })
            .subtracting(primaryKey.columns.map { $0.lowercased() })
        var updated = try db.cachedColumnNames(tableName).filter { wanted.contains($0.lowercased()) }
        if updated.isEmpty {
            // Still write something, so that the update is a real change of the row.
            updated = primaryKey.columns
        }
        let verb = conflictResolution == .abort ? "UPDATE" : "UPDATE OR \(conflictResolution.rawValue)"
        let assignments = updated.map { "\($0.quotedDatabaseIdentifier)=?" }.joined(separator: ", ")
        return PersistenceSQL(
            text: "\(verb) \(tableName.quotedDatabaseIdentifier) SET \(assignments) WHERE \(primaryKeyCondition)",
            assignedColumns: updated)
    }

    /// nil when the primary key is NULL.
    func deleteStatement() throws -> Statement? {
        guard let keyValues = primaryKeyValues else { return nil }
        let sql = "DELETE FROM \(tableName.quotedDatabaseIdentifier) WHERE \(primaryKeyCondition)"
        return try makeStatement(sql: sql, arguments: keyValues, returning: [])
    }

    /// nil when the primary key is NULL.
    func existsStatement() throws -> Statement? {
        guard let keyValues = primaryKeyValues else { return nil }
        let sql = "SELECT EXISTS (SELECT 1 FROM \(tableName.quotedDatabaseIdentifier) WHERE \(primaryKeyCondition))"
        return try makeStatement(sql: sql, arguments: keyValues, returning: [])
    }

    /// The primary key of the record, or nil when it is all NULL.
    var primaryKeyDictionary: [String: DatabaseValue]? {
        guard primaryKeyValues != nil else { return nil }
        return keyDictionary
    }

    private var keyDictionary: [String: DatabaseValue] {
        Dictionary(
            primaryKey.columns.map { ($0, container.databaseValue(at: $0)) }, uniquingKeysWith: { first, _ in first })
    }

    func recordNotFound() -> RecordError {
        .recordNotFound(databaseTableName: tableName, key: keyDictionary)
    }

    private func makeStatement(sql: String, arguments: [DatabaseValue], returning selection: [any SQLSelectable])
        throws -> Statement
    {
        if selection.isEmpty {
            let statement = try db.cachedStatement(sql: sql)
            statement.setUncheckedArguments(StatementArguments(arguments))
            return statement
        }
        let context = SQLGenerationContext(db)
        let returning = try selection.map { try $0.sqlSelection.sql(context, tableName: tableName) }
            .joined(separator: ", ")
        let statement = try db.cachedStatement(sql: sql + " RETURNING " + returning)
        try statement.setArguments(StatementArguments(arguments + context.arguments))
        return statement
    }
}

/// What an INSERT's SQL text depends on.
/// What the SQL text of a record statement depends on, besides the schema (whose changes empty the cache).
struct PersistenceSQLKey: Hashable {
    enum Kind: Hashable {
        case insert(Database.ConflictResolution)
        case update(Database.ConflictResolution)
    }
    var kind: Kind
    var table: String
    /// The columns the record encodes, in order.
    var columns: [String]
    /// The columns an update was asked to write (empty for inserts).
    var requestedColumns: Set<String> = []

    /// Hashes the table and the column counts only: every save looks its key up, and hashing each column
    /// name cost more than the lookup saved. Keys of one table with as many columns are told apart by `==`.
    func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(table)
        hasher.combine(columns.count)
        hasher.combine(requestedColumns.count)
    }
}

/// The SQL text of a record statement, and the columns its leading `?` bind, in order.
struct PersistenceSQL {
    var text: String
    var assignedColumns: [String]
}

/// `?,?,?`
private func questionMarks(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ",")
}
