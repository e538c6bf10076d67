import GraniteStorage

/// The SQL schema: the tables and indexes of a database, persisted in the `granite_schema` table.
///
/// `granite_schema` is a storage table tree whose rows (encoded with `RowEncoder`, rowids ascending) are
/// `[type TEXT ('table' | 'index' | 'view'), name TEXT, tbl_name TEXT, rootpage INTEGER, sql TEXT]`; `sql` is the
/// original `CREATE` text (regenerated from the canonical form after a rename) and NULL for automatic indexes. A view
/// has no storage tree: its row has root page 0 and names itself as its table. It is created by the first schema
/// change.
///
/// Storage tree names: a table's rows live in the table tree `t:<r>` and an index's entries in the index tree
/// `i:<r>`, where `<r>` is the rowid of the object's `granite_schema` row. The names do not depend on the SQL name,
/// so renaming never touches the storage catalog. SQL names are unique across tables, indexes and views, ignoring
/// ASCII case; names starting with `granite_` are reserved.
///
/// Every change happens inside the caller's storage write transaction (one is begun implicitly when none is in
/// progress) and is atomic on its own (a savepoint undoes a half-made change). A rolled-back transaction undoes the
/// stored schema; the in-memory catalog must then be rebuilt with ``load(transaction:)``. Creating an index does not
/// fill its tree: the executor populates it from the table's rows.
///
/// A connection's temporary schema is a catalog of the same kind (``isTemporary``), stored in the connection's
/// in-memory temporary store, and held inside the main catalog (see SchemaCatalog+Temporary.swift), whose name
/// lookups look in it first.
package struct SchemaCatalog: Sendable {
    /// The name of the schema table in the storage catalog.
    package static let schemaTableName = "granite_schema"

    /// The read-only table of schema rows, queryable as `granite_schema` (and, for tools written for SQLite, as
    /// `sqlite_schema` / `sqlite_master`): type, name, tbl_name, rootpage, sql.
    package static func schemaTable(named name: String) -> TableDefinition? {
        let key = SchemaNames.key(name)
        guard key == "granite_schema" || key == "sqlite_schema" || key == "sqlite_master" else { return nil }
        return schemaTableDefinition(named: name)
    }

    /// The definition of the schema table read under `name`.
    static func schemaTableDefinition(named name: String) -> TableDefinition? {
        let sql = "CREATE TABLE \(name)(type text, name text, tbl_name text, rootpage integer, sql text)"
        guard case .createTable(let create)? = try? Parser.parseStatement(sql).kind,
            let table = try? TableDefinition(create, sql: sql, storageName: schemaTableName)
        else { return nil }
        return table
    }

    private static let savepointName = "granite_schema_change"

    /// Bumped on every change and every ``load(transaction:)``; statement caches compare it.
    package internal(set) var schemaVersion = 0
    /// The storage schema cookie the catalog reflects (see `StorageTransaction.schemaCookie`).
    package internal(set) var cookie: UInt32 = 0

    var tablesByKey: [String: TableDefinition] = [:]
    var indexesByKey: [String: IndexDefinition] = [:]
    var viewsByKey: [String: ViewDefinition] = [:]
    var triggersByKey: [String: TriggerDefinition] = [:]

    /// The connection's temporary schema (`temp`) once its first object was created (see SchemaCatalog+Temp.swift):
    /// at most one catalog, in an array because a struct cannot hold a value of its own type.
    var temporarySchemas: [SchemaCatalog] = []
    /// Whether ``temporarySchemas`` holds the temporary schema: the one test a lookup makes before probing it.
    package internal(set) var hasTemporarySchema = false
    /// Whether this catalog is a connection's temporary schema (its objects are marked temporary, and `temp` is the
    /// qualifier its statements accept).
    package internal(set) var isTemporary = false
    /// Whether unqualified names skip the temporary schema: set while the body of a main trigger is compiled and
    /// run, as SQLite binds the names a main object's statements use to the main schema.
    package var bindsNamesToMain = false

    /// An empty catalog (use ``load(transaction:)`` to read a database's schema).
    package init() {}

    /// Reads the schema of the database as `transaction` sees it.
    package init(transaction: StorageTransaction) throws {
        try load(transaction: transaction)
    }

    // MARK: Lookup

    /// Every table, in creation order.
    package var tables: [TableDefinition] {
        tablesByKey.values.sorted { $0.schemaRowid < $1.schemaRowid }
    }

    /// Every index, in creation order.
    package var indexes: [IndexDefinition] {
        indexesByKey.values.sorted { $0.schemaRowid < $1.schemaRowid }
    }

    /// The table named `name` (ASCII case-insensitive), if any: the temporary schema's first, as SQLite resolves
    /// an unqualified name outside a main trigger (see ``bindsNamesToMain``; ``table(_:)`` for `main.` and
    /// `temp.`).
    ///
    /// `sqlite_sequence` names Granite's `granite_sequence`, as scripts written for SQLite (the output of
    /// `sqlite3 .dump` among them) read and write it under that name.
    @inline(__always)
    package func table(named name: String) -> TableDefinition? {
        let key = SchemaNames.key(name)
        if hasTemporarySchema, !bindsNamesToMain,
            let table = temporarySchemas[0].tablesByKey[key] ?? temporarySchemas[0].aliasedTable(key)
        {
            return table
        }
        if let table = tablesByKey[key] { return table }
        return aliasedTable(key)
    }

    /// The table a reserved SQLite name stands for (`sqlite_sequence`), if any.
    @inline(never)
    func aliasedTable(_ key: String) -> TableDefinition? {
        key == "sqlite_sequence" ? tablesByKey[WriteSession.sequenceTable] : nil
    }

    /// The index named `name` (ASCII case-insensitive), if any: the temporary schema's first.
    package func index(named name: String) -> IndexDefinition? {
        let key = SchemaNames.key(name)
        if hasTemporarySchema, let index = temporarySchemas[0].indexesByKey[key] { return index }
        return indexesByKey[key]
    }

    /// The indexes of table `table` (automatic ones included), in creation order.
    package func indexes(on table: String) -> [IndexDefinition] {
        let key = SchemaNames.key(table)
        return indexes.filter { SchemaNames.key($0.table) == key }
    }

    // MARK: Loading

    /// Rebuilds the catalog from `granite_schema`, re-parsing every stored `CREATE` statement.
    ///
    /// Throws ``SchemaError`` (`malformed database schema (name) - reason`) when a row is inconsistent.
    package mutating func load(transaction: StorageTransaction) throws {
        var tables: [String: TableDefinition] = [:]
        var indexes: [String: IndexDefinition] = [:]
        var views: [String: ViewDefinition] = [:]
        var triggers: [String: TriggerDefinition] = [:]
        defer { schemaVersion += 1 }
        cookie = try transaction.schemaCookie
        guard try transaction.treeInfo(named: Self.schemaTableName) != nil else {
            tablesByKey = [:]
            indexesByKey = [:]
            viewsByKey = [:]
            triggersByKey = [:]
            return
        }
        let rows = try Self.readRows(transaction: transaction)
        for row in rows where row.type == "table" {
            guard let sql = row.sql, case .createTable(let create) = try Self.parse(sql, row.name).kind else {
                throw Self.malformed(row.name, "expected a CREATE TABLE statement")
            }
            let storageName = "t:\(row.rowid)"
            try Self.checkTree(transaction, storageName, .table, row)
            let definition = try Self.schemaCall(row.name) {
                try TableDefinition(
                    create, sql: sql, rootPage: row.root, storageName: storageName, schemaRowid: row.rowid)
            }
            guard SchemaNames.equal(definition.name, row.name), tables[SchemaNames.key(row.name)] == nil else {
                throw Self.malformed(row.name, "name mismatch or duplicate")
            }
            tables[SchemaNames.key(row.name)] = definition
        }
        for row in rows where row.type == Self.viewRowType {
            let view = try Self.loadView(
                rowid: row.rowid, name: row.name, tableName: row.tableName, root: Int64(row.root), sql: row.sql)
            let key = SchemaNames.key(row.name)
            guard tables[key] == nil, views[key] == nil else { throw Self.malformed(row.name, "duplicate name") }
            views[key] = view
        }
        for row in rows where row.type == Self.triggerRowType {
            let trigger = try Self.loadTrigger(
                rowid: row.rowid, name: row.name, tableName: row.tableName, root: Int64(row.root), sql: row.sql)
            let key = SchemaNames.key(row.name)
            guard triggers[key] == nil else { throw Self.malformed(row.name, "duplicate name") }
            triggers[key] = trigger
        }
        for row in rows where row.type != "table" && row.type != Self.viewRowType && row.type != Self.triggerRowType {
            guard row.type == "index" else { throw Self.malformed(row.name, "unknown type '\(row.type)'") }
            guard let table = tables[SchemaNames.key(row.tableName)] else {
                throw Self.malformed(row.name, "no such table: \(row.tableName)")
            }
            let storageName = "i:\(row.rowid)"
            try Self.checkTree(transaction, storageName, .index, row)
            let definition: IndexDefinition
            if let sql = row.sql {
                guard case .createIndex(let create) = try Self.parse(sql, row.name).kind else {
                    throw Self.malformed(row.name, "expected a CREATE INDEX statement")
                }
                definition = try Self.schemaCall(row.name) {
                    try IndexDefinition(
                        create, sql: sql, on: table, rootPage: row.root, storageName: storageName,
                        schemaRowid: row.rowid)
                }
            } else {
                guard
                    let constraint = table.uniqueConstraints.first(where: { SchemaNames.equal($0.indexName, row.name) })
                else { throw Self.malformed(row.name, "orphan automatic index") }
                definition = IndexDefinition(
                    automatic: constraint, on: table, rootPage: row.root, storageName: storageName,
                    schemaRowid: row.rowid)
            }
            guard SchemaNames.equal(definition.name, row.name), indexes[SchemaNames.key(row.name)] == nil,
                views[SchemaNames.key(row.name)] == nil
            else {
                throw Self.malformed(row.name, "name mismatch or duplicate")
            }
            indexes[SchemaNames.key(row.name)] = definition
        }
        for table in tables.values {
            for constraint in table.uniqueConstraints where indexes[SchemaNames.key(constraint.indexName)] == nil {
                throw Self.malformed(table.name, "missing automatic index \(constraint.indexName)")
            }
        }
        tablesByKey = tables
        indexesByKey = indexes
        viewsByKey = views
        triggersByKey = triggers
    }

    // MARK: Statements

    /// Applies a `CREATE TABLE`, `CREATE INDEX`, `CREATE VIEW`, `DROP TABLE`, `DROP INDEX`, `DROP VIEW` or
    /// `ALTER TABLE` statement.
    package mutating func execute(_ statement: Statement, transaction: WriteTransaction) throws {
        switch statement.kind {
        case .createTable(let create):
            // SQLite's normalized text: no `TEMP`, `IF NOT EXISTS` or schema qualifier.
            let sql = Self.storedSQL(statement.sourceText, keyword: "TABLE")
            try createTable(create, sql: sql, transaction: transaction)
        case .createIndex(let create):
            let sql = Self.storedSQL(
                statement.sourceText, keyword: "INDEX", written: create.unique ? "UNIQUE INDEX" : nil)
            try createIndex(create, sql: sql, transaction: transaction)
        case .createView(let create):
            try createView(create, sql: Self.storedSQL(statement.sourceText, keyword: "VIEW"), transaction: transaction)
        case .createTrigger(let create):
            try createTrigger(create, sql: Self.storedSQL(statement.sourceText, keyword: "TRIGGER"), transaction: transaction)
        case .dropTrigger(let drop):
            try checkSchema(drop.name)
            if missing(drop, trigger(named: drop.name.name) == nil) {
                throw SchemaError("no such trigger: \(Self.written(drop.name))")
            }
            try dropTrigger(named: drop.name.name, ifExists: drop.ifExists, transaction: transaction)
        case .dropView(let drop):
            try checkSchema(drop.name)
            if missing(drop, view(named: drop.name.name) == nil && table(named: drop.name.name) == nil) {
                throw SchemaError("no such view: \(Self.written(drop.name))")
            }
            try dropView(named: drop.name.name, ifExists: drop.ifExists, transaction: transaction)
        case .dropTable(let drop):
            try checkSchema(drop.name)
            if let conflict = Self.viewConflict(view(named: drop.name.name), for: .dropTable) { throw conflict }
            if missing(drop, table(named: drop.name.name) == nil) {
                throw SchemaError(.noSuchTable(Self.written(drop.name)))
            }
            try dropTable(named: drop.name.name, ifExists: drop.ifExists, transaction: transaction)
        case .dropIndex(let drop):
            try checkSchema(drop.name)
            if missing(drop, index(named: drop.name.name) == nil) {
                throw SchemaError(.noSuchIndex(Self.written(drop.name)))
            }
            try dropIndex(named: drop.name.name, ifExists: drop.ifExists, transaction: transaction)
        case .alterTable(let alter):
            try checkSchema(alter.table)
            if let view = view(named: alter.table.name) {
                let conflict: ViewConflict
                switch alter.action {
                case .renameTable: conflict = .renameTable
                case .renameColumn: conflict = .renameColumn
                case .addColumn: conflict = .addColumn
                case .dropColumn: conflict = .dropColumn
                }
                throw Self.viewConflict(view, for: conflict) ?? SchemaError("view \(view.name) may not be altered")
            }
            if alter.table.schema != nil, table(named: alter.table.name) == nil {
                // SQLite's message names the table as written, qualifier included.
                throw SchemaError(.noSuchTable(Self.written(alter.table)))
            }
            switch alter.action {
            case .renameTable(let newName):
                try renameTable(alter.table.name, to: newName, transaction: transaction)
            case .renameColumn(let from, let to):
                try renameColumn(from, to: to, in: alter.table.name, transaction: transaction)
            case .addColumn(let column):
                try addColumn(column, to: alter.table.name, transaction: transaction)
            case .dropColumn(let column):
                try dropColumn(column, from: alter.table.name, transaction: transaction)
            }
        default:
            throw SchemaError("not a schema statement")
        }
    }

    /// Executes `CREATE TABLE` from a parsed statement (its ``Statement/sourceText`` is stored).
    package mutating func createTable(_ statement: Statement, transaction: WriteTransaction) throws {
        guard case .createTable(let create) = statement.kind else { throw SchemaError("not a CREATE TABLE statement") }
        try createTable(create, sql: statement.sourceText, transaction: transaction)
    }

    /// Creates a table and its automatic indexes, storing `sql` as its definition.
    package mutating func createTable(_ create: CreateTableStatement, sql: String, transaction: WriteTransaction)
        throws
    {
        try createTable(create, sql: sql, transaction: transaction, allowingReservedName: false)
    }

    /// Creates a table; `allowingReservedName` allows Granite's reserved names (for `granite_sequence`).
    mutating func createTable(
        _ create: CreateTableStatement, sql: String, transaction: WriteTransaction, allowingReservedName: Bool
    ) throws {
        try checkSchema(create.name)
        let name = create.name.name
        if !allowingReservedName, Self.isReserved(name) {
            throw SchemaError("object name reserved for internal use: \(name)")
        }
        if table(named: name) != nil || view(named: name) != nil {
            if create.ifNotExists { return }
            // SQLite names the object as the statement wrote it.
            throw SchemaError("\(view(named: name) == nil ? "table" : "view") \(name) already exists")
        }
        if index(named: name) != nil { throw SchemaError("there is already an index named \(name)") }
        var definition = try TableDefinition(create, sql: sql)
        try definition.validateExpressions()
        try definition.validateCollations()
        var automatic: [IndexDefinition] = []
        try Self.atomically(transaction) {
            let schema = try Self.schemaTree(transaction, create: true)
            var rowid = (try schema.lastRowid() ?? 0) + 1
            definition.schemaRowid = rowid
            definition.storageName = "t:\(rowid)"
            definition.rootPage = try transaction.createTable(named: definition.storageName).root
            try Self.write(definition, to: schema)
            for constraint in definition.uniqueConstraints {
                rowid += 1
                let storageName = "i:\(rowid)"
                let root = try transaction.createIndex(named: storageName).root
                let index = IndexDefinition(
                    automatic: constraint, on: definition, rootPage: root, storageName: storageName, schemaRowid: rowid)
                try Self.write(index, to: schema)
                automatic.append(index)
            }
        }
        tablesByKey[SchemaNames.key(name)] = definition
        for index in automatic { indexesByKey[SchemaNames.key(index.name)] = index }
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    /// Executes `CREATE INDEX` from a parsed statement (its ``Statement/sourceText`` is stored).
    package mutating func createIndex(_ statement: Statement, transaction: WriteTransaction) throws {
        guard case .createIndex(let create) = statement.kind else { throw SchemaError("not a CREATE INDEX statement") }
        try createIndex(create, sql: statement.sourceText, transaction: transaction)
    }

    /// Creates an (empty) index, storing `sql` as its definition.
    package mutating func createIndex(_ create: CreateIndexStatement, sql: String, transaction: WriteTransaction)
        throws
    {
        try checkSchema(create.name)
        let name = create.name.name
        if Self.isReserved(name) { throw SchemaError("object name reserved for internal use: \(name)") }
        if SchemaNames.equal(create.table, Self.schemaTableName) {
            throw SchemaError("table \(create.table) may not be indexed")
        }
        if let conflict = Self.viewConflict(view(named: create.table), for: .createIndexOn) { throw conflict }
        guard let table = table(named: create.table) else {
            // SQLite names a missing table of a main index `main.x`, a temporary index's bare.
            throw SchemaError(.noSuchTable((isTemporary ? "" : "main.") + create.table))
        }
        if self.table(named: name) != nil { throw SchemaError("there is already a table named \(name)") }
        if view(named: name) != nil { throw SchemaError("there is already a table named \(name)") }
        if index(named: name) != nil {
            if create.ifNotExists { return }
            throw SchemaError("index \(name) already exists")
        }
        try IndexDefinition.validateExpressions(of: create, on: table)
        try IndexDefinition.validateCollations(of: create, on: table)
        var definition = try IndexDefinition(create, sql: sql, on: table)
        try Self.atomically(transaction) {
            let schema = try Self.schemaTree(transaction, create: true)
            let rowid = (try schema.lastRowid() ?? 0) + 1
            definition.schemaRowid = rowid
            definition.storageName = "i:\(rowid)"
            definition.rootPage = try transaction.createIndex(named: definition.storageName).root
            try Self.write(definition, to: schema)
        }
        indexesByKey[SchemaNames.key(name)] = definition
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    /// Drops a table, its indexes and their storage trees.
    package mutating func dropTable(named name: String, ifExists: Bool = false, transaction: WriteTransaction) throws {
        if SchemaNames.equal(name, Self.schemaTableName) { throw SchemaError("table \(name) may not be dropped") }
        guard let table = table(named: name) else {
            if ifExists { return }
            throw SchemaError(.noSuchTable(name))
        }
        let indexes = indexes(on: table.name)
        try Self.atomically(transaction) {
            let schema = try Self.schemaTree(transaction, create: true)
            for index in indexes {
                try transaction.dropTree(named: index.storageName)
                try schema.delete(rowid: index.schemaRowid)
            }
            try transaction.dropTree(named: table.storageName)
            try schema.delete(rowid: table.schemaRowid)
            try dropTriggers(on: table.name, schema: schema)
        }
        for index in indexes { indexesByKey[SchemaNames.key(index.name)] = nil }
        tablesByKey[SchemaNames.key(table.name)] = nil
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    /// Drops an index created by `CREATE INDEX` and its storage tree.
    package mutating func dropIndex(named name: String, ifExists: Bool = false, transaction: WriteTransaction) throws {
        guard let index = index(named: name) else {
            if ifExists { return }
            throw SchemaError(.noSuchIndex(name))
        }
        if index.isAutomatic {
            throw SchemaError("index associated with UNIQUE or PRIMARY KEY constraint cannot be dropped")
        }
        try Self.atomically(transaction) {
            let schema = try Self.schemaTree(transaction, create: true)
            try transaction.dropTree(named: index.storageName)
            try schema.delete(rowid: index.schemaRowid)
        }
        indexesByKey[SchemaNames.key(index.name)] = nil
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    // MARK: Helpers

    /// Whether `DROP … schema.x` fails for want of `x`: SQLite then names it with the qualifier as written
    /// (without one, the drop functions report the bare name).
    private func missing(_ drop: DropStatement, _ absent: Bool) -> Bool {
        absent && !drop.ifExists && drop.name.schema != nil
    }

    /// `schema.name` as written, or `name`.
    static func written(_ name: QualifiedName) -> String {
        name.schema.map { "\($0).\(name.name)" } ?? name.name
    }

    static func isReserved(_ name: String) -> Bool { SchemaNames.isReserved(name) }

    /// Checks the schema qualifier of an object this catalog creates or changes: `main`, or `temp` for the
    /// temporary schema.
    func checkSchema(_ name: QualifiedName) throws {
        if let schema = name.schema, SchemaNames.key(schema) != (isTemporary ? "temp" : "main") {
            throw SchemaError("unknown database \(schema)")
        }
    }

    /// Runs `body` inside a savepoint, undoing its storage changes when it throws.
    static func atomically(_ transaction: WriteTransaction, _ body: () throws -> Void) throws {
        try transaction.savepoint(savepointName)
        do {
            try body()
            try transaction.bumpSchemaCookie()
            try transaction.releaseSavepoint(savepointName)
        } catch {
            try? transaction.rollback(toSavepoint: savepointName)
            try? transaction.releaseSavepoint(savepointName)
            throw error
        }
    }

    /// Stores a new schema object's row, atomically, under the rowid after the last schema row: `store` writes it
    /// given that rowid and the schema tree. Returns the rowid.
    static func appendSchemaRow(
        _ transaction: WriteTransaction, _ store: (_ rowid: Int64, _ schema: TableTree) throws -> Void
    ) throws -> Int64 {
        var rowid: Int64 = 0
        try atomically(transaction) {
            let schema = try schemaTree(transaction, create: true)
            rowid = (try schema.lastRowid() ?? 0) + 1
            try store(rowid, schema)
        }
        return rowid
    }

    static func schemaTree(_ transaction: WriteTransaction, create: Bool) throws -> TableTree {
        if try transaction.treeInfo(named: schemaTableName) == nil, create {
            return try transaction.createTable(named: schemaTableName)
        }
        return try transaction.table(named: schemaTableName)
    }

    static func write(_ table: TableDefinition, to schema: TableTree) throws {
        try writeRow(schema, table.schemaRowid, "table", table.name, table.name, table.rootPage, table.sql)
    }

    static func write(_ index: IndexDefinition, to schema: TableTree) throws {
        try writeRow(schema, index.schemaRowid, "index", index.name, index.table, index.rootPage, index.sql)
    }

    private static func writeRow(
        _ schema: TableTree, _ rowid: Int64, _ type: String, _ name: String, _ table: String, _ root: PageNumber,
        _ sql: String?
    ) throws {
        let row = RowEncoder().encode([
            .text(type), .text(name), .text(table), .integer(Int64(root)), sql.map { .text($0) } ?? .null,
        ])
        try schema.replace(rowid: rowid, payload: row)
    }

    /// One decoded row of `granite_schema`.
    private struct Row {
        var rowid: Int64
        var type: String
        var name: String
        var tableName: String
        var root: PageNumber
        var sql: String?
    }

    private static func readRows(transaction: StorageTransaction) throws -> [Row] {
        let cursor = try transaction.table(named: schemaTableName).makeCursor()
        var rows: [Row] = []
        var more = try cursor.first()
        while more {
            let values = try cursor.withPayload { try RowDecoder.decode($0) }
            let rowid = cursor.rowid
            guard values.count == 5, case .text(let type) = values[0], case .text(let name) = values[1],
                case .text(let table) = values[2], case .integer(let root) = values[3],
                root > 0 || (root == 0 && (type == viewRowType || type == triggerRowType)), root <= Int64(PageNumber.max)
            else { throw malformed("row \(rowid)", "bad row") }
            let sql: String?
            switch values[4] {
            case .text(let text): sql = text
            case .null: sql = nil
            default: throw malformed(name, "bad sql column")
            }
            rows.append(Row(rowid: rowid, type: type, name: name, tableName: table, root: PageNumber(root), sql: sql))
            more = try cursor.next()
        }
        return rows
    }

    private static func checkTree(
        _ transaction: StorageTransaction, _ storageName: String, _ kind: TreeKind, _ row: Row
    ) throws {
        guard let info = try transaction.treeInfo(named: storageName), info.kind == kind, info.root == row.root else {
            throw malformed(row.name, "storage tree \(storageName) does not match root page \(row.root)")
        }
    }

    private static func parse(_ sql: String, _ name: String) throws -> Statement {
        do {
            return try Parser.parseStatement(sql)
        } catch {
            throw malformed(name, error.message)
        }
    }

    private static func schemaCall<T>(_ name: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SchemaError {
            throw malformed(name, error.message)
        }
    }

    private static func malformed(_ name: String, _ reason: String) -> SchemaError {
        SchemaError("malformed database schema (\(name)) - \(reason)")
    }
}
