/// A request that fetches database rows and decodes them as `RowDecoder`.
///
/// ```swift
/// let request: some FetchRequest<Player> = Player.filter(Column("score") > 1000)
/// let players = try request.fetchAll(db)
/// let count = try request.fetchCount(db)
/// ```
///
/// A request is also a subquery (``SQLSubqueryable``), so that it can be used in the expressions of
/// other requests: `Player.filter(Column("teamId") == Team.select(Column("id")).filter(…))`.
public protocol FetchRequest<RowDecoder>: SQLSubqueryable, DatabaseRegionConvertible {
    /// The type that decodes the fetched rows.
    associatedtype RowDecoder

    /// The prepared statement of the request. With `singleResult`, the request may add `LIMIT 1`.
    func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest

    /// The number of rows the request fetches.
    func fetchCount(_ db: Database) throws -> Int
}

extension FetchRequest {
    /// The prepared statement of the request.
    public func makePreparedRequest(_ db: Database) throws -> PreparedRequest {
        try makePreparedRequest(db, forSingleResult: false)
    }
}

/// A prepared request: the statement that runs it.
public struct PreparedRequest {
    /// The prepared statement, with its arguments bound.
    public var statement: Statement

    /// The adapter behind ``adapter``, boxed: an existential stored inline would make every request five words
    /// longer, and each fetch would copy and destroy it through outlined value witnesses even when it is nil.
    /// Boxed, the request is two references and an adapter-free fetch never touches an existential.
    var adapterBox: RowAdapterBox?

    /// Adapts the fetched rows (see ``RowAdapter``); nil fetches them as they are.
    public var adapter: (any RowAdapter)? {
        get { adapterBox?.adapter }
        set { adapterBox = RowAdapterBox.make(adapter: newValue, supplementaryFetch: supplementaryFetch) }
    }

    /// Fetches what the rows need besides their own columns, once they are all fetched: the rows of the
    /// associations included with `including(all:)`.
    var supplementaryFetch: SupplementaryFetch? {
        get { adapterBox?.supplementaryFetch }
        set { adapterBox = RowAdapterBox.make(adapter: adapter, supplementaryFetch: newValue) }
    }

    /// A prepared request for `statement`, whose rows `adapter` adapts.
    public init(statement: Statement, adapter: (any RowAdapter)?) {
        self.statement = statement
        adapterBox = RowAdapterBox.make(adapter: adapter, supplementaryFetch: nil)
    }

    /// A prepared request for `statement`, whose rows are fetched as they are.
    public init(statement: Statement) {
        self.statement = statement
        adapterBox = nil
    }
}

/// Fills fetched rows with the rows of other queries (see ``PreparedRequest/supplementaryFetch``).
typealias SupplementaryFetch = @Sendable (Database, [Row]) throws -> Void

/// A row adapter and a supplementary fetch held by reference (see ``PreparedRequest/adapterBox``).
final class RowAdapterBox: Sendable {
    let adapter: (any RowAdapter)?
    let supplementaryFetch: SupplementaryFetch?

    private init(adapter: (any RowAdapter)?, supplementaryFetch: SupplementaryFetch?) {
        self.adapter = adapter
        self.supplementaryFetch = supplementaryFetch
    }

    /// A box, or nil when there is nothing to hold.
    static func make(adapter: (any RowAdapter)?, supplementaryFetch: SupplementaryFetch?) -> RowAdapterBox? {
        if adapter == nil && supplementaryFetch == nil { return nil }
        return RowAdapterBox(adapter: adapter, supplementaryFetch: supplementaryFetch)
    }
}

// MARK: - Fetching rows

extension FetchRequest where RowDecoder == Row {
    /// A cursor over the fetched rows.
    public func fetchCursor(_ db: Database) throws -> RowCursor {
        try Row.fetchCursor(makePreparedRequest(db, forSingleResult: false))
    }

    /// The fetched rows.
    public func fetchAll(_ db: Database) throws -> [Row] {
        try Row.fetchAll(makePreparedRequest(db, forSingleResult: false))
    }

    /// The distinct fetched rows.
    public func fetchSet(_ db: Database) throws -> Set<Row> {
        try Row.fetchSet(makePreparedRequest(db, forSingleResult: false))
    }

    /// The first fetched row, if any.
    public func fetchOne(_ db: Database) throws -> Row? {
        try Row.fetchOne(makePreparedRequest(db, forSingleResult: true))
    }
}

extension Row {
    /// A cursor over the rows of a request.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RowCursor {
        try fetchCursor(request.makePreparedRequest(db, forSingleResult: false))
    }

    /// The rows of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Row] {
        try fetchAll(request.makePreparedRequest(db, forSingleResult: false))
    }

    /// The distinct rows of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Row> {
        try fetchSet(request.makePreparedRequest(db, forSingleResult: false))
    }

    /// The first row of a request, if any.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Row? {
        try fetchOne(request.makePreparedRequest(db, forSingleResult: true))
    }
}

extension DatabaseValueConvertible {
    /// The values of the leftmost column of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try fetchAll(request.makePreparedRequest(db, forSingleResult: false))
    }

    /// The value of the leftmost column of the first row of a request; nil when there is no row or it is
    /// NULL.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        try fetchOne(request.makePreparedRequest(db, forSingleResult: true))
    }

    /// A cursor over the values of the leftmost column of a request.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> DatabaseValueCursor<Self> {
        try fetchCursor(request.makePreparedRequest(db, forSingleResult: false))
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values of the leftmost column of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try fetchSet(request.makePreparedRequest(db, forSingleResult: false))
    }
}

// MARK: - Fetching values

extension FetchRequest where RowDecoder: DatabaseValueConvertible {
    /// A cursor over the values of the leftmost column.
    public func fetchCursor(_ db: Database) throws -> DatabaseValueCursor<RowDecoder> {
        try RowDecoder.fetchCursor(makePreparedRequest(db, forSingleResult: false))
    }

    /// The values of the leftmost column.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false))
    }

    /// The value of the leftmost column of the first row; nil when there is no row or it is NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(makePreparedRequest(db, forSingleResult: true))
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & Hashable {
    /// The distinct values of the leftmost column.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(makePreparedRequest(db, forSingleResult: false))
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    /// A cursor over the values of the leftmost column, decoded through the fast path.
    public func fetchCursor(_ db: Database) throws -> FastDatabaseValueCursor<RowDecoder> {
        try RowDecoder.fetchCursor(makePreparedRequest(db, forSingleResult: false))
    }

    /// The values of the leftmost column, decoded through the fast path.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false))
    }

    /// The value of the leftmost column of the first row; nil when there is no row or it is NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(makePreparedRequest(db, forSingleResult: true))
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible & Hashable {
    /// The distinct values of the leftmost column.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(makePreparedRequest(db, forSingleResult: false))
    }
}

// MARK: - Fetching records

extension FetchRequest where RowDecoder: FetchableRecord {
    /// A cursor over the fetched records.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> {
        try RowDecoder.fetchCursor(db, self)
    }

    /// The fetched records.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(db, self)
    }

    /// The first fetched record, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(db, self)
    }
}

extension FetchRequest where RowDecoder: FetchableRecord & Hashable {
    /// The distinct fetched records.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(db, self)
    }
}

// MARK: - SQLRequest

/// A request built from raw SQL.
///
/// ```swift
/// let request = SQLRequest<Player>(sql: "SELECT * FROM player WHERE score > ?", arguments: [1000])
/// let players = try request.fetchAll(db)
/// let request: SQLRequest<String> = "SELECT name FROM player WHERE id = \(id)"
/// ```
public struct SQLRequest<RowDecoder>: FetchRequest, Sendable {
    let sqlLiteral: SQL
    let cached: Bool
    /// Adapts the fetched rows (see ``RowAdapter``); nil fetches them as they are.
    public var adapter: (any RowAdapter)?

    /// A request for `sql` and its arguments; `adapter` adapts the fetched rows; `cached` reuses a prepared
    /// statement.
    public init(
        sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil,
        cached: Bool = false
    ) {
        self.init(literal: SQL(sql: sql, arguments: arguments), adapter: adapter, cached: cached)
    }

    /// A request for an SQL literal; `adapter` adapts the fetched rows; `cached` reuses a prepared statement.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.sqlLiteral = sqlLiteral
        self.adapter = adapter
        self.cached = cached
    }

    /// The prepared statement of the request.
    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws
        -> PreparedRequest
    {
        let (sql, arguments) = try sqlLiteral.build(db)
        let statement = try cached ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        return PreparedRequest(statement: statement, adapter: adapter)
    }

    /// `SELECT COUNT(*) FROM (sql)`.
    public func fetchCount(_ db: Database) throws -> Int {
        let (sql, arguments) = try sqlLiteral.build(db)
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(sql))", arguments: arguments) ?? 0
    }
}

extension SQLRequest: ExpressibleByStringInterpolation {
    /// A request for raw SQL.
    public init(stringLiteral: String) {
        self.init(sql: stringLiteral)
    }

    /// A request built by SQL interpolation.
    public init(stringInterpolation: SQLInterpolation) {
        self.init(literal: SQL(stringInterpolation: stringInterpolation))
    }
}
