/// A value that names a ``DatabaseRegion``: a region itself, a ``Table``, or a request (the region it reads).
///
/// ```swift
/// let observation = DatabaseRegionObservation(tracking: Table("player"), Player.filter(id: 1))
/// ```
public protocol DatabaseRegionConvertible: Sendable {
    /// The region, in the schema of `db`.
    func databaseRegion(_ db: Database) throws -> DatabaseRegion
}

extension DatabaseRegionConvertible where Self == DatabaseRegion {
    /// The full database.
    public static var fullDatabase: DatabaseRegion { DatabaseRegion.fullDatabase }
}

extension DatabaseRegion: DatabaseRegionConvertible {
    /// The region itself.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { self }
}

/// A type-erased ``DatabaseRegionConvertible``, or a region computed by a closure.
public struct AnyDatabaseRegionConvertible: DatabaseRegionConvertible {
    private let region: @Sendable (Database) throws -> DatabaseRegion

    /// The region `region` returns.
    public init(_ region: @escaping @Sendable (Database) throws -> DatabaseRegion) {
        self.region = region
    }

    /// The region of `region`.
    public init(_ region: some DatabaseRegionConvertible) {
        self.region = { try region.databaseRegion($0) }
    }

    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { try region(db) }
}

extension Table: DatabaseRegionConvertible {
    /// All columns and rows of the table.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        DatabaseRegion(table: tableName)
    }
}

extension FetchRequest {
    /// The region the request reads: the tables and columns its statement reads, narrowed to rowids when the
    /// request filters its table on primary key values.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        try makePreparedRequest(db, forSingleResult: false).statement.databaseRegion
    }
}

extension DatabaseRegion {
    /// The union of the regions of `regions`.
    static func union(_ regions: [any DatabaseRegionConvertible], in db: Database) throws -> DatabaseRegion {
        try regions.reduce(into: DatabaseRegion()) { $0.formUnion(try $1.databaseRegion(db)) }
    }
}
