// SELECT parsing: cores, compounds, FROM/joins, ORDER BY and LIMIT.

extension Parser {
    /// Parses a complete select (`SELECT …` or `VALUES …` with compounds, `ORDER BY`, `LIMIT`); `leadingWith` is
    /// a `WITH` clause already parsed before it (when a statement's `WITH` could also have led a write).
    mutating func parseSelect(after leadingWith: WithClause? = nil) throws(SQLSyntaxError) -> SelectStatement {
        try enterNesting()
        defer { depth -= 1 }
        var with = leadingWith
        if with == nil && isKeyword("WITH") { with = try parseWithClause() }
        let first = try parseSelectCore()
        var compounds: [CompoundTerm] = []
        while true {
            let op: CompoundOperator
            if acceptKeyword("UNION") {
                op = acceptKeyword("ALL") ? .unionAll : .union
            } else if acceptKeyword("INTERSECT") {
                op = .intersect
            } else if acceptKeyword("EXCEPT") {
                op = .except
            } else {
                break
            }
            if compounds.count + 1 >= Parser.maximumCompoundTerms {
                throw error(
                    "too many terms in compound SELECT (maximum \(Parser.maximumCompoundTerms))",
                    at: current.range.start)
            }
            compounds.append(CompoundTerm(op: op, core: try parseSelectCore()))
        }
        // A VALUES list takes no ORDER BY or LIMIT of its own (SQLite's grammar has none after one).
        if case .values = compounds.last?.core ?? first, isKeyword("ORDER") || isKeyword("LIMIT") {
            throw syntaxError()
        }
        var orderBy: [OrderingTerm] = []
        if acceptKeyword("ORDER") {
            try expectKeyword("BY")
            repeat { orderBy.append(try parseOrderingTerm()) } while acceptSymbol(",")
        }
        var limit: LimitClause?
        if acceptKeyword("LIMIT") {
            let first = try parseExpression()
            if acceptSymbol(",") {
                limit = LimitClause(limit: try parseExpression(), offset: first)
            } else if acceptKeyword("OFFSET") {
                limit = LimitClause(limit: first, offset: try parseExpression())
            } else {
                limit = LimitClause(limit: first)
            }
        }
        if !orderBy.isEmpty || limit != nil {
            try rejectCompoundAfterOrdering(orderBy.isEmpty ? "LIMIT" : "ORDER BY")
        }
        return SelectStatement(first: first, compounds: compounds, orderBy: orderBy, limit: limit, with: with)
    }

    /// Throws SQLite's error for a compound operator after a term's `ORDER BY` or `LIMIT` (`clause`): those
    /// belong to the whole compound and may only follow its last term.
    private mutating func rejectCompoundAfterOrdering(_ clause: String) throws(SQLSyntaxError) {
        let start = current.range.start
        let op: CompoundOperator
        if acceptKeyword("UNION") {
            op = acceptKeyword("ALL") ? .unionAll : .union
        } else if acceptKeyword("INTERSECT") {
            op = .intersect
        } else if acceptKeyword("EXCEPT") {
            op = .except
        } else {
            return
        }
        throw error("\(clause) clause should come after \(op.rawValue) not before", at: start)
    }

    mutating func parseWithClause() throws(SQLSyntaxError) -> WithClause {
        try expectKeyword("WITH")
        let recursive = acceptKeyword("RECURSIVE")
        var tables: [CommonTableExpression] = []
        var names: Set<String> = []
        repeat {
            let nameToken = current
            let name = try parseName()
            // SQLite checks the names while parsing, so a duplicate is an error even in a clause never run.
            if !names.insert(SchemaNames.key(name)).inserted {
                throw error("duplicate WITH table name: \(name)", at: nameToken.range.start)
            }
            let columns = isSymbol("(") ? try parseNameList() : nil
            try expectKeyword("AS")
            var materialization: CommonTableExpression.Materialization?
            if acceptKeyword("MATERIALIZED") {
                materialization = .materialized
            } else if isKeyword("NOT") {
                advance()
                try expectKeyword("MATERIALIZED")
                materialization = .notMaterialized
            }
            try expectSymbol("(")
            guard isKeyword("SELECT") || isKeyword("VALUES") || isKeyword("WITH") else { throw syntaxError() }
            let select = try parseSelect()
            try expectSymbol(")")
            tables.append(
                CommonTableExpression(name: name, columns: columns, materialization: materialization, select: select))
        } while acceptSymbol(",")
        return WithClause(recursive: recursive, tables: tables)
    }

    mutating func parseOrderingTerm() throws(SQLSyntaxError) -> OrderingTerm {
        let expression = try parseExpression()
        var order: SortOrder?
        if acceptKeyword("ASC") {
            order = .ascending
        } else if acceptKeyword("DESC") {
            order = .descending
        }
        var nulls: NullsOrder?
        if acceptKeyword("NULLS") {
            if acceptKeyword("FIRST") {
                nulls = .first
            } else {
                try expectKeyword("LAST")
                nulls = .last
            }
        }
        return OrderingTerm(expression: expression, order: order, nulls: nulls)
    }

    mutating func parseSelectCore() throws(SQLSyntaxError) -> SelectCore {
        if acceptKeyword("VALUES") {
            var rows: [[SQLExpression]] = []
            repeat {
                let rowStart = current.range.start
                try expectSymbol("(")
                var row = [try parseExpression()]
                while acceptSymbol(",") { row.append(try parseExpression()) }
                try expectSymbol(")")
                if let width = rows.first?.count, width != row.count {
                    throw error("all VALUES must have the same number of terms", at: rowStart)
                }
                rows.append(row)
            } while acceptSymbol(",")
            return .values(rows)
        }
        try expectKeyword("SELECT")
        var distinct = false
        if acceptKeyword("DISTINCT") {
            distinct = true
        } else {
            _ = acceptKeyword("ALL")
        }
        let columns = try parseResultColumns()
        var from: FromClause?
        if acceptKeyword("FROM") { from = try parseFromClause() }
        var whereClause: SQLExpression?
        if acceptKeyword("WHERE") { whereClause = try parseExpression() }
        var groupBy: [SQLExpression] = []
        var having: SQLExpression?
        if acceptKeyword("GROUP") {
            try expectKeyword("BY")
            repeat { groupBy.append(try parseExpression()) } while acceptSymbol(",")
        }
        if acceptKeyword("HAVING") { having = try parseExpression() }
        var windows: [NamedWindow] = []
        if acceptKeyword("WINDOW") { windows = try parseWindowClause() }
        return .select(
            SelectClause(
                distinct: distinct, columns: columns, from: from, whereClause: whereClause, groupBy: groupBy,
                having: having, windows: windows))
    }

    /// Parses a comma-separated list of result columns (also used by `RETURNING`).
    mutating func parseResultColumns() throws(SQLSyntaxError) -> [ResultColumn] {
        var columns: [ResultColumn] = []
        repeat {
            if acceptSymbol("*") {
                columns.append(.all)
            } else if isIdentifier && peek(1).kind == .symbol && peek(1).text == "." && peek(2).kind == .symbol
                && peek(2).text == "*"
            {
                let table = advance().value
                advance()
                advance()
                columns.append(.allOf(table: table))
            } else {
                let expression = try parseExpression()
                columns.append(.expression(expression, alias: try parseAlias()))
            }
        } while acceptSymbol(",")
        return columns
    }

    /// Parses an optional `[AS] alias`.
    mutating func parseAlias() throws(SQLSyntaxError) -> String? {
        if acceptKeyword("AS") {
            if current.kind == .string { return advance().value }
            return try parseName()
        }
        if startsWindowClause { return nil }
        if isIdentifier || current.kind == .string { return advance().value }
        return nil
    }

    /// Whether the current token starts a `WINDOW name AS (…)` clause rather than naming an alias `window`.
    private var startsWindowClause: Bool {
        guard isKeyword("WINDOW") else { return false }
        let name = peek(1)
        return (name.kind == .quotedIdentifier || (name.kind == .word && !Parser.reservedWords.contains(name.keyword)))
            && peek(2).kind == .word && peek(2).keyword == "AS"
    }

    mutating func parseFromClause() throws(SQLSyntaxError) -> FromClause {
        var first: TableSource
        var joins: [JoinClause] = []
        switch try parseFromItem() {
        case .source(let source): first = source
        case .group(let group, alias: nil):
            // A parenthesised list that opens the clause, unnamed, is the clause itself, as in SQLite's grammar.
            first = group.first
            joins = group.joins
        case .group(let group, let alias): first = Self.source(ofGroup: group, alias: alias)
        }
        // `ON CONFLICT` here is the upsert of `INSERT … SELECT … FROM t`, which Granite reads where SQLite asks for a
        // `WHERE` before it.
        if isKeyword("USING") || (isKeyword("ON") && !(peek(1).kind == .word && peek(1).keyword == "CONFLICT")) {
            throw error("a JOIN clause is required before \(current.keyword)", at: current.range.start)
        }
        while true {
            let op: JoinOperator
            if acceptSymbol(",") {
                op = .comma
            } else if acceptKeyword("JOIN") {
                op = .inner
            } else if acceptKeyword("INNER") {
                try expectKeyword("JOIN")
                op = .inner
            } else if acceptKeyword("CROSS") {
                try expectKeyword("JOIN")
                op = .cross
            } else if acceptKeyword("LEFT") {
                _ = acceptKeyword("OUTER")
                try expectKeyword("JOIN")
                op = .left
            } else if acceptKeyword("NATURAL") {
                if acceptKeyword("LEFT") {
                    _ = acceptKeyword("OUTER")
                    op = .naturalLeft
                } else {
                    _ = acceptKeyword("INNER")
                    op = .naturalInner
                }
                try expectKeyword("JOIN")
            } else if isKeyword("RIGHT") || isKeyword("FULL") {
                throw error("RIGHT and FULL OUTER JOINs are not supported", at: current.range.start)
            } else {
                break
            }
            if joins.count >= 63 {
                throw error("at most 64 tables in a join", at: current.range.start)
            }
            let source: TableSource
            switch try parseFromItem() {
            case .source(let item): source = item
            case .group(let group, let alias): source = Self.source(ofGroup: group, alias: alias)
            }
            var constraint: JoinConstraint?
            if acceptKeyword("ON") {
                constraint = .on(try parseExpression())
            } else if acceptKeyword("USING") {
                constraint = .using(try parseNameList())
            }
            joins.append(JoinClause(op: op, source: source, constraint: constraint))
        }
        return FromClause(first: first, joins: joins)
    }

    /// One item of a `FROM` list as written: a table, subquery or function, or a parenthesised list of items.
    private enum FromItem {
        case source(TableSource)
        case group(FromClause, alias: String?)
    }

    /// Parses one item of a `FROM` list, telling a parenthesised list (`(a JOIN b ON …) [AS alias]`) from a
    /// subquery by the keyword after its parenthesis.
    private mutating func parseFromItem() throws(SQLSyntaxError) -> FromItem {
        guard isSymbol("("), !(peek(1).kind == .word && ["SELECT", "VALUES", "WITH"].contains(peek(1).keyword))
        else { return .source(try parseTableSource()) }
        try enterNesting()
        defer { depth -= 1 }
        try expectSymbol("(")
        let group = try parseFromClause()
        try expectSymbol(")")
        // No index hint may follow the parenthesis, and SQLite's grammar never reads `INDEXED` as an alias.
        return .group(group, alias: isKeyword("INDEXED") ? nil : try parseAlias())
    }

    /// What a parenthesised `FROM` list stands for, as SQLite reads one: a single item keeps its table, subquery
    /// or function but takes `alias` for its own (dropping any alias and index hint it had inside); several
    /// become a nested-from query (see ``SelectClause/isNestedFrom``).
    private static func source(ofGroup group: FromClause, alias: String?) -> TableSource {
        guard group.joins.isEmpty else {
            var clause = SelectClause(columns: [.all], from: group)
            clause.isNestedFrom = true
            return .subquery(SelectStatement(first: .select(clause)), alias: alias)
        }
        switch group.first {
        case .table(let name, _, _): return .table(name, alias: alias)
        case .subquery(let select, _): return .subquery(select, alias: alias)
        case .function(let name, let arguments, _): return .function(name, arguments: arguments, alias: alias)
        }
    }

    mutating func parseTableSource() throws(SQLSyntaxError) -> TableSource {
        if acceptSymbol("(") {
            guard isKeyword("SELECT") || isKeyword("VALUES") || isKeyword("WITH") else { throw syntaxError() }
            let (select, _) = try parseNestedSelect()
            try expectSymbol(")")
            return .subquery(select, alias: try parseAlias())
        }
        let name = try parseQualifiedName()
        if acceptSymbol("(") {
            var arguments: [SQLExpression] = []
            if !acceptSymbol(")") {
                repeat { arguments.append(try parseExpression()) } while acceptSymbol(",")
                try expectSymbol(")")
            }
            return .function(name, arguments: arguments, alias: try parseAlias())
        }
        // `INDEXED` right after the name starts the clause: SQLite's grammar never reads it as an alias there.
        let alias = isKeyword("INDEXED") ? nil : try parseAlias()
        return .table(name, alias: alias, indexHint: try parseIndexHint())
    }

    /// Parses an optional `INDEXED BY name` or `NOT INDEXED`.
    mutating func parseIndexHint() throws(SQLSyntaxError) -> IndexHint? {
        if acceptKeyword("INDEXED") {
            try expectKeyword("BY")
            // SQLite takes a string literal where a name is expected.
            if current.kind == .string { return .indexedBy(advance().value) }
            return .indexedBy(try parseName())
        }
        // Nothing else may follow a table name with NOT.
        guard acceptKeyword("NOT") else { return nil }
        try expectKeyword("INDEXED")
        return .notIndexed
    }
}
