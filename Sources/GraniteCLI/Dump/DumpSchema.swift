// The schema objects a dump writes: the user's tables, indexes, triggers and views, all or those of chosen
// tables.

import GraniteSQL
import GraniteStorage

struct DumpSchema {
    /// A row of `sqlite_master`.
    struct Object {
        var type: String
        var name: String
        var tableName: String
        var sql: String
    }

    /// The chosen tables, in creation order.
    private(set) var tables: [Object] = []
    /// The chosen indexes, triggers and views, in creation order.
    private(set) var otherObjects: [Object] = []
    /// Whether no table was named: the dump is the whole database.
    let isWholeDatabase: Bool

    /// The objects of the database, not the internal tables (`sqlite_…`, `granite_…`) nor the automatic
    /// indexes, which have no SQL. With `names`, only those tables and views, and the indexes and triggers of
    /// those tables; throws for a name that is no table or view.
    init(_ connection: SQLConnection, selecting names: [String]) throws {
        let result = try connection.query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL")
        let objects = result.rows.compactMap { row -> Object? in
            guard row.count == 4, case .text(let type) = row[0], case .text(let name) = row[1],
                case .text(let tableName) = row[2], case .text(let sql) = row[3]
            else { return nil }
            let lowercased = name.lowercased()
            if lowercased.hasPrefix("sqlite_") || lowercased.hasPrefix("granite_") { return nil }
            return Object(type: type, name: name, tableName: tableName, sql: sql)
        }
        isWholeDatabase = names.isEmpty
        let selection = Set(names.map { $0.lowercased() })
        if !names.isEmpty {
            let known = Set(objects.filter { $0.type == "table" || $0.type == "view" }.map { $0.name.lowercased() })
            for name in names where !known.contains(name.lowercased()) {
                throw CLIError("no such table: \(name)")
            }
        }
        for object in objects {
            let isSelected = names.isEmpty || selection.contains(object.tableName.lowercased())
                || selection.contains(object.name.lowercased())
            guard isSelected else { continue }
            if object.type == "table" { tables.append(object) } else { otherObjects.append(object) }
        }
    }
}
