import GraniteStorage

extension SQLConnection {
    /// The statement's ``WriteSubqueries`` kept in `slot`, made on first use over the rows of `table` (nil: no
    /// row) named `alias` (nil: the table's name), followed by the `excluded` row when `excluded`.
    func writeSubqueries(
        _ slot: inout WriteSubqueries?, _ table: TableDefinition?, _ statement: Statement, alias: String? = nil,
        excluded: Bool = false
    ) throws -> WriteSubqueries {
        if let existing = slot { return existing }
        let compiler = SelectCompiler(
            catalog: catalog, connection: self, sourceText: statement.sourceText,
            sourceStart: statement.range.start.offset,
            commonTables: statement.writeCommonTables)
        let made = WriteSubqueries(table: table, alias: alias, excluded: excluded, compiler: compiler)
        slot = made
        return made
    }

    /// Begins an execution of the statement's subqueries (see ``WriteSubqueries/start(parameters:)``): returns
    /// what evaluates those of `VALUES` and those of `SET` (those of upserts are read from their plans, those of
    /// `RETURNING` from its list).
    @discardableResult
    func startSubqueries(_ cache: WriteCache, _ parameters: BoundParameters) throws
        -> (values: SubqueryProvider?, row: SubqueryProvider?)
    {
        try cache.upsertSubqueries?.start(parameters: parameters)
        try cache.returningSubqueries?.start(parameters: parameters)
        return (
            try cache.valuesSubqueries?.start(parameters: parameters),
            try cache.rowSubqueries?.start(parameters: parameters)
        )
    }
}
