// Orderings and groupings on the primary key of the queried table, resolved once a connection is available
// (the primary key is read from the schema).

extension TableRequest where Self: OrderedRequest {
    /// Orders by the primary key columns of the table: `ORDER BY "id"`, `ORDER BY "a", "b"` for a composite
    /// key, and `ORDER BY "rowid"` for a table without an explicit primary key.
    ///
    /// The ordering replaces any previous one. Fetching fails with the schema error of
    /// ``Database/primaryKey(_:in:)`` when the table does not exist.
    public func orderByPrimaryKey() -> Self {
        let tableName = databaseTableName
        return orderWhenConnected { db in
            try db.primaryKey(tableName).columns.map { Column($0) }
        }
    }
}

extension TableRequest where Self: AggregatingRequest {
    /// Groups by the primary key: `GROUP BY "id"` for an `INTEGER PRIMARY KEY`, `GROUP BY "rowid"` for other
    /// tables (the rowid identifies a row, whatever the primary key).
    ///
    /// The grouping replaces any previous one. Fetching fails with the schema error of
    /// ``Database/primaryKey(_:in:)`` when the table does not exist.
    public func groupByPrimaryKey() -> Self {
        let tableName = databaseTableName
        return groupWhenConnected { db in
            let primaryKey = try db.primaryKey(tableName)
            if let rowIDColumn = primaryKey.rowIDColumn {
                return [Column(rowIDColumn)]
            }
            if primaryKey.tableHasRowID {
                return [Column.rowID]
            }
            return primaryKey.columns.map { Column($0) }
        }
    }
}

// The record's `databaseComponents` type, under the name that the closures of the request protocols use:
// `filter { $0.score > 1000 }` receives a `DatabaseComponents`.

extension SelectionRequest where Self: TypedRequest, RowDecoder: TableRecord {
    /// The type of the record's ``TableRecord/databaseComponents`` (its `Columns` by default).
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}

extension FilteredRequest where Self: TypedRequest, RowDecoder: TableRecord {
    /// The type of the record's ``TableRecord/databaseComponents`` (its `Columns` by default).
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}

extension OrderedRequest where Self: TypedRequest, RowDecoder: TableRecord {
    /// The type of the record's ``TableRecord/databaseComponents`` (its `Columns` by default).
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}

extension AggregatingRequest where Self: TypedRequest, RowDecoder: TableRecord {
    /// The type of the record's ``TableRecord/databaseComponents`` (its `Columns` by default).
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// The type of the record's ``TableRecord/databaseComponents`` (its `Columns` by default).
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}

extension Table where RowDecoder: TableRecord {
    /// The type of the record's ``TableRecord/databaseComponents`` (its `Columns` by default).
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}
