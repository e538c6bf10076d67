import GraniteStorage

extension SQLConnection {
    /// Compiles a `SELECT` of `statement` against the current schema.
    func compileSelect(_ select: SelectStatement, statement: Statement) throws -> SelectProgram {
        try selectCompiler(statement).compile(select)
    }

    /// The compiler of the queries of `statement` (which see the `WITH` of a write statement).
    func selectCompiler(_ statement: Statement) -> SelectCompiler {
        SelectCompiler(
            catalog: catalog, connection: self, sourceText: statement.sourceText,
            sourceStart: statement.range.start.offset,
            commonTables: statement.writeCommonTables)
    }

    /// The columns of `EXPLAIN QUERY PLAN` rows.
    static let explainColumns = ["id", "parent", "notused", "detail"]

    /// Runs a `SELECT` to completion (or returns its `EXPLAIN QUERY PLAN` rows).
    func select(
        _ select: SelectStatement, statement: Statement, parameters: BoundParameters, explain: Bool = false
    ) throws -> (columns: [String], rows: [[Value]]) {
        let program = try compileSelect(select, statement: statement)
        if explain { return (Self.explainColumns, program.explainRows()) }
        return (program.columnNames, try allRows(of: program, parameters: parameters))
    }

    /// Runs `program` to completion with `parameters`: all its rows.
    func allRows(of program: SelectProgram, parameters: BoundParameters) throws -> [[Value]] {
        let cursor = SelectCursor(program: program)
        cursor.sortMemoryLimit = sortMemoryLimit
        try cursor.open(parameters: parameters)
        var rows: [[Value]] = []
        while let row = try cursor.next() { rows.append(row) }
        return rows
    }
}
