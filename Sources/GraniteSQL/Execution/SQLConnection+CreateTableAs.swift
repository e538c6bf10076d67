import GraniteStorage

// CREATE TABLE … AS SELECT: a table whose columns are the query's result columns (named and typed as SQLite
// derives them) and whose rows are the query's rows, created and filled by one statement.

extension SQLConnection {
    /// Runs `CREATE [TEMP] TABLE [IF NOT EXISTS] name AS select`: creates the table from the generated
    /// `CREATE TABLE` text SQLite stores for it, then inserts the query's rows.
    func createTableAsSelect(
        _ create: CreateTableStatement, select: SelectStatement, statement: Statement, parameters: BoundParameters
    ) throws -> (columns: [String], rows: [[Value]]) {
        let target = QualifiedName(schema: targetsTemporarySchema(create) ? "temp" : "main", name: create.name.name)
        // As in SQLite, the name is checked before the query is looked at.
        switch nameConflict(create, target: target) {
        case nil: break
        case .tableOrView? where create.ifNotExists: return ([], [])
        case .tableOrView?, .index?, .unknownSchema?: try refuseName(create, parameters: parameters)
        }
        // The query is compiled and run before the table exists, so that its names never resolve to it.
        let (columns, rows) = try runQuery(select, statement: statement, parameters: parameters)
        let definition = CreateTableStatement(
            temporary: create.temporary, ifNotExists: create.ifNotExists, name: create.name,
            columns: columns.map { column in
                ColumnDefinition(name: column.name, type: column.type.isEmpty ? nil : TypeName(name: column.type))
            })
        let sql = CreateTableText.statement(table: create.name.name, columns: columns)
        _ = try write(Statement(.createTable(definition), sourceText: sql), parameters: parameters)
        try insert(rows, into: target, parameters: parameters)
        return ([], [])
    }

    /// What already holds the name of a table `CREATE TABLE … AS SELECT` makes in `target`'s schema.
    private enum NameConflict {
        /// A table or view of that name (which `IF NOT EXISTS` accepts).
        case tableOrView
        /// An index of that name.
        case index
        /// The name is qualified with a schema other than `main` and `temp`.
        case unknownSchema
    }

    /// Whether `CREATE TABLE` with `create`'s name and `TEMP` flag makes a temporary table.
    private func targetsTemporarySchema(_ create: CreateTableStatement) -> Bool {
        create.temporary || SchemaCatalog.Qualifier(create.name.schema) == .temp
    }

    /// What makes `create`'s name unusable in `target`'s schema, if anything.
    private func nameConflict(_ create: CreateTableStatement, target: QualifiedName) -> NameConflict? {
        if SchemaCatalog.Qualifier(create.name.schema) == .unknown { return .unknownSchema }
        let schema = SchemaCatalog.Qualifier(target.schema) == .temp ? catalog.temporarySchema : catalog.mainSchema
        guard let schema else { return nil }
        if schema.table(named: target.name) != nil || schema.view(named: target.name) != nil { return .tableOrView }
        return schema.index(named: target.name) != nil ? .index : nil
    }

    /// Throws the error the catalog gives `CREATE TABLE` for `create`'s name, which ``nameConflict(_:target:)``
    /// found taken or in no schema.
    private func refuseName(_ create: CreateTableStatement, parameters: BoundParameters) throws {
        let probe = CreateTableStatement(
            temporary: create.temporary, name: create.name, columns: [ColumnDefinition(name: "x")])
        let sql = "CREATE TABLE " + SQLFormat.identifier(create.name.name) + "(x)"
        _ = try write(Statement(.createTable(probe), sourceText: sql), parameters: parameters)
        throw SQLExecutionError("table \(create.name.name) already exists")
    }

    /// The columns a table made from `select` gets, and the query's rows. The names are SQLite's: an alias, a
    /// column's declared name (also under `COLLATE` or `likely()`), else the expression's text; `true`/`false` become
    /// `columnN`; duplicates are numbered `:1`, `:2`, …. The types spell each result expression's affinity.
    private func runQuery(_ select: SelectStatement, statement: Statement, parameters: BoundParameters) throws -> (
        columns: [CreateTableText.Column], rows: [[Value]]
    ) {
        let compiler = selectCompiler(statement)
        let program = try compiler.compile(select, outer: nil, declaredNames: true)
        var names = program.columnNames
        if let naming = Self.namingQuery(select) {
            names = try compiler.compile(naming, outer: nil, declaredNames: true).columnNames
        }
        names = names.enumerated().map { n, name in
            SchemaNames.equal(name, "true") || SchemaNames.equal(name, "false") ? "column\(n + 1)" : name
        }
        let types = program.outputs.map { CreateTableText.typeName(of: $0.affinity) }
        let columns = zip(SelectCompiler.uniqueNames(names), types).map { CreateTableText.Column(name: $0, type: $1) }
        let cursor = SelectCursor(program: program)
        cursor.sortMemoryLimit = sortMemoryLimit
        try cursor.open(parameters: parameters)
        var rows: [[Value]] = []
        while let row = try cursor.next() { rows.append(row) }
        return (columns, rows)
    }

    /// `select` with the unnamed result columns of its first term that are a column under `COLLATE` or
    /// `likely()`/`unlikely()`/`likelihood()` replaced by the bare column, which SQLite names them after; nil when
    /// there are none.
    private static func namingQuery(_ select: SelectStatement) -> SelectStatement? {
        guard case .select(var core) = select.first else { return nil }
        var changed = false
        for (k, column) in core.columns.enumerated() {
            guard case .expression(let expression, alias: nil) = column, let bare = namedColumn(expression) else {
                continue
            }
            core.columns[k] = .expression(bare, alias: nil)
            changed = true
        }
        guard changed else { return nil }
        var naming = select
        naming.first = .select(core)
        return naming
    }

    /// The column reference under `expression`'s `COLLATE`s and likelihood calls, when there are some.
    private static func namedColumn(_ expression: SQLExpression) -> SQLExpression? {
        var inner = expression
        var unwrapped = false
        while true {
            switch inner.kind {
            case .collate(let x, _):
                inner = x
            case .function(let call) where isLikelihood(call):
                guard case .list(let arguments, distinct: false) = call.arguments, let first = arguments.first else {
                    return nil
                }
                inner = first
            case .column:
                return unwrapped ? inner : nil
            default:
                return nil
            }
            unwrapped = true
        }
    }

    private static func isLikelihood(_ call: FunctionCall) -> Bool {
        guard call.filter == nil, call.over == nil, case .list(let arguments, distinct: false) = call.arguments else {
            return false
        }
        switch SQLFormat.asciiUppercased(call.name) {
        case "LIKELY", "UNLIKELY": return arguments.count == 1
        case "LIKELIHOOD": return arguments.count == 2
        default: return false
        }
    }

    /// Inserts the query's `rows` into the new table `name`, its columns' affinities applied.
    private func insert(_ rows: [[Value]], into name: QualifiedName, parameters: BoundParameters) throws {
        guard !rows.isEmpty, let table = catalog.table(name) else { return }
        let session = makeSession(parameters)
        let writer = try session.writer(table)
        for row in rows {
            let values = row.enumerated().map { k, value in
                k < writer.affinities.count ? writer.affinities[k].apply(to: value) : value
            }
            _ = try session.insert(writer, values, resolution: nil)
        }
        try session.finish()
    }
}
