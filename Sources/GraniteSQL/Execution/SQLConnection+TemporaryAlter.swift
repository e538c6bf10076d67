// ALTER TABLE on a temporary table: the temporary schema changes as the main one does (its views and triggers
// follow a rename), and the rows, in the temporary store, are rewritten when a column is dropped or a generated
// one added.

extension SQLConnection {
    /// Runs `alter`, which names a table (or view) of the temporary schema.
    func alterTemporaryTable(_ alter: AlterTableStatement, _ statement: Statement, parameters: BoundParameters)
        throws
    {
        let store = try ensureTemporaryStore()
        var temporary = catalog.temporarySchema ?? .temporary()
        let old = temporary.table(named: alter.table.name)
        if case .addColumn(let column) = alter.action, let old, Self.isStoredGenerated(column),
            try store.transaction.table(named: old.storageName).count() > 0
        {
            throw SQLExecutionError("cannot add a STORED column")
        }
        if catalog.checksViewsBefore(alter) { try checkViewsCompile() }
        let oldCatalog = catalog
        try temporary.execute(statement, transaction: store.transaction)
        catalog.setTemporarySchema(temporary)
        switch alter.action {
        case .renameTable, .renameColumn: try checkTriggersCompile(after: "rename")
        default: break
        }
        switch alter.action {
        case .renameTable(let newName) where old?.isAutoincrement == true:
            try makeSession(parameters).renameSequence(from: old!.name, to: newName, temporary: true)
        case .dropColumn(let column):
            guard let old, let position = old.columnIndex(named: column) else { break }
            try checkViewsCompile(after: "drop column")
            try checkTriggersCompile(after: "drop column")
            try rewriteRows(
                of: old, in: oldCatalog, droppingColumn: position, parameters: parameters,
                transaction: store.transaction)
        case .addColumn(let column) where column.constraints.contains(where: Self.isGenerated):
            guard let old else { break }
            try computeAddedColumn(of: old, parameters: parameters, transaction: store.transaction)
        default:
            break
        }
    }
}
