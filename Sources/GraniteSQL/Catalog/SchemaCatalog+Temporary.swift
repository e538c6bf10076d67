// The connection's temporary schema (`temp`) as seen from the main catalog: installing it, and the lookups that
// look in it before the main schema, as SQLite resolves unqualified names.

extension SchemaCatalog {
    /// An empty temporary schema: a catalog whose objects are marked temporary and whose statements accept the
    /// `temp` qualifier.
    package static func temporary() -> SchemaCatalog {
        var catalog = SchemaCatalog()
        catalog.isTemporary = true
        return catalog
    }

    /// The temporary schema, once the connection created it.
    package var temporarySchema: SchemaCatalog? { hasTemporarySchema ? temporarySchemas[0] : nil }

    /// Installs `temporary` (after a change to it or a reload) as the temporary schema, marking its tables as
    /// temporary, and bumps the schema version so that plans made before are made again.
    package mutating func setTemporarySchema(_ temporary: SchemaCatalog) {
        var temporary = temporary
        // Reloaded triggers learn which are on main tables from the schema they replace (the stored text says
        // so only for `ON main.t`), and otherwise from whether the temporary schema has their table.
        let previous = temporarySchema?.triggersByKey ?? [:]
        for (key, var trigger) in temporary.triggersByKey where !trigger.isOnMainTable || !trigger.isTemporary {
            trigger.isTemporary = true
            if !trigger.isOnMainTable, let known = previous[key], known.schemaRowid == trigger.schemaRowid {
                trigger.isOnMainTable = known.isOnMainTable
            } else if !trigger.isOnMainTable {
                trigger.isOnMainTable =
                    temporary.tablesByKey[SchemaNames.key(trigger.table)] == nil
                    && temporary.viewsByKey[SchemaNames.key(trigger.table)] == nil
            }
            temporary.triggersByKey[key] = trigger
        }
        for (key, var table) in temporary.tablesByKey where !table.isTemporary {
            table.isTemporary = true
            temporary.tablesByKey[key] = table
        }
        for (key, var view) in temporary.viewsByKey where !view.isTemporary {
            view.isTemporary = true
            temporary.viewsByKey[key] = view
        }
        temporarySchemas = [temporary]
        hasTemporarySchema = true
        schemaVersion += 1
    }

    /// The schema a qualifier (`main.`, `temp.`) names.
    package enum Qualifier {
        /// No qualifier: the temporary schema first, then main.
        case any
        case main
        case temp
        /// A schema that does not exist (Granite has no attached databases).
        case unknown

        package init(_ schema: String?) {
            guard let schema else {
                self = .any
                return
            }
            switch SchemaNames.key(schema) {
            case "main": self = .main
            case "temp": self = .temp
            default: self = .unknown
            }
        }
    }

    /// The table `name` names, its qualifier included (`main.t`, `temp.t`; unqualified, temp first).
    package func table(_ name: QualifiedName) -> TableDefinition? {
        switch Qualifier(name.schema) {
        case .any: return table(named: name.name)
        case .main:
            let key = SchemaNames.key(name.name)
            return tablesByKey[key] ?? aliasedTable(key)
        case .temp: return temporarySchema?.table(named: name.name)
        case .unknown: return nil
        }
    }

    /// The view `name` names, its qualifier included.
    package func view(_ name: QualifiedName) -> ViewDefinition? {
        switch Qualifier(name.schema) {
        case .any: return view(named: name.name)
        case .main: return viewsByKey[SchemaNames.key(name.name)]
        case .temp: return temporarySchema?.view(named: name.name)
        case .unknown: return nil
        }
    }

    /// The indexes of `table` (in the schema it belongs to), automatic ones included, in creation order.
    package func indexes(of table: TableDefinition) -> [IndexDefinition] {
        if table.isTemporary, hasTemporarySchema { return temporarySchemas[0].indexes(on: table.name) }
        return indexes(on: table.name)
    }

    /// The triggers on `table` (in the schema it belongs to), in creation order. A main table's include the
    /// temporary triggers on it.
    package func triggers(of table: TableDefinition) -> [TriggerDefinition] {
        guard hasTemporarySchema else { return triggers(on: table.name) }
        let temporary = temporarySchemas[0].triggers(on: table.name)
        if table.isTemporary { return temporary.filter { !$0.isOnMainTable } }
        return triggers(on: table.name) + temporary.filter(\.isOnMainTable)
    }

    /// The triggers on view `view` (temp first, as the view is found), in creation order. A main view's include
    /// the temporary triggers on it.
    package func triggers(onView view: String) -> [TriggerDefinition] {
        guard hasTemporarySchema else { return triggers(on: view) }
        let temporary = temporarySchemas[0].triggers(on: view)
        if temporarySchemas[0].view(named: view) != nil { return temporary.filter { !$0.isOnMainTable } }
        return triggers(on: view) + temporary.filter(\.isOnMainTable)
    }

    /// The main schema alone (the catalog without its temporary schema).
    package var mainSchema: SchemaCatalog {
        var main = self
        main.temporarySchemas = []
        main.hasTemporarySchema = false
        return main
    }

    /// The schema table a (possibly qualified) name reads: `sqlite_temp_master` / `sqlite_temp_schema` and
    /// `temp.sqlite_master` (and `temp.sqlite_schema`, `temp.granite_schema`) read the temporary schema's rows.
    package static func schemaTable(_ name: QualifiedName) -> TableDefinition? {
        let key = SchemaNames.key(name.name)
        let temporaryName = key == "sqlite_temp_master" || key == "sqlite_temp_schema"
        let qualifier = Qualifier(name.schema)
        if temporaryName {
            guard qualifier == .any || qualifier == .temp else { return nil }
        } else {
            guard qualifier != .unknown, schemaTable(named: name.name) != nil else { return nil }
        }
        guard var table = schemaTableDefinition(named: name.name) else { return nil }
        table.isTemporary = temporaryName || qualifier == .temp
        return table
    }
}
