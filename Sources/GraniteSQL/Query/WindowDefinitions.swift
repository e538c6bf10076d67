// The window each call runs over, with its named windows resolved, and what each call reads from the inner query.

import GraniteStorage

/// Resolves `OVER name` and `OVER (base …)` against a `SELECT`'s `WINDOW` clause, with SQLite's errors.
struct WindowResolver {
    let windows: [NamedWindow]

    /// The complete definition of the window `call` runs over.
    func definition(of call: FunctionCall) throws -> WindowDefinition {
        switch call.over {
        case .named(let name)?: return try named(name, depth: 0)
        case .definition(let definition)?: return try extended(definition, depth: 0)
        case nil: return WindowDefinition()
        }
    }

    /// The window called `name`, its own base applied. `depth` bounds a chain of bases that loops.
    private func named(_ name: String, depth: Int) throws -> WindowDefinition {
        guard depth <= windows.count, let window = windows.first(where: { SchemaNames.equal($0.name, name) }) else {
            throw SQLExecutionError("no such window: \(name)")
        }
        return try extended(window.definition, depth: depth + 1)
    }

    /// `definition` with its base window's partitioning (and ordering, when it has none of its own). A window
    /// may not override its base's `PARTITION BY` or `ORDER BY`, nor extend a base with a frame.
    private func extended(_ definition: WindowDefinition, depth: Int) throws -> WindowDefinition {
        guard let name = definition.base else { return definition }
        let base = try named(name, depth: depth)
        if !definition.partitionBy.isEmpty {
            throw SQLExecutionError("cannot override PARTITION clause of window: \(name)")
        }
        if !definition.orderBy.isEmpty && !base.orderBy.isEmpty {
            throw SQLExecutionError("cannot override ORDER BY clause of window: \(name)")
        }
        if base.frame != nil { throw SQLExecutionError("cannot override frame specification of window: \(name)") }
        return WindowDefinition(
            partitionBy: base.partitionBy, orderBy: definition.orderBy.isEmpty ? base.orderBy : definition.orderBy,
            frame: definition.frame)
    }
}

/// A window call while its `SELECT` compiles: what it reads, by index among the inner query's extra columns.
struct PendingWindowCall {
    let call: FunctionCall
    let function: WindowFunction
    let arguments: [Int]
    /// For `json_group_array` / `json_group_object`: the value argument itself, whose BLOB is refused.
    let jsonValue: Int?
    let filter: Int?
    let partition: [Int]
    let order: [(column: Int, descending: Bool, nullsFirst: Bool)]
    let frame: WindowFrame?

    init(_ call: FunctionCall, _ definition: WindowDefinition, rewriter: inout WindowRewriter) throws {
        self.call = call
        do {
            function = try WindowFunction.of(call)
        } catch let error as SQLEvaluationError {
            throw SQLExecutionError(error)
        }
        if let frame = definition.frame, frame.unit == .range, definition.orderBy.count != 1,
            frame.start.hasOffset || frame.end.hasOffset
        {
            throw SQLExecutionError("RANGE with offset PRECEDING/FOLLOWING requires one ORDER BY expression")
        }
        // A window's partitioning and ordering are computed by the inner query, where no window function may be.
        for e in definition.partitionBy + definition.orderBy.map(\.expression) {
            if let nested = WindowRewriter.firstWindowCall(in: e) {
                throw SQLExecutionError(.misuseOfWindowFunction(nested.name))
            }
        }
        var arguments: [Int] = []
        var jsonRaw: Int?
        if case .list(let list, _) = call.arguments {
            // The JSON aggregates' value argument is computed as a grouping query computes it (JSON text from a
            // JSON function arrives as a BLOB to embed; a BLOB is an error).
            let name = SQLFormat.asciiLowercased(call.name)
            let jsonValue = name == "json_group_array" ? 0 : name == "json_group_object" ? 1 : -1
            for (k, argument) in list.enumerated() {
                guard k == jsonValue && function == .aggregate else {
                    arguments.append(rewriter.pushIndex(argument))
                    continue
                }
                let call = FunctionCall(
                    name: SQLJSONFunction.aggregateArgumentName, arguments: .list([argument], distinct: false))
                arguments.append(rewriter.pushIndex(SQLExpression(.function(call), range: argument.range)))
                jsonRaw = rewriter.pushIndex(argument)
            }
        }
        self.jsonValue = jsonRaw
        self.arguments = arguments
        filter = call.filter.map { rewriter.pushIndex($0) }
        partition = definition.partitionBy.map { rewriter.pushIndex($0) }
        order = definition.orderBy.map { term in
            let descending = term.order == .descending
            return (rewriter.pushIndex(term.expression), descending, term.nulls.map { $0 == .first } ?? !descending)
        }
        frame = definition.frame
    }
}

extension WindowFrame.Bound {
    /// Whether the bound is `expr PRECEDING` or `expr FOLLOWING`.
    var hasOffset: Bool {
        switch self {
        case .preceding, .following: return true
        default: return false
        }
    }
}

extension SelectCompiler {
    /// The program computing the `pending` calls over the rows of `input`, whose extra columns start at
    /// `firstPushed`.
    func windowProgram(
        _ input: SelectProgram, inputSelect: SelectStatement, _ pending: [PendingWindowCall], firstPushed: Int,
        resultOrigins: [Int?]
    ) -> WindowProgram {
        var sortings: [WindowProgram.Sorting] = []
        var calls: [WindowProgram.Call] = []
        func collation(_ k: Int) -> SQLCollation { input.outputs[firstPushed + k].collation ?? .binary }
        for p in pending {
            let sorting = WindowProgram.Sorting(
                partition: p.partition.map { firstPushed + $0 }, partitionCollations: p.partition.map(collation),
                order: p.order.map {
                    .init(
                        column: firstPushed + $0.column, descending: $0.descending, nullsFirst: $0.nullsFirst,
                        collation: collation($0.column))
                })
            let s: Int
            if let found = sortings.firstIndex(of: sorting) {
                s = found
            } else {
                sortings.append(sorting)
                s = sortings.count - 1
            }
            calls.append(
                .init(
                    function: p.function, arguments: p.arguments.map { firstPushed + $0 },
                    jsonValue: p.jsonValue.map { firstPushed + $0 },
                    filter: p.filter.map { firstPushed + $0 }, sorting: s, frame: Self.windowFrame(p.frame),
                    aggregate: p.function == .aggregate
                        ? Self.windowAggregate(p.call, collation: p.arguments.first.map(collation) ?? .binary) : nil))
        }
        return WindowProgram(
            input: input, inputSelect: inputSelect, sortings: sortings, calls: calls, resultOrigins: resultOrigins)
    }

    /// A call's frame; the default is `RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    private static func windowFrame(_ frame: WindowFrame?) -> WindowProgram.Frame {
        guard let frame else {
            return .init(unit: .range, start: .unboundedPreceding, end: .currentRow, exclusion: nil)
        }
        func bound(_ bound: WindowFrame.Bound) -> WindowProgram.Bound {
            switch bound {
            case .unboundedPreceding: return .unboundedPreceding
            case .preceding(let e): return .preceding(offset(e))
            case .currentRow: return .currentRow
            case .following(let e): return .following(offset(e))
            case .unboundedFollowing: return .unboundedFollowing
            }
        }
        func offset(_ e: SQLExpression) -> WindowProgram.Offset {
            .init(expression: try? ExpressionCompiler.compile(e, resolver: EmptyColumnResolver()))
        }
        return .init(unit: frame.unit, start: bound(frame.start), end: bound(frame.end), exclusion: frame.exclusion)
    }

    /// The aggregate a window call runs, as a grouping query would run it.
    private static func windowAggregate(_ call: FunctionCall, collation: SQLCollation) -> SelectProgram.AggregateCall {
        let name = SQLFormat.asciiLowercased(call.name)
        var count = 0
        if case .list(let arguments, _) = call.arguments { count = arguments.count }
        if let user = SQLFunctionRegistry.current?.function(named: name, argumentCount: count), user.isAggregate {
            return .init(
                function: .user, arguments: [], filter: nil, distinct: false, collation: collation, userFunction: user)
        }
        let function: SelectProgram.AggregateCall.Function
        switch name {
        case "count": function = count == 0 ? .countStar : .count
        case "sum": function = .sum
        case "total": function = .total
        case "avg": function = .avg
        case "min": function = .min
        case "max": function = .max
        case "group_concat": function = .groupConcat
        case "json_group_array": function = .jsonGroupArray
        default: function = .jsonGroupObject
        }
        return .init(function: function, arguments: [], filter: nil, distinct: false, collation: collation)
    }
}
