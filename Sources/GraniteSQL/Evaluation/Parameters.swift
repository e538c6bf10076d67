import GraniteStorage

/// Values bound to a statement's parameters, indexed by SQLite's one-based bind index (see ``ParameterList``).
///
/// An index that was never bound reads as NULL, as in SQLite.
package struct BoundParameters: Sendable, Equatable {
    /// The bound values; `values[k]` is parameter `k + 1`.
    package private(set) var values: [Value]

    /// No parameters bound.
    package init() { values = [] }

    /// Binds `positional[k]` to parameter `k + 1`.
    package init(_ positional: [Value]) { values = positional }

    /// The value of parameter `index` (one-based); NULL when unbound or out of range.
    @inline(__always)
    package subscript(index: Int) -> Value {
        let k = index - 1
        return k >= 0 && k < values.count ? values[k] : .null
    }

    /// Binds `value` to the one-based parameter `index`.
    package mutating func bind(_ index: Int, _ value: Value) {
        precondition(index >= 1, "parameter indices are one-based")
        if values.count < index { values.append(contentsOf: repeatElement(.null, count: index - values.count)) }
        values[index - 1] = value
    }

    /// Binds `value` to the named parameter `name` (with its prefix, e.g. `:id`) of `list`.
    /// Returns `false` when the statement does not use that name.
    @discardableResult
    package mutating func bind(name: String, _ value: Value, in list: ParameterList) -> Bool {
        guard let index = list.index(of: name) else { return false }
        bind(index, value)
        return true
    }
}
