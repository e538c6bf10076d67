// Fetching from a prepared request: its statement, through its adapter. The request-level fetch methods of
// FetchRequest.swift go through these, so that an adapter set by SQLRequest or adapted(_:) always applies.

extension Row {
    static func fetchCursor(_ prepared: PreparedRequest) throws -> RowCursor {
        try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchAll(_ prepared: PreparedRequest) throws -> [Row] {
        try fetchAll(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchSet(_ prepared: PreparedRequest) throws -> Set<Row> {
        try fetchSet(prepared.statement, adapter: prepared.adapter)
    }

    static func fetchOne(_ prepared: PreparedRequest) throws -> Row? {
        try fetchOne(prepared.statement, adapter: prepared.adapter)
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
