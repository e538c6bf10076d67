/// A value computed once a database connection is available (primary keys, unique indexes…).
struct DatabasePromise<Value>: Sendable {
    let resolve: @Sendable (Database) throws -> Value

    init(_ resolve: @escaping @Sendable (Database) throws -> Value) {
        self.resolve = resolve
    }

    init(value: Value) where Value: Sendable {
        resolve = { _ in value }
    }
}

/// The clauses of a `SELECT` on one table, as built by ``QueryInterfaceRequest``.
struct SQLRelation: Sendable {
    var tableName: String
    var selection: DatabasePromise<[SQLSelection]>
    var isDistinct = false
    var filter: DatabasePromise<SQLExpression>?
    var orderings: [DatabasePromise<[SQLOrdering]>] = []
    var isReversed = false
    var group: DatabasePromise<[SQLExpression]>?
    var having: DatabasePromise<SQLExpression>?
    var limit: Int?
    var offset: Int?
    /// The common table expressions of the `WITH` clause, in order of first addition.
    var ctes: [SQLCTE] = []
    /// The alias of the table, set by `aliased(_:)`.
    var alias: TableAliasBase?
    /// The associations included or joined, in order of addition (see `SQLRelation+Children.swift`).
    var children: [Child] = []
    /// Why an association could not be added, if one could not.
    var joinError: SQLJoinError?

    init(tableName: String, selection: [SQLSelection]) {
        self.tableName = tableName
        self.selection = DatabasePromise(value: selection)
    }

    mutating func addFilter(_ predicate: DatabasePromise<SQLExpression>) {
        if let old = filter {
            filter = DatabasePromise { db in try .associative(.and, [old.resolve(db), predicate.resolve(db)]) }
        } else {
            filter = predicate
        }
    }

    mutating func addHaving(_ predicate: DatabasePromise<SQLExpression>) {
        if let old = having {
            having = DatabasePromise { db in try .associative(.and, [old.resolve(db), predicate.resolve(db)]) }
        } else {
            having = predicate
        }
    }

    func resolveOrderings(_ db: Database) throws -> [SQLOrdering] {
        let terms = try orderings.flatMap { try $0.resolve(db) }
        guard isReversed else { return terms }
        return try terms.map { term in
            guard let reversed = term.reversed else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Ordering literals can't be reversed")
            }
            return reversed
        }
    }

    var limitSQL: String? {
        guard let limit else { return nil }
        if let offset { return "\(limit) OFFSET \(offset)" }
        return "\(limit)"
    }

    /// The `SELECT` statement; `singleResult` adds `LIMIT 1` unless the request can only fetch one row.
    func selectSQL(_ context: SQLGenerationContext, singleResult: Bool = false) throws -> String {
        if !children.isEmpty || joinError != nil {
            if let joinError { throw joinError.error }
            if children.contains(where: \.kind.isToOne) {
                return try joinedSelectSQL(context, singleResult: singleResult)
            }
        }
        // The common request (no WITH clause, no alias, not inside an aliased query) is rendered directly: the
        // qualifying closure and the empty WITH prefix cost each fetch a few hundred instructions.
        if ctes.isEmpty && alias == nil && context.qualifier == nil {
            return try qualifiedSelectSQL(context, singleResult: singleResult)
        }
        let withClause = try withClauseSQL(context)
        // Each (sub)query qualifies its own columns, with its own alias if it has one.
        return try context.qualifying(with: sourceQualifier()) {
            try withClause + qualifiedSelectSQL(context, singleResult: singleResult)
        }
    }

    private func qualifiedSelectSQL(_ context: SQLGenerationContext, singleResult: Bool) throws -> String {
        let db = try context.db
        var sql = "SELECT"
        if isDistinct { sql += " DISTINCT" }
        let selection = try self.selection.resolve(db)
        guard !selection.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Can't generate SQL with an empty selection")
        }
        sql += " " + (try selection.map { try $0.sql(context, tableName: tableName) }.joined(separator: ", "))
        sql += " FROM " + tableName.quotedDatabaseIdentifier
        if let qualifier = context.qualifier { sql += " " + qualifier.name.quotedDatabaseIdentifier }
        let filter = try self.filter?.resolve(db)
        if let filter { sql += " WHERE " + (try filter.sql(context)) }
        let groupExpressions = try group?.resolve(db) ?? []
        if !groupExpressions.isEmpty {
            sql += " GROUP BY " + (try groupExpressions.map { try $0.sql(context) }.joined(separator: ", "))
        }
        if let having = try having?.resolve(db) {
            sql += " HAVING " + (try having.sql(context))
        }
        let orderings = try resolveOrderings(db)
        if !orderings.isEmpty {
            sql += " ORDER BY " + (try orderings.map { try $0.sql(context) }.joined(separator: ", "))
        }
        if let limitSQL {
            sql += " LIMIT " + limitSQL
        } else if singleResult,
            try !expectsSingleResult(db, selection: selection, filter: filter, groupExpressions: groupExpressions)
        {
            sql += " LIMIT 1"
        }
        return sql
    }

    private func expectsSingleResult(
        _ db: Database, selection: [SQLSelection], filter: SQLExpression?, groupExpressions: [SQLExpression]
    ) throws -> Bool {
        if let columns = filter?.identifyingColumns, !columns.isEmpty, try db.cachedTableExists(tableName),
            try db.columnsForUniqueKey(columns, in: tableName) != nil
        {
            return true
        }
        return groupExpressions.isEmpty && selection.contains(where: \.isAggregate)
    }

    /// The number of rows, with GRDB's `COUNT` rewrites.
    func fetchCount(_ db: Database) throws -> Int {
        if group != nil || limit != nil || !ctes.isEmpty || children.contains(where: \.kind.isToOne) {
            return try fetchTrivialCount(db)
        }
        let selection = try self.selection.resolve(db)
        var countRelation = self
        countRelation.orderings = []
        countRelation.isReversed = false
        countRelation.isDistinct = false
        if selection.count == 1 {
            switch selection[0].impl {
            case .allColumns, .allColumnsExcluding:
                if isDistinct { return try fetchTrivialCount(db) }
                countRelation.selection = DatabasePromise(value: [.expression(SQLExpression(impl: .countAll))])
            case .expression(let e), .aliased(let e, _):
                if e.isAggregate { return try fetchTrivialCount(db) }
                let count =
                    isDistinct ? SQLExpression.aggregate("COUNT", [e], distinct: true) : SQLExpression(impl: .countAll)
                countRelation.selection = DatabasePromise(value: [.expression(count)])
            case .literal, .qualified:
                return try fetchTrivialCount(db)
            }
        } else {
            if isDistinct || selection.contains(where: \.isAggregate) { return try fetchTrivialCount(db) }
            countRelation.selection = DatabasePromise(value: [.expression(SQLExpression(impl: .countAll))])
        }
        let context = SQLGenerationContext(db)
        let sql = try countRelation.selectSQL(context)
        return try Int.fetchOne(db, sql: sql, arguments: context.statementArguments) ?? 0
    }

    private func fetchTrivialCount(_ db: Database) throws -> Int {
        var unordered = self
        unordered.orderings = []
        unordered.isReversed = false
        let context = SQLGenerationContext(db)
        let sql = try "SELECT COUNT(*) FROM (" + unordered.selectSQL(context) + ")"
        return try Int.fetchOne(db, sql: sql, arguments: context.statementArguments) ?? 0
    }

    /// `DELETE FROM …`.
    func deleteSQL(_ context: SQLGenerationContext) throws -> String {
        if group != nil {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Can't delete query with GROUP BY clause")
        }
        if limit != nil || !children.isEmpty {
            return try withClauseSQL(context) + "DELETE FROM \(tableName.quotedDatabaseIdentifier) "
                + primaryKeySubquery(context)
        }
        // Most deletions have no WITH clause: no empty prefix to concatenate. (The clause is rendered first
        // when there is one: its arguments come before those of the filter.)
        var sql = ctes.isEmpty ? "DELETE FROM " : try withClauseSQL(context) + "DELETE FROM "
        sql += tableName.quotedDatabaseIdentifier
        if let filter = try filter?.resolve(context.db) { sql += " WHERE " + (try filter.sql(context)) }
        return sql
    }

    /// `UPDATE …`, or nil when there is nothing to assign.
    func updateSQL(
        _ context: SQLGenerationContext, conflictResolution: Database.ConflictResolution?,
        assignments: [ColumnAssignment]
    ) throws -> String? {
        if group != nil {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Can't update query with GROUP BY clause")
        }
        if assignments.isEmpty { return nil }
        var sql = try withClauseSQL(context) + "UPDATE "
        if let conflictResolution, conflictResolution != .abort { sql += "OR \(conflictResolution.rawValue) " }
        sql += tableName.quotedDatabaseIdentifier
        sql += " SET " + (try assignments.map { try $0.sql(context) }.joined(separator: ", "))
        if limit != nil || !children.isEmpty {
            sql += " " + (try primaryKeySubquery(context))
        } else if let filter = try filter?.resolve(context.db) {
            sql += " WHERE " + (try filter.sql(context))
        }
        return sql
    }

    /// `WHERE pk IN (SELECT pk FROM … LIMIT …)`, for limited deletes and updates.
    private func primaryKeySubquery(_ context: SQLGenerationContext) throws -> String {
        let primaryKey = try context.db.cachedPrimaryKey(tableName)
        let column = primaryKey.rowIDColumn ?? Column.rowID.name
        var subquery = unselectingJoins()
        subquery.selection = DatabasePromise(value: [.expression(.column(column))])
        subquery.ctes = []
        subquery.isDistinct = false
        return try "WHERE \(column.quotedDatabaseIdentifier) IN (" + subquery.selectSQL(context) + ")"
    }
}
