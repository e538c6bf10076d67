// Row adapters: views of a fetched row that select, rename and group its columns, resolved once per statement
// into an index mapping (so reading an adapted value is an array access, and unadapted rows pay nothing).

/// The columns an adapter is resolved against: the statement's columns, or the columns of another adapter
/// when adapters are chained. Each column is its index in the statement row and the name it shows.
///
/// Not for application use: it appears in ``RowAdapter``'s requirement so that adapters defined by Granite can
/// conform from any file.
public struct _RowAdapterColumns {
    /// The index in the statement row of each column, from left to right.
    let baseIndexes: [Int]
    /// The names the columns show, with Granite's case-insensitive, leftmost-wins lookup.
    let layout: RowLayout

    init(baseIndexes: [Int], names: [String]) {
        self.baseIndexes = baseIndexes
        layout = RowLayout(names: names)
    }

    /// The columns of a statement: every column, unchanged.
    init(statementLayout: RowLayout) {
        baseIndexes = Array(statementLayout.names.indices)
        layout = statementLayout
    }

    /// The columns at `positions` (positions in this column list), keeping their names.
    func selecting(_ positions: some Sequence<Int>) -> _RowAdapterColumns {
        var indexes: [Int] = []
        var names: [String] = []
        for position in positions {
            indexes.append(baseIndexes[position])
            names.append(layout.names[position])
        }
        return _RowAdapterColumns(baseIndexes: indexes, names: names)
    }

    var count: Int { baseIndexes.count }
    var names: [String] { layout.names }
}

/// An adapter resolved against the columns of a statement: the columns of the adapted row, and the adapters of
/// its scopes (resolved against the same statement columns).
///
/// Not for application use: it appears in ``RowAdapter``'s requirement.
public struct _ResolvedRowAdapter {
    /// The columns of the adapted row.
    let columns: _RowAdapterColumns
    /// The scopes of the adapted row, by name.
    let scopes: [String: _ResolvedRowAdapter]

    init(columns: _RowAdapterColumns, scopes: [String: _ResolvedRowAdapter] = [:]) {
        self.columns = columns
        self.scopes = scopes
    }
}

/// A row adapter presents the rows of a request differently: it selects and renames columns, and defines
/// *scopes*, named sub-rows that records can decode from (``Row/scopes``).
///
/// Adapters are given to fetching methods (`Row.fetchAll(db, sql: ..., adapter: ...)`), to ``SQLRequest``, and
/// to any request with ``FetchRequest/adapted(_:)``:
///
/// ```swift
/// // [id:1 name:"Arthur"] with a "score" scope [score:100]
/// let adapter = ScopeAdapter(base: RangeRowAdapter(0..<2), scopes: ["score": SuffixRowAdapter(fromIndex: 2)])
/// let row = try Row.fetchOne(db, sql: "SELECT id, name, score FROM player", adapter: adapter)!
/// ```
///
/// Granite provides ``ColumnMapping``, ``SuffixRowAdapter``, ``RangeRowAdapter``, ``ScopeAdapter``,
/// ``EmptyRowAdapter`` and ``RenameColumnAdapter``; they can be combined.
public protocol RowAdapter: Sendable {
    /// Resolves the adapter against the columns of a statement, once per statement execution. Throws a
    /// ``DatabaseError`` (`SQLITE_MISUSE`) when the adapter does not fit the columns.
    ///
    /// Not for application use: build adapters from the ones Granite provides.
    func _resolved(against columns: _RowAdapterColumns) throws -> _ResolvedRowAdapter
}

extension RowAdapter {
    /// An adapter that shows the same columns as this one, and adds `scopes` to those this one defines (a scope
    /// of `scopes` replaces a scope of the same name). Returns this adapter when `scopes` is empty.
    ///
    /// - parameter scopes: Adapters of the scopes to add, by name, applied to the unadapted row.
    public func addingScopes(_ scopes: [String: any RowAdapter]) -> any RowAdapter {
        scopes.isEmpty ? self : ScopeAdapter(base: self, scopes: scopes)
    }

    /// Resolves the adapter against the columns of a statement.
    func resolved(forStatementLayout layout: RowLayout) throws -> _ResolvedRowAdapter {
        try _resolved(against: _RowAdapterColumns(statementLayout: layout))
    }
}

/// An adapter that shows no column (and no scope).
///
/// ```swift
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a", adapter: EmptyRowAdapter())!
/// row.isEmpty // true
/// ```
public struct EmptyRowAdapter: RowAdapter, Sendable {
    /// An adapter that shows no column.
    public init() {}

    /// No column.
    public func _resolved(against columns: _RowAdapterColumns) throws -> _ResolvedRowAdapter {
        _ResolvedRowAdapter(columns: columns.selecting([]))
    }
}

/// An adapter that shows some columns under other names.
///
/// ```swift
/// // [id:1 name:"Arthur"]
/// let adapter = ColumnMapping(["id": "playerId", "name": "playerName"])
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS playerId, 'Arthur' AS playerName", adapter: adapter)!
/// ```
///
/// The adapted row shows the mapped columns in the order of the columns they read, and no other column.
public struct ColumnMapping: RowAdapter, Sendable {
    /// Source column names (case-insensitive), by the names the adapted row shows them under.
    let mapping: [String: String]

    /// An adapter that shows the columns named by the values of `mapping` under the names of its keys.
    ///
    /// Fetching with the adapter throws a ``DatabaseError`` (`SQLITE_MISUSE`) when a value of `mapping` names no
    /// column of the fetched row.
    public init(_ mapping: [String: String]) {
        self.mapping = mapping
    }

    /// The mapped columns, ordered as the columns they read.
    public func _resolved(against columns: _RowAdapterColumns) throws -> _ResolvedRowAdapter {
        var mapped: [(position: Int, name: String)] = []
        for (name, sourceName) in mapping {
            guard let position = columns.layout.index(of: sourceName) else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "Mapping references missing column \(sourceName). "
                        + "Valid column names are: \(columns.names.joined(separator: ", ")).")
            }
            mapped.append((position, name))
        }
        // Dictionary order is arbitrary: the source order makes the adapted row deterministic.
        mapped.sort { $0.position < $1.position }
        return _ResolvedRowAdapter(
            columns: _RowAdapterColumns(
                baseIndexes: mapped.map { columns.baseIndexes[$0.position] }, names: mapped.map(\.name)))
    }
}

/// An adapter that shows the columns from an index to the end of the row.
///
/// ```swift
/// // [b:2 c:3]
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: SuffixRowAdapter(fromIndex: 1))!
/// ```
public struct SuffixRowAdapter: RowAdapter, Sendable {
    let index: Int

    /// An adapter that shows the columns from `index` (included) to the end of the row.
    ///
    /// Fetching with the adapter throws a ``DatabaseError`` (`SQLITE_MISUSE`) when `index` is negative or beyond
    /// the number of columns.
    public init(fromIndex index: Int) {
        self.index = index
    }

    /// The columns from `index`.
    public func _resolved(against columns: _RowAdapterColumns) throws -> _ResolvedRowAdapter {
        try checkAdapterRange(lowerBound: index, upperBound: max(index, columns.count), columnCount: columns.count)
        return _ResolvedRowAdapter(columns: columns.selecting(index..<columns.count))
    }
}

/// An adapter that shows a range of columns.
///
/// ```swift
/// // [b:2]
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: RangeRowAdapter(1..<2))!
/// ```
public struct RangeRowAdapter: RowAdapter, Sendable {
    // Bounds rather than a Range, so that bad bounds from splittingRowAdapters(columnCounts:) throw at fetch
    // time instead of trapping when the range is built.
    let lowerBound: Int
    let upperBound: Int

    init(lowerBound: Int, upperBound: Int) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    /// An adapter that shows the columns at the indexes of `range`.
    ///
    /// Fetching with the adapter throws a ``DatabaseError`` (`SQLITE_MISUSE`) when the range is not within the
    /// columns of the row.
    public init(_ range: CountableRange<Int>) {
        self.init(lowerBound: range.lowerBound, upperBound: range.upperBound)
    }

    /// An adapter that shows the columns at the indexes of `range`.
    ///
    /// Fetching with the adapter throws a ``DatabaseError`` (`SQLITE_MISUSE`) when the range is not within the
    /// columns of the row.
    public init(_ range: CountableClosedRange<Int>) {
        self.init(lowerBound: range.lowerBound, upperBound: range.upperBound &+ 1)
    }

    /// The columns of `range`.
    public func _resolved(against columns: _RowAdapterColumns) throws -> _ResolvedRowAdapter {
        try checkAdapterRange(lowerBound: lowerBound, upperBound: upperBound, columnCount: columns.count)
        return _ResolvedRowAdapter(columns: columns.selecting(lowerBound..<upperBound))
    }
}

/// Throws when an adapter's column range does not fit the columns it is resolved against (GRDB traps on those
/// programmer errors; Granite reports them from the fetch, which can throw).
private func checkAdapterRange(lowerBound: Int, upperBound: Int, columnCount: Int) throws {
    if lowerBound < 0 {
        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Negative column index is out of range")
    }
    if upperBound < lowerBound || upperBound > columnCount {
        throw DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "Column range \(lowerBound)..<\(upperBound) is out of range: the row has \(columnCount) columns")
    }
}

/// An adapter that defines scopes: named sub-rows, each adapted from the whole fetched row, that records decode
/// from with `Row/decode(_:forKey:)` or the `row["scope"]` subscript.
///
/// ```swift
/// let adapter = ScopeAdapter([
///     "player": RangeRowAdapter(0..<2),
///     "team": SuffixRowAdapter(fromIndex: 2)])
/// let row = try Row.fetchOne(db, sql: "SELECT player.*, team.* FROM player JOIN team ...", adapter: adapter)!
/// let player: Player = row["player"]
/// let team: Team = row["team"]
/// ```
public struct ScopeAdapter: RowAdapter {
    let base: any RowAdapter
    let scopes: [String: any RowAdapter]

    /// An adapter that shows every column of the row, and defines `scopes`.
    ///
    /// - parameter scopes: Adapters of the scopes, by name, each applied to the unadapted row.
    public init(_ scopes: [String: any RowAdapter]) {
        self.init(base: SuffixRowAdapter(fromIndex: 0), scopes: scopes)
    }

    /// An adapter that shows the columns of `base`, keeps the scopes `base` defines, and adds `scopes` (which
    /// replace base scopes of the same name).
    ///
    /// - parameter base: The adapter of the row's own columns.
    /// - parameter scopes: Adapters of the scopes, by name, each applied to the unadapted row.
    public init(base: some RowAdapter, scopes: [String: any RowAdapter]) {
        self.base = base
        self.scopes = scopes
    }

    /// The columns of `base`, its scopes and `scopes`.
    public func _resolved(against columns: _RowAdapterColumns) throws -> _ResolvedRowAdapter {
        let resolvedBase = try base._resolved(against: columns)
        var resolvedScopes = resolvedBase.scopes
        for (name, adapter) in scopes {
            resolvedScopes[name] = try adapter._resolved(against: columns)
        }
        return _ResolvedRowAdapter(columns: resolvedBase.columns, scopes: resolvedScopes)
    }
}

/// An adapter that renames every column with a function.
///
/// ```swift
/// // [id:1 name:"Arthur"]
/// let adapter = RenameColumnAdapter { String($0.dropFirst("player_".count)) }
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS player_id, 'Arthur' AS player_name", adapter: adapter)!
/// ```
public struct RenameColumnAdapter: RowAdapter {
    let transform: @Sendable (String) -> String

    /// An adapter that shows every column under the name `transform` returns for its name.
    public init(_ transform: @escaping @Sendable (String) -> String) {
        self.transform = transform
    }

    /// Every column, renamed.
    public func _resolved(against columns: _RowAdapterColumns) throws -> _ResolvedRowAdapter {
        _ResolvedRowAdapter(
            columns: _RowAdapterColumns(baseIndexes: columns.baseIndexes, names: columns.names.map(transform)))
    }
}

/// An adapter applied to the columns of another: what ``FetchRequest/adapted(_:)`` builds when the request
/// already has an adapter. Scopes of the first adapter are not kept.
struct ChainedAdapter: RowAdapter {
    let first: any RowAdapter
    let second: any RowAdapter

    func _resolved(against columns: _RowAdapterColumns) throws -> _ResolvedRowAdapter {
        try second._resolved(against: first._resolved(against: columns).columns)
    }
}

/// Adapters that split a row into consecutive groups of columns: one ``RangeRowAdapter`` per count, then a
/// ``SuffixRowAdapter`` for the remaining columns. With no count, a single adapter that shows the whole row.
///
/// ```swift
/// // SELECT player.*, team.* with 3 player columns
/// let adapters = splittingRowAdapters(columnCounts: [3])
/// let adapter = ScopeAdapter(["player": adapters[0], "team": adapters[1]])
/// ```
///
/// - parameter columnCounts: The number of columns of each group, from the left.
/// - returns: `columnCounts.count + 1` adapters.
public func splittingRowAdapters(columnCounts: [Int]) -> [any RowAdapter] {
    var adapters: [any RowAdapter] = []
    var start = 0
    for count in columnCounts {
        adapters.append(RangeRowAdapter(lowerBound: start, upperBound: start &+ count))
        start &+= count
    }
    adapters.append(SuffixRowAdapter(fromIndex: start))
    return adapters
}
