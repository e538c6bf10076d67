import GraniteStorage

/// One indexed column (or expression) of an ``IndexDefinition``.
package struct IndexColumn: Sendable, Equatable {
    /// What is indexed.
    package enum Target: Sendable, Equatable {
        /// A table column, by position in ``TableDefinition/columns``.
        case column(Int)
        /// An expression over the table's columns.
        case expression(SQLExpression)
    }

    /// The indexed column or expression.
    package var target: Target
    /// The effective collation: the one written in the index, else (for a plain column) the column's; nil means
    /// `BINARY`.
    package var collation: String?
    /// The sort order.
    package var order: SortOrder

    /// Creates an indexed column.
    package init(target: Target, collation: String? = nil, order: SortOrder = .ascending) {
        self.target = target
        self.collation = collation
        self.order = order
    }
}

/// The schema of one index: a `CREATE INDEX` or an automatic index enforcing a `UNIQUE` / `PRIMARY KEY`
/// constraint. Its entries live in the storage index tree ``storageName``.
package struct IndexDefinition: Sendable, Equatable {
    /// Why the index exists (SQLite's `c`, `u` and `pk` origins).
    package enum Origin: String, Sendable, Equatable {
        /// `CREATE INDEX`.
        case createIndex = "c"
        /// A `UNIQUE` constraint.
        case unique = "u"
        /// A `PRIMARY KEY` that is not the rowid.
        case primaryKey = "pk"
    }

    /// The index name.
    package var name: String
    /// The indexed table's name.
    package var table: String
    /// Whether keys must be unique.
    package var unique: Bool
    /// The indexed columns, in key order.
    package var columns: [IndexColumn]
    /// The partial-index condition, if any (stored; evaluation may be unsupported).
    package var whereClause: SQLExpression?
    /// The stored `CREATE INDEX` text; nil for automatic indexes.
    package var sql: String?
    /// The parsed `CREATE INDEX` statement; nil for automatic indexes.
    package var statement: CreateIndexStatement?
    /// Why the index exists.
    package var origin: Origin
    /// The `ON CONFLICT` clause of the constraint of an automatic index, if any.
    package var onConflict: ConflictResolution?
    /// The root page of the index's storage tree (0 until stored).
    package var rootPage: PageNumber
    /// The name of the index's tree in the storage catalog (`i:<schema rowid>`).
    package var storageName: String
    /// The rowid of the index's row in `granite_schema`.
    package var schemaRowid: Int64

    /// Whether the index is automatic (enforces a constraint; cannot be dropped on its own).
    package var isAutomatic: Bool { origin != .createIndex }

    /// Derives a definition from a `CREATE INDEX` statement on `table`; throws ``SchemaError`` (`no such column: c`)
    /// for unknown plain columns.
    package init(
        _ statement: CreateIndexStatement, sql: String?, on table: TableDefinition, rootPage: PageNumber = 0,
        storageName: String = "", schemaRowid: Int64 = 0
    ) throws {
        name = statement.name.name
        self.table = table.name
        unique = statement.unique
        whereClause = statement.whereClause
        self.sql = sql
        self.statement = statement
        origin = .createIndex
        onConflict = nil
        self.rootPage = rootPage
        self.storageName = storageName
        self.schemaRowid = schemaRowid
        columns = try statement.columns.map { indexed in
            let order = indexed.order ?? .ascending
            if let columnName = indexed.columnName {
                guard let position = table.columnIndex(named: columnName) else {
                    throw SchemaError(.noSuchColumn(ColumnReference(column: columnName)))
                }
                return IndexColumn(
                    target: .column(position), collation: indexed.collation ?? table.columns[position].collation,
                    order: order)
            }
            return IndexColumn(target: .expression(indexed.expression), collation: indexed.collation, order: order)
        }
    }

    /// The automatic index enforcing `constraint` of `table`.
    package init(
        automatic constraint: UniqueConstraint, on table: TableDefinition, rootPage: PageNumber = 0,
        storageName: String = "", schemaRowid: Int64 = 0
    ) {
        name = constraint.indexName
        self.table = table.name
        unique = true
        columns = constraint.columns.map {
            IndexColumn(target: .column($0.column), collation: $0.collation, order: $0.order)
        }
        whereClause = nil
        sql = nil
        statement = nil
        origin = constraint.isPrimaryKey ? .primaryKey : .unique
        onConflict = constraint.onConflict
        self.rootPage = rootPage
        self.storageName = storageName
        self.schemaRowid = schemaRowid
    }
}
