// Fetching from a prepared request: its statement, through its adapter. The request-level fetch methods of
// FetchRequest.swift go through these, so that an adapter set by SQLRequest or adapted(_:) always applies.

extension Row {
    static func fetchCursor(_ prepared: PreparedRequest) throws -> RowCursor {
        try prepared.checkCursorSupport()
        return try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchAll(_ prepared: PreparedRequest) throws -> [Row] {
        let rows = try fetchAll(prepared.statement, adapter: prepared.adapter)
        if let supplementaryFetch = prepared.supplementaryFetch {
            try supplementaryFetch(prepared.statement.database, rows)
        }
        return rows
    }

    static func fetchSet(_ prepared: PreparedRequest) throws -> Set<Row> {
        if prepared.supplementaryFetch != nil { return try Set(fetchAll(prepared)) }
        return try fetchSet(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchOne(_ prepared: PreparedRequest) throws -> Row? {
        guard let row = try fetchOne(prepared.statement, adapter: prepared.adapter) else { return nil }
        if let supplementaryFetch = prepared.supplementaryFetch {
            try supplementaryFetch(prepared.statement.database, [row])
        }
        return row
    }
}

extension FetchableRecord {
    /// The records of a prepared request whose rows need a supplementary fetch before they are decoded.
    static func fetchAllWithSupplementaryFetch(_ prepared: PreparedRequest) throws -> [Self] {
        try Row.fetchAll(prepared).map { try Self(row: $0) }
    }
}

extension PreparedRequest {
    /// Cursors iterate rows one by one: the rows of a supplementary fetch can not be attached to them.
    ///
    /// - throws: `SQLITE_MISUSE` when the request has a supplementary fetch.
    func checkCursorSupport() throws {
        if supplementaryFetch != nil {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "Not implemented: fetchCursor with supplementary fetch")
        }
    }
}

extension DatabaseValueConvertible {
    static func fetchCursor(_ prepared: PreparedRequest) throws -> DatabaseValueCursor<Self> {
        try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchAll(_ prepared: PreparedRequest) throws -> [Self] {
        try fetchAll(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchOne(_ prepared: PreparedRequest) throws -> Self? {
        try fetchOne(prepared.statement, adapter: prepared.adapter)
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    static func fetchSet(_ prepared: PreparedRequest) throws -> Set<Self> {
        try fetchSet(prepared.statement, adapter: prepared.adapter)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    static func fetchCursor(_ prepared: PreparedRequest) throws -> FastDatabaseValueCursor<Self> {
        try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchAll(_ prepared: PreparedRequest) throws -> [Self] {
        try fetchAll(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchOne(_ prepared: PreparedRequest) throws -> Self? {
        try fetchOne(prepared.statement, adapter: prepared.adapter)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible & Hashable {
    static func fetchSet(_ prepared: PreparedRequest) throws -> Set<Self> {
        try fetchSet(prepared.statement, adapter: prepared.adapter)
    }
}
