import GraniteStorage

extension SQLConnection {
    /// The statement's ``WriteSubqueries`` kept in `slot`, made on first use over the rows of `table` (nil: no
    /// row), followed by the `excluded` row when `excluded`.
    func writeSubqueries(
        _ slot: inout WriteSubqueries?, _ table: TableDefinition?, _ statement: Statement, excluded: Bool = false
    ) throws -> WriteSubqueries {
        if let existing = slot { return existing }
        let compiler = SelectCompiler(
            catalog: catalog, connection: self, sourceText: statement.sourceText,
            sourceStart: statement.range.start.offset,
            commonTables: statement.writeCommonTables)
        let made = WriteSubqueries(table: table, excluded: excluded, compiler: compiler)
        slot = made
        return made
    }

    /// Begins an execution of the statement's subqueries (see ``WriteSubqueries/start(parameters:)``): returns
    /// what evaluates those of `VALUES` and those over the table's row (those of upserts are read from their
    /// plans).
    @discardableResult
    func startSubqueries(_ cache: WriteCache, _ parameters: BoundParameters) throws
        -> (values: SubqueryProvider?, row: SubqueryProvider?)
    {
        try cache.upsertSubqueries?.start(parameters: parameters)
        return (
            try cache.valuesSubqueries?.start(parameters: parameters),
            try cache.rowSubqueries?.start(parameters: parameters)
        )
    }
}
