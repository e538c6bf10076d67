// Schema statements: CREATE TABLE, CREATE INDEX and ALTER TABLE.

extension Parser {
    mutating func parseCreate() throws(SQLSyntaxError) -> Statement.Kind {
        try expectKeyword("CREATE")
        let temporary = acceptKeyword("TEMP") || acceptKeyword("TEMPORARY")
        if acceptKeyword("VIEW") { return .createView(try parseCreateViewBody(temporary: temporary)) }
        if acceptKeyword("TRIGGER") { return .createTrigger(try parseCreateTriggerBody(temporary: temporary)) }
        if acceptKeyword("TABLE") { return .createTable(try parseCreateTableBody(temporary: temporary)) }
        if temporary { throw syntaxError() }
        let unique = acceptKeyword("UNIQUE")
        guard acceptKeyword("INDEX") else { throw syntaxError() }
        let ifNotExists = try parseIfNotExists()
        let name = try parseQualifiedName()
        try expectKeyword("ON")
        let table = try parseName()
        try expectSymbol("(")
        let columns = try parseIndexedColumns()
        try expectSymbol(")")
        var condition: SQLExpression?
        if acceptKeyword("WHERE") { condition = try parseExpression() }
        return .createIndex(
            CreateIndexStatement(
                unique: unique, ifNotExists: ifNotExists, name: name, table: table, columns: columns,
                whereClause: condition))
    }

    mutating func parseIfNotExists() throws(SQLSyntaxError) -> Bool {
        guard isKeyword("IF") && isKeyword("NOT", ahead: 1) else { return false }
        advance()
        advance()
        try expectKeyword("EXISTS")
        return true
    }

    private mutating func parseCreateTableBody(temporary: Bool) throws(SQLSyntaxError) -> CreateTableStatement {
        let ifNotExists = try parseIfNotExists()
        let name = try parseQualifiedName()
        if acceptKeyword("AS") {
            let select = try parseSelect()
            return CreateTableStatement(
                temporary: temporary, ifNotExists: ifNotExists, name: name, columns: [], asSelect: select)
        }
        try expectSymbol("(")
        var columns: [ColumnDefinition] = []
        var constraints: [TableConstraint] = []
        repeat {
            if current.kind == .word, ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(current.keyword)
            {
                constraints.append(try parseTableConstraint())
            } else if constraints.isEmpty {
                columns.append(try parseColumnDefinition())
            } else {
                throw syntaxError()
            }
        } while acceptSymbol(",")
        try expectSymbol(")")
        let options = try parseTableOptions()
        return CreateTableStatement(
            temporary: temporary, ifNotExists: ifNotExists, name: name, columns: columns, constraints: constraints,
            strict: options.strict, withoutRowid: options.withoutRowid)
    }

    /// Parses the table options after the column list (`STRICT`, `WITHOUT ROWID`, comma-separated, in any order,
    /// repeats allowed as in SQLite). Any other name is SQLite's `unknown table option`.
    private mutating func parseTableOptions() throws(SQLSyntaxError) -> (strict: Bool, withoutRowid: Bool) {
        guard current.kind == .word || current.kind == .quotedIdentifier else { return (false, false) }
        var strict = false
        var withoutRowid = false
        repeat {
            let start = current.range.start
            if acceptKeyword("WITHOUT") {
                let option = try parseName()
                guard SchemaNames.equal(option, "rowid") else { throw error("unknown table option: \(option)", at: start) }
                withoutRowid = true
                continue
            }
            let option = try parseName()
            guard SchemaNames.equal(option, "strict") else { throw error("unknown table option: \(option)", at: start) }
            strict = true
        } while acceptSymbol(",")
        return (strict, withoutRowid)
    }

    /// Parses `name [type] [constraints…]`.
    mutating func parseColumnDefinition() throws(SQLSyntaxError) -> ColumnDefinition {
        let name = try parseName()
        let type = try parseTypeName(required: false)
        var constraints: [ColumnConstraint] = []
        while true {
            var constraintName: String?
            if acceptKeyword("CONSTRAINT") { constraintName = try parseName() }
            guard let kind = try parseColumnConstraintKind() else {
                if constraintName != nil { throw syntaxError() }
                break
            }
            constraints.append(ColumnConstraint(name: constraintName, kind))
        }
        return ColumnDefinition(name: name, type: type, constraints: constraints)
    }

    private mutating func parseColumnConstraintKind() throws(SQLSyntaxError) -> ColumnConstraint.Kind? {
        guard current.kind == .word else { return nil }
        switch current.keyword {
        case "PRIMARY":
            advance()
            try expectKeyword("KEY")
            var order: SortOrder?
            if acceptKeyword("ASC") {
                order = .ascending
            } else if acceptKeyword("DESC") {
                order = .descending
            }
            let conflict = try parseConstraintConflictClause()
            return .primaryKey(order: order, onConflict: conflict, autoincrement: acceptKeyword("AUTOINCREMENT"))
        case "NOT":
            advance()
            try expectKeyword("NULL")
            return .notNull(onConflict: try parseConstraintConflictClause())
        case "UNIQUE":
            advance()
            return .unique(onConflict: try parseConstraintConflictClause())
        case "CHECK":
            advance()
            try expectSymbol("(")
            let condition = try parseExpression()
            try expectSymbol(")")
            return .check(condition)
        case "DEFAULT":
            advance()
            return .default(try parseDefaultValue())
        case "COLLATE":
            advance()
            return .collate(try parseName())
        case "REFERENCES":
            return .references(try parseForeignKeyClause())
        case "GENERATED", "AS":
            if acceptKeyword("GENERATED") { try expectKeyword("ALWAYS") }
            try expectKeyword("AS")
            try expectSymbol("(")
            let expression = try parseExpression()
            try expectSymbol(")")
            if acceptKeyword("STORED") { return .generated(expression, stored: true) }
            _ = acceptKeyword("VIRTUAL")
            return .generated(expression, stored: false)
        default:
            return nil
        }
    }

    private mutating func parseDefaultValue() throws(SQLSyntaxError) -> SQLExpression {
        switch current.kind {
        case .integer, .real, .string, .blob:
            return try parsePrimary()
        case .symbol where isSymbol("("):
            // SQLite's `DEFAULT LP expr RP`: the parenthesis holds an expression, not a query.
            if ["SELECT", "VALUES", "WITH"].contains(where: { isKeyword($0, ahead: 1) }) {
                throw syntaxError(at: peek(1))
            }
            return try parsePrimary()
        case .symbol where isSymbol("-") || isSymbol("+"):
            guard peek(1).kind == .integer || peek(1).kind == .real else { throw syntaxError(at: peek(1)) }
            return try parseUnary()
        case .word
        where ["NULL", "TRUE", "FALSE", "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP"].contains(current.keyword):
            return try parsePrimary()
        default:
            throw syntaxError()
        }
    }

    private mutating func parseForeignKeyClause() throws(SQLSyntaxError) -> ForeignKeyClause {
        try expectKeyword("REFERENCES")
        let table = try parseName()
        var columns: [String] = []
        if isSymbol("(") { columns = try parseNameList() }
        var actions: [ForeignKeyActionClause] = []
        var deferrable: ForeignKeyClause.Deferrable?
        while true {
            if isKeyword("ON") && (isKeyword("DELETE", ahead: 1) || isKeyword("UPDATE", ahead: 1)) {
                advance()
                let event: ForeignKeyClause.Event = advance().keyword == "DELETE" ? .delete : .update
                actions.append(ForeignKeyActionClause(event: event, action: try parseForeignKeyAction()))
            } else if isKeyword("DEFERRABLE") || (isKeyword("NOT") && isKeyword("DEFERRABLE", ahead: 1)) {
                let negated = acceptKeyword("NOT")
                advance()
                var initiallyDeferred = false
                if acceptKeyword("INITIALLY") {
                    if acceptKeyword("DEFERRED") {
                        initiallyDeferred = true
                    } else {
                        try expectKeyword("IMMEDIATE")
                    }
                }
                deferrable = negated ? .notDeferrable : (initiallyDeferred ? .initiallyDeferred : .initiallyImmediate)
            } else {
                break
            }
        }
        return ForeignKeyClause(table: table, columns: columns, actions: actions, deferrable: deferrable)
    }

    private mutating func parseForeignKeyAction() throws(SQLSyntaxError) -> ForeignKeyClause.Action {
        if acceptKeyword("SET") {
            if acceptKeyword("NULL") { return .setNull }
            try expectKeyword("DEFAULT")
            return .setDefault
        }
        if acceptKeyword("CASCADE") { return .cascade }
        if acceptKeyword("RESTRICT") { return .restrict }
        try expectKeyword("NO")
        try expectKeyword("ACTION")
        return .noAction
    }

    private mutating func parseTableConstraint() throws(SQLSyntaxError) -> TableConstraint {
        var name: String?
        if acceptKeyword("CONSTRAINT") { name = try parseName() }
        guard current.kind == .word else { throw syntaxError() }
        switch current.keyword {
        case "PRIMARY", "UNIQUE":
            let isPrimary = advance().keyword == "PRIMARY"
            if isPrimary { try expectKeyword("KEY") }
            try expectSymbol("(")
            let columns = try parseIndexedColumns()
            try expectSymbol(")")
            let conflict = try parseConstraintConflictClause()
            return TableConstraint(
                name: name,
                isPrimary ? .primaryKey(columns, onConflict: conflict) : .unique(columns, onConflict: conflict))
        case "CHECK":
            advance()
            try expectSymbol("(")
            let condition = try parseExpression()
            try expectSymbol(")")
            return TableConstraint(name: name, .check(condition))
        case "FOREIGN":
            advance()
            try expectKeyword("KEY")
            let columns = try parseNameList()
            return TableConstraint(name: name, .foreignKey(columns: columns, try parseForeignKeyClause()))
        default:
            throw syntaxError()
        }
    }

    /// Parses a comma-separated list of `expr [COLLATE name] [ASC|DESC]`.
    mutating func parseIndexedColumns() throws(SQLSyntaxError) -> [IndexedColumn] {
        var columns: [IndexedColumn] = []
        repeat {
            var expression = try parseExpression()
            var collation: String?
            if case .collate(let inner, let name) = expression.kind {
                expression = inner
                collation = name
            }
            var order: SortOrder?
            if acceptKeyword("ASC") {
                order = .ascending
            } else if acceptKeyword("DESC") {
                order = .descending
            }
            columns.append(IndexedColumn(expression: expression, collation: collation, order: order))
        } while acceptSymbol(",")
        return columns
    }

    mutating func parseAlterTable() throws(SQLSyntaxError) -> AlterTableStatement {
        try expectKeyword("ALTER")
        try expectKeyword("TABLE")
        let table = try parseQualifiedName()
        if acceptKeyword("RENAME") {
            if acceptKeyword("TO") {
                return AlterTableStatement(table: table, action: .renameTable(to: try parseName()))
            }
            if isKeyword("COLUMN") && !isKeyword("TO", ahead: 1) { advance() }
            let from = try parseName()
            try expectKeyword("TO")
            return AlterTableStatement(table: table, action: .renameColumn(from: from, to: try parseName()))
        }
        if acceptKeyword("ADD") {
            if isKeyword("COLUMN") && (peek(1).kind == .word || peek(1).kind == .quotedIdentifier) { advance() }
            return AlterTableStatement(table: table, action: .addColumn(try parseColumnDefinition()))
        }
        if acceptKeyword("DROP") {
            if isKeyword("COLUMN") && (peek(1).kind == .word || peek(1).kind == .quotedIdentifier) { advance() }
            return AlterTableStatement(table: table, action: .dropColumn(try parseName()))
        }
        throw syntaxError()
    }
}
