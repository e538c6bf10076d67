// Canonical SQL printing.
//
// The canonical form uses upper-case keywords, single spaces, and wraps every operator application in
// parentheses: `a + b * c` prints as `(a + (b * c))`, `NOT a` as `(NOT a)`, `-x` as `(-x)`, `x IS NULL` as
// `(x IS NULL)`, `x BETWEEN 1 AND 2` as `(x BETWEEN 1 AND 2)`. Identifiers are printed bare when they are plain
// ASCII words that are not reserved, otherwise double-quoted. `LIMIT a, b` prints as `LIMIT b OFFSET a`,
// `REPLACE INTO` as `INSERT OR REPLACE INTO`, `==` as `=`, `<>` as `!=`, `IS NOT DISTINCT FROM` as `IS`.
// Parsing the canonical form yields a structurally equal AST.

/// Helpers shared by the printers.
enum SQLFormat {
    /// Prints an identifier, quoting it when needed.
    static func identifier(_ name: String) -> String {
        if isBareIdentifier(name) && !Parser.reservedWords.contains(asciiUppercased(name)) { return name }
        return quoted(name)
    }

    /// Double-quotes an identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    /// Whether `name` is `[A-Za-z_][A-Za-z0-9_$]*`.
    static func isBareIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, first < 0x80, Lexer.isIdentifierStart(first) else { return false }
        return name.utf8.allSatisfy { $0 < 0x80 && Lexer.isIdentifierContinue($0) }
    }

    /// ASCII upper-casing (no locale or Unicode case mapping).
    static func asciiUppercased(_ text: String) -> String {
        String(decoding: text.utf8.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    /// Single-quotes a string literal.
    static func string(_ text: String) -> String {
        "'" + text.replacing("'", with: "''") + "'"
    }

    static func qualified(_ name: QualifiedName) -> String {
        (name.schema.map { identifier($0) + "." } ?? "") + identifier(name.name)
    }

    /// ` AS alias` for a table's alias, or nothing.
    static func alias(_ alias: String?) -> String {
        alias.map { " AS " + identifier($0) } ?? ""
    }

    static func list<T>(_ items: [T], _ render: (T) -> String) -> String {
        items.map(render).joined(separator: ", ")
    }

    static func identifiers(_ names: [String]) -> String {
        "(" + list(names, identifier) + ")"
    }

    /// `expr` wrapped in parentheses unless its canonical form already is.
    static func parenthesized(_ expression: SQLExpression) -> String {
        expression.isSelfParenthesized ? expression.description : "(" + expression.description + ")"
    }

    static func returning(_ columns: [ResultColumn]?) -> String {
        guard let columns else { return "" }
        return " RETURNING " + list(columns) { $0.description }
    }
}

extension SQLExpression: CustomStringConvertible {
    /// Whether the canonical form is enclosed in one pair of outer parentheses.
    var isSelfParenthesized: Bool {
        switch kind {
        case .binary, .unary, .collate, .between, .inList, .inSelect, .inTable, .like, .isNull, .subquery, .row:
            return true
        case .literal(.real(let value)):
            return value < 0
        default:
            return false
        }
    }

    /// The canonical SQL text of the expression.
    package var description: String {
        switch kind {
        case .literal(let literal):
            return literal.description
        case .parameter(let parameter):
            switch parameter.kind {
            case .anonymous: return "?"
            case .numbered(let number): return "?\(number)"
            case .named(let name):
                guard let reference = TriggerRow.reference(name) else { return name }
                return SQLFormat.identifier(reference.qualifier) + "." + SQLFormat.identifier(reference.column)
            }
        case .column(let reference):
            var parts: [String] = []
            if let schema = reference.schema { parts.append(SQLFormat.identifier(schema)) }
            if let table = reference.table { parts.append(SQLFormat.identifier(table)) }
            parts.append(SQLFormat.identifier(reference.column))
            return parts.joined(separator: ".")
        case .unary(let op, let operand):
            return op == .not ? "(NOT \(operand))" : "(\(op.rawValue)\(operand))"
        case .binary(let op, let lhs, let rhs):
            return "(\(lhs) \(op.rawValue) \(rhs))"
        case .collate(let operand, let collation):
            return "(\(operand) COLLATE \(SQLFormat.identifier(collation)))"
        case .cast(let operand, let type):
            return "CAST(\(operand) AS \(type))"
        case .function(let call) where call.name == TriggerRow.raiseFunction:
            return Self.raiseText(call)
        case .function(let call):
            let name =
                SQLFormat.isBareIdentifier(call.name) && !Parser.isReservedFunctionName(call.name)
                ? call.name : SQLFormat.quoted(call.name)
            var suffix = call.filter.map { " FILTER (WHERE \($0))" } ?? ""
            if let over = call.over { suffix += " OVER \(over)" }
            switch call.arguments {
            case .star:
                return "\(name)(*)" + suffix
            case .list(let arguments, let distinct):
                return "\(name)(\(distinct ? "DISTINCT " : "")\(SQLFormat.list(arguments) { $0.description }))" + suffix
            }
        case .caseWhen(let caseExpression):
            var text = "CASE"
            if let base = caseExpression.base { text += " \(base)" }
            for branch in caseExpression.branches { text += " WHEN \(branch.condition) THEN \(branch.result)" }
            if let elseResult = caseExpression.elseResult { text += " ELSE \(elseResult)" }
            return text + " END"
        case .between(let operand, let low, let high, let negated):
            return "(\(operand) \(negated ? "NOT " : "")BETWEEN \(low) AND \(high))"
        case .inList(let operand, let list, let negated):
            return "(\(operand) \(negated ? "NOT " : "")IN (\(SQLFormat.list(list) { $0.description })))"
        case .inSelect(let operand, let select, let negated):
            return "(\(operand) \(negated ? "NOT " : "")IN (\(select)))"
        case .inTable(let operand, let table, let negated):
            return "(\(operand) \(negated ? "NOT " : "")IN \(SQLFormat.qualified(table)))"
        case .like(let operand, let op, let pattern, let escape, let negated):
            let escapeText = escape.map { " ESCAPE \($0)" } ?? ""
            return "(\(operand) \(negated ? "NOT " : "")\(op.rawValue) \(pattern)\(escapeText))"
        case .isNull(let operand, let negated):
            return "(\(operand) \(negated ? "NOTNULL" : "ISNULL"))"
        case .exists(let select):
            return "EXISTS (\(select))"
        case .subquery(let select):
            return "(\(select))"
        case .row(let elements):
            return "(\(SQLFormat.list(elements) { $0.description }))"
        }
    }
}

extension Literal: CustomStringConvertible {
    /// The canonical SQL text of the literal.
    package var description: String {
        switch self {
        case .integer(let value):
            // Negative integers only arise from hex literals and -9223372036854775808; hex round-trips exactly.
            return value < 0 ? "0x" + String(UInt64(bitPattern: value), radix: 16, uppercase: true) : "\(value)"
        case .real(let value):
            if value.isInfinite { return value < 0 ? "(-1e999)" : "1e999" }
            if value.isNaN { return "NULL" }
            return value < 0 ? "(\(value))" : "\(value)"
        case .string(let text):
            return SQLFormat.string(text)
        case .blob(let bytes):
            let digits: [Character] = Array("0123456789ABCDEF")
            var text = "X'"
            for byte in bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            return text + "'"
        case .null: return "NULL"
        case .true: return "TRUE"
        case .false: return "FALSE"
        case .currentTime: return "CURRENT_TIME"
        case .currentDate: return "CURRENT_DATE"
        case .currentTimestamp: return "CURRENT_TIMESTAMP"
        }
    }
}

extension TypeName: CustomStringConvertible {
    /// The type name with its arguments, e.g. `DECIMAL(10, 2)`. A word the parser would not read back as a type
    /// word (one it took dequoted: empty, reserved, or not a bare identifier) is double-quoted.
    package var description: String {
        let words = name.split(separator: " ", omittingEmptySubsequences: false).map { piece in
            let word = String(piece)
            let bare = SQLFormat.identifier(word) == word && SQLFormat.asciiUppercased(word) != "GENERATED"
            return bare ? word : SQLFormat.quoted(word)
        }
        let text = words.joined(separator: " ")
        return arguments.isEmpty ? text : "\(text)(\(arguments.joined(separator: ", ")))"
    }
}

extension SelectStatement: CustomStringConvertible {
    /// The canonical SQL text of the select.
    package var description: String {
        var text = with.map { "\($0) " } ?? ""
        text += first.description
        for term in compounds { text += " \(term.op.rawValue) \(term.core)" }
        if !orderBy.isEmpty { text += " ORDER BY " + SQLFormat.list(orderBy) { $0.description } }
        if let limit {
            text += " LIMIT \(limit.limit)"
            if let offset = limit.offset { text += " OFFSET \(offset)" }
        }
        return text
    }
}

extension WithClause: CustomStringConvertible {
    /// `WITH [RECURSIVE] name [(columns)] AS (select), …`.
    package var description: String {
        "WITH " + (recursive ? "RECURSIVE " : "")
            + SQLFormat.list(tables) { table in
                SQLFormat.identifier(table.name) + (table.columns.map { " " + SQLFormat.identifiers($0) } ?? "")
                    + " AS " + (table.materialization.map { $0.rawValue + " " } ?? "") + "(\(table.select))"
            }
    }
}

extension SelectCore: CustomStringConvertible {
    /// The canonical SQL text of the core.
    package var description: String {
        switch self {
        case .values(let rows):
            return "VALUES " + SQLFormat.list(rows) { "(" + SQLFormat.list($0) { $0.description } + ")" }
        case .select(let clause):
            var text = "SELECT " + (clause.distinct ? "DISTINCT " : "")
            text += SQLFormat.list(clause.columns) { $0.description }
            if let from = clause.from { text += " FROM \(from)" }
            if let condition = clause.whereClause { text += " WHERE \(condition)" }
            if !clause.groupBy.isEmpty { text += " GROUP BY " + SQLFormat.list(clause.groupBy) { $0.description } }
            if let having = clause.having { text += " HAVING \(having)" }
            if !clause.windows.isEmpty {
                text +=
                    " WINDOW "
                    + SQLFormat.list(clause.windows) {
                        "\(SQLFormat.identifier($0.name)) AS \($0.definition)"
                    }
            }
            return text
        }
    }
}

extension ResultColumn: CustomStringConvertible {
    /// `*`, `t.*` or `expr [AS alias]`.
    package var description: String {
        switch self {
        case .all: return "*"
        case .allOf(let table): return SQLFormat.identifier(table) + ".*"
        case .expression(let expression, let alias):
            return expression.description + SQLFormat.alias(alias)
        }
    }
}

extension FromClause: CustomStringConvertible {
    /// The canonical text after `FROM`.
    package var description: String {
        var text = first.description
        for join in joins {
            text += join.op == .comma ? ", " : " \(join.op.rawValue) "
            text += join.source.description
            switch join.constraint {
            case .on(let condition): text += " ON \(condition)"
            case .using(let columns): text += " USING " + SQLFormat.identifiers(columns)
            case nil: break
            }
        }
        return text
    }
}

extension TableSource: CustomStringConvertible {
    /// `name [AS alias] [INDEXED BY index | NOT INDEXED]`, `(select) [AS alias]` or `function(arguments) [AS alias]`.
    package var description: String {
        switch self {
        case .table(let name, let alias, let indexHint):
            return SQLFormat.qualified(name) + SQLFormat.alias(alias)
                + (indexHint.map { " \($0)" } ?? "")
        case .subquery(let select, let alias):
            if case .select(let clause) = select.first, clause.isNestedFrom, let from = clause.from {
                return "(\(from))" + SQLFormat.alias(alias)
            }
            return "(\(select))" + SQLFormat.alias(alias)
        case .function(let name, let arguments, let alias):
            return SQLFormat.qualified(name) + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
                + SQLFormat.alias(alias)
        }
    }
}

extension OrderingTerm: CustomStringConvertible {
    /// `expr [ASC|DESC] [NULLS FIRST|LAST]`.
    package var description: String {
        expression.description + (order.map { " " + $0.rawValue } ?? "") + (nulls.map { " " + $0.rawValue } ?? "")
    }
}

extension IndexedColumn: CustomStringConvertible {
    /// `expr [COLLATE name] [ASC|DESC]`.
    package var description: String {
        expression.description + (collation.map { " COLLATE " + SQLFormat.identifier($0) } ?? "")
            + (order.map { " " + $0.rawValue } ?? "")
    }
}

extension Assignment: CustomStringConvertible {
    /// `col = expr` or `(a, b) = expr`.
    package var description: String {
        (isRow ? SQLFormat.identifiers(columns) : SQLFormat.identifier(columns[0])) + " = \(value)"
    }
}

extension UpsertClause: CustomStringConvertible {
    /// `ON CONFLICT …`.
    package var description: String {
        var text = "ON CONFLICT"
        if let target { text += " (" + SQLFormat.list(target) { $0.description } + ")" }
        if let targetWhere { text += " WHERE \(targetWhere)" }
        switch action {
        case .nothing:
            text += " DO NOTHING"
        case .update(let assignments, let condition):
            text += " DO UPDATE SET " + SQLFormat.list(assignments) { $0.description }
            if let condition { text += " WHERE \(condition)" }
        }
        return text
    }
}

extension ForeignKeyClause: CustomStringConvertible {
    /// `REFERENCES table [(columns)] [actions] [deferrable]`.
    package var description: String {
        var text = "REFERENCES " + SQLFormat.identifier(table)
        if !columns.isEmpty { text += " " + SQLFormat.identifiers(columns) }
        for action in actions { text += " \(action.event.rawValue) \(action.action.rawValue)" }
        if let deferrable { text += " " + deferrable.rawValue }
        return text
    }
}

extension ColumnConstraint: CustomStringConvertible {
    /// The canonical constraint text.
    package var description: String {
        let prefix = name.map { "CONSTRAINT \(SQLFormat.identifier($0)) " } ?? ""
        let body: String
        switch kind {
        case .primaryKey(let order, let onConflict, let autoincrement):
            body =
                "PRIMARY KEY" + (order.map { " " + $0.rawValue } ?? "")
                + (onConflict.map { " ON CONFLICT " + $0.rawValue } ?? "") + (autoincrement ? " AUTOINCREMENT" : "")
        case .notNull(let onConflict):
            body = "NOT NULL" + (onConflict.map { " ON CONFLICT " + $0.rawValue } ?? "")
        case .unique(let onConflict):
            body = "UNIQUE" + (onConflict.map { " ON CONFLICT " + $0.rawValue } ?? "")
        case .check(let condition):
            body = "CHECK " + SQLFormat.parenthesized(condition)
        case .default(let value):
            if case .literal = value.kind {
                body = "DEFAULT \(value)"
            } else {
                body = "DEFAULT " + SQLFormat.parenthesized(value)
            }
        case .collate(let collation):
            body = "COLLATE " + SQLFormat.identifier(collation)
        case .references(let clause):
            body = clause.description
        case .generated(let expression, let stored):
            body = "AS " + SQLFormat.parenthesized(expression) + (stored ? " STORED" : "")
        }
        return prefix + body
    }
}

extension TableConstraint: CustomStringConvertible {
    /// The canonical constraint text.
    package var description: String {
        let prefix = name.map { "CONSTRAINT \(SQLFormat.identifier($0)) " } ?? ""
        switch kind {
        case .primaryKey(let columns, let onConflict):
            return prefix + "PRIMARY KEY (" + SQLFormat.list(columns) { $0.description } + ")"
                + (onConflict.map { " ON CONFLICT " + $0.rawValue } ?? "")
        case .unique(let columns, let onConflict):
            return prefix + "UNIQUE (" + SQLFormat.list(columns) { $0.description } + ")"
                + (onConflict.map { " ON CONFLICT " + $0.rawValue } ?? "")
        case .check(let condition):
            return prefix + "CHECK " + SQLFormat.parenthesized(condition)
        case .foreignKey(let columns, let clause):
            return prefix + "FOREIGN KEY " + SQLFormat.identifiers(columns) + " " + clause.description
        }
    }
}

extension ColumnDefinition: CustomStringConvertible {
    /// `name [type] [constraints]`.
    package var description: String {
        ([SQLFormat.identifier(name)] + (type.map { [$0.description] } ?? []) + constraints.map(\.description))
            .joined(separator: " ")
    }
}

extension Statement: CustomStringConvertible {
    /// The canonical SQL text of the statement (without a trailing `;`).
    package var description: String { kind.description }
}

extension Statement.Kind: CustomStringConvertible {
    /// The canonical SQL text of the statement (without a trailing `;`).
    package var description: String {
        switch self {
        case .select(let select):
            return select.description
        case .insert(let insert):
            var text = insert.with.map { "\($0) " } ?? ""
            text += "INSERT " + (insert.orAction.map { "OR \($0.rawValue) " } ?? "")
            text += "INTO " + SQLFormat.qualified(insert.table)
            if let columns = insert.columns { text += " " + SQLFormat.identifiers(columns) }
            switch insert.source {
            case .select(let select): text += " \(select)"
            case .defaultValues: text += " DEFAULT VALUES"
            }
            for clause in insert.upsert { text += " \(clause)" }
            return text + SQLFormat.returning(insert.returning)
        case .update(let update):
            var text = update.with.map { "\($0) " } ?? ""
            text += "UPDATE " + (update.orAction.map { "OR \($0.rawValue) " } ?? "")
            text +=
                SQLFormat.qualified(update.table) + SQLFormat.alias(update.alias)
                + (update.indexHint.map { " \($0)" } ?? "") + " SET "
                + SQLFormat.list(update.assignments) { $0.description }
            if let from = update.from { text += " FROM \(from)" }
            if let condition = update.whereClause { text += " WHERE \(condition)" }
            return text + SQLFormat.returning(update.returning)
        case .delete(let delete):
            var text = delete.with.map { "\($0) " } ?? ""
            text +=
                "DELETE FROM " + SQLFormat.qualified(delete.table) + SQLFormat.alias(delete.alias)
                + (delete.indexHint.map { " \($0)" } ?? "")
            if let condition = delete.whereClause { text += " WHERE \(condition)" }
            return text + SQLFormat.returning(delete.returning)
        case .createTable(let create) where create.asSelect != nil:
            return "CREATE TABLE " + (create.ifNotExists ? "IF NOT EXISTS " : "") + SQLFormat.qualified(create.name)
                + " AS " + (create.asSelect.map(\.description) ?? "")
        case .createTable(let create):
            let elements = create.columns.map(\.description) + create.constraints.map(\.description)
            return "CREATE TABLE " + (create.ifNotExists ? "IF NOT EXISTS " : "") + SQLFormat.qualified(create.name)
                + " (" + elements.joined(separator: ", ") + ")"
                + ([create.strict ? " STRICT" : nil, create.withoutRowid ? " WITHOUT ROWID" : nil] as [String?])
                .compactMap { $0 }.joined(separator: ",")
        case .createIndex(let create):
            var text = "CREATE " + (create.unique ? "UNIQUE " : "") + "INDEX "
            text += (create.ifNotExists ? "IF NOT EXISTS " : "") + SQLFormat.qualified(create.name)
            text += " ON " + SQLFormat.identifier(create.table)
            text += " (" + SQLFormat.list(create.columns) { $0.description } + ")"
            if let condition = create.whereClause { text += " WHERE \(condition)" }
            return text
        case .dropTable(let drop):
            return "DROP TABLE " + (drop.ifExists ? "IF EXISTS " : "") + SQLFormat.qualified(drop.name)
        case .dropIndex(let drop):
            return "DROP INDEX " + (drop.ifExists ? "IF EXISTS " : "") + SQLFormat.qualified(drop.name)
        case .createView(let create):
            var text = "CREATE " + (create.temporary ? "TEMP " : "") + "VIEW "
            text += (create.ifNotExists ? "IF NOT EXISTS " : "") + SQLFormat.qualified(create.name)
            if let columns = create.columns { text += " " + SQLFormat.identifiers(columns) }
            return text + " AS \(create.select)"
        case .dropView(let drop):
            return "DROP VIEW " + (drop.ifExists ? "IF EXISTS " : "") + SQLFormat.qualified(drop.name)
        case .createTrigger(let create):
            return create.description
        case .dropTrigger(let drop):
            return "DROP TRIGGER " + (drop.ifExists ? "IF EXISTS " : "") + SQLFormat.qualified(drop.name)
        case .alterTable(let alter):
            let prefix = "ALTER TABLE " + SQLFormat.qualified(alter.table) + " "
            switch alter.action {
            case .renameTable(let newName):
                return prefix + "RENAME TO " + SQLFormat.identifier(newName)
            case .renameColumn(let from, let to):
                return prefix + "RENAME COLUMN " + SQLFormat.identifier(from) + " TO " + SQLFormat.identifier(to)
            case .addColumn(let column):
                return prefix + "ADD COLUMN \(column)"
            case .dropColumn(let column):
                return prefix + "DROP COLUMN " + SQLFormat.identifier(column)
            }
        case .begin(let mode):
            return "BEGIN" + (mode.map { " " + $0.rawValue } ?? "")
        case .commit:
            return "COMMIT"
        case .rollback(let savepoint):
            return "ROLLBACK" + (savepoint.map { " TO SAVEPOINT " + SQLFormat.identifier($0) } ?? "")
        case .savepoint(let name):
            return "SAVEPOINT " + SQLFormat.identifier(name)
        case .release(let name):
            return "RELEASE SAVEPOINT " + SQLFormat.identifier(name)
        case .pragma(let pragma):
            var text = "PRAGMA " + SQLFormat.qualified(pragma.name)
            if let value = pragma.value {
                let valueText: String
                switch value {
                case .number(let number): valueText = number
                case .name(let name): valueText = SQLFormat.identifier(name)
                case .string(let string): valueText = SQLFormat.string(string)
                }
                text += pragma.isCallSyntax ? "(\(valueText))" : " = \(valueText)"
            }
            return text
        case .explain(let queryPlan, let statement):
            return "EXPLAIN " + (queryPlan ? "QUERY PLAN " : "") + statement.description
        case .reindex(let name):
            return "REINDEX" + (name.map { " " + SQLFormat.qualified($0) } ?? "")
        case .vacuum(let schema, let into):
            return "VACUUM" + (schema.map { " " + SQLFormat.identifier($0) } ?? "")
                + (into.map { " INTO \($0)" } ?? "")
        }
    }
}

extension WindowReference: CustomStringConvertible {
    /// `name` or `(definition)`.
    package var description: String {
        switch self {
        case .named(let name): return SQLFormat.identifier(name)
        case .definition(let definition): return definition.description
        }
    }
}

extension WindowDefinition: CustomStringConvertible {
    /// `([base] [PARTITION BY …] [ORDER BY …] [frame])`.
    package var description: String {
        var parts: [String] = []
        if let base { parts.append(SQLFormat.identifier(base)) }
        if !partitionBy.isEmpty { parts.append("PARTITION BY " + SQLFormat.list(partitionBy) { $0.description }) }
        if !orderBy.isEmpty { parts.append("ORDER BY " + SQLFormat.list(orderBy) { $0.description }) }
        if let frame { parts.append(frame.description) }
        return "(" + parts.joined(separator: " ") + ")"
    }
}

extension WindowFrame: CustomStringConvertible {
    /// `unit BETWEEN start AND end [EXCLUDE …]`.
    package var description: String {
        func bound(_ bound: Bound) -> String {
            switch bound {
            case .unboundedPreceding: return "UNBOUNDED PRECEDING"
            case .preceding(let offset): return "\(offset) PRECEDING"
            case .currentRow: return "CURRENT ROW"
            case .following(let offset): return "\(offset) FOLLOWING"
            case .unboundedFollowing: return "UNBOUNDED FOLLOWING"
            }
        }
        let exclude = exclusion.map { " EXCLUDE \($0.rawValue)" } ?? ""
        return "\(unit.rawValue) BETWEEN \(bound(start)) AND \(bound(end))" + exclude
    }
}

extension CreateTriggerStatement: CustomStringConvertible {
    /// The canonical SQL text of the statement.
    package var description: String {
        var text = "CREATE " + (temporary ? "TEMP " : "") + "TRIGGER " + (ifNotExists ? "IF NOT EXISTS " : "")
        text += SQLFormat.qualified(name) + " "
        switch timing {
        case .before: text += "BEFORE "
        case .after: text += "AFTER "
        case .insteadOf: text += "INSTEAD OF "
        }
        switch event {
        case .insert: text += "INSERT"
        case .delete: text += "DELETE"
        case .update(let columns):
            text += "UPDATE" + (columns.map { " OF " + $0.map(SQLFormat.identifier).joined(separator: ", ") } ?? "")
        }
        text += " ON " + SQLFormat.qualified(SchemaCatalog.triggerTarget(table))
        if let when { text += " WHEN \(when)" }
        return text + " BEGIN " + body.map { "\($0); " }.joined() + "END"
    }
}

extension SQLExpression {
    /// `RAISE(action[, 'message'])` for the internal call a `RAISE` is parsed into.
    static func raiseText(_ call: FunctionCall) -> String {
        guard case .list(let arguments, _) = call.arguments, !arguments.isEmpty else { return "RAISE(IGNORE)" }
        var text = "RAISE("
        if case .literal(.string(let action)) = arguments[0].kind { text += action }
        for argument in arguments.dropFirst() { text += ", " + argument.description }
        return text + ")"
    }
}
