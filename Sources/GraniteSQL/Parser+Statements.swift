// Statement dispatch, DML (INSERT/UPDATE/DELETE), transactions, PRAGMA and EXPLAIN.

extension Parser {
    mutating func parseStatementKind(allowExplain: Bool) throws(SQLSyntaxError) -> Statement.Kind {
        guard current.kind == .word else { throw syntaxError() }
        switch current.keyword {
        case "EXPLAIN" where allowExplain:
            advance()
            var queryPlan = false
            if acceptKeyword("QUERY") {
                try expectKeyword("PLAN")
                queryPlan = true
            }
            let start = current.range.start
            let kind = try parseStatementKind(allowExplain: false)
            let range = SourceRange(start: start, end: previousEnd)
            let inner = Statement(
                kind, range: range, sourceText: String(decoding: source[range.offsets], as: UTF8.self),
                parameters: ParameterList(count: parameterNames.count, names: parameterNames))
            return .explain(queryPlan: queryPlan, inner)
        case "SELECT", "VALUES":
            return .select(try parseSelect())
        case "WITH":
            return try parseStatementAfterWith()
        case "INSERT", "REPLACE":
            return .insert(try parseInsert())
        case "UPDATE":
            return .update(try parseUpdate())
        case "DELETE":
            return .delete(try parseDelete())
        case "CREATE":
            return try parseCreate()
        case "DROP":
            advance()
            guard current.kind == .word, ["TABLE", "INDEX", "VIEW", "TRIGGER"].contains(current.keyword) else {
                throw syntaxError()
            }
            let object = advance().keyword
            var ifExists = false
            if acceptKeyword("IF") {
                try expectKeyword("EXISTS")
                ifExists = true
            }
            let drop = DropStatement(ifExists: ifExists, name: try parseQualifiedName())
            switch object {
            case "TABLE": return .dropTable(drop)
            case "INDEX": return .dropIndex(drop)
            case "TRIGGER": return .dropTrigger(drop)
            default: return .dropView(drop)
            }
        case "ALTER":
            return .alterTable(try parseAlterTable())
        case "BEGIN":
            advance()
            var mode: TransactionMode?
            if current.kind == .word, let parsed = TransactionMode(rawValue: current.keyword) {
                advance()
                mode = parsed
            }
            _ = acceptKeyword("TRANSACTION")
            return .begin(mode)
        case "COMMIT", "END":
            advance()
            _ = acceptKeyword("TRANSACTION")
            return .commit
        case "ROLLBACK":
            advance()
            _ = acceptKeyword("TRANSACTION")
            if acceptKeyword("TO") {
                if isKeyword("SAVEPOINT") && peek(1).kind != .endOfInput && !(peek(1).kind == .symbol) {
                    advance()
                }
                return .rollback(toSavepoint: try parseName())
            }
            return .rollback(toSavepoint: nil)
        case "SAVEPOINT":
            advance()
            return .savepoint(try parseName())
        case "RELEASE":
            advance()
            if isKeyword("SAVEPOINT") && peek(1).kind != .endOfInput && !(peek(1).kind == .symbol) {
                advance()
            }
            return .release(try parseName())
        case "PRAGMA":
            return .pragma(try parsePragma())
        case "REINDEX":
            advance()
            if current.kind == .endOfInput || isSymbol(";") { return .reindex(nil) }
            return .reindex(try parseQualifiedName())
        case "VACUUM":
            advance()
            var schema: String?
            if current.kind != .endOfInput, !isSymbol(";"), !isKeyword("INTO") { schema = try parseName() }
            let into = acceptKeyword("INTO") ? try parseExpression() : nil
            return .vacuum(schema: schema, into: into)
        default:
            throw syntaxError()
        }
    }

    private mutating func parseConflictResolution() throws(SQLSyntaxError) -> ConflictResolution {
        guard current.kind == .word, let resolution = ConflictResolution(rawValue: current.keyword) else {
            throw syntaxError()
        }
        advance()
        return resolution
    }

    /// Parses `ON CONFLICT resolution` if present (the constraint form, not the upsert form).
    mutating func parseConstraintConflictClause() throws(SQLSyntaxError) -> ConflictResolution? {
        guard isKeyword("ON") && isKeyword("CONFLICT", ahead: 1) else { return nil }
        advance()
        advance()
        return try parseConflictResolution()
    }

    /// Parses `RETURNING columns`; like SQLite, refuses a `table.*` among them (the statement's target is its
    /// only table, so `*` says it).
    private mutating func parseReturning() throws(SQLSyntaxError) -> [ResultColumn]? {
        guard acceptKeyword("RETURNING") else { return nil }
        let start = current.range.start
        let columns = try parseResultColumns()
        if columns.contains(where: { if case .allOf = $0 { true } else { false } }) {
            throw error("RETURNING may not use \"TABLE.*\" wildcards", at: start)
        }
        return columns
    }

    /// Parses a statement that starts with a `WITH` clause: a `SELECT`, or an `INSERT`, `UPDATE` or `DELETE` whose
    /// queries all see the clause's tables.
    private mutating func parseStatementAfterWith() throws(SQLSyntaxError) -> Statement.Kind {
        try enterNesting()
        defer { depth -= 1 }
        let with = try parseWithClause()
        // In a trigger body, SQLite's grammar takes a WITH clause before a SELECT only.
        if inTrigger, current.kind == .word, ["INSERT", "REPLACE", "UPDATE", "DELETE"].contains(current.keyword) {
            throw syntaxError()
        }
        switch current.kind == .word ? current.keyword : "" {
        case "INSERT", "REPLACE":
            var insert = try parseInsert()
            insert.with = with
            return .insert(insert)
        case "UPDATE":
            var update = try parseUpdate()
            update.with = with
            return .update(update)
        case "DELETE":
            var delete = try parseDelete()
            delete.with = with
            return .delete(delete)
        default:
            return .select(try parseSelect(after: with))
        }
    }

    private mutating func parseInsert() throws(SQLSyntaxError) -> InsertStatement {
        var orAction: ConflictResolution?
        if acceptKeyword("REPLACE") {
            orAction = .replace
        } else {
            try expectKeyword("INSERT")
            if acceptKeyword("OR") { orAction = try parseConflictResolution() }
        }
        try expectKeyword("INTO")
        let table = try parseQualifiedName()
        var columns: [String]?
        if isSymbol("(") { columns = try parseNameList() }
        let source: InsertStatement.Source
        if acceptKeyword("DEFAULT") {
            try expectKeyword("VALUES")
            source = .defaultValues
        } else if isKeyword("SELECT") || isKeyword("VALUES") || isKeyword("WITH") {
            source = .select(try parseSelect())
        } else {
            throw syntaxError()
        }
        var upsert: [UpsertClause] = []
        while isKeyword("ON") {
            upsert.append(try parseUpsert())
        }
        return InsertStatement(
            orAction: orAction, table: table, columns: columns, source: source, upsert: upsert,
            returning: try parseReturning())
    }

    private mutating func parseUpsert() throws(SQLSyntaxError) -> UpsertClause {
        try expectKeyword("ON")
        try expectKeyword("CONFLICT")
        var target: [IndexedColumn]?
        var targetWhere: SQLExpression?
        if acceptSymbol("(") {
            target = try parseIndexedColumns()
            try expectSymbol(")")
            if acceptKeyword("WHERE") { targetWhere = try parseExpression() }
        }
        try expectKeyword("DO")
        if acceptKeyword("NOTHING") {
            return UpsertClause(target: target, targetWhere: targetWhere, action: .nothing)
        }
        try expectKeyword("UPDATE")
        try expectKeyword("SET")
        let assignments = try parseAssignments()
        var condition: SQLExpression?
        if acceptKeyword("WHERE") { condition = try parseExpression() }
        return UpsertClause(
            target: target, targetWhere: targetWhere, action: .update(assignments, whereClause: condition))
    }

    private mutating func parseAssignments() throws(SQLSyntaxError) -> [Assignment] {
        var assignments: [Assignment] = []
        repeat {
            let isRow = isSymbol("(")
            let columns = isRow ? try parseNameList() : [try parseName()]
            try expectSymbol("=")
            assignments.append(Assignment(columns: columns, value: try parseExpression(), isRow: isRow))
        } while acceptSymbol(",")
        return assignments
    }

    private mutating func parseUpdate() throws(SQLSyntaxError) -> UpdateStatement {
        try expectKeyword("UPDATE")
        var orAction: ConflictResolution?
        if acceptKeyword("OR") { orAction = try parseConflictResolution() }
        let table = try parseQualifiedName()
        let alias = try parseWriteTargetAlias()
        let indexHint = try parseIndexHint()
        try expectKeyword("SET")
        let assignments = try parseAssignments()
        var from: FromClause?
        if acceptKeyword("FROM") { from = try parseFromClause() }
        var condition: SQLExpression?
        if acceptKeyword("WHERE") { condition = try parseExpression() }
        return UpdateStatement(
            orAction: orAction, table: table, alias: alias, indexHint: indexHint, assignments: assignments, from: from,
            whereClause: condition, returning: try parseReturning())
    }

    private mutating func parseDelete() throws(SQLSyntaxError) -> DeleteStatement {
        try expectKeyword("DELETE")
        try expectKeyword("FROM")
        let table = try parseQualifiedName()
        let alias = try parseWriteTargetAlias()
        let indexHint = try parseIndexHint()
        var condition: SQLExpression?
        if acceptKeyword("WHERE") { condition = try parseExpression() }
        return DeleteStatement(
            table: table, alias: alias, indexHint: indexHint, whereClause: condition, returning: try parseReturning())
    }

    /// Parses the optional `AS alias` of an UPDATE or DELETE target. As in SQLite, the alias needs `AS` (a bare
    /// name after the table is a syntax error), and a trigger body's UPDATE and DELETE take none.
    private mutating func parseWriteTargetAlias() throws(SQLSyntaxError) -> String? {
        guard isKeyword("AS") else { return nil }
        if inTrigger { throw syntaxError() }
        advance()
        // SQLite takes a string literal where the alias is expected.
        if current.kind == .string { return advance().value }
        return try parseName()
    }

    private mutating func parsePragma() throws(SQLSyntaxError) -> PragmaStatement {
        try expectKeyword("PRAGMA")
        let name = try parseQualifiedName()
        if acceptSymbol("=") {
            return PragmaStatement(name: name, value: try parsePragmaValue(), isCallSyntax: false)
        }
        if acceptSymbol("(") {
            let value = try parsePragmaValue()
            try expectSymbol(")")
            return PragmaStatement(name: name, value: value, isCallSyntax: true)
        }
        return PragmaStatement(name: name)
    }

    private mutating func parsePragmaValue() throws(SQLSyntaxError) -> PragmaStatement.Value {
        switch current.kind {
        case .integer, .real, .symbol:
            return .number(try parseSignedNumber())
        case .string:
            return .string(advance().value)
        case .word, .quotedIdentifier:
            return .name(advance().value)
        default:
            throw syntaxError()
        }
    }
}
