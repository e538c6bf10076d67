// Views in the schema catalog: CREATE VIEW and DROP VIEW, their `granite_schema` rows, and the checks that keep
// tables, indexes and views in one namespace.

import GraniteStorage

extension SchemaCatalog {
    /// The `type` of a view's `granite_schema` row.
    static let viewRowType = "view"

    /// Every view, in creation order.
    package var views: [ViewDefinition] {
        viewsByKey.values.sorted { $0.schemaRowid < $1.schemaRowid }
    }

    /// The view named `name` (ASCII case-insensitive), if any: the temporary schema's first.
    package func view(named name: String) -> ViewDefinition? {
        let key = SchemaNames.key(name)
        if hasTemporarySchema, !bindsNamesToMain, let view = temporarySchemas[0].viewsByKey[key] { return view }
        return viewsByKey[key]
    }

    /// `CREATE VIEW`: stores the view's `granite_schema` row (type `view`, root page 0, the statement's text).
    ///
    /// The query is not compiled here: like SQLite, a view may name tables and columns that do not exist yet,
    /// and any such error is reported when a statement reads the view.
    package mutating func createView(_ create: CreateViewStatement, sql: String, transaction: WriteTransaction)
        throws
    {
        try checkSchema(create.name)
        let name = create.name.name
        if Self.isReserved(name) { throw SchemaError("object name reserved for internal use: \(name)") }
        if view(named: name) != nil {
            if create.ifNotExists { return }
            throw SchemaError("view \(name) already exists")
        }
        if table(named: name) != nil || SchemaCatalog.schemaTable(named: name) != nil {
            if create.ifNotExists { return }
            throw SchemaError("table \(name) already exists")
        }
        if index(named: name) != nil {
            if create.ifNotExists { return }
            throw SchemaError("there is already an index named \(name)")
        }
        // The definition is parsed from the stored text, as when the schema is loaded, so that the source ranges
        // of its expressions (which name its result columns) are offsets into `sql`.
        var parsed = create
        if case .createView(let stored)? = try? Parser.parseStatement(sql).kind { parsed = stored }
        var definition = ViewDefinition(parsed, sql: sql)
        definition.schemaRowid = try Self.appendSchemaRow(transaction) { rowid, schema in
            definition.schemaRowid = rowid
            try Self.write(definition, to: schema)
        }
        viewsByKey[SchemaNames.key(name)] = definition
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    /// `DROP VIEW`: deletes the view's `granite_schema` row. A table of that name is an error (SQLite's
    /// "use DROP TABLE to delete table t"), even with `IF EXISTS`.
    package mutating func dropView(named name: String, ifExists: Bool = false, transaction: WriteTransaction) throws {
        guard let view = view(named: name) else {
            if let table = table(named: name) ?? SchemaCatalog.schemaTable(named: name) {
                throw SchemaError("use DROP TABLE to delete table \(table.name)")
            }
            if ifExists { return }
            throw SchemaError("no such view: \(name)")
        }
        try Self.atomically(transaction) {
            let schema = try Self.schemaTree(transaction, create: true)
            try schema.delete(rowid: view.schemaRowid)
            try dropTriggers(on: view.name, schema: schema)
        }
        viewsByKey[SchemaNames.key(view.name)] = nil
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    /// The error, in SQLite's words, of a statement that may not name `view` (nil when there is no view).
    static func viewConflict(_ view: ViewDefinition?, for statement: ViewConflict) -> SchemaError? {
        guard let view else { return nil }
        switch statement {
        case .createIndexOn: return SchemaError("views may not be indexed")
        case .dropTable: return SchemaError("use DROP VIEW to delete view \(view.name)")
        case .renameTable: return SchemaError("view \(view.name) may not be altered")
        case .renameColumn: return SchemaError("cannot rename columns of view \"\(view.name)\"")
        case .addColumn: return SchemaError("Cannot add a column to a view")
        case .dropColumn: return SchemaError("cannot drop column from view \"\(view.name)\"")
        }
    }

    /// The schema statements that must refuse a view (with SQLite's message for each).
    enum ViewConflict {
        case createIndexOn, dropTable
        case renameTable, renameColumn, addColumn, dropColumn
    }

    /// The definition a `granite_schema` row of type `view` describes.
    static func loadView(rowid: Int64, name: String, tableName: String, root: Int64, sql: String?) throws
        -> ViewDefinition
    {
        guard root == 0, SchemaNames.equal(tableName, name) else {
            throw SchemaError("malformed database schema (\(name)) - a view has root page 0 and names itself")
        }
        guard let sql, case .createView(let create)? = try? Parser.parseStatement(sql).kind,
            SchemaNames.equal(create.name.name, name)
        else {
            throw SchemaError("malformed database schema (\(name)) - expected a CREATE VIEW statement")
        }
        return ViewDefinition(create, sql: sql, schemaRowid: rowid)
    }

    static func write(_ view: ViewDefinition, to schema: TableTree) throws {
        let row = RowEncoder().encode([
            .text(viewRowType), .text(view.name), .text(view.name), .integer(0), .text(view.sql),
        ])
        try schema.replace(rowid: view.schemaRowid, payload: row)
    }
}

extension SchemaCatalog {
    /// The text SQLite stores for a `CREATE VIEW` or `CREATE TRIGGER` statement (`keyword` names which):
    /// `CREATE VIEW ` / `CREATE TRIGGER ` followed by the original text from the object's name on, without
    /// `TEMP`, `IF NOT EXISTS` or a schema qualifier (so `create view if not exists main.v as …` is stored as
    /// `CREATE VIEW v as …`).
    /// `written` replaces the keyword in the stored text (`UNIQUE INDEX`).
    static func storedSQL(_ sourceText: String, keyword: String, written: String? = nil) -> String {
        guard let tokens = try? Lexer.tokenize(sourceText),
            let found = tokens.firstIndex(where: { $0.kind == .word && $0.keyword == keyword })
        else { return sourceText }
        var k = found + 1
        if k + 2 < tokens.count, tokens[k].keyword == "IF", tokens[k + 1].keyword == "NOT",
            tokens[k + 2].keyword == "EXISTS"
        {
            k += 3
        }
        if k + 2 < tokens.count, tokens[k + 1].kind == .symbol, tokens[k + 1].text == "." { k += 2 }
        guard k < tokens.count else { return sourceText }
        let bytes = Array(sourceText.utf8)
        let start = tokens[k].range.start.offset
        guard start >= 0, start <= bytes.count else { return sourceText }
        return "CREATE \(written ?? keyword) " + String(decoding: bytes[start...], as: UTF8.self)
    }
}

extension SchemaCatalog {
    /// Whether SQLite checks the views before it runs `alter`: a valid rename (see ``isValidRename(_:)``), or a
    /// `DROP COLUMN` of a column the table has (checked again after the drop).
    package func checksViewsBefore(_ alter: AlterTableStatement) -> Bool {
        if case .dropColumn(let name) = alter.action {
            return table(named: alter.table.name)?.columnIndex(named: name) != nil
        }
        return isValidRename(alter)
    }

    /// Whether `alter` is a `RENAME TO` or `RENAME COLUMN` that passes its own checks (the table and column
    /// exist, the new name is free), after which SQLite checks the views (see
    /// `SQLConnection.checkViewsCompile()`).
    package func isValidRename(_ alter: AlterTableStatement) -> Bool {
        guard let renamed = table(named: alter.table.name) else { return false }
        switch alter.action {
        case .renameTable(let newName):
            return !Self.isReserved(newName) && table(named: newName) == nil && index(named: newName) == nil
                && view(named: newName) == nil
        case .renameColumn(let from, let to):
            guard let position = renamed.columnIndex(named: from) else { return false }
            return renamed.columnIndex(named: to).map { $0 == position } ?? true
        case .addColumn, .dropColumn:
            return false
        }
    }
}
