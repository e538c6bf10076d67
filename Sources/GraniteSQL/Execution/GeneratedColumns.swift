// Generated columns (`b AS (a * 2)`): computed from the other columns of the row on every write, each after the
// generated columns it reads, then given the column's affinity. Granite stores VIRTUAL columns as it stores STORED
// ones: since the expressions are deterministic and read only the row, a value computed at write time is the value
// SQLite would compute when reading.

import GraniteStorage

/// The generated columns of a table, compiled, in the order they are computed.
struct GeneratedColumns {
    /// Column position, compiled expression and affinity, each column after those it reads.
    let steps: [(position: Int, expression: CompiledExpression, affinity: SQLAffinity)]

    var isEmpty: Bool { steps.isEmpty }

    /// Compiles the generated columns of `table` against `scope`.
    /// - Throws: SQLite's `generated column loop on "c"` when the columns read each other in a circle, and the
    ///   restrictions of ``RestrictedUse/generatedColumn``.
    init(table: TableDefinition, scope: TableScope) throws {
        let order = try Self.computationOrder(table)
        steps = try order.map { position in
            guard let generated = table.columns[position].generated else { throw SchemaError("not a generated column") }
            let expression = try TableWriter.compile(generated.expression, scope, .generatedColumn)
            return (position, expression, table.columns[position].affinity)
        }
    }

    /// Computes every generated column of `row` (evaluation layout) in place.
    func compute(_ row: inout [Value], parameters: BoundParameters) throws {
        for step in steps {
            var context = EvaluationContext(row: row, parameters: parameters)
            row[step.position] = step.affinity.apply(to: try step.expression.evaluate(&context))
        }
    }

    /// The generated columns' positions, each after the generated columns its expression reads (a depth-first
    /// walk in column order). A column that reads one whose computation is in progress closes a loop; SQLite
    /// names the column that reads it.
    private static func computationOrder(_ table: TableDefinition) throws -> [Int] {
        enum Mark { case inProgress, done }
        var marks: [Int: Mark] = [:]
        var order: [Int] = []
        func visit(_ position: Int) throws {
            guard let generated = table.columns[position].generated, marks[position] != .done else { return }
            marks[position] = .inProgress
            for name in columnNames(in: generated.expression) {
                guard let read = table.columnIndex(named: name), table.columns[read].generated != nil else { continue }
                if marks[read] == .inProgress {
                    throw SQLExecutionError("generated column loop on \"\(table.columns[position].name)\"")
                }
                try visit(read)
            }
            marks[position] = .done
            order.append(position)
        }
        for position in table.columns.indices { try visit(position) }
        return order
    }

    /// The column names `expression` reads, in order.
    private static func columnNames(in expression: SQLExpression) -> [String] {
        if case .column(let reference) = expression.kind { return [reference.column] }
        return RestrictedUse.operands(of: expression).flatMap(columnNames)
    }
}
