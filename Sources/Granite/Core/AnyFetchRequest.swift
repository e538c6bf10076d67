/// A type-erased ``FetchRequest``: any request, behind a single type.
///
/// ```swift
/// func playersRequest(sortedByScore: Bool) -> AnyFetchRequest<Player> {
///     if sortedByScore {
///         return AnyFetchRequest(Player.order(Column("score").desc))
///     }
///     return AnyFetchRequest(SQLRequest<Player>(sql: "SELECT * FROM player"))
/// }
/// ```
///
/// The erased request keeps the SQL, the single-row optimisation and the counting strategy of the request
/// it wraps.
public struct AnyFetchRequest<RowDecoder>: FetchRequest {
    private let base: any FetchRequest

    private init(base: any FetchRequest) {
        self.base = base
    }

    /// The request `request`, erased.
    public init(_ request: some FetchRequest<RowDecoder>) {
        self.init(base: request)
    }

    /// The same request, decoding its rows as `type`: `AnyFetchRequest(Player.all()).asRequest(of: Row.self)`.
    public func asRequest<T>(of type: T.Type) -> AnyFetchRequest<T> {
        AnyFetchRequest<T>(base: base)
    }

    /// The SQL of the wrapped request, for use as a subquery.
    public var sqlSubquery: SQLSubquery { base.sqlSubquery }

    /// The number of rows of the wrapped request, counted as it counts them.
    public func fetchCount(_ db: Database) throws -> Int {
        try base.fetchCount(db)
    }

    /// The prepared statement of the wrapped request; `singleResult` lets it add `LIMIT 1`.
    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws
        -> PreparedRequest
    {
        try base.makePreparedRequest(db, forSingleResult: singleResult)
    }
}
