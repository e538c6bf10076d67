import GraniteStorage

/// The items of a long `x [NOT] IN (list)` whose items are all constants or bound parameters, kept sorted so that
/// each row costs a binary search instead of one comparison per item. SQLite builds an ephemeral index for such a
/// list; without it, GRDB's prefetch of a to-many association (`WHERE authorId IN (?, ?, …)` with one parameter
/// per parent row) compares every row with every key.
///
/// The sorted table depends on the bound values only. It is made at the first row of a statement's run and kept
/// with a copy of the parameters it was made from: that copy keeps their storage alive, so a later run is
/// recognised as the same one exactly when it reads the very same storage (rebinding a parameter copies the
/// storage, since this copy shares it).
///
/// Only comparisons whose equality a single sort order can answer take this path: the left operand has no TEXT
/// affinity (which converts a number to text only when the other side is text) and the collation is built in
/// (an application's collation may not be a consistent order).
final class SortedInList: @unchecked Sendable {
    /// Lists shorter than this are searched item by item: sorting would cost more than it saves.
    static let minimumCount = 8

    /// The list's items (``EvalNode/constant(_:)`` or ``EvalNode/parameter(_:)`` nodes).
    let items: [EvalNode]
    /// The affinity both sides are converted with before comparing (never TEXT).
    private let affinity: SQLAffinity?
    /// The collation of the comparison.
    private let collation: SQLCollation
    /// Whether an item reads a parameter (otherwise one table serves every run).
    private let readsParameters: Bool
    private let lock = Lock()
    /// The table and the parameters it was made from.
    private var cached: (parameters: [Value], table: Table)?

    /// The list's values, converted and sorted.
    private struct Table {
        /// The non-NULL items as compared, in ``SQLComparison/compare(_:_:collation:)`` order.
        var keys: [Value]
        /// Whether an item is NULL (which makes a failed search NULL rather than false).
        var hasNull: Bool
    }

    /// A sorted list for `items` compared with a left operand of `leftAffinity` under `collation`, or `nil` when
    /// the list is short, an item is neither a constant nor a parameter, or the comparison is not a sort order's.
    init?(items: [EvalNode], leftAffinity: SQLAffinity?, collation: SQLCollation) {
        guard items.count >= Self.minimumCount, leftAffinity != .text else { return nil }
        switch collation {
        case .binary, .nocase, .rtrim: break
        case .custom: return nil
        }
        var readsParameters = false
        for item in items {
            switch item {
            case .constant: continue
            case .parameter: readsParameters = true
            default: return nil
            }
        }
        self.items = items
        self.affinity = SQLComparison.comparisonAffinity(leftAffinity, nil)
        self.collation = collation
        self.readsParameters = readsParameters
    }

    /// `v [NOT] IN list` with SQLite's result: NULL for a NULL `v`, true when an item equals `v`, else NULL when an
    /// item is NULL, else false.
    func membership(_ v: Value, negated: Bool, parameters: BoundParameters) -> Value {
        let table = self.table(for: parameters)
        if v.isNull { return .null }
        if contains(key(v), in: table.keys) { return .integer(negated ? 0 : 1) }
        if table.hasNull { return .null }
        return .integer(negated ? 1 : 0)
    }

    /// The table for `parameters`: the cached one when it was made from the same parameter storage.
    private func table(for parameters: BoundParameters) -> Table {
        lock.withLock {
            if let cached, !readsParameters || Self.sameStorage(cached.parameters, parameters.values) {
                return cached.table
            }
            let table = makeTable(parameters)
            cached = (parameters.values, table)
            return table
        }
    }

    private func makeTable(_ parameters: BoundParameters) -> Table {
        var table = Table(keys: [], hasNull: false)
        table.keys.reserveCapacity(items.count)
        for item in items {
            let value: Value
            switch item {
            case .constant(let constant): value = constant
            case .parameter(let index): value = parameters[index]
            default: preconditionFailure("SortedInList holds constants and parameters only")
            }
            if value.isNull {
                table.hasNull = true
            } else {
                table.keys.append(key(value))
            }
        }
        let collation = self.collation
        table.keys.sort { SQLComparison.compare($0, $1, collation: collation) < 0 }
        return table
    }

    /// `value` as the comparison sees it (converted by the comparison's affinity).
    private func key(_ value: Value) -> Value {
        guard let affinity else { return value }
        return SQLComparison.prepared(value, for: affinity)
    }

    /// Whether sorted `keys` hold a value equal to `key` under the collation.
    private func contains(_ key: Value, in keys: [Value]) -> Bool {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            let order = SQLComparison.compare(keys[middle], key, collation: collation)
            if order == 0 { return true }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return false
    }

    /// Whether two arrays share their storage (equal values without looking at them).
    private static func sameStorage(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count
            && a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in pa.baseAddress == pb.baseAddress } }
    }
}
