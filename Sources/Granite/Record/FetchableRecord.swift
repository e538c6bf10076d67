import Foundation

/// A type that can be built from a database row, and fetched from SQL and requests.
///
/// ```swift
/// struct Player: FetchableRecord {
///     var id: Int64
///     var name: String
///     init(row: Row) {
///         id = row["id"]
///         name = row["name"]
///     }
/// }
/// let players = try Player.fetchAll(db, sql: "SELECT * FROM player")
/// ```
public protocol FetchableRecord {
    /// Decodes a record from `row`. The row is reused during iteration: call `row.copy()` to keep it.
    init(row: Row) throws

    /// The user info of the decoders of a Decodable record (empty by default).
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// The JSON decoder of a JSON column of a Decodable record.
    static func databaseJSONDecoder(for column: String) -> JSONDecoder

    /// How a Decodable record decodes the `Data` of a column (`.deferredToData` by default).
    static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy

    /// How a Decodable record decodes the `Date` of a column (`.deferredToDate` by default).
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy

    /// How a Decodable record maps columns to coding keys (`.useDefaultKeys` by default).
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { get }
}

extension FetchableRecord {
    /// Empty.
    public static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [:] }

    /// A JSON decoder for base64 data, dates in milliseconds since 1970, throwing on non-conforming floats,
    /// with the ``databaseDecodingUserInfo``.
    public static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        decoder.userInfo = sendableUserInfo(databaseDecodingUserInfo)
        return decoder
    }

    /// `.deferredToData`.
    public static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy {
        .deferredToData
    }

    /// `.deferredToDate`.
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .deferredToDate
    }

    /// `.useDefaultKeys`.
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .useDefaultKeys }
}

extension FetchableRecord {
    /// A cursor over the records of `sql`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> RecordCursor<Self> {
        try fetchCursor(db.makeStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The records of `sql`.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try fetchAll(db.makeStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The first record of `sql`, if any.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try fetchOne(db.makeStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// A cursor over the records of an SQL literal.
    public static func fetchCursor(_ db: Database, literal sqlLiteral: SQL) throws -> RecordCursor<Self> {
        try fetchCursor(db, SQLRequest<Self>(literal: sqlLiteral))
    }

    /// The records of an SQL literal.
    public static func fetchAll(_ db: Database, literal sqlLiteral: SQL) throws -> [Self] {
        try fetchAll(db, SQLRequest<Self>(literal: sqlLiteral))
    }

    /// The first record of an SQL literal, if any.
    public static func fetchOne(_ db: Database, literal sqlLiteral: SQL) throws -> Self? {
        try fetchOne(db, SQLRequest<Self>(literal: sqlLiteral))
    }

    /// A cursor over the records of a prepared statement.
    ///
    /// - parameter statement: A prepared statement.
    /// - parameter arguments: Replaces the statement's arguments when not nil.
    /// - parameter adapter: Adapts the rows the records decode from (see ``RowAdapter``).
    public static func fetchCursor(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> RecordCursor<Self> {
        try RecordCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// The records of a prepared statement.
    ///
    /// - parameter statement: A prepared statement.
    /// - parameter arguments: Replaces the statement's arguments when not nil.
    /// - parameter adapter: Adapts the rows the records decode from (see ``RowAdapter``).
    public static func fetchAll(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// The first record of a prepared statement, if any.
    ///
    /// - parameter statement: A prepared statement.
    /// - parameter arguments: Replaces the statement's arguments when not nil.
    /// - parameter adapter: Adapts the row the record decodes from (see ``RowAdapter``).
    public static func fetchOne(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try fetchCursor(statement, arguments: arguments, adapter: adapter).next()
    }

    /// A cursor over the records of a request.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RecordCursor<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        try prepared.checkCursorSupport()
        return try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    /// The records of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if prepared.supplementaryFetch != nil { return try fetchAllWithSupplementaryFetch(prepared) }
        return try fetchAll(prepared.statement, adapter: prepared.adapter)
    }

    /// The first record of a request, if any.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: true)
        if prepared.supplementaryFetch != nil { return try Row.fetchOne(prepared).map { try Self(row: $0) } }
        return try fetchOne(prepared.statement, adapter: prepared.adapter)
    }
}

extension FetchableRecord where Self: Hashable {
    /// The distinct records of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try fetchSet(db.makeStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The distinct records of an SQL literal.
    public static func fetchSet(_ db: Database, literal sqlLiteral: SQL) throws -> Set<Self> {
        try fetchSet(db, SQLRequest<Self>(literal: sqlLiteral))
    }

    /// The distinct records of a prepared statement.
    ///
    /// - parameter statement: A prepared statement.
    /// - parameter arguments: Replaces the statement's arguments when not nil.
    /// - parameter adapter: Adapts the rows the records decode from (see ``RowAdapter``).
    public static func fetchSet(
        _ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// The distinct records of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if prepared.supplementaryFetch != nil { return try Set(fetchAllWithSupplementaryFetch(prepared)) }
        return try fetchSet(prepared.statement, adapter: prepared.adapter)
    }
}

/// A cursor of records decoded from the rows of a statement.
///
/// ```swift
/// let players = try Player.fetchCursor(db)
/// while let player = try players.next() { print(player.name) }
/// ```
public final class RecordCursor<Record: FetchableRecord>: DatabaseCursor {
    /// The cursor iterates records of type `Record`.
    public typealias Element = Record

    private let rows: RowCursor

    /// The statement the cursor runs.
    public var statement: Statement { rows.statement }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)?) throws {
        rows = try RowCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// The next record.
    public func next() throws -> Record? {
        guard let row = try rows.next() else { return nil }
        return try Record(row: row)
    }
}
