import Foundation
import GraniteStorage

/// What an adapted row is adapted from: the unadapted row (a cursor's reused statement row, or a copied row)
/// and the adapter, resolved against the columns of that row.
final class RowAdaptation {
    let base: Row
    let adapter: _ResolvedRowAdapter

    init(base: Row, adapter: _ResolvedRowAdapter) {
        self.base = base
        self.adapter = adapter
    }
}

extension Row {
    /// A row that shows the columns of `adapter` read from `base`.
    ///
    /// The adapted row owns a copy of the adapted values, so that reading it is the same array access as
    /// reading any copied row: adapters cost once per row built, never per value read.
    ///
    /// - parameter statement: The statement of a cursor's current row, so that values decode with SQLite's
    ///   column conversions as they do from unadapted cursor rows; nil for copied rows.
    convenience init(adapting base: Row, with adapter: _ResolvedRowAdapter, statement: Statement?) {
        let values = adapter.columns.baseIndexes.map { base.value(at: $0) }
        self.init(values: values, layout: adapter.columns.layout, statement: statement)
        adaptation = RowAdaptation(base: base, adapter: adapter)
    }

    /// Reads the adapted values again from the unadapted row: a cursor calls it on its reused adapted row
    /// after each step.
    func reloadAdaptedValues() {
        guard let adaptation else { return }
        let base = adaptation.base
        let baseIndexes = adaptation.adapter.columns.baseIndexes
        for position in baseIndexes.indices {
            values[position] = base.value(at: baseIndexes[position])
        }
    }

    /// A copy of an adapted row or a row with prefetched rows: the unadapted row is copied too, so that the
    /// copy keeps its scopes.
    func adaptedCopy() -> Row {
        let copy: Row
        if let adaptation {
            copy = Row(adapting: adaptation.base.copy(), with: adaptation.adapter, statement: nil)
        } else {
            copy = Row(values: ownedValues, layout: layout)
        }
        copy.prefetchedRows = prefetchedRows
        return copy
    }

    /// The row that was adapted: the fetched row with all the columns of the statement. The row itself when it
    /// is not adapted.
    ///
    /// ```swift
    /// let adapter = SuffixRowAdapter(fromIndex: 1)
    /// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b", adapter: adapter)!
    /// row           // [b:2]
    /// row.unadapted // [a:1 b:2]
    /// ```
    public var unadapted: Row {
        adaptation?.base.unadapted ?? self
    }

    /// The row without its scopes and prefetched rows: the same columns and values. The row itself when it has
    /// neither.
    ///
    /// ```swift
    /// let adapter = ScopeAdapter(base: RangeRowAdapter(0..<1), scopes: ["b": SuffixRowAdapter(fromIndex: 1)])
    /// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b", adapter: adapter)!
    /// row.unscoped // [a:1], with no scope
    /// ```
    public var unscoped: Row {
        let hasScopes = !(adaptation?.adapter.scopes.isEmpty ?? true)
        guard hasScopes || !prefetchedRows.isEmpty else { return self }
        guard let adaptation else { return Row(values: ownedValues, layout: layout, statement: statement) }
        let unscopedAdapter = _ResolvedRowAdapter(columns: adaptation.adapter.columns)
        let row = Row(values: ownedValues, layout: layout, statement: statement)
        row.adaptation = RowAdaptation(base: adaptation.base, adapter: unscopedAdapter)
        return row
    }

    /// Whether both rows have the same scope names, and equal rows in each scope.
    func hasSameScopes(as other: Row) -> Bool {
        let scopes = self.scopes
        let otherScopes = other.scopes
        guard Set(scopes.names) == Set(otherScopes.names) else { return false }
        return scopes.allSatisfy { name, row in otherScopes[name] == row }
    }

    /// The description, then (for adapted rows and rows with prefetched rows) the unadapted row, the scopes
    /// sorted by name, and prefetched row counts, each line indented by `depth`.
    func debugDescription(depth: Int) -> String {
        if depth == 0 && adaptation == nil && prefetchedRows.isEmpty { return description }
        let indentation = String(repeating: "  ", count: depth + 1)
        var text: String
        if depth == 0 {
            text = "▿ " + description
            let unadapted = self.unadapted
            if unadapted != self { text += "\n" + indentation + "unadapted: " + unadapted.description }
        } else {
            text = description
        }
        for (name, row) in scopes.sorted(by: { $0.name < $1.name }) {
            text += "\n" + indentation + "- " + name + ": " + row.debugDescription(depth: depth + 1)
        }
        for key in prefetchedRows.keys.sorted() {
            guard let rows = prefetchedRows[key] else { continue }
            let rowCount = rows.count == 0 || rows.count == 1 ? "\(rows.count) row" : "\(rows.count) rows"
            text += "\n" + indentation + "+ " + key + ": " + rowCount
        }
        return text
    }

    /// Calls `body` with the blob (or text bytes) of the column, nil for NULL or a missing column.
    ///
    /// - parameter column: The column, looked up by name (case-insensitively).
    /// - parameter body: Reads the data, which is valid only during the call.
    /// - returns: What `body` returns; the data must not escape `body`.
    public func withUnsafeData<T>(at column: some ColumnExpression, _ body: (Data?) throws -> T) throws -> T {
        try withUnsafeData(named: column.name, body)
    }
}
