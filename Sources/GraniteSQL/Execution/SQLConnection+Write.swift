import GraniteStorage

extension SQLConnection {
    // MARK: Writing statements

    func tableDefinition(_ name: QualifiedName) throws -> TableDefinition {
        if let schema = name.schema, !SchemaNames.equal(schema, "main") {
            throw SQLExecutionError.noSuchTable("\(schema).\(name.name)")
        }
        guard let table = catalog.table(named: name.name) else { throw SQLExecutionError.noSuchTable(name.name) }
        return table
    }

    private func writer(_ name: QualifiedName, _ parameters: BoundParameters) throws -> TableWriter {
        try TableWriter(table: try tableDefinition(name), catalog: catalog, engine: engine, parameters: parameters)
    }

    /// Runs a writing statement (DDL, INSERT, UPDATE, DELETE), returning its `RETURNING` rows if it has any.
    func write(_ statement: Statement, parameters: BoundParameters) throws -> (columns: [String], rows: [[Value]]) {
        switch statement.kind {
        case .createIndex(let create):
            try catalog.execute(statement, engine: engine)
            guard let table = catalog.table(named: create.table) else { return ([], []) }
            let writer = try TableWriter(table: table, catalog: catalog, engine: engine, parameters: parameters)
            try writer.fill(index: create.name.name)
        case .createTable, .dropTable, .dropIndex, .alterTable:
            try catalog.execute(statement, engine: engine)
        case .insert(let insert):
            try self.insert(insert, statement: statement, parameters: parameters)
        case .update(let update):
            try self.update(update, parameters: parameters)
        case .delete(let delete):
            try self.delete(delete, parameters: parameters)
        default:
            throw SQLExecutionError("not supported yet: \(statement.sourceText)")
        }
        return ([], [])
    }

    private func insert(_ insert: InsertStatement, statement: Statement, parameters: BoundParameters) throws {
        if insert.orAction != nil { throw SQLExecutionError.unsupported("INSERT OR …") }
        if !insert.upsert.isEmpty { throw SQLExecutionError.unsupported("ON CONFLICT") }
        if insert.returning != nil { throw SQLExecutionError.unsupported("RETURNING") }
        let writer = try writer(insert.table, parameters)
        let table = writer.table
        let targets: [Int]
        if let names = insert.columns {
            targets = try names.map { name in
                if let index = table.columnIndex(named: name) { return index }
                if TableScope.isRowidName(name), let alias = table.rowidAlias { return alias }
                throw SQLExecutionError("table \(table.name) has no column named \(name)")
            }
        } else {
            targets = Array(table.columns.indices)
        }
        var rows: [[Value]] = []
        switch insert.source {
        case .defaultValues:
            rows = [[]]
        case .select(let select):
            if case .values(let expressions) = select.first, select.compounds.isEmpty, select.orderBy.isEmpty,
                select.limit == nil, select.with == nil
            {
                let expected = expressions.first?.count ?? 0
                for tuple in expressions {
                    guard tuple.count == expected else {
                        throw SQLExecutionError("all VALUES must have the same number of terms")
                    }
                }
                if expected != targets.count {
                    throw SQLExecutionError(Self.countMismatch(table, insert, targets.count, expected))
                }
                for tuple in expressions {
                    var context = EvaluationContext(parameters: parameters)
                    rows.append(
                        try tuple.map {
                            try ExpressionCompiler.compile($0, resolver: EmptyColumnResolver()).evaluate(&context)
                        })
                }
            } else {
                let result = try self.select(select, statement: statement, parameters: parameters)
                if result.columns.count != targets.count {
                    throw SQLExecutionError(Self.countMismatch(table, insert, targets.count, result.columns.count))
                }
                rows = result.rows
            }
        }
        for supplied in rows {
            var values = writer.defaults
            for (k, value) in supplied.enumerated() {
                values[targets[k]] = table.columns[targets[k]].affinity.apply(to: value)
            }
            try writer.insert(values)
        }
    }

    private static func countMismatch(
        _ table: TableDefinition, _ insert: InsertStatement, _ columns: Int, _ values: Int
    )
        -> String
    {
        insert.columns == nil
            ? "table \(table.name) has \(columns) columns but \(values) values were supplied"
            : "\(values) values for \(columns) columns"
    }

    /// The rows of `writer`'s table matching `condition`, in rowid order.
    private func matchingRows(_ writer: TableWriter, _ condition: SQLExpression?) throws -> [[Value]] {
        let filter = try condition.map { try ExpressionCompiler.compile($0, resolver: writer.scope) }
        let plan = QueryPlanner.plan(condition, writer: writer, scope: writer.scope, parameters: writer.parameters)
        var rows: [[Value]] = []
        try writer.forEachCandidate(plan, descending: false) { row in
            if let filter {
                var context = EvaluationContext(row: row, parameters: writer.parameters)
                guard try filter.isTrue(&context) else { return true }
            }
            rows.append(row)
            return true
        }
        return rows
    }

    private func update(_ update: UpdateStatement, parameters: BoundParameters) throws {
        if update.orAction != nil { throw SQLExecutionError.unsupported("UPDATE OR …") }
        if update.returning != nil { throw SQLExecutionError.unsupported("RETURNING") }
        let writer = try writer(update.table, parameters)
        let table = writer.table
        var assignments: [(column: Int, value: CompiledExpression)] = []
        for assignment in update.assignments {
            guard assignment.columns.count == 1 else { throw SQLExecutionError.unsupported("row-value assignment") }
            let name = assignment.columns[0]
            let column: Int
            if let index = table.columnIndex(named: name) {
                column = index
            } else if TableScope.isRowidName(name), let alias = table.rowidAlias {
                column = alias
            } else {
                throw SQLExecutionError("no such column: \(name)")
            }
            assignments.append((column, try ExpressionCompiler.compile(assignment.value, resolver: writer.scope)))
        }
        for old in try matchingRows(writer, update.whereClause) {
            var context = EvaluationContext(row: old, parameters: parameters)
            var values = Array(old.prefix(table.columns.count))
            for assignment in assignments {
                values[assignment.column] = table.columns[assignment.column].affinity.apply(
                    to: try assignment.value.evaluate(&context))
            }
            try writer.update(old: old, values: values)
        }
    }

    private func delete(_ delete: DeleteStatement, parameters: BoundParameters) throws {
        if delete.returning != nil { throw SQLExecutionError.unsupported("RETURNING") }
        let writer = try writer(delete.table, parameters)
        for old in try matchingRows(writer, delete.whereClause) { try writer.delete(old: old) }
    }
}
