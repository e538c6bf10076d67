// CREATE VIEW: the part after `CREATE [TEMP] VIEW`.

extension Parser {
    /// Parses `[IF NOT EXISTS] name [(columns)] AS select`.
    ///
    /// A view's query is stored and re-run later without arguments, so a parameter in it is an error (SQLite's
    /// "parameters are not allowed in views", reported at parse time as SQLite does).
    mutating func parseCreateViewBody(temporary: Bool) throws(SQLSyntaxError) -> CreateViewStatement {
        let ifNotExists = try parseIfNotExists()
        let name = try parseQualifiedName()
        let columns = isSymbol("(") ? try parseNameList() : nil
        try expectKeyword("AS")
        let start = current.range.start
        let parametersBefore = parameterNames.count
        let select = try parseSelect()
        if parameterNames.count > parametersBefore {
            throw error("parameters are not allowed in views", at: start)
        }
        return CreateViewStatement(
            temporary: temporary, ifNotExists: ifNotExists, name: name, columns: columns, select: select)
    }
}
