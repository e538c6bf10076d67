extension FetchRequest {
    /// A request that fetches the same rows as this one, adapted by the adapter `adapter` returns.
    ///
    /// ```swift
    /// let request = Player.all().adapted { _ in ScopeAdapter(["team": SuffixRowAdapter(fromIndex: 3)]) }
    /// ```
    ///
    /// When this request already has an adapter, the new adapter applies to the columns of the previous one
    /// (whose scopes are not kept).
    ///
    /// - parameter adapter: Builds the adapter once a connection is available (it may look at the schema).
    public func adapted(
        _ adapter: @escaping @Sendable (Database) throws -> any RowAdapter
    ) -> AdaptedFetchRequest<Self> {
        AdaptedFetchRequest(base: self, adapter: adapter)
    }
}

/// A request whose rows are adapted by a row adapter, built with ``FetchRequest/adapted(_:)``.
public struct AdaptedFetchRequest<Base: FetchRequest> {
    let base: Base
    let adapter: @Sendable (Database) throws -> any RowAdapter
}

extension AdaptedFetchRequest: FetchRequest {
    /// The type that decodes the fetched rows: the base request's.
    public typealias RowDecoder = Base.RowDecoder

    /// The base request's SQL: an adapter changes how rows are read, not the SQL, so as a subquery the
    /// adapted request is its base request.
    public var sqlSubquery: SQLSubquery { base.sqlSubquery }

    /// The base request's number of rows (adapters change columns, not rows).
    public func fetchCount(_ db: Database) throws -> Int {
        try base.fetchCount(db)
    }

    /// The base request's statement, with the adapter (applied after the base request's adapter, if any).
    ///
    /// - throws: The base request's errors, and those of the adapter builder.
    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws
        -> PreparedRequest
    {
        var prepared = try base.makePreparedRequest(db, forSingleResult: singleResult)
        let adapter = try self.adapter(db)
        if let baseAdapter = prepared.adapter {
            prepared.adapter = ChainedAdapter(first: baseAdapter, second: adapter)
        } else {
            prepared.adapter = adapter
        }
        return prepared
    }
}

extension AdaptedFetchRequest: Sendable where Base: Sendable {}

extension SQLRequest where RowDecoder == Row {
    /// A request of rows for `sql` and its arguments; `adapter` adapts the fetched rows; `cached` reuses a
    /// prepared statement. Lets `SQLRequest(sql: ...)` fetch rows without naming the type.
    public init(
        sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil,
        cached: Bool = false
    ) {
        self.init(literal: SQL(sql: sql, arguments: arguments), adapter: adapter, cached: cached)
    }

    /// A request of rows for an SQL literal; `adapter` adapts the fetched rows; `cached` reuses a prepared
    /// statement.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.init(literal: sqlLiteral, adapter: adapter, cached: cached, rowDecoder: Row.self)
    }
}

extension SQLRequest {
    /// The designated initializer, which the `Row` initializers above call without calling themselves.
    init(literal sqlLiteral: SQL, adapter: (any RowAdapter)?, cached: Bool, rowDecoder: RowDecoder.Type) {
        self.sqlLiteral = sqlLiteral
        self.adapter = adapter
        self.cached = cached
    }
}
