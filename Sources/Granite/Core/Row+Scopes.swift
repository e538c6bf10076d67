// Scopes (named sub-rows defined by row adapters) and prefetched rows, and decoding records from them.

extension Row {
    /// The scopes the row's adapter defines, by name: each is a row adapted from the unadapted row. Empty for
    /// rows fetched without an adapter that defines scopes.
    ///
    /// ```swift
    /// let adapter = ScopeAdapter(["team": SuffixRowAdapter(fromIndex: 2)])
    /// let row = try Row.fetchOne(db, sql: "SELECT player.*, team.* FROM ...", adapter: adapter)!
    /// let teamRow = row.scopes["team"]
    /// ```
    ///
    /// Only the scopes of this row are listed; ``scopesTree`` also finds nested scopes.
    public var scopes: ScopesView {
        guard let adaptation else { return ScopesView(base: self, scopes: [:], prefetchedRows: prefetchedRows) }
        return ScopesView(base: adaptation.base, scopes: adaptation.adapter.scopes, prefetchedRows: prefetchedRows)
    }

    /// All the scopes of the row, nested ones included, found by name with a breadth-first search (the
    /// shallowest scope of a name wins).
    ///
    /// ```swift
    /// // scopes: "book" → "author" → "country"
    /// let countryRow = row.scopesTree["country"]
    /// ```
    public var scopesTree: ScopesTreeView {
        ScopesTreeView(scopes: scopes)
    }

    /// A view of the scopes of a row: a collection of `(name, row)` pairs, in no particular order, and a lookup
    /// by name.
    public struct ScopesView {
        private let base: Row
        private let scopes: [String: _ResolvedRowAdapter]
        private let prefetchedRows: PrefetchedRowsView

        init(base: Row, scopes: [String: _ResolvedRowAdapter], prefetchedRows: PrefetchedRowsView) {
            self.base = base
            self.scopes = scopes
            self.prefetchedRows = prefetchedRows
        }

        /// The names of the scopes.
        public var names: Dictionary<String, _ResolvedRowAdapter>.Keys {
            scopes.keys
        }

        /// The row of the scope named `name` (case-sensitively), or nil when the row has no such scope.
        public subscript(_ name: String) -> Row? {
            scopes.index(forKey: name).map { self[$0].row }
        }
    }

    /// A view of all the scopes of a row, nested ones included.
    public struct ScopesTreeView {
        let scopes: ScopesView

        /// The names of all scopes, nested ones included.
        public var names: Set<String> {
            var names = Set<String>()
            for (name, row) in scopes {
                names.insert(name)
                names.formUnion(row.scopesTree.names)
            }
            return names
        }

        /// The row of the scope named `name`, searched breadth-first through nested scopes (so the least nested
        /// scope of that name wins); nil when no scope has that name.
        public subscript(_ name: String) -> Row? {
            var pending = Array(scopes)
            var next = 0
            while next < pending.count {
                let scope = pending[next]
                next += 1
                if scope.name == name { return scope.row }
                pending.append(contentsOf: scope.row.scopes)
            }
            return nil
        }
    }
}

extension Row.ScopesView: Collection {
    /// A position in the scopes.
    public typealias Index = Dictionary<String, _ResolvedRowAdapter>.Index

    /// The position of the first scope.
    public var startIndex: Index { scopes.startIndex }

    /// The position past the last scope.
    public var endIndex: Index { scopes.endIndex }

    /// The position after `i`.
    public func index(after i: Index) -> Index { scopes.index(after: i) }

    /// The name of the scope at `position` and its row, adapted from the unadapted row. The scoped row sees
    /// the prefetched rows nested under its name.
    public subscript(position: Index) -> (name: String, row: Row) {
        let (name, adapter) = scopes[position]
        let row = Row(adapting: base, with: adapter, statement: base.statement)
        if let nested = prefetchedRows.nestedView(forKey: name) { row.prefetchedRows = nested }
        return (name: name, row: row)
    }
}

// MARK: - Prefetched rows

extension Row {
    /// A view of the rows prefetched with a row, by association key, with a breadth-first search through nested
    /// prefetches.
    public struct PrefetchedRowsView: Equatable {
        /// The rows of one key (nil for a key that only holds nested prefetches), and its nested prefetches.
        struct Prefetch: Equatable {
            var rows: [Row]?
            var nested: [Entry]
        }

        /// One key and its prefetch. An array of entries rather than a dictionary keeps the order of the
        /// request's associations, so that searches are deterministic.
        struct Entry: Equatable {
            var key: String
            var prefetch: Prefetch
        }

        var entries: [Entry] = []

        init(entries: [Entry] = []) {
            self.entries = entries
        }

        /// Whether no rows are prefetched.
        public var isEmpty: Bool { entries.isEmpty }

        /// The keys of all prefetched rows, nested ones included.
        public var keys: Set<String> {
            var keys = Set<String>()
            forEachEntryBreadthFirst { entry in
                if entry.prefetch.rows != nil { keys.insert(entry.key) }
                return false
            }
            return keys
        }

        /// The rows prefetched for `key`, searched breadth-first through nested prefetches; nil when no rows
        /// were prefetched for that key.
        public subscript(_ key: String) -> [Row]? {
            var found: [Row]?
            forEachEntryBreadthFirst { entry in
                guard entry.key == key, let rows = entry.prefetch.rows else { return false }
                found = rows
                return true
            }
            return found
        }

        /// Records `rows` for the key path of a (possibly nested) association.
        package mutating func setRows(_ rows: [Row], forKeyPath keyPath: [String]) {
            guard let key = keyPath.first else { return }
            Self.setRows(rows, forKeyPath: keyPath.dropFirst(), key: key, in: &entries)
        }

        private static func setRows(
            _ rows: [Row], forKeyPath remainingPath: ArraySlice<String>, key: String, in entries: inout [Entry]
        ) {
            let position =
                entries.firstIndex { $0.key == key }
                ?? {
                    entries.append(Entry(key: key, prefetch: Prefetch(rows: nil, nested: [])))
                    return entries.count - 1
                }()
            guard let nextKey = remainingPath.first else {
                entries[position].prefetch.rows = rows
                return
            }
            setRows(rows, forKeyPath: remainingPath.dropFirst(), key: nextKey, in: &entries[position].prefetch.nested)
        }

        /// The prefetches nested under `key`, which the scope of that name sees as its own.
        func nestedView(forKey key: String) -> PrefetchedRowsView? {
            entries.first { $0.key == key }.map { PrefetchedRowsView(entries: $0.prefetch.nested) }
        }

        /// Visits entries breadth-first until `visit` returns true.
        private func forEachEntryBreadthFirst(_ visit: (Entry) -> Bool) {
            var pending = entries
            var next = 0
            while next < pending.count {
                let entry = pending[next]
                next += 1
                if visit(entry) { return }
                pending.append(contentsOf: entry.prefetch.nested)
            }
        }
    }
}

// MARK: - Decoding records from scopes and prefetched rows

extension Row {
    /// The record decoded from the scope named `scope` (searched in ``scopesTree``), or nil when there is no
    /// such scope or all its values are NULL (a missing associated record).
    ///
    /// - throws: What the record's `init(row:)` throws.
    public func decodeIfPresent<Record: FetchableRecord>(
        _ type: Record.Type = Record.self, forKey scope: String
    ) throws -> Record? {
        guard let scopedRow = scopesTree[scope], scopedRow.containsNonNullValue else { return nil }
        return try Record(row: scopedRow)
    }

    /// The record decoded from the scope named `scope` (searched in ``scopesTree``).
    ///
    /// - throws: ``RowDecodingError`` when there is no such scope, or all its values are NULL; what the
    ///   record's `init(row:)` throws.
    public func decode<Record: FetchableRecord>(
        _ type: Record.Type = Record.self, forKey scope: String
    ) throws -> Record {
        guard let scopedRow = scopesTree[scope] else {
            let available = scopesTree.names
            var message = "scope not found: \(String(reflecting: scope))"
            if !available.isEmpty { message += " - available scopes: \(available.sorted())" }
            throw RowDecodingError(kind: .keyNotFound, message: message, row: self, key: .scope(scope))
        }
        guard scopedRow.containsNonNullValue else {
            throw RowDecodingError(
                kind: .valueMismatch, message: "scope \(String(reflecting: scope)) only contains null values",
                row: self, key: .scope(scope))
        }
        return try Record(row: scopedRow)
    }

    /// The records decoded from the rows prefetched for `key` (searched in ``prefetchedRows``).
    ///
    /// - throws: ``RowDecodingError`` when no rows were prefetched for `key`; what the records' `init(row:)`
    ///   throws.
    public func decode<Collection: RangeReplaceableCollection>(
        _ type: Collection.Type = Collection.self, forKey key: String
    ) throws -> Collection where Collection.Element: FetchableRecord {
        let rows = try prefetchedRows(forKey: key)
        var records = Collection()
        records.reserveCapacity(rows.count)
        for row in rows { try records.append(Collection.Element(row: row)) }
        return records
    }

    /// The distinct records decoded from the rows prefetched for `key` (searched in ``prefetchedRows``).
    ///
    /// - throws: ``RowDecodingError`` when no rows were prefetched for `key`; what the records' `init(row:)`
    ///   throws.
    public func decode<Record: FetchableRecord & Hashable>(
        _ type: Set<Record>.Type = Set<Record>.self, forKey key: String
    ) throws -> Set<Record> {
        let rows = try prefetchedRows(forKey: key)
        var records = Set<Record>(minimumCapacity: rows.count)
        for row in rows { try records.insert(Record(row: row)) }
        return records
    }

    private func prefetchedRows(forKey key: String) throws -> [Row] {
        if let rows = prefetchedRows[key] { return rows }
        let available = prefetchedRows.keys
        var message = "key for prefetched rows not found: \(String(reflecting: key))"
        if !available.isEmpty { message += " - available keys: \(available.sorted())" }
        throw RowDecodingError(kind: .keyNotFound, message: message, row: self, key: .prefetchKey(key))
    }

    /// The record of the scope named `scope`; a missing scope or a scope of NULLs is a programmer error, as in
    /// GRDB (use `decode(_:forKey:)` to catch it).
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record {
        try! decode(Record.self, forKey: scope)
    }

    /// The record of the scope named `scope`, or nil when there is no such scope or it only contains NULLs.
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record? {
        try! decodeIfPresent(Record.self, forKey: scope)
    }

    /// The records of the rows prefetched for `key`; a missing key is a programmer error, as in GRDB.
    public subscript<Records: RangeReplaceableCollection>(_ key: String) -> Records
    where Records.Element: FetchableRecord {
        try! decode(Records.self, forKey: key)
    }

    /// The distinct records of the rows prefetched for `key`; a missing key is a programmer error, as in GRDB.
    public subscript<Record: FetchableRecord & Hashable>(_ key: String) -> Set<Record> {
        try! decode(Set<Record>.self, forKey: key)
    }
}
