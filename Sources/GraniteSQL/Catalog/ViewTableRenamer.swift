/// Rewrites the stored text of a view for `ALTER TABLE old RENAME TO new`, as SQLite does: each place the view's
/// text names the table (in `FROM`, or as the qualifier of `old.column` and `old.*`) becomes `"new"`, and the
/// rest of the text is kept as written (so its result columns keep the names they take from their text).
///
/// The places are found in the text's tokens and checked against the parsed query: every token spelling the
/// table's name must be one of the table sources or qualifiers the query holds. When the name is also used for
/// something else (an alias, a column, a function, a collation, a type, a common table expression), the text is
/// not rewritten and the rename is refused, naming the view.
struct ViewTableRenamer {
    /// The table's current name.
    var old: String
    /// Its new name.
    var new: String

    /// What a view's query does with the name ``old``.
    private struct Usage {
        /// `FROM old` (possibly `main.old`, possibly aliased).
        var tableSources = 0
        /// `old.column` and `old.*`.
        var qualifiers = 0
        /// Any other use of the name (an alias, a column, a function, a collation, a type, a CTE).
        var conflicts = 0
    }

    /// The view's text with its references to the table renamed; nil when it has none.
    func rewrite(_ view: ViewDefinition) throws -> String? {
        guard let tokens = try? Lexer.tokenize(view.sql) else { throw refusal(view) }
        let occurrences = tokens.indices.filter { k in
            [.word, .quotedIdentifier].contains(tokens[k].kind) && SchemaNames.equal(tokens[k].value, old)
        }
        if occurrences.isEmpty { return nil }
        var usage = Usage()
        if view.columnNames?.contains(where: matches) == true { usage.conflicts += 1 }
        collect(view.select, into: &usage)
        let qualifierTokens = occurrences.filter { k in k + 1 < tokens.count && isSymbol(tokens[k + 1], ".") }
        guard usage.conflicts == 0, qualifierTokens.count == usage.qualifiers,
            occurrences.count - qualifierTokens.count == usage.tableSources
        else { throw refusal(view) }
        let bytes = Array(view.sql.utf8)
        // SQLite writes the new name as a quoted identifier.
        var quotedNew: [UInt8] = [0x22]
        for byte in new.utf8 { quotedNew += byte == 0x22 ? [0x22, 0x22] : [byte] }
        quotedNew.append(0x22)
        var text: [UInt8] = []
        var position = 0
        for k in occurrences {
            let range = tokens[k].range
            guard range.start.offset >= position, range.end.offset <= bytes.count else { throw refusal(view) }
            text += bytes[position..<range.start.offset]
            text += quotedNew
            position = range.end.offset
        }
        text += bytes[position...]
        return String(decoding: text, as: UTF8.self)
    }

    /// The error of a rename that cannot rewrite the view.
    func refusal(_ view: ViewDefinition) -> SchemaError {
        SchemaError("cannot rename: view \(view.name) uses table \(old) (drop the view first, then create it again)")
    }

    private func matches(_ name: String) -> Bool { SchemaNames.equal(name, old) }

    private func isSymbol(_ token: Token, _ text: String) -> Bool { token.kind == .symbol && token.text == text }

    // MARK: Walking the query

    private func collect(_ select: SelectStatement, into usage: inout Usage) {
        for table in select.with?.tables ?? [] {
            if matches(table.name) || table.columns?.contains(where: matches) == true { usage.conflicts += 1 }
            collect(table.select, into: &usage)
        }
        collect(select.first, into: &usage)
        for compound in select.compounds { collect(compound.core, into: &usage) }
        for term in select.orderBy { collect(term.expression, into: &usage) }
        if let limit = select.limit {
            collect(limit.limit, into: &usage)
            if let offset = limit.offset { collect(offset, into: &usage) }
        }
    }

    private func collect(_ core: SelectCore, into usage: inout Usage) {
        switch core {
        case .values(let rows):
            for row in rows { for e in row { collect(e, into: &usage) } }
        case .select(let clause):
            for column in clause.columns {
                switch column {
                case .all: break
                case .allOf(let table): if matches(table) { usage.qualifiers += 1 }
                case .expression(let e, let alias):
                    if alias.map(matches) == true { usage.conflicts += 1 }
                    collect(e, into: &usage)
                }
            }
            if let from = clause.from {
                collect(from.first, into: &usage)
                for join in from.joins {
                    collect(join.source, into: &usage)
                    switch join.constraint {
                    case .on(let e)?: collect(e, into: &usage)
                    case .using(let names)?: if names.contains(where: matches) { usage.conflicts += 1 }
                    case nil: break
                    }
                }
            }
            for e in [clause.whereClause, clause.having].compactMap({ $0 }) + clause.groupBy
                + clause.windows.flatMap(\.definition.expressions)
            {
                collect(e, into: &usage)
            }
        }
    }

    private func collect(_ source: TableSource, into usage: inout Usage) {
        switch source {
        case .table(let name, let alias, _):
            if matches(name.name) {
                usage.tableSources += 1
                // `other.old` names a table of another schema: not ours, and not rewritten.
                if let schema = name.schema, !SchemaNames.equal(schema, "main") { usage.conflicts += 1 }
            }
            if name.schema.map(matches) == true || alias.map(matches) == true { usage.conflicts += 1 }
        case .subquery(let select, let alias):
            if alias.map(matches) == true { usage.conflicts += 1 }
            collect(select, into: &usage)
        case .function(_, let arguments, let alias):
            if alias.map(matches) == true { usage.conflicts += 1 }
            for argument in arguments { collect(argument, into: &usage) }
        }
    }

    private func collect(_ e: SQLExpression, into usage: inout Usage) {
        switch e.kind {
        case .literal, .parameter: break
        case .column(let reference):
            if reference.table.map(matches) == true { usage.qualifiers += 1 }
            if matches(reference.column) || reference.schema.map(matches) == true { usage.conflicts += 1 }
        case .unary(_, let x), .isNull(let x, _):
            collect(x, into: &usage)
        case .binary(_, let l, let r):
            collect(l, into: &usage)
            collect(r, into: &usage)
        case .collate(let x, let collation):
            if matches(collation) { usage.conflicts += 1 }
            collect(x, into: &usage)
        case .cast(let x, let type):
            if type.name.split(separator: " ").contains(where: { matches(String($0)) }) { usage.conflicts += 1 }
            collect(x, into: &usage)
        case .function(let call):
            if matches(call.name) { usage.conflicts += 1 }
            if case .list(let arguments, _) = call.arguments { for a in arguments { collect(a, into: &usage) } }
            if let filter = call.filter { collect(filter, into: &usage) }
            for x in call.over?.expressions ?? [] { collect(x, into: &usage) }
        case .caseWhen(let c):
            for x in [c.base, c.elseResult].compactMap({ $0 }) { collect(x, into: &usage) }
            for branch in c.branches {
                collect(branch.condition, into: &usage)
                collect(branch.result, into: &usage)
            }
        case .between(let x, let low, let high, _):
            for y in [x, low, high] { collect(y, into: &usage) }
        case .inList(let x, let list, _):
            for y in [x] + list { collect(y, into: &usage) }
        case .inSelect(let x, let select, _):
            collect(x, into: &usage)
            collect(select, into: &usage)
        case .inTable(let x, let name, _):
            // `x IN old` names the table without a FROM: counted as a use SQLite would rewrite, but Granite does
            // not run `IN table`; refused rather than guessed.
            if matches(name.name) { usage.conflicts += 1 }
            collect(x, into: &usage)
        case .like(let x, _, let pattern, let escape, _):
            for y in [x, pattern] + [escape].compactMap({ $0 }) { collect(y, into: &usage) }
        case .exists(let select), .subquery(let select):
            collect(select, into: &usage)
        case .row(let elements):
            for y in elements { collect(y, into: &usage) }
        }
    }
}
