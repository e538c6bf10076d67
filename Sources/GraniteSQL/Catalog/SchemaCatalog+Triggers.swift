// Triggers in the schema catalog: CREATE TRIGGER and DROP TRIGGER, their `granite_schema` rows, and their removal
// with their table.

import GraniteStorage

extension SchemaCatalog {
    /// The `type` of a trigger's `granite_schema` row.
    static let triggerRowType = "trigger"

    /// Every trigger, in creation order.
    package var triggers: [TriggerDefinition] {
        triggersByKey.values.sorted { $0.schemaRowid < $1.schemaRowid }
    }

    /// The trigger named `name` (ASCII case-insensitive), if any.
    package func trigger(named name: String) -> TriggerDefinition? {
        triggersByKey[SchemaNames.key(name)]
    }

    /// The triggers on table or view `table`, in creation order.
    package func triggers(on table: String) -> [TriggerDefinition] {
        if triggersByKey.isEmpty { return [] }
        let key = SchemaNames.key(table)
        return triggers.filter { SchemaNames.key($0.table) == key }
    }

    /// `CREATE TRIGGER`: checks the trigger as SQLite does (in its order) and stores its `granite_schema` row
    /// (type `trigger`, root page 0, `tbl_name` the table). The body is not compiled here.
    ///
    /// A temporary trigger may be on a main table: `mainSchema` is then the main schema, where its table is looked
    /// for when the temporary schema has none of that name (or `ON main.t` says so).
    package mutating func createTrigger(
        _ create: CreateTriggerStatement, sql: String, transaction: WriteTransaction,
        mainSchema: SchemaCatalog? = nil
    ) throws {
        if create.temporary, create.name.schema != nil {
            throw SchemaError("temporary trigger may not have qualified name")
        }
        try checkSchema(create.name)
        let target = Self.triggerTarget(create.table)
        let targetSchema = SchemaCatalog.Qualifier(target.schema)
        if let schema = target.schema, targetSchema != .main, !(isTemporary && targetSchema == .temp) {
            throw SchemaError("unknown database \(schema)")
        }
        let owner = isTemporary && targetSchema == .main ? mainSchema : self
        let systemTable = SchemaCatalog.schemaTable(named: target.name)
        var table = owner?.table(named: target.name)
        var view = owner?.view(named: target.name)
        var onMainTable = isTemporary && targetSchema == .main
        if table == nil, view == nil, isTemporary, targetSchema == .any {
            table = mainSchema?.table(named: target.name)
            view = mainSchema?.view(named: target.name)
            onMainTable = true
        }
        table = table ?? systemTable
        guard table != nil || view != nil else {
            // SQLite names the table `main.x` unless a temporary trigger's `ON` left the schema unsaid.
            throw SchemaError("no such table: \(isTemporary && targetSchema != .main ? "" : "main.")\(target.name)")
        }
        let name = create.name.name
        if Self.isReserved(name) { throw SchemaError("object name reserved for internal use: \(name)") }
        if trigger(named: name) != nil {
            if create.ifNotExists { return }
            throw SchemaError("trigger \(name) already exists")
        }
        let tableName = view?.name ?? table?.name ?? target.name
        if systemTable != nil || Self.isReserved(tableName) || SchemaNames.key(tableName).hasPrefix("sqlite_") {
            throw SchemaError("cannot create trigger on system table")
        }
        let written = create.table
        if view != nil, create.timing != .insteadOf {
            throw SchemaError("cannot create \(create.timing == .before ? "BEFORE" : "AFTER") trigger on view: \(written)")
        }
        if view == nil, create.timing == .insteadOf {
            throw SchemaError("cannot create INSTEAD OF trigger on table: \(written)")
        }
        var definition = TriggerDefinition(create, sql: sql)
        definition.table = tableName
        definition.isOnMainTable = onMainTable
        definition.schemaRowid = try Self.appendSchemaRow(transaction) { rowid, schema in
            definition.schemaRowid = rowid
            try Self.write(definition, to: schema)
        }
        triggersByKey[SchemaNames.key(name)] = definition
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    /// `DROP TRIGGER`: deletes the trigger's `granite_schema` row.
    package mutating func dropTrigger(named name: String, ifExists: Bool = false, transaction: WriteTransaction) throws {
        guard let trigger = trigger(named: name) else {
            if ifExists { return }
            throw SchemaError("no such trigger: \(name)")
        }
        try Self.atomically(transaction) {
            try Self.schemaTree(transaction, create: true).delete(rowid: trigger.schemaRowid)
        }
        triggersByKey[SchemaNames.key(trigger.name)] = nil
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    /// Deletes the `granite_schema` rows of the triggers on `table` (inside the caller's schema savepoint) and
    /// forgets them: a table or view takes its triggers with it when dropped.
    mutating func dropTriggers(on table: String, schema: TableTree) throws {
        // A temporary schema's triggers on the main table of that name stay.
        for trigger in triggers(on: table) where !trigger.isOnMainTable {
            try schema.delete(rowid: trigger.schemaRowid)
            triggersByKey[SchemaNames.key(trigger.name)] = nil
        }
    }

    /// The table a trigger's `ON` clause names, split from its `schema.` qualifier.
    static func triggerTarget(_ written: String) -> QualifiedName {
        guard let dot = written.firstIndex(of: ".") else { return QualifiedName(name: written) }
        return QualifiedName(schema: String(written[..<dot]), name: String(written[written.index(after: dot)...]))
    }

    /// The definition a `granite_schema` row of type `trigger` describes.
    static func loadTrigger(rowid: Int64, name: String, tableName: String, root: Int64, sql: String?) throws
        -> TriggerDefinition
    {
        guard root == 0 else {
            throw SchemaError("malformed database schema (\(name)) - a trigger has root page 0")
        }
        guard let sql, case .createTrigger(let create)? = try? Parser.parseStatement(sql).kind,
            SchemaNames.equal(create.name.name, name)
        else {
            throw SchemaError("malformed database schema (\(name)) - expected a CREATE TRIGGER statement")
        }
        var definition = TriggerDefinition(create, sql: sql, schemaRowid: rowid)
        definition.table = tableName
        definition.isOnMainTable = triggerTarget(create.table).schema.map { SchemaNames.equal($0, "main") } ?? false
        return definition
    }

    static func write(_ trigger: TriggerDefinition, to schema: TableTree) throws {
        let row = RowEncoder().encode([
            .text(triggerRowType), .text(trigger.name), .text(trigger.table), .integer(0), .text(trigger.sql),
        ])
        try schema.replace(rowid: trigger.schemaRowid, payload: row)
    }
}
