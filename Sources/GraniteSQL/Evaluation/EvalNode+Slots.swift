import GraniteStorage

extension EvalNode {
    /// Adds the row slots the node reads to `slots`; returns false when the node may read slots it does not name
    /// (a subquery, which sees the whole row) or reads an aggregate result, unless `besideAggregates` (aggregate
    /// results' slots are then left out, for the bare columns of an aggregate query).
    func collectSlots(into slots: inout Set<Int>, besideAggregates: Bool = false) -> Bool {
        var documents: Set<Int>? = nil
        return collectSlots(into: &slots, documents: &documents, besideAggregates: besideAggregates)
    }

    /// As ``collectSlots(into:besideAggregates:)``, but when `documents` is not nil, a column read only as the
    /// document of a located JSON call (`json_extract(c, 'path')`, `->`, `->>` compiled to
    /// ``SQLJSONFunction/locate(_:_:)``) goes into `documents` rather than `slots`.
    func collectSlots(into slots: inout Set<Int>, documents: inout Set<Int>?, besideAggregates: Bool) -> Bool {
        func collect(_ node: EvalNode) -> Bool {
            node.collectSlots(into: &slots, documents: &documents, besideAggregates: besideAggregates)
        }
        if documents != nil, case .json(.locate, let arguments) = self, arguments.count == 1,
            case .column(let slot) = arguments[0]
        {
            documents?.insert(slot)
            return true
        }
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
        case .aggregate:
            return besideAggregates
        case .scalarSubquery, .exists, .inSubquery, .inRows, .subqueryRowElement:
            return false
        case .not(let x), .negate(let x), .bitwiseNot(let x), .truth(let x, _, _), .isNull(let x, _),
            .cast(let x, _), .condition(let x):
            return collect(x)
        case .and(let a, let b), .or(let a, let b), .compare(_, let a, let b, _), .arithmetic(_, let a, let b),
            .nullif(let a, let b, _), .glob(let a, let b, _, _):
            return collect(a) && collect(b)
        case .between(let a, let b, let c, _, _, _), .replace(let a, let b, let c), .iif(let a, let b, let c):
            return collect(a) && collect(b) && collect(c)
        case .like(let a, let b, let c, _, _):
            return collect(a) && collect(b)
                && (c.map(collect) ?? true)
        case .rowCompare(_, let left, let right, _):
            for side in [left, right] {
                guard case .elements(let nodes) = side else { return false }
                guard nodes.allSatisfy(collect) else { return false }
            }
            return true
        case .inList(let x, let list, _, _, _, _):
            return collect(x) && list.allSatisfy(collect)
        case .inSortedList(let x, let list, _):
            return collect(x) && list.items.allSatisfy(collect)
        case .function(_, let arguments), .minMax(_, _, let arguments), .coalesce(let arguments),
            .restrictedDateTime(_, let arguments, _), .userFunction(_, let arguments), .json(_, let arguments):
            return arguments.allSatisfy(collect)
        case .searchedCase(let branches, let otherwise):
            return branches.allSatisfy { collect($0.0) && collect($0.1) }
                && (otherwise.map(collect) ?? true)
        case .simpleCase(let base, let branches, let otherwise):
            return collect(base)
                && branches.allSatisfy { collect($0.0) && collect($0.1) }
                && (otherwise.map(collect) ?? true)
        }
    }
}

extension CompiledExpression {
    /// The row slots the expression reads, or nil when it may read slots it does not name (see
    /// ``EvalNode/collectSlots(into:)``).
    var readSlots: Set<Int>? { slotsRead(besideAggregates: false) }

    /// The row slots the expression reads other than aggregate results' (the bare columns of an aggregate query's
    /// output), or nil when it may read slots it does not name.
    var slotsReadBesideAggregates: Set<Int>? { slotsRead(besideAggregates: true) }

    private func slotsRead(besideAggregates: Bool) -> Set<Int>? {
        var slots = Set<Int>()
        guard root.collectSlots(into: &slots, besideAggregates: besideAggregates) else { return nil }
        for node in prelude where !node.collectSlots(into: &slots, besideAggregates: besideAggregates) {
            return nil
        }
        return slots
    }
}
