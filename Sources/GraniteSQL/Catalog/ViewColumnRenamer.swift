/// Rewrites the stored text of a view for `ALTER TABLE t RENAME COLUMN old TO new`, as SQLite does: each token
/// of the view's text that names the column `t.old` becomes the new name (quoted when SQLite would quote it), the
/// rest of the text kept as written.
///
/// Granite resolves the view's names itself, without running the query, and only rewrites a text where every
/// token spelling `old` is a reference it can resolve to `t.old` through tables of the schema. Otherwise (the
/// name is also another table's column, an alias, a function…, or a reference goes through a view or a subquery
/// whose columns are not known here) the text is left alone and the rename is refused, naming the view.
struct ViewColumnRenamer {
    /// The table whose column is renamed.
    var table: String
    /// The column's current name.
    var old: String
    /// Its new name.
    var new: String
    /// The schema, for the columns of the tables the view reads.
    var catalog: SchemaCatalog

    /// One `FROM` source of a query: its name in the query, its column names when known, whether it is the table.
    private struct Source {
        var name: String
        var columns: [String]?
        var isTarget: Bool
    }

    /// What the walk found: references to the column, and result columns named like it with `AS` (their names
    /// are not references, and stay).
    private struct Counts {
        var renamed = 0
        var aliases = 0
    }

    /// Thrown while walking the query when a use of the name cannot be resolved to the renamed column.
    private struct Unresolvable: Error {}

    /// The view's text with its references to the column renamed; nil when it has none.
    func rewrite(_ view: ViewDefinition) throws -> String? {
        guard let tokens = try? Lexer.tokenize(view.sql) else { throw refusal(view) }
        let occurrences = tokens.indices.filter { k in
            [.word, .quotedIdentifier].contains(tokens[k].kind) && SchemaNames.equal(tokens[k].value, old)
        }
        if occurrences.isEmpty { return nil }
        var counts = Counts()
        do {
            if view.columnNames?.contains(where: matches) == true { throw Unresolvable() }
            try collect(view.select, scopes: [], counts: &counts)
        } catch {
            throw refusal(view)
        }
        // A result column's name after `AS` is left as it is; every other token is a reference to rename.
        let aliasTokens = occurrences.filter { k in
            k > 0 && tokens[k - 1].kind == .word && tokens[k - 1].keyword == "AS"
        }
        let references = occurrences.filter { !aliasTokens.contains($0) }
        guard counts.aliases == aliasTokens.count, counts.renamed == references.count else { throw refusal(view) }
        let bytes = Array(view.sql.utf8)
        var text: [UInt8] = []
        var position = 0
        for k in references {
            let range = tokens[k].range
            guard range.start.offset >= position, range.end.offset <= bytes.count else { throw refusal(view) }
            text += bytes[position..<range.start.offset]
            text += replacement(quoted: tokens[k].kind == .quotedIdentifier)
            position = range.end.offset
        }
        text += bytes[position...]
        return String(decoding: text, as: UTF8.self)
    }

    /// The error of a rename that cannot rewrite the view.
    func refusal(_ view: ViewDefinition) -> SchemaError {
        SchemaError("cannot rename: view \(view.name) uses column \(old) (drop the view first, then create it again)")
    }

    /// The new name as written in place of one token: quoted when the token was, or when the name is not a plain
    /// identifier.
    private func replacement(quoted: Bool) -> [UInt8] {
        if !quoted && Self.isPlainIdentifier(new) { return Array(new.utf8) }
        var bytes: [UInt8] = [0x22]
        for byte in new.utf8 { bytes += byte == 0x22 ? [0x22, 0x22] : [byte] }
        bytes.append(0x22)
        return bytes
    }

    /// Whether `name` can be written without quotes: letters, digits, `_` and non-ASCII bytes, not starting with a
    /// digit, and not a reserved word.
    private static func isPlainIdentifier(_ name: String) -> Bool {
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        func isLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte | 0x20) }
        guard let first = name.utf8.first, !isDigit(first) else { return false }
        return name.utf8.allSatisfy { $0 == 0x5F || $0 >= 0x80 || isDigit($0) || isLetter($0) }
            && !Parser.reservedWords.contains(SchemaNames.uppercased(name))
    }

    private func matches(_ name: String) -> Bool { SchemaNames.equal(name, old) }

    // MARK: Walking the query

    private func collect(_ select: SelectStatement, scopes: [[Source]], counts: inout Counts) throws {
        if select.with != nil { throw Unresolvable() }
        if ordersByResultNamedLikeColumn(select) { throw Unresolvable() }
        var cores = [select.first] + select.compounds.map(\.core)
        // ORDER BY and LIMIT resolve against the first core's sources (enough for the uses checked here).
        let firstSources = try sources(of: cores.removeFirst(), scopes: scopes, counts: &counts)
        for core in cores { _ = try sources(of: core, scopes: scopes, counts: &counts) }
        let scope = scopes + [firstSources]
        for term in select.orderBy { try collect(term.expression, scopes: scope, counts: &counts) }
        if let limit = select.limit {
            for e in [limit.limit] + [limit.offset].compactMap({ $0 }) {
                try collect(e, scopes: scopes, counts: &counts)
            }
        }
    }

    /// Whether `select` has a result column named like the column and an `ORDER BY` term naming it, which may
    /// mean the result column rather than the table's: not resolved here.
    private func ordersByResultNamedLikeColumn(_ select: SelectStatement) -> Bool {
        guard case .select(let clause) = select.first else { return false }
        let hasResult = clause.columns.contains { column in
            if case .expression(_, let alias?) = column { return matches(alias) }
            return false
        }
        return hasResult
            && select.orderBy.contains { term in
                if case .column(let reference) = term.expression.kind { return matches(reference.column) }
                return false
            }
    }

    /// Walks one core; returns its sources.
    private func sources(of core: SelectCore, scopes: [[Source]], counts: inout Counts) throws -> [Source] {
        switch core {
        case .values(let rows):
            for row in rows { for e in row { try collect(e, scopes: scopes, counts: &counts) } }
            return []
        case .select(let clause):
            var sources: [Source] = []
            var joinConditions: [SQLExpression] = []
            if let from = clause.from {
                for (source, constraint) in [(from.first, nil)] + from.joins.map({ ($0.source, $0.constraint) }) {
                    switch source {
                    case .table(let name, let alias, _):
                        if alias.map(matches) == true || name.schema.map(matches) == true { throw Unresolvable() }
                        let stored = catalog.table(named: name.name)
                        sources.append(
                            Source(
                                name: alias ?? name.name, columns: stored.map { $0.columns.map(\.name) },
                                isTarget: stored != nil && SchemaNames.equal(name.name, table)))
                    case .subquery(let select, let alias):
                        if alias.map(matches) == true { throw Unresolvable() }
                        try collect(select, scopes: scopes, counts: &counts)
                        sources.append(Source(name: alias ?? "", columns: nil, isTarget: false))
                    case .function(let name, let arguments, let alias):
                        if alias.map(matches) == true { throw Unresolvable() }
                        // The arguments may read the sources on their left: resolved with the rest of the clause.
                        joinConditions.append(contentsOf: arguments)
                        sources.append(
                            Source(
                                name: alias ?? name.name,
                                columns: SQLTableFunction(name: name.name)?.columnNames, isTarget: false))
                    }
                    switch constraint {
                    case .on(let e)?: joinConditions.append(e)
                    case .using(let names)?: if names.contains(where: matches) { throw Unresolvable() }
                    case nil: break
                    }
                }
            }
            let scope = scopes + [sources]
            for column in clause.columns {
                switch column {
                case .all: break
                case .allOf(let name): if matches(name) { throw Unresolvable() }
                case .expression(let e, let alias):
                    if alias.map(matches) == true { counts.aliases += 1 }
                    try collect(e, scopes: scope, counts: &counts)
                }
            }
            let expressions =
                joinConditions + [clause.whereClause, clause.having].compactMap { $0 } + clause.groupBy
                + clause.windows.flatMap(\.definition.expressions)
            for e in expressions { try collect(e, scopes: scope, counts: &counts) }
            return sources
        }
    }

    /// Whether `reference` (named like the column) names the renamed column: resolved from the innermost scope
    /// outwards, through sources whose columns are known.
    private func namesRenamedColumn(_ reference: ColumnReference, _ scopes: [[Source]]) throws -> Bool {
        for scope in scopes.reversed() {
            if let qualifier = reference.table {
                guard let source = scope.first(where: { SchemaNames.equal($0.name, qualifier) }) else { continue }
                return source.isTarget
            }
            if scope.contains(where: { $0.columns == nil }) { throw Unresolvable() }
            let having = scope.filter { $0.columns?.contains(where: matches) == true }
            if having.count > 1 { throw Unresolvable() }
            if let source = having.first { return source.isTarget }
        }
        throw Unresolvable()
    }

    private func collect(_ e: SQLExpression, scopes: [[Source]], counts: inout Counts) throws {
        func walk(_ x: SQLExpression) throws { try collect(x, scopes: scopes, counts: &counts) }
        switch e.kind {
        case .literal, .parameter: break
        case .column(let reference):
            if reference.table.map(matches) == true || reference.schema.map(matches) == true { throw Unresolvable() }
            if matches(reference.column) {
                guard try namesRenamedColumn(reference, scopes) else { throw Unresolvable() }
                counts.renamed += 1
            }
        case .unary(_, let x), .isNull(let x, _):
            try walk(x)
        case .binary(_, let l, let r):
            try walk(l)
            try walk(r)
        case .collate(let x, let collation):
            if matches(collation) { throw Unresolvable() }
            try walk(x)
        case .cast(let x, let type):
            if type.name.split(separator: " ").contains(where: { matches(String($0)) }) { throw Unresolvable() }
            try walk(x)
        case .function(let call):
            if matches(call.name) { throw Unresolvable() }
            if case .list(let arguments, _) = call.arguments { for a in arguments { try walk(a) } }
            if let filter = call.filter { try walk(filter) }
            for x in call.over?.expressions ?? [] { try walk(x) }
        case .caseWhen(let c):
            for x in [c.base, c.elseResult].compactMap({ $0 }) { try walk(x) }
            for branch in c.branches {
                try walk(branch.condition)
                try walk(branch.result)
            }
        case .between(let x, let low, let high, _):
            for y in [x, low, high] { try walk(y) }
        case .inList(let x, let list, _):
            for y in [x] + list { try walk(y) }
        case .inSelect(let x, let select, _):
            try walk(x)
            try collect(select, scopes: scopes, counts: &counts)
        case .inTable:
            throw Unresolvable()
        case .like(let x, _, let pattern, let escape, _):
            for y in [x, pattern] + [escape].compactMap({ $0 }) { try walk(y) }
        case .exists(let select), .subquery(let select):
            try collect(select, scopes: scopes, counts: &counts)
        case .row(let elements):
            for y in elements { try walk(y) }
        }
    }
}
