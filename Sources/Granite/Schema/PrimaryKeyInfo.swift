/// The primary key of a table, as ``Database/primaryKey(_:in:)`` describes it.
///
/// ```swift
/// let pk = try db.primaryKey("player")
/// pk.columns      // ["id"]
/// pk.rowIDColumn  // "id" for an INTEGER PRIMARY KEY, nil otherwise
/// ```
public struct PrimaryKeyInfo: Sendable {
    private enum Kind: Sendable {
        case hiddenRowID
        case rowID(ColumnInfo)
        case regular([ColumnInfo])
        /// The key of a `WITHOUT ROWID` table, other than a single INTEGER column (which GRDB reports as the
        /// rowid whatever the table's options).
        case withoutRowID([ColumnInfo])
        /// The columns the schema source names as a view's key: like `regular`, but the view has no rowid.
        case view([ColumnInfo])
    }

    // One enum, no other stored property: the struct stays one payload wide, and copying it stays inline.
    private let kind: Kind

    /// The hidden `rowid` of a table that declares no primary key.
    static let hiddenRowID = PrimaryKeyInfo(kind: .hiddenRowID)

    /// An `INTEGER PRIMARY KEY` column, which is the rowid.
    static func rowID(_ column: ColumnInfo) -> PrimaryKeyInfo {
        PrimaryKeyInfo(kind: .rowID(column))
    }

    /// Any other primary key; `tableHasRowID` is false for a `WITHOUT ROWID` table.
    static func regular(_ columns: [ColumnInfo], tableHasRowID: Bool = true) -> PrimaryKeyInfo {
        PrimaryKeyInfo(kind: tableHasRowID ? .regular(columns) : .withoutRowID(columns))
    }

    /// The primary key columns; `["rowid"]` for the hidden rowid.
    public var columns: [String] {
        switch kind {
        case .hiddenRowID: return [Column.rowID.name]
        case .rowID(let column): return [column.name]
        case .regular(let columns), .withoutRowID(let columns), .view(let columns): return columns.map(\.name)
        }
    }

    /// The column that is the rowid (an `INTEGER PRIMARY KEY`), or nil.
    public var rowIDColumn: String? {
        if case .rowID(let column) = kind { return column.name }
        return nil
    }

    /// The columns the ``Database/schemaSource`` names as the primary key of a view (which has no rowid).
    static func view(_ columns: [ColumnInfo]) -> PrimaryKeyInfo {
        PrimaryKeyInfo(kind: .view(columns))
    }

    /// Whether the primary key is the rowid, hidden or not.
    public var isRowID: Bool {
        switch kind {
        case .hiddenRowID, .rowID: return true
        case .regular, .withoutRowID, .view: return false
        }
    }

    /// Whether the table has a rowid: false for a `WITHOUT ROWID` table (unless its key is a single INTEGER
    /// column, which GRDB takes for the rowid) and for a view.
    var tableHasRowID: Bool {
        switch kind {
        case .hiddenRowID, .rowID, .regular: return true
        case .withoutRowID, .view: return false
        }
    }

    /// The columns, or nil for the hidden rowid.
    var columnInfos: [ColumnInfo]? {
        switch kind {
        case .hiddenRowID: return nil
        case .rowID(let column): return [column]
        case .regular(let columns), .withoutRowID(let columns), .view(let columns): return columns
        }
    }
}
