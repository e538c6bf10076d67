// GRDB's cursor members that the generic Cursor extensions do not declare: element type names, the statement
// information of database cursors, and forEach on the cursor adapters.

extension DatabaseCursor {
    /// The SQL of the statement the cursor runs.
    public var sql: String { statement.sql }

    /// The arguments of the statement the cursor runs.
    public var arguments: StatementArguments { statement.arguments }

    /// The number of columns of the statement's rows.
    public var columnCount: Int { statement.columnCount }

    /// The names of the columns of the statement's rows, from left to right.
    public var columnNames: [String] { statement.columnNames }

    /// Calls `body` with each remaining element, in order; rethrows the errors of stepping and of `body`
    /// (the cursor stops there).
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() { try body(element) }
    }
}

extension RowCursor {
    /// The element: the cursor's reused row.
    public typealias Element = Row
}

extension DatabaseValueCursor {
    /// The element: a value of the statement's leftmost (or adapted leftmost) column.
    public typealias Element = Value
}

extension FastDatabaseValueCursor {
    /// The element: a value of the statement's leftmost (or adapted leftmost) column.
    public typealias Element = Value
}

extension EnumeratedCursor {
    /// Calls `body` with each remaining `(offset, element)` pair, in order.
    public func forEach(_ body: ((Int, Base.Element)) throws -> Void) throws {
        while let pair = try next() { try body(pair) }
    }
}

extension FilterCursor {
    /// Calls `body` with each remaining element that passes the filter, in order.
    public func forEach(_ body: (Base.Element) throws -> Void) throws {
        while let element = try next() { try body(element) }
    }
}

extension MapCursor {
    /// Calls `body` with each remaining transformed element, in order.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() { try body(element) }
    }
}

extension Cursor {
    /// A cursor without the first element.
    public func dropFirst() -> DropFirstCursor<Self> {
        dropFirst(1)
    }

    /// The elements except the last one, in an array.
    public func dropLast() throws -> [Element] {
        try dropLast(1)
    }
}
