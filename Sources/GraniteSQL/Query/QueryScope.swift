import GraniteStorage

/// One entry of a query's `FROM` clause: a table or a subquery, with the slots its row occupies.
///
/// A source occupies `columns.count + 1` consecutive slots starting at ``base``: its columns, then its rowid
/// (NULL for a subquery).
final class QuerySource {
    /// One visible column.
    struct Column {
        var name: String
        /// nil for a subquery's expression column, which has no affinity.
        var affinity: SQLAffinity?
        var collation: SQLCollation
        /// The declared type (`PRAGMA table_info`'s `type` of a view): a table column's, or, for a subquery's
        /// column, that of the column its expression names; nil for other expressions.
        var declaredType: String? = nil
        /// Whether the column is hidden: read by name only, never part of `*` (a table-valued function's
        /// argument columns).
        var isHidden = false
        /// For a column whose values may carry the JSON subtype: the relative slot of the flag that says whether
        /// the current value does (see ``TableFunctionCursor``).
        var subtypeFlag: Int? = nil
    }

    /// The name that qualifies its columns: the alias, else the table name.
    let name: String
    /// The stored table, or nil for a subquery.
    let table: TableDefinition?
    /// The view a subquery reads, if it is one.
    var view: ViewDefinition?
    /// The columns, in order.
    let columns: [Column]
    /// The first slot.
    let base: Int
    /// Columns hidden from unqualified references and `*` (the right-hand columns of `USING`/`NATURAL`).
    var hidden: Set<Int> = []
    /// The columns of the `USING` clause (or those a `NATURAL` join shares) joining this source to those before
    /// it, as written; empty for other sources.
    var usingNames: [String] = []
    /// For a parenthesised join (see ``SelectClause/isNestedFrom``): the item each column came from, by which
    /// the query may still qualify it; nil for other sources.
    var nested: [NestedColumnTag]?
    /// Whether this source is the right side of a `LEFT JOIN`.
    var isLeftJoined = false
    /// The relative slots read by the query (columns, and ``rowidSlot`` for the rowid).
    var used: Set<Int> = []
    /// Whether the source is a table-valued function, whose rowid is the number of its row (SQLite's xRowid),
    /// held in ``rowNumberSlot`` (its ``rowidSlot`` holds a JSON subtype flag).
    let numbersRows: Bool

    init(name: String, table: TableDefinition?, columns: [Column], base: Int, numbersRows: Bool = false) {
        self.name = name
        self.table = table
        self.columns = columns
        self.base = base
        self.numbersRows = numbersRows
    }

    /// The number of slots.
    var width: Int { columns.count + (numbersRows ? 2 : 1) }
    /// The relative slot of the rowid.
    var rowidSlot: Int { columns.count }
    /// The relative slot of a table-valued function's row number (see ``numbersRows``).
    var rowNumberSlot: Int { columns.count + 1 }

    /// Whether the source is a common table, which has no rowid to count (see
    /// ``QueryScope/Location/rowidSources``).
    var isCommonTable = false

    /// Whether the source is a temporary table or view.
    var isTemporary: Bool { table?.isTemporary ?? view?.isTemporary ?? false }

    /// The schema qualifier SQLite gives the columns `*` expands to: a table's, view's or table-valued
    /// function's schema; nil for a subquery or common table, which SQLite qualifies by `*`.
    var schemaName: String? {
        guard table != nil || view != nil || numbersRows else { return nil }
        return isTemporary ? "temp" : "main"
    }

    /// Whether `name` is one of ``usingNames``.
    func joinsUsing(_ name: String) -> Bool { usingNames.contains { SchemaNames.equal($0, name) } }
}

/// Resolves names for one `SELECT` (or one statement's table) over its sources, and to enclosing queries for
/// correlated subqueries.
///
/// Slots: an enclosing query's row comes first (its whole width), then this query's sources, then its aggregate
/// results. Subqueries are registered while compiling and compiled afterwards, when the width is final.
final class QueryScope: ColumnResolver {
    let outer: QueryScope?
    /// The schema, for the result column types of subqueries (``subqueryColumn(_:at:)``).
    var catalog: SchemaCatalog?
    /// The counters of the compiling connection (see ``ColumnResolver/connectionCounters``); a nested scope
    /// starts with its enclosing scope's.
    var connectionCounters: ConnectionCounters?
    /// The first slot of this query's sources.
    let base: Int
    private(set) var sources: [QuerySource] = []
    private(set) var tablesWidth = 0
    var allowAggregates = false
    /// Aggregate calls registered so far; number `k` lives at ``aggregateSlot(_:)``.
    private(set) var aggregates: [FunctionCall] = []
    /// Subqueries registered so far.
    private(set) var subqueries: [(select: SelectStatement, kind: SubqueryKind)] = []
    /// Whether a name resolved to an enclosing query (the query is correlated).
    private(set) var usesOuter = false
    /// While non-nil, the indices of the sources that resolved names belong to.
    var trace: Set<Int>?
    /// The first source that names resolve among: 0, but while compiling the `ON` terms of an `UPDATE … FROM`'s
    /// joins, which see only the `FROM` sources (see ``FromClause/constraintsStart``).
    var firstVisible = 0
    /// For `UPDATE … FROM` with several `FROM` items, which SQLite reads as one parenthesised join of their own
    /// (see ``UpdateFromGroup``): that join, through which the rest of the statement sees those sources.
    var updateFromGroup: UpdateFromGroup?
    /// Whether a subquery was registered while tracing (it may read any source).
    var tracedSubquery = false
    /// The first slot after this query's row (enclosing rows, sources, aggregates).
    var width: Int { base + tablesWidth + aggregates.count }

    init(outer: QueryScope?) {
        self.outer = outer
        self.base = outer?.width ?? 0
        connectionCounters = outer?.connectionCounters
    }

    /// Adds a source; returns it.
    @discardableResult
    func add(
        name: String, table: TableDefinition?, columns: [QuerySource.Column], numbersRows: Bool = false
    ) -> QuerySource {
        precondition(aggregates.isEmpty, "sources come before aggregates")
        let source = QuerySource(
            name: name, table: table, columns: columns, base: base + tablesWidth, numbersRows: numbersRows)
        sources.append(source)
        tablesWidth += source.width
        return source
    }

    /// Adds a stored table under `alias`.
    @discardableResult
    func add(table: TableDefinition, alias: String?) -> QuerySource {
        add(
            name: alias ?? table.name, table: table,
            columns: table.columns.indices.map { c in
                let column = table.columns[c]
                return QuerySource.Column(
                    name: column.name, affinity: column.affinity,
                    collation: column.collation.flatMap { SQLCollation(name: $0) } ?? .binary,
                    declaredType: table.typeText(ofColumn: c))
            })
    }

    func aggregateSlot(_ k: Int) -> Int { base + tablesWidth + k }

    private func note(_ k: Int, relative: Int) {
        sources[k].used.insert(relative)
        trace?.insert(k)
    }

    /// What a reference names among this query's own sources (see ``locate(_:)``).
    struct Location {
        /// The source and column it names.
        var column: (source: Int, column: Int)?
        /// The source whose rowid it names, when it names no column.
        var rowid: Int?
        /// How many sources have a rowid it could name (SQLite's `cntTab`): tables with a rowid, table-valued
        /// functions, views and subqueries, not common tables or parenthesised joins.
        var rowidSources = 0
    }

    /// Finds what `reference` names among the sources from ``firstVisible`` on, without noting it read: a column,
    /// else a rowid. Fails on a name that several sources have (for a parenthesised join, several of its items,
    /// see ``locateNested(_:schema:in:found:)``), but for the copy a `USING` or `NATURAL` join hides.
    func locate(_ reference: ColumnReference) throws -> Location {
        let schema = SchemaCatalog.Qualifier(reference.schema)
        if schema == .unknown { return Location() }
        if let qualifier = reference.table, let k = Self.pinnedSource(qualifier) {
            return locatePinned(reference.column, in: k)
        }
        var found: (source: Int, column: Int)?
        var rowidMatch: Int?
        var rowidSources = 0
        for k in firstVisible..<sources.count {
            let source = sources[k]
            if let group = updateFromGroup, firstVisible < group.start, k >= group.start {
                // The group's sources come last; it has no rowid SQLite counts.
                try locate(reference, schema: schema, in: group, found: &found)
                break
            }
            if source.nested != nil, try locateNested(reference, schema: schema, in: k, found: &found) { continue }
            if let qualifier = reference.table {
                guard SchemaNames.equal(qualifier, source.name) else { continue }
            }
            if schema != .any, (schema == .temp) != source.isTemporary { continue }
            let key = SchemaNames.key(reference.column)
            if let c = source.columns.firstIndex(where: { SchemaNames.key($0.name) == key }) {
                if reference.table == nil && source.hidden.contains(c) { continue }
                if found != nil {
                    // The right-hand copy of a `USING` column, even qualified: `main.t.a` of `*` over
                    // `t JOIN t USING (a)`.
                    if source.joinsUsing(reference.column) { continue }
                    throw SQLEvaluationError("ambiguous column name: \(Self.display(reference))")
                }
                found = (k, c)
            } else if let table = source.table {
                if SchemaNames.isRowidName(reference.column, of: table) {
                    rowidMatch = k
                    rowidSources += 1
                }
            } else if SchemaNames.isRowidName(reference.column) {
                if source.numbersRows { rowidMatch = k }
                // A view or subquery has a rowid SQLite counts (and reads as NULL); a common table has none.
                if !source.isCommonTable { rowidSources += 1 }
            }
        }
        return Location(column: found, rowid: rowidMatch, rowidSources: rowidSources)
    }

    /// Resolves a reference among this query's own sources; nil when no source has the name.
    func resolveLocally(_ reference: ColumnReference) throws -> ResolvedColumn? {
        if SchemaCatalog.Qualifier(reference.schema) == .unknown { return nil }
        let location = try locate(reference)
        let found = location.column
        let rowidMatch = location.rowid
        // A rowid names the rowid only when a single item of the FROM clause has one that it could name (SQLite's
        // `cntTab==1`); else, among several items, it is no column at all, and enclosing queries are not searched.
        if found == nil, rowidMatch != nil || SchemaNames.isRowidName(reference.column),
            location.rowidSources > 1
                || (reference.table == nil && sources.count - firstVisible > 1
                    && location.rowidSources != 1)
        {
            throw SQLEvaluationError(.noSuchColumn(reference))
        }
        if let (k, c) = found {
            note(k, relative: c)
            let column = sources[k].columns[c]
            var resolved = ResolvedColumn(
                slot: sources[k].base + c, affinity: column.affinity, collation: column.collation)
            if let flag = column.subtypeFlag {
                note(k, relative: flag)
                resolved.subtypeFlagSlot = sources[k].base + flag
            }
            return resolved
        }
        if let k = rowidMatch {
            let source = sources[k]
            if source.numbersRows {
                note(k, relative: source.rowNumberSlot)
                return ResolvedColumn(slot: source.base + source.rowNumberSlot, affinity: .integer)
            }
            if let alias = source.table?.rowidAlias {
                note(k, relative: alias)
                return ResolvedColumn(slot: source.base + alias, affinity: .integer)
            }
            note(k, relative: source.rowidSlot)
            return ResolvedColumn(slot: source.base + source.rowidSlot, affinity: .integer)
        }
        return nil
    }

    func resolve(_ reference: ColumnReference) throws -> ResolvedColumn {
        if let local = try resolveLocally(reference) { return local }
        var scope = outer
        while let s = scope {
            if let resolved = try s.resolveLocally(reference) {
                var inner: QueryScope? = self
                while let i = inner, i !== s {
                    i.usesOuter = true
                    inner = i.outer
                }
                return resolved
            }
            scope = s.outer
        }
        throw SQLEvaluationError(.noSuchColumn(reference))
    }

    /// Notes that the query reads an enclosing query's row through a `FROM` subquery (or common table) of its own,
    /// compiled as a child of the enclosing scope rather than of this one.
    func noteOuterRead() {
        usesOuter = true
    }

    func resolveAggregate(_ call: FunctionCall) throws -> Int {
        guard allowAggregates else { throw SQLEvaluationError(.misuseOfAggregate(function: call.name)) }
        aggregates.append(call)
        return aggregateSlot(aggregates.count - 1)
    }

    func registerSubquery(_ select: SelectStatement, kind: SubqueryKind) throws -> SubqueryID {
        subqueries.append((select, kind))
        if trace != nil { tracedSubquery = true }
        return SubqueryID(subqueries.count - 1)
    }

    static func display(_ r: ColumnReference) -> String {
        [r.schema, r.table, r.column].compactMap { $0 }.joined(separator: ".")
    }
}
