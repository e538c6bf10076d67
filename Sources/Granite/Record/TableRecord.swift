/// A type that is associated with a database table, and builds query interface requests on it.
///
/// ```swift
/// struct Player: TableRecord, FetchableRecord {
///     enum Columns {
///         static let name = Column("name")
///         static let score = Column("score")
///     }
///     …
/// }
/// Player.databaseTableName                        // "player"
/// let best = try Player.order(\.score.desc).fetchOne(db)
/// ```
public protocol TableRecord {
    /// The type of the record's column constants (`enum Columns { static let name = Column("name") }`).
    associatedtype Columns = Never

    /// The value that closures of the query interface receive: by default `Columns.self`, so that
    /// `Player.filter { $0.name == "Arthur" }` and `Player.order(\.score.desc)` work.
    associatedtype DatabaseComponents = Columns.Type

    /// The name of the table, derived from the type name by default (`PostalAddress` → `postalAddress`).
    static var databaseTableName: String { get }

    /// The columns selected by requests: `[.allColumns]` by default. Declare it `[any SQLSelectable]`.
    static var databaseSelection: [any SQLSelectable] { get }

    /// The value handed to query interface closures.
    static var databaseComponents: DatabaseComponents { get }
}

extension TableRecord {
    /// The type name with its leading capitals lowercased: `Place` → `place`, `HTTPRequest` → `httpRequest`.
    public static var databaseTableName: String {
        defaultDatabaseTableName(forTypeName: String(describing: Self.self))
    }

    /// All columns.
    public static var databaseSelection: [any SQLSelectable] { [.allColumns] }
}

extension TableRecord where DatabaseComponents == Columns.Type {
    /// `Columns.self`.
    public static var databaseComponents: DatabaseComponents { Columns.self }
}

/// GRDB's table name rule: keep the leading identifier of the type name (dropping generic arguments and
/// anything after it), then lowercase its leading run of ASCII capitals, except the last one when more
/// characters follow.
func defaultDatabaseTableName(forTypeName description: String) -> String {
    let typeName = String(description.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    let initialCount = typeName.prefix { $0.isASCII && $0.isUppercase }.count
    switch initialCount {
    case typeName.count:
        return typeName.lowercased()
    case 0:
        return typeName
    case 1:
        return typeName.prefix(1).lowercased() + typeName.dropFirst()
    default:
        return typeName.prefix(initialCount - 1).lowercased() + typeName.dropFirst(initialCount - 1)
    }
}

extension TableRecord {
    /// The number of rows in the table: `SELECT COUNT(*) FROM "player"`.
    public static func fetchCount(_ db: Database) throws -> Int {
        try all().fetchCount(db)
    }

    /// Deletes all rows; returns the number of deleted rows.
    @discardableResult
    public static func deleteAll(_ db: Database) throws -> Int {
        try all().deleteAll(db)
    }

    /// Updates all rows; returns the number of updated rows.
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]
    ) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates all rows; returns the number of updated rows.
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: ColumnAssignment...
    ) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates all rows with assignments built from the record's columns.
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignment: (DatabaseComponents) throws -> ColumnAssignment
    ) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, [assignment(databaseComponents)])
    }

    /// Updates all rows with assignments built from the record's columns.
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments(databaseComponents))
    }
}

extension FetchableRecord where Self: TableRecord {
    /// A cursor over all records of the table.
    public static func fetchCursor(_ db: Database) throws -> RecordCursor<Self> {
        try all().fetchCursor(db)
    }

    /// All records of the table.
    public static func fetchAll(_ db: Database) throws -> [Self] {
        try all().fetchAll(db)
    }

    /// A record of the table (`LIMIT 1`), if any.
    public static func fetchOne(_ db: Database) throws -> Self? {
        try all().fetchOne(db)
    }
}

extension FetchableRecord where Self: TableRecord & Hashable {
    /// All distinct records of the table.
    public static func fetchSet(_ db: Database) throws -> Set<Self> {
        try all().fetchSet(db)
    }
}
