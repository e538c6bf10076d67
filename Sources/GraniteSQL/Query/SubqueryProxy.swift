// How a SelectCursor's expressions reach its subqueries: through a proxy, which evaluation contexts hold, that
// forwards to the cursor's `subquery(_:_:)`.

import GraniteStorage

extension SelectCursor {
    /// What a subquery of the program gives, by the kind of its use.
    enum SubqueryResult {
        case scalar(Value)
        case exists(Bool)
        case values([Value])
        case row([Value])
        case rows([[Value]])
    }
}

/// Forwards subquery evaluation to the cursor without retaining it. The cursor owns the proxy (through its
/// evaluation context) and outlives it, so the unowned reference is never dangling; it avoids the side table a
/// weak reference would give the cursor, which slows every retain and release of it.
final class SubqueryProxy: SubqueryProvider {
    unowned(unsafe) var cursor: SelectCursor?

    func scalar(_ id: SubqueryID, context: inout EvaluationContext) throws -> Value {
        guard case .scalar(let v)? = try cursor?.subquery(id, &context) else { return .null }
        return v
    }

    func exists(_ id: SubqueryID, context: inout EvaluationContext) throws -> Bool {
        guard case .exists(let b)? = try cursor?.subquery(id, &context) else { return false }
        return b
    }

    func values(_ id: SubqueryID, context: inout EvaluationContext) throws -> [Value] {
        guard case .values(let v)? = try cursor?.subquery(id, &context) else { return [] }
        return v
    }

    /// The row each row-value subquery last returned, by subquery number (see ``lastRow(_:)``).
    private var lastRows: [Int: [Value]] = [:]

    func row(_ id: SubqueryID, context: inout EvaluationContext) throws -> [Value] {
        guard case .row(let v)? = try cursor?.subquery(id, &context) else { return [] }
        lastRows[id.rawValue] = v
        return v
    }

    func lastRow(_ id: SubqueryID) -> [Value] {
        lastRows[id.rawValue] ?? []
    }

    func rows(_ id: SubqueryID, context: inout EvaluationContext) throws -> [[Value]] {
        guard case .rows(let v)? = try cursor?.subquery(id, &context) else { return [] }
        return v
    }
}
