import Foundation

/// A name for a table in an SQL statement, used to refer to its columns from anywhere in the statement.
///
/// A named alias renames the table of the request it is given to:
///
/// ```swift
/// // SELECT "p".* FROM "player" "p" WHERE "p"."score" > ?
/// let p = TableAlias(name: "p")
/// let request = Player.aliased(p).filter(Column("score") > 1000)
/// ```
///
/// An anonymous alias (`TableAlias()`) does not change the SQL of its request, but refers to its table:
/// `alias[Column("score")]` is `"player"."score"`. Aliases let subqueries refer to the columns of their
/// enclosing request:
///
/// ```swift
/// // SELECT "p".* FROM "player" "p"
/// // WHERE "p"."score" = (SELECT MAX("score") FROM "player" WHERE "teamId" = "p"."teamId")
/// let p = TableAlias(name: "p")
/// let bestScoreOfTeam = Player.select(max(Column("score"))).filter(Column("teamId") == p[Column("teamId")])
/// let request = Player.aliased(p).filter(Column("score") == bestScoreOfTeam)
/// ```
///
/// Two aliases are equal when they are the same instance.
public class TableAliasBase: Hashable, @unchecked Sendable {
    /// The name given by the application, if any.
    let userName: String?

    // The table the alias is bound to by `aliased(_:)`; guarded by `lock`, because requests that share
    // the alias may be built from several threads.
    private let lock = NSLock()
    private var boundTableName: String?
    private var isBoundToSeveralTables = false
    /// The alias this one was merged into, when two requests joined the same association (see `merged(with:)`).
    private var mergedAlias: TableAliasBase?

    init(userName: String?) {
        self.userName = userName
    }

    /// Binds the alias to the table of the request it is given to.
    func bind(toTable tableName: String) {
        lock.withLock {
            if let boundTableName {
                if boundTableName.lowercased() != tableName.lowercased() { isBoundToSeveralTables = true }
            } else {
                boundTableName = tableName
            }
        }
    }

    /// The name that qualifies columns in SQL: the user-given name, or the name of the bound table.
    ///
    /// - throws: `SQLITE_MISUSE` when the alias is anonymous and not bound to any request, or when it is
    ///   bound to several tables.
    func resolvedName() throws -> String {
        if let merged = lock.withLock({ mergedAlias }) { return try merged.resolvedName() }
        let (tableName, isAmbiguous) = lock.withLock { (boundTableName, isBoundToSeveralTables) }
        if isAmbiguous {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "A TableAlias most not be used to refer to multiple tables")
        }
        if let name = userName ?? tableName { return name }
        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Undefined alias has no table name")
    }

    /// The table the alias is bound to; fails like ``resolvedName()``.
    func tableName() throws -> String {
        if let merged = lock.withLock({ mergedAlias }) { return try merged.tableName() }
        _ = try resolvedName()
        if let tableName = lock.withLock({ boundTableName }) { return tableName }
        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Undefined alias has no table name")
    }

    /// The alias that stands for this one in SQL: itself, or the alias it was merged into.
    var root: TableAliasBase {
        guard let merged = lock.withLock({ mergedAlias }) else { return self }
        return merged.root
    }

    /// Merges two aliases of the same joined table, so that both refer to it by the same name: an anonymous
    /// alias defers to a named one. Nil when both have different names or refer to different tables.
    func merged(with other: TableAliasBase) -> TableAliasBase? {
        let (lhs, rhs) = (root, other.root)
        if lhs === rhs { return lhs }
        guard let lhsTable = try? lhs.tableName(), let rhsTable = try? rhs.tableName(),
            lhsTable.lowercased() == rhsTable.lowercased()
        else { return nil }
        switch (lhs.userName, rhs.userName) {
        case (let lhsName?, let rhsName?) where lhsName != rhsName:
            return nil
        case (nil, _):
            lhs.lock.withLock { lhs.mergedAlias = rhs }
            return rhs
        default:
            rhs.lock.withLock { rhs.mergedAlias = lhs }
            return lhs
        }
    }

    /// Makes this alias stand for `base` in SQL.
    func standFor(_ base: TableAliasBase) {
        if base.root === self { return }
        lock.withLock { mergedAlias = base }
    }

    /// Whether two aliases are the same instance.
    public static func == (lhs: TableAliasBase, rhs: TableAliasBase) -> Bool {
        lhs === rhs
    }

    /// Hashes the identity of the alias.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// The column of the aliased table: `alias["score"]` is `"p"."score"`.
    public subscript(_ column: String) -> SQLExpression {
        SQLExpression(impl: .qualified(.column(column), self))
    }

    /// The expression with its columns taken from the aliased table: `alias[Column("score") * 2]` is
    /// `"p"."score" * 2`. Columns of subqueries inside the expression are left to their own tables.
    public subscript(_ expression: some SQLSpecificExpressible & SQLSelectable & SQLOrderingTerm) -> SQLExpression {
        SQLExpression(impl: .qualified(expression.sqlExpression, self))
    }

    /// The selection taken from the aliased table: `alias[AllColumns()]` is `"p".*`.
    public subscript(_ selectable: some SQLSelectable) -> SQLSelection {
        selectable.sqlSelection.qualified(with: self)
    }

    /// The ordering on columns of the aliased table: `alias[Column("score").desc]` is `"p"."score" DESC`.
    public subscript(_ ordering: some SQLOrderingTerm) -> SQLOrdering {
        ordering.sqlOrdering.qualified(with: self)
    }
}

/// A ``TableAliasBase`` for a record type, whose columns are available as properties:
/// `TableAlias<Player>(name: "p").score` is `"p"."score"`.
///
/// Upserts also hand the `excluded` alias (the row proposed for insertion) to their `doUpdate` closure:
///
/// ```swift
/// // ON CONFLICT DO UPDATE SET "score" = "score" + "excluded"."score"
/// try player.upsertAndFetch(db, doUpdate: { excluded in
///     [Column("score") += excluded["score"]]
/// })
/// ```
@dynamicMemberLookup
public final class TableAlias<RowDecoder>: TableAliasBase, @unchecked Sendable {
    /// An alias for any table, named `name`, or anonymous when `name` is nil.
    public init(name: String? = nil) where RowDecoder == Void {
        super.init(userName: name)
    }

    /// An alias for the table of `record`, named `name`, or anonymous when `name` is nil.
    public init(name: String? = nil, for record: RowDecoder.Type = RowDecoder.self) {
        super.init(userName: name)
    }

    /// Whether the aliased table has a row: `"p"."id" IS NOT NULL` (the primary key column that is the rowid,
    /// or `rowid`). Meant for tables joined with a left join, whose columns are NULL when there is no row.
    public var exists: SQLExpression {
        SQLExpression(impl: .qualified(SQLExpression(impl: .aliasedRowExists(isNegated: false)), self))
    }

    /// The qualified column: `"excluded"."score"`.
    public subscript(_ column: some ColumnExpression) -> SQLExpression {
        self[column.name]
    }
}

extension TableAlias {
    /// An alias that stands for `base`, for the conditions of associations that receive typed aliases.
    convenience init(standingFor base: TableAliasBase) {
        self.init(name: nil)
        standFor(base)
    }
}

extension TableAlias where RowDecoder: TableRecord {
    /// The type of the record's ``TableRecord/databaseComponents`` (its `Columns` by default).
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// The qualified column of the record's `Columns`: `excluded.score` is `"excluded"."score"`.
    public subscript<T: ColumnExpression>(dynamicMember keyPath: KeyPath<RowDecoder.DatabaseComponents, T>)
        -> SQLExpression
    {
        self[RowDecoder.databaseComponents[keyPath: keyPath]]
    }
}

/// The alias that qualifies columns while SQL is generated, and the name it goes by.
///
/// A class, so that ``SQLGenerationContext`` holds it in one word: inline, its three words made every
/// request's context a malloc size class larger, though almost no request has an alias.
final class SQLQualifier {
    let name: String
    let alias: TableAliasBase

    init(name: String, alias: TableAliasBase) {
        self.name = name
        self.alias = alias
    }
}

extension SQLGenerationContext {
    /// Renders with the columns qualified by `alias`, then restores the enclosing qualifier.
    func qualifying<T>(with alias: TableAliasBase, _ render: () throws -> T) throws -> T {
        let alias = alias.root
        let name = try joinedAliasNames[ObjectIdentifier(alias)] ?? alias.resolvedName()
        return try qualifying(with: SQLQualifier(name: name, alias: alias), render)
    }

    /// Renders with the columns qualified by `qualifier` (unqualified when nil), then restores the
    /// enclosing qualifier: each (sub)query qualifies its own columns.
    func qualifying<T>(with qualifier: SQLQualifier?, _ render: () throws -> T) rethrows -> T {
        let enclosing = self.qualifier
        self.qualifier = qualifier
        defer { self.qualifier = enclosing }
        return try render()
    }
}

extension SQLExpression {
    /// `"p"."id" IS NOT NULL` (`IS NULL` when negated), on the column that identifies a row of the
    /// qualifying alias's table.
    func aliasedRowExistsSQL(_ context: SQLGenerationContext, isNegated: Bool, wrapped: Bool) throws -> String {
        guard let qualifier = context.qualifier else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Undefined alias has no table name")
        }
        let primaryKey = try context.db.primaryKey(qualifier.alias.tableName())
        let columns: [String]
        if let rowIDColumn = primaryKey.rowIDColumn {
            columns = [rowIDColumn]
        } else if primaryKey.tableHasRowID {
            columns = [Column.rowID.name]
        } else {
            columns = primaryKey.columns
        }
        let test = isNegated
            ? SQLExpression.associative(.and, columns.map { .equal(.column($0), .null) })
            : SQLExpression.associative(.or, columns.map { .notEqual(.column($0), .null) })
        return try test.sql(context, wrapped: wrapped)
    }
}

extension SQLSelection {
    /// The selection, with its columns taken from the table of `alias`.
    func qualified(with alias: TableAliasBase) -> SQLSelection {
        switch impl {
        case .expression(let expression):
            return .expression(SQLExpression(impl: .qualified(expression, alias)))
        case .aliased(let expression, let name):
            return SQLSelection(impl: .aliased(SQLExpression(impl: .qualified(expression, alias)), name))
        case .allColumns, .allColumnsExcluding:
            return SQLSelection(impl: .qualified(self, alias))
        case .literal, .qualified:
            return self
        }
    }
}

extension SQLOrdering {
    /// The ordering, with its columns taken from the table of `alias`.
    func qualified(with alias: TableAliasBase) -> SQLOrdering {
        func qualify(_ expression: SQLExpression) -> SQLExpression {
            SQLExpression(impl: .qualified(expression, alias))
        }
        switch impl {
        case .expression(let e): return SQLOrdering(impl: .expression(qualify(e)))
        case .asc(let e): return SQLOrdering(impl: .asc(qualify(e)))
        case .desc(let e): return SQLOrdering(impl: .desc(qualify(e)))
        case .ascNullsLast(let e): return SQLOrdering(impl: .ascNullsLast(qualify(e)))
        case .descNullsFirst(let e): return SQLOrdering(impl: .descNullsFirst(qualify(e)))
        case .literal: return self
        }
    }
}

extension SQLRelation {
    /// The qualifier of the relation's columns: its alias when the alias is named. An anonymous alias
    /// leaves the SQL unchanged.
    func sourceQualifier() throws -> SQLQualifier? {
        guard let alias, alias.userName != nil else { return nil }
        return try SQLQualifier(name: alias.resolvedName(), alias: alias)
    }
}

extension TableRequest where Self: TypedRequest {
    /// The request, with its table named by `alias`: `Player.all().aliased(TableAlias(name: "p"))` is
    /// `SELECT "p".* FROM "player" "p"`, and its columns are qualified (`"p"."score"`). An anonymous alias
    /// leaves the SQL unchanged but lets other requests refer to this table.
    ///
    /// An alias refers to a single table: generating SQL fails with `SQLITE_MISUSE` when it was given to
    /// requests on different tables.
    public func aliased(_ alias: TableAlias<Void>) -> Self {
        _aliased(alias)
    }

    /// The request, with its table named by `alias`: `Player.all().aliased(TableAlias<Player>(name: "p"))`
    /// is `SELECT "p".* FROM "player" "p"`.
    public func aliased(_ alias: TableAlias<RowDecoder>) -> Self {
        _aliased(alias)
    }
}

extension QueryInterfaceRequest {
    /// The request with its table named by `alias` (the implementation of `aliased(_:)`).
    public func _aliased(_ alias: TableAliasBase) -> Self {
        alias.bind(toTable: relation.tableName)
        var request = self
        request.relation.alias = alias
        return request
    }
}

extension Table {
    /// All rows, with the table named by `alias`: `SELECT "p".* FROM "player" "p"`.
    public func aliased(_ alias: TableAlias<Void>) -> QueryInterfaceRequest<RowDecoder> {
        all().aliased(alias)
    }

    /// All rows, with the table named by `alias`: `SELECT "p".* FROM "player" "p"`.
    public func aliased(_ alias: TableAlias<RowDecoder>) -> QueryInterfaceRequest<RowDecoder> {
        all().aliased(alias)
    }
}

extension TableRecord {
    /// All records, with the table named by `alias`: `SELECT "p".* FROM "player" "p"`.
    public static func aliased(_ alias: TableAlias<Void>) -> QueryInterfaceRequest<Self> {
        all().aliased(alias)
    }

    /// All records, with the table named by `alias`: `SELECT "p".* FROM "player" "p"`.
    public static func aliased(_ alias: TableAlias<Self>) -> QueryInterfaceRequest<Self> {
        all().aliased(alias)
    }
}
