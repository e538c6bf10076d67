import GraniteStorage

/// A compiled `RETURNING` list.
struct ReturningList {
    var names: [String]
    /// Per output column: an expression, or (when nil) a copy of the row slot.
    var outputs: [(expression: CompiledExpression?, slot: Int)]
    /// Evaluates the outputs' subqueries, if any.
    var subqueries: WriteSubqueries?

    func evaluate(_ row: [Value], parameters: BoundParameters) throws -> [Value] {
        var context = EvaluationContext(row: row, parameters: parameters, subqueries: subqueries?.provider)
        return try outputs.map { output in try output.expression?.evaluate(&context) ?? row[output.slot] }
    }
}

extension SQLConnection {
    /// Compiles a `RETURNING` list over the rows of `writer`'s table, named by the table's name even where the
    /// statement gives the target an alias (as SQLite's RETURNING sees it); outputs holding a subquery are
    /// compiled with the statement's ``WriteCache/returningSubqueries``.
    func returningList(
        _ columns: [ResultColumn], _ writer: TableWriter, _ statement: Statement, _ cache: WriteCache
    ) throws -> ReturningList {
        let table = writer.table
        var list = ReturningList(names: [], outputs: [])
        for column in columns {
            switch column {
            case .all, .allOf:  // the parser refuses `table.*` in RETURNING, as SQLite does
                for (k, c) in table.columns.enumerated() {
                    list.names.append(c.name)
                    list.outputs.append((nil, k))
                }
            case .expression(let expression, let alias):
                list.names.append(alias ?? Self.returningName(expression, table, statement))
                if WriteSubqueries.needed(for: expression) {
                    let subqueries = try writeSubqueries(&cache.returningSubqueries, table, statement)
                    list.outputs.append((try subqueries.compile(expression), -1))
                    list.subqueries = subqueries
                } else {
                    list.outputs.append((try ExpressionCompiler.compile(expression, resolver: writer.scope), -1))
                }
            }
        }
        return list
    }

    /// SQLite's name for an unaliased result expression: the column name, else the expression's source text.
    static func returningName(
        _ expression: SQLExpression, _ table: TableDefinition?, _ statement: Statement
    ) -> String {
        if case .column(let reference) = expression.kind {
            if SchemaNames.isRowidName(reference.column), let table, table.columnIndex(named: reference.column) == nil {
                // Like SQLite: the INTEGER PRIMARY KEY's name, else `rowid` whichever spelling was used.
                return table.rowidAlias.map { table.columns[$0].name } ?? "rowid"
            }
            return reference.column
        }
        return expression.sourceText(in: statement.sourceText, startingAt: statement.range.start.offset) ?? "?"
    }
}
