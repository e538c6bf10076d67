/// A relation and its to-one children, each table given the alias that qualifies its columns, for the SQL
/// of one query with joins:
///
/// ```sql
/// SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId"
/// ```
///
/// Children included with `including(all:)` are left to prefetch queries.
struct SQLJoinedRelation {
    struct Join {
        var kind: SQLRelation.Child.Kind
        var key: String
        var condition: SQLAssociationCondition
        var node: SQLJoinedRelation
    }

    var relation: SQLRelation
    var alias: TableAliasBase
    var joins: [Join]

    init(_ relation: SQLRelation) {
        self.relation = relation
        if let alias = relation.alias {
            self.alias = alias.root
        } else {
            alias = TableAliasBase(userName: nil)
            alias.bind(toTable: relation.tableName)
        }
        joins = relation.children.compactMap { child in
            guard child.kind.isToOne else { return nil }
            return Join(
                kind: child.kind, key: child.key, condition: child.condition, node: SQLJoinedRelation(child.relation))
        }
    }

    /// The aliases of all tables, the relation's first, then those of joins, depth first.
    var allAliases: [TableAliasBase] {
        joins.reduce(into: [alias]) { $0 += $1.node.allAliases }
    }

    /// The qualifier of this table's columns.
    func qualifier(_ context: SQLGenerationContext) throws -> SQLQualifier {
        let name = try context.joinedAliasNames[ObjectIdentifier(alias)] ?? alias.resolvedName()
        return SQLQualifier(name: name, alias: alias)
    }

    /// `"author"`, or `"author" "author1"` when the table goes by another name.
    func sourceSQL(_ context: SQLGenerationContext) throws -> String {
        let name = try qualifier(context).name
        let table = relation.tableName.quotedDatabaseIdentifier
        return name == relation.tableName ? table : table + " " + name.quotedDatabaseIdentifier
    }

    /// The selected columns of this table and of its joins, depth first.
    func selectionSQL(_ context: SQLGenerationContext) throws -> [String] {
        let db = try context.db
        let tableName = relation.tableName
        var items = try context.qualifying(with: qualifier(context)) {
            try relation.selection.resolve(db).map { try $0.sql(context, tableName: tableName) }
        }
        for join in joins { items += try join.node.selectionSQL(context) }
        return items
    }

    /// The `JOIN` clauses of the joins of this table, each followed by its own joins.
    func joinsSQL(_ context: SQLGenerationContext, allowsInnerJoin: Bool) throws -> String {
        var sql = ""
        for join in joins {
            sql += " " + (try join.sql(context, left: self, allowsInnerJoin: allowsInnerJoin))
        }
        return sql
    }

    /// The orderings of the joined tables, depth first, each qualified by its table.
    func joinedOrderings(_ context: SQLGenerationContext) throws -> [String] {
        var terms: [String] = []
        for join in joins {
            let node = join.node
            let orderings = try node.relation.resolveOrderings(context.db)
            terms += try context.qualifying(with: node.qualifier(context)) { try orderings.map { try $0.sql(context) } }
            terms += try node.joinedOrderings(context)
        }
        return terms
    }

    /// The number of columns each table selects, and the adapter that splits a fetched row into the columns
    /// of the relation and the scopes of its joins; nil when no join is selected.
    func rowAdapter(_ db: Database, ctes: [SQLCTE], fromIndex startIndex: Int, isRoot: Bool) throws
        -> (adapter: any RowAdapter, endIndex: Int)?
    {
        let tableName = relation.tableName
        let width = try relation.selection.resolve(db).reduce(0) {
            try $0 + $1.columnCount(db, tableName: tableName, ctes: ctes)
        }
        var endIndex = startIndex + width
        var scopes: [String: any RowAdapter] = [:]
        for join in joins {
            if let (adapter, joinEndIndex) = try join.node.rowAdapter(
                db, ctes: ctes, fromIndex: endIndex, isRoot: false)
            {
                scopes[join.key] = adapter
                endIndex = joinEndIndex
            }
        }
        if (isRoot || width == 0) && scopes.isEmpty { return nil }
        let adapter = RangeRowAdapter(startIndex..<(startIndex + width)).addingScopes(scopes)
        return (adapter, endIndex)
    }
}

extension SQLJoinedRelation.Join {
    /// `JOIN "author" ON "author"."id" = "book"."authorId"`, with the filter of the joined relation in the
    /// `ON` clause, and the joins of the joined table after it.
    ///
    /// - throws: `SQLITE_MISUSE` for a required join behind an optional one.
    func sql(_ context: SQLGenerationContext, left: SQLJoinedRelation, allowsInnerJoin: Bool) throws -> String {
        let isInner = kind == .oneRequired
        if isInner && !allowsInnerJoin {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "Not implemented: chaining a required association behind an optional association")
        }
        var sql = (isInner ? "JOIN " : "LEFT JOIN ") + (try node.sourceSQL(context))
        var conditions: [SQLExpression] = []
        if let joinCondition = try condition.joinExpression(context.db, leftAlias: left.alias, rightAlias: node.alias) {
            conditions.append(joinCondition)
        }
        if let filter = try node.relation.filter?.resolve(context.db) {
            conditions.append(SQLExpression(impl: .qualified(filter, node.alias)))
        }
        if !conditions.isEmpty {
            sql += " ON " + (try SQLExpression.associative(.and, conditions).sql(context))
        }
        sql += try node.joinsSQL(context, allowsInnerJoin: allowsInnerJoin && isInner)
        return sql
    }
}

extension SQLSelection {
    /// The number of columns the selection adds to a row of a request on `tableName`, a table or one of
    /// `ctes`.
    ///
    /// - throws: `SQLITE_MISUSE` for SQL literals, whose number of columns is unknown.
    func columnCount(_ db: Database, tableName: String, ctes: [SQLCTE]) throws -> Int {
        switch impl {
        case .allColumns:
            if let cte = ctes.first(where: { $0.tableName.lowercased() == tableName.lowercased() }) {
                return try cte.columnCount(db)
            }
            return try db.cachedColumnNames(tableName).count
        case .allColumnsExcluding(let excluded):
            return try db.cachedColumnNames(tableName).count { !excluded.contains($0.lowercased()) }
        case .expression, .aliased:
            return 1
        case .literal:
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "Selection literals don't known how many columns they contain. "
                    + "To resolve this error, select one or several SQLExpressionLiteral instead.")
        case .qualified(let selection, let alias):
            return try selection.columnCount(db, tableName: alias.tableName(), ctes: ctes)
        }
    }
}

extension [TableAliasBase] {
    /// The names of the aliases of one query: user-given names as they are, table names for tables that
    /// appear once, and numbered table names (`"author1"`, `"author2"`) for the others, as GRDB names them.
    ///
    /// - throws: `SQLITE_MISUSE` when an alias is used twice, or two aliases have the same user-given name.
    func resolvedNames() throws -> [ObjectIdentifier: String] {
        guard Set(map(ObjectIdentifier.init)).count == count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "A TableAlias most not be used to refer to multiple tables")
        }
        var groups: [String: [TableAliasBase]] = [:]
        var groupOrder: [String] = []
        for alias in self {
            let identity = try (alias.userName ?? alias.tableName()).lowercased()
            if groups[identity] == nil { groupOrder.append(identity) }
            groups[identity, default: []].append(alias)
        }
        var takenNames = Set<String>()
        var ambiguousGroups: [[TableAliasBase]] = []
        for identity in groupOrder {
            let group = groups[identity]!
            if group.count == 1 {
                takenNames.insert(identity)
                continue
            }
            if group.filter({ $0.userName != nil }).count > 1 {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "ambiguous alias: \(try group[0].resolvedName())")
            }
            ambiguousGroups.append(group)
        }
        var names: [ObjectIdentifier: String] = [:]
        for group in ambiguousGroups {
            var index = 1
            for alias in group where alias.userName == nil {
                let radical = try alias.tableName().digitlessRadical
                var name: String
                repeat {
                    name = "\(radical)\(index)"
                    index += 1
                } while takenNames.contains(name.lowercased())
                takenNames.insert(name.lowercased())
                names[ObjectIdentifier(alias)] = name
            }
        }
        return names
    }
}

extension SQLRelation {
    /// The `SELECT` statement of a relation with joins: every column qualified by its table.
    func joinedSelectSQL(_ context: SQLGenerationContext, singleResult: Bool) throws -> String {
        let root = SQLJoinedRelation(self)
        let enclosingNames = context.joinedAliasNames
        context.joinedAliasNames.merge(try root.allAliases.resolvedNames()) { _, own in own }
        defer { context.joinedAliasNames = enclosingNames }
        let db = try context.db

        var withRelation = self
        withRelation.ctes = allCTEs
        var sql = try withRelation.withClauseSQL(context) + "SELECT"
        if isDistinct { sql += " DISTINCT" }
        let selection = try root.selectionSQL(context)
        guard !selection.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Can't generate SQL with an empty selection")
        }
        sql += " " + selection.joined(separator: ", ")
        sql += " FROM " + (try root.sourceSQL(context))
        sql += try root.joinsSQL(context, allowsInnerJoin: true)
        sql += try context.qualifying(with: root.qualifier(context)) { try rootClausesSQL(context, db: db) }
        var orderings = try context.qualifying(with: root.qualifier(context)) {
            try resolveOrderings(db).map { try $0.sql(context) }
        }
        orderings += try joinedOrderingsSQL(root, context)
        if !orderings.isEmpty { sql += " ORDER BY " + orderings.joined(separator: ", ") }
        if let limitSQL {
            sql += " LIMIT " + limitSQL
        } else if singleResult {
            // A join can multiply rows: no unique key guarantees a single one.
            sql += " LIMIT 1"
        }
        return sql
    }

    /// `WHERE`, `GROUP BY` and `HAVING` clauses of the relation, qualified by the context's qualifier.
    private func rootClausesSQL(_ context: SQLGenerationContext, db: Database) throws -> String {
        var sql = ""
        if let filter = try filter?.resolve(db) { sql += " WHERE " + (try filter.sql(context)) }
        let groupExpressions = try group?.resolve(db) ?? []
        if !groupExpressions.isEmpty {
            sql += " GROUP BY " + (try groupExpressions.map { try $0.sql(context) }.joined(separator: ", "))
        }
        if let having = try having?.resolve(db) { sql += " HAVING " + (try having.sql(context)) }
        return sql
    }

    /// The orderings of the joined tables; reversing the relation reverses them too.
    private func joinedOrderingsSQL(_ root: SQLJoinedRelation, _ context: SQLGenerationContext) throws -> [String] {
        guard isReversed else { return try root.joinedOrderings(context) }
        var reversedRoot = root
        reversedRoot.joins = root.joins.map { join in
            var join = join
            join.node = join.node.reversingOrderings()
            return join
        }
        return try reversedRoot.joinedOrderings(context)
    }

    /// The adapter that splits the rows of the relation into scopes; nil without selected joins.
    func rowAdapter(_ db: Database) throws -> (any RowAdapter)? {
        guard children.contains(where: \.kind.isToOne) else { return nil }
        return try SQLJoinedRelation(self).rowAdapter(db, ctes: allCTEs, fromIndex: 0, isRoot: true)?.adapter
    }
}

extension SQLJoinedRelation {
    /// The same tables, each ordering reversed.
    func reversingOrderings() -> SQLJoinedRelation {
        var copy = self
        copy.relation.isReversed.toggle()
        copy.joins = joins.map { join in
            var join = join
            join.node = join.node.reversingOrderings()
            return join
        }
        return copy
    }
}

extension SQLRelation {
    /// The common table expressions of the relation and of its joined relations, by first appearance.
    var allCTEs: [SQLCTE] {
        var relation = self
        for child in children where child.kind.isToOne {
            for cte in child.relation.allCTEs { relation.addCTE(cte) }
        }
        return relation.ctes
    }
}

extension SQLCTE {
    /// The number of columns of the expression: its declared columns, or those of its query.
    ///
    /// - Throws: when the query alone does not compile (it reads the expression itself, as a recursive one
    ///   does, or another common table expression), GRDB's error naming the expression and asking for its
    ///   `columns`, with the code and SQL of the compilation error.
    func columnCount(_ db: Database) throws -> Int {
        if let columns { return columns.count }
        let context = SQLGenerationContext(db)
        let sql = try subquery.sql(context)
        do {
            return try db.makeStatement(sql: sql).columnCount
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            let cause = ["Can't compute the number of columns in the \(String(reflecting: tableName)) common table expression", error.message]
                .compactMap { $0 }.joined(separator: ": ")
            throw DatabaseError(
                resultCode: error.extendedResultCode,
                message: cause + ". Check the syntax of the SQL definition, or provide the explicit list of selected "
                    + "columns with the `columns` parameter in the CommonTableExpression initializer.",
                sql: error.sql, arguments: error.arguments, publicStatementArguments: error.publicStatementArguments)
        }
    }
}
