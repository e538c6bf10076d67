// ALTER TABLE … DROP COLUMN on the schema catalog: SQLite's checks, the table and its indexes rebuilt without the
// column, and the stored CREATE TABLE text edited the way SQLite edits it. The executor rewrites the rows.

import GraniteStorage

extension SchemaCatalog {
    /// `ALTER TABLE table DROP COLUMN name`: removes the column from the table's definition and its stored SQL, and
    /// rebuilds the table's indexes on the new column positions. The rows still hold the column: the caller
    /// rewrites them (``SQLConnection``'s DROP COLUMN does).
    ///
    /// SQLite's checks, in its order: the column exists (`no such column: "c"`), is not part of the PRIMARY KEY
    /// nor a column-level UNIQUE, and is not the only column; then the schema must still hold without it: a CHECK,
    /// a table-level UNIQUE or a FOREIGN KEY of the table (`error in table t after drop column: …`), or an index
    /// (`error in index i after drop column: …`) that uses it makes the statement fail.
    package mutating func dropColumn(_ name: String, from tableName: String, transaction: WriteTransaction) throws {
        guard let table = try alterable(tableName) else { throw SchemaError(.noSuchTable(tableName)) }
        guard let position = table.columnIndex(named: name) else { throw SchemaError("no such column: \"\(name)\"") }
        let column = table.statement.columns[position]
        if table.columns[position].isPrimaryKey {
            throw SchemaError("cannot drop PRIMARY KEY column: \"\(column.name)\"")
        }
        if column.constraints.contains(where: { if case .unique = $0.kind { return true } else { return false } }) {
            throw SchemaError("cannot drop UNIQUE column: \"\(column.name)\"")
        }
        if table.columns.count == 1 { throw SchemaError("cannot drop column \"\(column.name)\": no other columns exist") }

        var statement = table.statement
        statement.columns.remove(at: position)
        var updated = self
        let reduced: TableDefinition
        do {
            let sql =
                Self.sqlDroppingColumn(position, from: table.sql, expecting: statement)
                ?? Statement.Kind.createTable(statement).description
            var definition = try TableDefinition(
                statement, sql: sql, rootPage: table.rootPage, storageName: table.storageName,
                schemaRowid: table.schemaRowid)
            definition.name = table.name
            try definition.validateChecks()
            reduced = definition
        } catch {
            throw SchemaError("error in table \(table.name) after drop column: \(Self.message(of: error))")
        }
        updated.tablesByKey[SchemaNames.key(table.name)] = reduced
        for index in indexes(on: table.name) {
            updated.indexesByKey[SchemaNames.key(index.name)] = try Self.index(index, rebuiltOn: reduced)
        }
        try updated.persistChanges(from: self, transaction: transaction)
        self = updated
    }

    /// `index` on the table's new definition: an explicit index must still name only existing columns (SQLite's
    /// `error in index i after drop column: …`); an automatic one keeps its constraint, at its new positions.
    private static func index(_ index: IndexDefinition, rebuiltOn table: TableDefinition) throws -> IndexDefinition {
        guard let create = index.statement else {
            guard let constraint = table.uniqueConstraints.first(where: { $0.indexName == index.name }) else {
                throw SchemaError("missing automatic index \(index.name)")
            }
            return IndexDefinition(
                automatic: constraint, on: table, rootPage: index.rootPage, storageName: index.storageName,
                schemaRowid: index.schemaRowid)
        }
        do {
            try IndexDefinition.validateExpressions(of: create, on: table)
            return try IndexDefinition(
                create, sql: index.sql, on: table, rootPage: index.rootPage, storageName: index.storageName,
                schemaRowid: index.schemaRowid)
        } catch {
            throw SchemaError("error in index \(index.name) after drop column: \(Self.message(of: error))")
        }
    }

    /// The message of a schema check's error, without a name suggestion (SQLite's wrapped messages have none).
    private static func message(of error: any Error) -> String {
        switch error {
        case let error as SchemaError: return error.message
        case let error as SQLExecutionError: return error.message
        default: return "\(error)"
        }
    }

    /// The stored `CREATE TABLE` text without column `position`, cut as SQLite cuts it: a column followed by
    /// another loses the text from its name to the next column's name; the last column loses the text from the
    /// comma before it to the end of the column definitions (the closing parenthesis, or the comma before the
    /// first table constraint). Nil when the text does not parse back to `expected` (the caller then writes the
    /// canonical form).
    static func sqlDroppingColumn(_ position: Int, from sql: String, expecting expected: CreateTableStatement)
        -> String?
    {
        guard let layout = ColumnListLayout(sql), position < layout.columnStarts.count,
            layout.columnStarts.count == expected.columns.count + 1
        else { return nil }
        let cut: Range<Int>
        if position + 1 < layout.columnStarts.count {
            cut = layout.columnStarts[position]..<layout.columnStarts[position + 1]
        } else {
            guard let comma = layout.commaBefore[position] else { return nil }
            cut = comma..<layout.columnsEnd
        }
        var bytes = Array(sql.utf8)
        bytes.removeSubrange(cut)
        let edited = String(decoding: bytes, as: UTF8.self)
        guard case .createTable(let reparsed)? = try? Parser.parseStatement(edited).kind, reparsed == expected else {
            return nil
        }
        return edited
    }
}
