import GraniteStorage

extension SQLConnection {
    /// The statement's ``WriteSubqueries`` kept in `slot`, made on first use over the rows of `table` (nil: no
    /// row).
    func writeSubqueries(_ slot: inout WriteSubqueries?, _ table: TableDefinition?, _ statement: Statement) throws
        -> WriteSubqueries
    {
        if let existing = slot { return existing }
        let compiler = SelectCompiler(
            catalog: catalog, engine: engine, sourceText: statement.sourceText,
            sourceStart: statement.range.start.offset)
        let made = WriteSubqueries(table: table, compiler: compiler)
        slot = made
        return made
    }

    /// Begins an execution of the statement's subqueries (see ``WriteSubqueries/start(parameters:)``): returns
    /// what evaluates those of `VALUES` and those over the table's row.
    @discardableResult
    func startSubqueries(_ cache: WriteCache, _ parameters: BoundParameters) throws
        -> (values: SubqueryProvider?, row: SubqueryProvider?)
    {
        (
            try cache.valuesSubqueries?.start(parameters: parameters),
            try cache.rowSubqueries?.start(parameters: parameters)
        )
    }
}
