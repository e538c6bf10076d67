/// A database schema: `main`, `temp` (the connection's temporary schema), or an attached database (Granite has
/// no attached databases).
///
/// ```swift
/// let id = DatabaseObjectID(name: "player", schemaID: .main)
/// ```
public struct DatabaseSchemaID: Hashable, Sendable {
    private enum Kind: Hashable, Sendable {
        case main
        case temp
        case attached(String)
    }

    private let kind: Kind

    /// The `main` schema.
    public static let main = DatabaseSchemaID(kind: .main)

    /// The `temp` schema.
    public static let temp = DatabaseSchemaID(kind: .temp)

    /// The schema of an attached database.
    public static func attached(_ name: String) -> DatabaseSchemaID {
        DatabaseSchemaID(kind: .attached(name))
    }

    /// The schema name, as written in SQL.
    public var name: String {
        switch kind {
        case .main: return "main"
        case .temp: return "temp"
        case .attached(let name): return name
        }
    }

    /// The name of the table that lists the schema objects (`sqlite_master`, `sqlite_temp_master`,
    /// `<name>.sqlite_master`).
    public var schemaTableName: String {
        switch kind {
        case .main: return "sqlite_master"
        case .temp: return "sqlite_temp_master"
        case .attached(let name): return "\(name).sqlite_master"
        }
    }
}

/// A schema object (table, index…) identified by its name and schema.
public struct DatabaseObjectID: Hashable, Sendable {
    /// The object name.
    public var name: String

    /// The schema of the object.
    public var schemaID: DatabaseSchemaID

    /// An object identifier.
    public init(name: String, schemaID: DatabaseSchemaID) {
        self.name = name
        self.schemaID = schemaID
    }
}
