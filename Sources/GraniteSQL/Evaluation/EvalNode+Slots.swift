import GraniteStorage

extension EvalNode {
    /// Adds the row slots the node reads to `slots`; returns false when the node may read slots it does not name
    /// (a subquery, which sees the whole row) or reads an aggregate result.
    func collectSlots(into slots: inout Set<Int>) -> Bool {
        switch self {
        case .constant, .parameter, .currentTime, .currentDate, .currentTimestamp:
            return true
        case .column(let slot):
            slots.insert(slot)
            return true
        case .subtypedColumn(let slot, let flag):
            slots.insert(slot)
            slots.insert(flag)
            return true
        case .aggregate, .scalarSubquery, .exists, .inSubquery, .inRows, .subqueryRowElement:
            return false
        case .not(let x), .negate(let x), .bitwiseNot(let x), .truth(let x, _, _), .isNull(let x, _),
            .cast(let x, _), .condition(let x):
            return x.collectSlots(into: &slots)
        case .and(let a, let b), .or(let a, let b), .compare(_, let a, let b, _), .arithmetic(_, let a, let b),
            .nullif(let a, let b, _), .glob(let a, let b, _, _):
            return a.collectSlots(into: &slots) && b.collectSlots(into: &slots)
        case .between(let a, let b, let c, _, _, _), .replace(let a, let b, let c), .iif(let a, let b, let c):
            return a.collectSlots(into: &slots) && b.collectSlots(into: &slots) && c.collectSlots(into: &slots)
        case .like(let a, let b, let c, _, _):
            return a.collectSlots(into: &slots) && b.collectSlots(into: &slots)
                && (c?.collectSlots(into: &slots) ?? true)
        case .rowCompare(_, let left, let right, _):
            for side in [left, right] {
                guard case .elements(let nodes) = side else { return false }
                guard nodes.allSatisfy({ $0.collectSlots(into: &slots) }) else { return false }
            }
            return true
        case .inList(let x, let list, _, _, _, _):
            return x.collectSlots(into: &slots) && list.allSatisfy { $0.collectSlots(into: &slots) }
        case .inSortedList(let x, let list, _):
            return x.collectSlots(into: &slots) && list.items.allSatisfy { $0.collectSlots(into: &slots) }
        case .function(_, let arguments), .minMax(_, _, let arguments), .coalesce(let arguments),
            .restrictedDateTime(_, let arguments, _), .userFunction(_, let arguments), .json(_, let arguments):
            return arguments.allSatisfy { $0.collectSlots(into: &slots) }
        case .searchedCase(let branches, let otherwise):
            return branches.allSatisfy { $0.0.collectSlots(into: &slots) && $0.1.collectSlots(into: &slots) }
                && (otherwise?.collectSlots(into: &slots) ?? true)
        case .simpleCase(let base, let branches, let otherwise):
            return base.collectSlots(into: &slots)
                && branches.allSatisfy { $0.0.collectSlots(into: &slots) && $0.1.collectSlots(into: &slots) }
                && (otherwise?.collectSlots(into: &slots) ?? true)
        }
    }
}

extension CompiledExpression {
    /// The row slots the expression reads, or nil when it may read slots it does not name (see
    /// ``EvalNode/collectSlots(into:)``).
    var readSlots: Set<Int>? {
        var slots = Set<Int>()
        guard root.collectSlots(into: &slots) else { return nil }
        for node in prelude where !node.collectSlots(into: &slots) { return nil }
        return slots
    }
}
