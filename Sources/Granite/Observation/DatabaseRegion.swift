/// A part of the database: whole tables, some of their columns, some of their rows, or everything.
///
/// Regions describe what a request reads (``DatabaseRegionConvertible/databaseRegion(_:)``) and let observers
/// decide whether a change matters to them (``isModified(byEventsOfKind:)``, ``isModified(by:)``). Table and
/// column names compare case-insensitively, as SQL names do.
///
/// ```swift
/// let region = try Player.filter(id: 1).databaseRegion(db)
/// print(region) // player(id,name,score)[1]
/// ```
public struct DatabaseRegion: Sendable {
    /// The tables of the region by folded name; nil for the full database.
    private var tables: [RegionName: TableRegion]?

    private init(tables: [RegionName: TableRegion]?) {
        self.tables = tables
    }

    /// The empty region.
    public init() {
        self.init(tables: [:])
    }

    /// The region that contains everything, whatever the schema.
    public static let fullDatabase = DatabaseRegion(tables: nil)

    /// Every column and row of `table`.
    init(table: String) {
        self.init(tables: [RegionName(table): TableRegion(columns: nil, rowIDs: nil)])
    }

    /// Every row of the `columns` of `table`.
    init(table: String, columns: Set<String>) {
        self.init(tables: [RegionName(table): TableRegion(columns: Set(columns.map(RegionName.init)), rowIDs: nil)])
    }

    /// The rows of `table` whose rowid is in `rowIDs`, all columns.
    init(table: String, rowIDs: Set<Int64>) {
        self.init(tables: [RegionName(table): TableRegion(columns: nil, rowIDs: rowIDs)])
    }

    /// Whether the region contains nothing.
    public var isEmpty: Bool {
        guard let tables else { return false }
        return tables.values.allSatisfy(\.isEmpty)
    }

    /// Whether the region is the full database.
    public var isFullDatabase: Bool { tables == nil }

    /// The names of the tables of the region (nil for the full database).
    var tableNames: [String]? { tables?.keys.map(\.spelling) }

    /// The region containing what either region contains.
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        guard let tables, let otherTables = other.tables else { return .fullDatabase }
        return DatabaseRegion(tables: tables.merging(otherTables) { $0.union($1) })
    }

    /// Adds `other` to the region.
    public mutating func formUnion(_ other: DatabaseRegion) {
        self = union(other)
    }

    /// The region containing what both regions contain.
    func intersection(_ other: DatabaseRegion) -> DatabaseRegion {
        guard let otherTables = other.tables else { return self }
        guard let tables else { return other }
        var common: [RegionName: TableRegion] = [:]
        for (name, region) in tables {
            guard let otherRegion = otherTables[name] else { continue }
            let both = region.intersection(otherRegion)
            if !both.isEmpty { common[name] = both }
        }
        return DatabaseRegion(tables: common)
    }

    /// The region restricted to the rows of `table` whose rowids are in `rowIDs` (other tables unchanged).
    func restricting(table: String, toRowIDs rowIDs: Set<Int64>) -> DatabaseRegion {
        guard var tables else { return self }
        let name = RegionName(table)
        guard let region = tables[name] else { return self }
        tables[name] = region.intersection(TableRegion(columns: nil, rowIDs: rowIDs))
        return DatabaseRegion(tables: tables)
    }

    /// The region without the engine's internal tables (`sqlite_…`, `granite_…`), which schema introspection
    /// reads and whose changes are never reported.
    func ignoringInternalTables() -> DatabaseRegion {
        guard let tables else { return self }
        return DatabaseRegion(
            tables: tables.filter { name, _ in
                let folded = name.spelling.lowercased()
                return !folded.hasPrefix("sqlite_") && !folded.hasPrefix("granite_")
            })
    }

    /// Whether changes of `eventKind` may modify the region (for updates, when the region holds one of the
    /// updated columns).
    public func isModified(byEventsOfKind eventKind: DatabaseEventKind) -> Bool {
        // The intersection with the kind's modified region, tested without building it: observers ask this for
        // every statement that writes.
        guard let tables else { return true }
        guard let region = tables[RegionName(eventKind.tableName)], !region.isEmpty else { return false }
        guard case .update(_, let updated) = eventKind else { return true }
        guard let columns = region.columns else { return !updated.isEmpty }
        return updated.contains { columns.contains(RegionName($0)) }
    }

    /// Whether `event` modifies the region: its table is in the region, and its rowid too when the region
    /// names rows. An event on a table the region does not list is assumed to matter when it reached an
    /// observer of the region (as GRDB does for changes that virtual tables make to their shadow tables).
    public func isModified(by event: DatabaseEvent) -> Bool {
        guard let tables else { return true }
        guard let region = tables[RegionName(event.tableName)] else { return true }
        return region.contains(rowID: event.rowID)
    }
}

extension DatabaseRegion: Equatable {
    public static func == (lhs: DatabaseRegion, rhs: DatabaseRegion) -> Bool {
        lhs.tables == rhs.tables
    }
}

extension DatabaseRegion: CustomStringConvertible {
    /// `full database`, `empty`, or each table sorted by name with its sorted columns (`*` for all) and
    /// rowids when the region names rows: `player(id,name)[1,2],team(*)`.
    public var description: String {
        guard let tables else { return "full database" }
        if tables.isEmpty { return "empty" }
        return tables.sorted { $0.key.spelling < $1.key.spelling }.map { name, region in
            var text = name.spelling
            if let columns = region.columns {
                text += "(" + columns.map(\.spelling).sorted().joined(separator: ",") + ")"
            } else {
                text += "(*)"
            }
            if let rowIDs = region.rowIDs {
                text += "[" + rowIDs.sorted().map(String.init).joined(separator: ",") + "]"
            }
            return text
        }.joined(separator: ",")
    }
}

extension DatabaseEventKind {
    /// The part of the database the changes of this kind may modify.
    var modifiedRegion: DatabaseRegion {
        switch self {
        case .insert(let table), .delete(let table): return DatabaseRegion(table: table)
        case .update(let table, let columns): return DatabaseRegion(table: table, columns: columns)
        }
    }
}

/// A table or column name that compares ASCII case-insensitively and keeps its first spelling.
struct RegionName: Hashable, Sendable {
    let spelling: String
    private let folded: String

    init(_ spelling: String) {
        self.spelling = spelling
        folded = String(decoding: spelling.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    static func == (lhs: RegionName, rhs: RegionName) -> Bool { lhs.folded == rhs.folded }
    func hash(into hasher: inout Hasher) { hasher.combine(folded) }
}

/// The part of one table in a region.
private struct TableRegion: Equatable, Sendable {
    /// nil for all columns.
    var columns: Set<RegionName>?
    /// nil for all rows.
    var rowIDs: Set<Int64>?

    var isEmpty: Bool { columns?.isEmpty == true || rowIDs?.isEmpty == true }

    func union(_ other: TableRegion) -> TableRegion {
        TableRegion(columns: Self.union(columns, other.columns), rowIDs: Self.union(rowIDs, other.rowIDs))
    }

    func intersection(_ other: TableRegion) -> TableRegion {
        TableRegion(
            columns: Self.intersection(columns, other.columns), rowIDs: Self.intersection(rowIDs, other.rowIDs))
    }

    func contains(rowID: Int64) -> Bool { rowIDs?.contains(rowID) ?? true }

    /// nil stands for everything.
    private static func union<T>(_ a: Set<T>?, _ b: Set<T>?) -> Set<T>? {
        guard let a, let b else { return nil }
        return a.union(b)
    }

    private static func intersection<T>(_ a: Set<T>?, _ b: Set<T>?) -> Set<T>? {
        guard let a else { return b }
        guard let b else { return a }
        return a.intersection(b)
    }
}
