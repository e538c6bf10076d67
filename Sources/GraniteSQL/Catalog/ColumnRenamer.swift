/// Rewrites references to one column of one table in schema statements (for `ALTER TABLE … RENAME COLUMN`).
///
/// A reference matches when its column name equals ``from`` (ASCII case-insensitive) and it is unqualified or
/// qualified with ``table``. Subqueries are left alone (SQLite does not allow them in constraints or indexes).
struct ColumnRenamer {
    /// The table whose column is renamed.
    var table: String
    /// The old column name.
    var from: String
    /// The new column name.
    var to: String

    private func matches(_ name: String) -> Bool { SchemaNames.equal(name, from) }

    /// `statement` with references renamed in constraints (the column definition itself is not renamed).
    func rename(in statement: CreateTableStatement) -> CreateTableStatement {
        var result = statement
        for c in result.columns.indices {
            for k in result.columns[c].constraints.indices {
                switch result.columns[c].constraints[k].kind {
                case .generated(let expression, let stored):
                    result.columns[c].constraints[k].kind = .generated(rename(expression), stored: stored)
                case .check(let expression):
                    result.columns[c].constraints[k].kind = .check(rename(expression))
                case .default(let expression):
                    result.columns[c].constraints[k].kind = .default(rename(expression))
                default:
                    break
                }
            }
        }
        for k in result.constraints.indices {
            switch result.constraints[k].kind {
            case .primaryKey(let columns, let onConflict):
                result.constraints[k].kind = .primaryKey(columns.map(rename), onConflict: onConflict)
            case .unique(let columns, let onConflict):
                result.constraints[k].kind = .unique(columns.map(rename), onConflict: onConflict)
            case .check(let expression):
                result.constraints[k].kind = .check(rename(expression))
            case .foreignKey(let columns, let clause):
                result.constraints[k].kind = .foreignKey(columns: columns.map { matches($0) ? to : $0 }, clause)
            }
        }
        return result
    }

    /// `statement` with references renamed in its columns and `WHERE` clause.
    func rename(in statement: CreateIndexStatement) -> CreateIndexStatement {
        var result = statement
        result.columns = result.columns.map(rename)
        result.whereClause = result.whereClause.map(rename)
        return result
    }

    private func rename(_ column: IndexedColumn) -> IndexedColumn {
        var result = column
        result.expression = rename(column.expression)
        return result
    }

    /// `expression` with matching column references renamed.
    func rename(_ expression: SQLExpression) -> SQLExpression {
        expression.rewritten { e in
            guard case .column(var reference) = e.kind, matches(reference.column),
                reference.table.map({ SchemaNames.equal($0, table) }) ?? true
            else { return nil }
            reference.column = to
            var renamed = e
            renamed.kind = .column(reference)
            return renamed
        }
    }
}
