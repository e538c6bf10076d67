// CREATE TRIGGER and DROP TRIGGER.

extension Parser {
    /// Parses the part of `CREATE [TEMP] TRIGGER` after `TRIGGER`:
    /// `[IF NOT EXISTS] name [BEFORE|AFTER|INSTEAD OF] event ON table [FOR EACH ROW] [WHEN expr] BEGIN … END`.
    ///
    /// Every body statement receives the parameter list of the whole trigger (the `NEW.x` / `OLD.x` references of
    /// its `WHEN` and body), so that one binding serves them all.
    mutating func parseCreateTriggerBody(temporary: Bool) throws(SQLSyntaxError) -> CreateTriggerStatement {
        let ifNotExists = try parseIfNotExists()
        let name = try parseQualifiedName()
        let timing = try parseTriggerTiming()
        let event = try parseTriggerEvent()
        try expectKeyword("ON")
        let table = try parseQualifiedName()
        if acceptKeyword("FOR") {
            try expectKeyword("EACH")
            try expectKeyword("ROW")
        }
        let wasInTrigger = inTrigger
        inTrigger = true
        defer { inTrigger = wasInTrigger }
        let when = acceptKeyword("WHEN") ? try parseExpression() : nil
        try expectKeyword("BEGIN")
        var body: [Statement] = []
        repeat {
            body.append(try parseTriggerStatement())
            try expectSymbol(";")
            while acceptSymbol(";") {}
        } while !isKeyword("END")
        try expectKeyword("END")
        let parameters = ParameterList(count: parameterNames.count, names: parameterNames)
        for k in body.indices { body[k].parameters = parameters }
        // The references are the trigger's own, bound when it fires: the statement creating it binds nothing.
        parameterNames = []
        namedParameters = [:]
        // SQLite keeps a schema qualifier on the trigger name only; on the table it is an error to name another
        // database, which the catalog reports.
        var tableName = table.name
        if let schema = table.schema { tableName = schema + "." + table.name }
        return CreateTriggerStatement(
            temporary: temporary, ifNotExists: ifNotExists, name: name, timing: timing, event: event,
            table: tableName, when: when, body: body, parameters: parameters)
    }

    private mutating func parseTriggerTiming() throws(SQLSyntaxError) -> TriggerTiming {
        if acceptKeyword("BEFORE") { return .before }
        if acceptKeyword("AFTER") { return .after }
        if acceptKeyword("INSTEAD") {
            try expectKeyword("OF")
            return .insteadOf
        }
        return .before
    }

    private mutating func parseTriggerEvent() throws(SQLSyntaxError) -> TriggerEvent {
        if acceptKeyword("INSERT") { return .insert }
        if acceptKeyword("DELETE") { return .delete }
        try expectKeyword("UPDATE")
        guard acceptKeyword("OF") else { return .update(columns: nil) }
        var columns = [try parseName()]
        while acceptSymbol(",") { columns.append(try parseName()) }
        return .update(columns: columns)
    }

    /// One statement of a trigger body: INSERT, REPLACE, UPDATE, DELETE, SELECT or VALUES, or one of them after
    /// a `WITH` clause. Their target tables may not be schema-qualified, as in SQLite.
    private mutating func parseTriggerStatement() throws(SQLSyntaxError) -> Statement {
        let start = current.range.start
        guard current.kind == .word,
            ["INSERT", "REPLACE", "UPDATE", "DELETE", "SELECT", "VALUES", "WITH"].contains(current.keyword)
        else { throw syntaxError() }
        let kind = try parseStatementKind(allowExplain: false)
        let target: QualifiedName?
        let indexHint: IndexHint?
        switch kind {
        case .insert(let insert): (target, indexHint) = (insert.table, nil)
        case .update(let update): (target, indexHint) = (update.table, update.indexHint)
        case .delete(let delete): (target, indexHint) = (delete.table, delete.indexHint)
        default: (target, indexHint) = (nil, nil)
        }
        if target?.schema != nil {
            throw error(
                "qualified table names are not allowed on INSERT, UPDATE, and DELETE statements within triggers",
                at: start)
        }
        if let indexHint {
            let clause = indexHint == .notIndexed ? "NOT INDEXED" : "INDEXED BY"
            throw error(
                "the \(clause) clause is not allowed on UPDATE or DELETE statements within triggers", at: start)
        }
        let range = SourceRange(start: start, end: previousEnd)
        return Statement(kind, range: range, sourceText: String(decoding: source[range.offsets], as: UTF8.self))
    }
}
