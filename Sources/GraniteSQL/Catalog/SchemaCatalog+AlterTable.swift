// ALTER TABLE on the schema catalog: RENAME TO, RENAME COLUMN and ADD COLUMN (DROP COLUMN has its own file), and
// the rewriting of the stored SQL they change.

import GraniteStorage

extension SchemaCatalog {
    /// `ALTER TABLE name RENAME TO newName`: renames the table and its automatic indexes and updates the stored
    /// SQL of the table, its indexes, of foreign keys (in any table) that reference it and of views that name it
    /// (see ``ViewTableRenamer``).
    package mutating func renameTable(_ name: String, to newName: String, transaction: WriteTransaction) throws {
        guard let table = try alterable(name) else { throw SchemaError(.noSuchTable(name)) }
        if Self.isReserved(newName) { throw SchemaError("object name reserved for internal use: \(newName)") }
        if self.table(named: newName) != nil || index(named: newName) != nil || view(named: newName) != nil {
            throw SchemaError("there is already another table or index with this name: \(newName)")
        }
        var updated = self
        let oldKey = SchemaNames.key(table.name)
        var statement = table.statement
        statement.name = QualifiedName(name: newName)
        updated.tablesByKey[oldKey] = nil
        updated.tablesByKey[SchemaNames.key(newName)] = try Self.rebuilt(table, statement)
        // Foreign keys referencing the table (including its own).
        for other in updated.tablesByKey.values {
            var otherStatement = other.statement
            Self.forEachReference(in: &otherStatement) { clause in
                if SchemaNames.key(clause.table) == oldKey { clause.table = newName }
            }
            if otherStatement != other.statement {
                updated.tablesByKey[SchemaNames.key(other.name)] = try Self.rebuilt(other, otherStatement)
            }
        }
        let renamed = updated.tablesByKey[SchemaNames.key(newName)]!
        let automatic = renamed.uniqueConstraints
        for index in indexes(on: table.name) {
            updated.indexesByKey[SchemaNames.key(index.name)] = nil
            var replacement: IndexDefinition
            if var create = index.statement {
                create.table = newName
                // Stored index SQL names no schema (`CREATE INDEX temp.i` is stored as `CREATE INDEX i`).
                create.name.schema = nil
                replacement = try IndexDefinition(
                    create, sql: Statement.Kind.createIndex(create).description, on: renamed, rootPage: index.rootPage,
                    storageName: index.storageName, schemaRowid: index.schemaRowid)
            } else {
                guard
                    let position = table.uniqueConstraints.firstIndex(where: {
                        SchemaNames.equal($0.indexName, index.name)
                    })
                else { throw SchemaError("missing automatic index \(index.name)") }
                replacement = IndexDefinition(
                    automatic: automatic[position], on: renamed, rootPage: index.rootPage,
                    storageName: index.storageName, schemaRowid: index.schemaRowid)
            }
            replacement.table = newName
            updated.indexesByKey[SchemaNames.key(replacement.name)] = replacement
        }
        // Views naming the table (SQLite rewrites their text too).
        let renamer = ViewTableRenamer(old: table.name, new: newName)
        for view in views {
            guard let sql = try renamer.rewrite(view) else { continue }
            guard case .createView(let create)? = try? Parser.parseStatement(sql).kind else {
                throw renamer.refusal(view)
            }
            updated.viewsByKey[SchemaNames.key(view.name)] = ViewDefinition(
                create, sql: sql, schemaRowid: view.schemaRowid)
        }
        // Triggers on the table or naming it (SQLite rewrites their text too).
        let triggerRenamer = TriggerRenamer(table: table.name, catalog: self)
        for trigger in triggers {
            var renamed = trigger
            if let sql = try triggerRenamer.renamingTable(trigger, to: newName) { renamed.sql = sql }
            if SchemaNames.equal(trigger.table, table.name) { renamed.table = newName }
            if renamed != trigger { updated.triggersByKey[SchemaNames.key(trigger.name)] = renamed }
        }
        try updated.persistChanges(from: self, transaction: transaction)
        self = updated
    }

    /// `ALTER TABLE table RENAME COLUMN old TO new`: renames the column in the table's definition, its
    /// constraints, its indexes and foreign keys referencing it, and regenerates their stored SQL from the
    /// canonical form; rewrites the text of views naming it (see ``ViewColumnRenamer``).
    package mutating func renameColumn(
        _ old: String, to new: String, in tableName: String, transaction: WriteTransaction
    ) throws {
        guard let table = try alterable(tableName) else { throw SchemaError(.noSuchTable(tableName)) }
        guard let position = table.columnIndex(named: old) else { throw SchemaError(.noSuchColumnToRename(old)) }
        if let existing = table.columnIndex(named: new), existing != position {
            throw SchemaError("duplicate column name: \(new)")
        }
        let tableKey = SchemaNames.key(table.name)
        let renamer = ColumnRenamer(table: table.name, from: old, to: new)
        var updated = self
        var statement = renamer.rename(in: table.statement)
        statement.columns[position].name = new
        updated.tablesByKey[tableKey] = try Self.rebuilt(table, statement)
        for other in updated.tablesByKey.values {
            var otherStatement = other.statement
            Self.forEachReference(in: &otherStatement) { clause in
                if SchemaNames.key(clause.table) == tableKey {
                    clause.columns = clause.columns.map { SchemaNames.equal($0, old) ? new : $0 }
                }
            }
            if otherStatement != other.statement {
                updated.tablesByKey[SchemaNames.key(other.name)] = try Self.rebuilt(other, otherStatement)
            }
        }
        let renamed = updated.tablesByKey[tableKey]!
        for index in indexes(on: table.name) {
            let replacement: IndexDefinition
            if let create = index.statement {
                var newCreate = renamer.rename(in: create)
                let changed = newCreate != create
                newCreate.name.schema = nil
                replacement = try IndexDefinition(
                    newCreate, sql: changed ? Statement.Kind.createIndex(newCreate).description : index.sql,
                    on: renamed, rootPage: index.rootPage, storageName: index.storageName,
                    schemaRowid: index.schemaRowid)
            } else {
                guard let constraint = renamed.uniqueConstraints.first(where: { $0.indexName == index.name }) else {
                    throw SchemaError("missing automatic index \(index.name)")
                }
                replacement = IndexDefinition(
                    automatic: constraint, on: renamed, rootPage: index.rootPage, storageName: index.storageName,
                    schemaRowid: index.schemaRowid)
            }
            updated.indexesByKey[SchemaNames.key(index.name)] = replacement
        }
        // Views naming the column (SQLite rewrites their text too), resolved against the schema before the rename.
        let viewRenamer = ViewColumnRenamer(table: table.name, old: old, new: new, catalog: self)
        for view in views {
            guard let sql = try viewRenamer.rewrite(view) else { continue }
            guard case .createView(let create)? = try? Parser.parseStatement(sql).kind else {
                throw viewRenamer.refusal(view)
            }
            updated.viewsByKey[SchemaNames.key(view.name)] = ViewDefinition(
                create, sql: sql, schemaRowid: view.schemaRowid)
        }
        // Triggers using the column (SQLite rewrites their text too), read against the schema before the rename.
        let triggerRenamer = TriggerRenamer(table: table.name, catalog: self)
        for trigger in triggers {
            guard let sql = try triggerRenamer.renamingColumn(trigger, from: old, to: new) else { continue }
            guard case .createTrigger(let create)? = try? Parser.parseStatement(sql).kind else {
                throw triggerRenamer.refusal(trigger, "column \(old)")
            }
            var renamed = TriggerDefinition(create, sql: sql, schemaRowid: trigger.schemaRowid)
            renamed.table = trigger.table
            updated.triggersByKey[SchemaNames.key(trigger.name)] = renamed
        }
        try updated.persistChanges(from: self, transaction: transaction)
        self = updated
    }

    /// `ALTER TABLE table ADD COLUMN definition`, with SQLite's restrictions: no `PRIMARY KEY` or `UNIQUE`
    /// column, a `NOT NULL` column needs a non-NULL default, and the default must be constant. The column text
    /// is spliced into the stored SQL after the last column definition.
    package mutating func addColumn(_ column: ColumnDefinition, to tableName: String, transaction: WriteTransaction)
        throws
    {
        guard let table = try alterable(tableName) else { throw SchemaError(.noSuchTable(tableName)) }
        if table.columnIndex(named: column.name) != nil { throw SchemaError("duplicate column name: \(column.name)") }
        var notNull = false
        var defaultValue: SQLExpression?
        for constraint in column.constraints {
            switch constraint.kind {
            case .primaryKey: throw SchemaError("Cannot add a PRIMARY KEY column")
            case .unique: throw SchemaError("Cannot add a UNIQUE column")
            case .notNull: notNull = true
            case .default(let expression): defaultValue = expression
            default: break
            }
        }
        if let defaultValue, !Self.isConstant(defaultValue) {
            throw SchemaError("Cannot add a column with non-constant default")
        }
        let generated = column.constraints.contains { if case .generated = $0.kind { true } else { false } }
        if notNull && !generated && (defaultValue == nil || defaultValue?.kind == .literal(.null)) {
            throw SchemaError("Cannot add a NOT NULL column with default value NULL")
        }
        var statement = table.statement
        statement.columns.append(column)
        var sql = Statement.Kind.createTable(statement).description
        // SQLite splices the column in where the column definitions end: before the comma of the first table
        // constraint, or before the closing parenthesis.
        if let layout = ColumnListLayout(table.sql) {
            var bytes = Array(table.sql.utf8)
            bytes.insert(contentsOf: ", \(column)".utf8, at: layout.columnsEnd)
            let spliced = String(decoding: bytes, as: UTF8.self)
            if let reparsed = try? Parser.parseStatement(spliced), reparsed.kind == .createTable(statement) {
                sql = spliced
            }
        }
        var updated = self
        var definition: TableDefinition
        do {
            definition = try TableDefinition(
                statement, sql: sql, rootPage: table.rootPage, storageName: table.storageName,
                schemaRowid: table.schemaRowid)
            definition.name = table.name
            try definition.validateChecks()
        } catch let error as SchemaError {
            throw SchemaError("error in table \(table.name) after add column: \(error.message)")
        }
        updated.tablesByKey[SchemaNames.key(table.name)] = definition
        try updated.persistChanges(from: self, transaction: transaction)
        self = updated
    }

    // MARK: Helpers

    /// The table `name` for an ALTER TABLE, or nil when absent.
    func alterable(_ name: String) throws -> TableDefinition? {
        if let schemaTable = Self.schemaTable(named: name) {
            // SQLite names its schema table sqlite_master whichever alias was written.
            let shown = SchemaNames.equal(name, Self.schemaTableName) ? schemaTable.name : "sqlite_master"
            throw SchemaError("table \(shown) may not be altered")
        }
        return table(named: name)
    }

    /// Rewrites the `granite_schema` rows of every definition that differs from `old`'s.
    mutating func persistChanges(from old: SchemaCatalog, transaction: WriteTransaction) throws {
        let tables = tablesByKey.values.filter { old.tablesByKey[SchemaNames.key($0.name)] != $0 }
        let indexes = indexesByKey.values.filter { old.indexesByKey[SchemaNames.key($0.name)] != $0 }
        let views = viewsByKey.values.filter { old.viewsByKey[SchemaNames.key($0.name)] != $0 }
        let triggers = triggersByKey.values.filter { old.triggersByKey[SchemaNames.key($0.name)] != $0 }
        try Self.atomically(transaction) {
            let schema = try Self.schemaTree(transaction, create: true)
            for table in tables { try Self.write(table, to: schema) }
            for index in indexes { try Self.write(index, to: schema) }
            for view in views { try Self.write(view, to: schema) }
            for trigger in triggers { try Self.write(trigger, to: schema) }
        }
        schemaVersion += 1
        cookie = try transaction.schemaCookie
    }

    /// A table definition re-derived from a modified statement, keeping its storage.
    static func rebuilt(_ table: TableDefinition, _ statement: CreateTableStatement) throws -> TableDefinition {
        try TableDefinition(
            statement, sql: Statement.Kind.createTable(statement).description, rootPage: table.rootPage,
            storageName: table.storageName, schemaRowid: table.schemaRowid)
    }

    /// Calls `body` on every `REFERENCES` clause of `statement`.
    private static func forEachReference(
        in statement: inout CreateTableStatement, _ body: (inout ForeignKeyClause) -> Void
    ) {
        for c in statement.columns.indices {
            for k in statement.columns[c].constraints.indices {
                if case .references(var clause) = statement.columns[c].constraints[k].kind {
                    body(&clause)
                    statement.columns[c].constraints[k].kind = .references(clause)
                }
            }
        }
        for k in statement.constraints.indices {
            if case .foreignKey(let columns, var clause) = statement.constraints[k].kind {
                body(&clause)
                statement.constraints[k].kind = .foreignKey(columns: columns, clause)
            }
        }
    }

    /// Whether a default expression is constant (no column, `CURRENT_*`, parameter or subquery).
    private static func isConstant(_ expression: SQLExpression) -> Bool {
        switch expression.kind {
        case .literal(let literal):
            switch literal {
            case .currentDate, .currentTime, .currentTimestamp: return false
            default: return true
            }
        case .unary(_, let operand): return isConstant(operand)
        case .binary(_, let lhs, let rhs): return isConstant(lhs) && isConstant(rhs)
        case .collate(let operand, _), .cast(let operand, _): return isConstant(operand)
        case .function(let call):
            if case .list(let arguments, _) = call.arguments { return arguments.allSatisfy(isConstant) }
            return false
        default: return false
        }
    }
}
