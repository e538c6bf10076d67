// Evaluation of JSON function calls, with SQLite's JSON subtype.

import GraniteStorage

// The JSON subtype. SQLite tags the text a JSON function returns with a subtype, so that another JSON function
// given it as an argument embeds it as JSON instead of quoting it as a string. Granite's values carry no
// subtype; instead a JSON call's arguments are evaluated with ``EvalNode/evaluateJSONArgument(_:)``, which
// asks a nested JSON call for its result together with the flag. The flag passes, as SQLite's register copies
// pass the subtype, through the expressions that hand on one of their operands unchanged: CASE, COALESCE,
// IFNULL, IIF, NULLIF, min()/max() of several arguments, CAST AS TEXT, and (compiled away) unary `+`, COLLATE,
// likely() and parentheses. `json_group_array` / `json_group_object` results are read from their slots through
// ``SQLJSONFunction/aggregateResult``, which adds the flag; a table-valued function's column that carries it
// (`json_each.value`) is read with its flag when it is the direct argument of a JSON call
// (``EvalNode/subtypedColumn``). It is lost, as in SQLite once a value is stored or computed anew, on the way
// through anything else (operators, other functions, a subquery, a view's column; SQLite keeps it through a
// scalar subquery, which Granite does not). JSON calls are never folded to constants, because a constant would
// lose the flag.
extension EvalNode {
    /// The node's value and whether it is JSON text from a JSON function.
    func evaluateJSONArgument(_ context: inout EvaluationContext) throws -> JSONArgument {
        switch self {
        case .json(let function, let arguments):
            return try Self.evaluateJSON(function, arguments, &context)
        case .subtypedColumn(let slot, let flag):
            return JSONArgument(context.row[slot], isJSON: context.row[flag] == .integer(1))
        case .coalesce(let arguments):
            for argument in arguments.dropLast() {
                let result = try argument.evaluateJSONArgument(&context)
                if !result.value.isNull { return result }
            }
            guard let last = arguments.last else { return JSONArgument(.null) }
            return try last.evaluateJSONArgument(&context)
        case .iif(let condition, let whenTrue, let whenFalse):
            let chosen = try condition.evaluate(&context).sqlTruth == true ? whenTrue : whenFalse
            return try chosen.evaluateJSONArgument(&context)
        case .searchedCase(let branches, let otherwise):
            for (condition, result) in branches {
                if try condition.evaluate(&context).sqlTruth == true {
                    return try result.evaluateJSONArgument(&context)
                }
            }
            return try otherwise?.evaluateJSONArgument(&context) ?? JSONArgument(.null)
        case .simpleCase(let base, let branches, let otherwise):
            let value = try base.evaluate(&context)
            for (candidate, result, rule) in branches {
                if Self.compare(.equal, value, try candidate.evaluate(&context), rule) == true {
                    return try result.evaluateJSONArgument(&context)
                }
            }
            return try otherwise?.evaluateJSONArgument(&context) ?? JSONArgument(.null)
        case .nullif(let a, let b, let collation):
            let x = try a.evaluateJSONArgument(&context)
            let y = try b.evaluate(&context)
            return SQLComparison.compare(x.value, y, collation: collation) != 0 ? x : JSONArgument(.null)
        case .minMax(let isMax, let collation, let arguments):
            // The argument SQLScalarFunctions.minimum/maximum would pick (min: the last of equal least values,
            // max: the first of equal greatest), with its flag.
            var values: [JSONArgument] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try argument.evaluateJSONArgument(&context)) }
            guard var best = values.first, !best.value.isNull else { return JSONArgument(.null) }
            for candidate in values.dropFirst() {
                if candidate.value.isNull { return JSONArgument(.null) }
                let order = SQLComparison.compare(best.value, candidate.value, collation: collation)
                if isMax ? order < 0 : order >= 0 { best = candidate }
            }
            return best
        case .cast(let operand, .text):
            let result = try operand.evaluateJSONArgument(&context)
            if result.value.isText { return result }
            return JSONArgument(SQLCast.cast(result.value, to: .text))
        default:
            return JSONArgument(try evaluate(&context))
        }
    }

    /// Calls a JSON function on its evaluated arguments.
    static func evaluateJSON(
        _ function: SQLJSONFunction, _ arguments: [EvalNode], _ context: inout EvaluationContext
    ) throws -> JSONArgument {
        if case .locate(let path, let form) = function, arguments.count == 1 {
            let cache = context.sharedJSONLocations()
            // A document column whose TEXT a table cursor keeps as bytes (see StoredDocument) is read there.
            if case .column(let slot) = arguments[0], let stored = cache.storedDocument(holdingTextIn: slot) {
                do {
                    return try SQLJSONFunctions.locate(path, form, in: stored, cache: cache)
                } catch {
                    throw error.evaluationError
                }
            }
            let document = try arguments[0].evaluate(&context)
            do {
                return try SQLJSONFunctions.locate(path, form, in: document, cache: cache)
            } catch {
                throw error.evaluationError
            }
        }
        var values: [JSONArgument] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try argument.evaluateJSONArgument(&context)) }
        do {
            return try SQLJSONFunctions.call(function, values)
        } catch {
            throw error.evaluationError
        }
    }
}

extension CompiledExpression {
    /// The expression as the value argument of `json_group_array` / `json_group_object`, which reach the
    /// aggregate as plain values: wrapped in ``SQLJSONFunction/aggregateArgument``, which hands JSON text on
    /// as a BLOB so that the aggregate embeds it rather than quoting it.
    var asJSONAggregateArgument: CompiledExpression {
        CompiledExpression(
            root: .json(.aggregateArgument, [root]), prelude: prelude, affinity: affinity, collation: collation)
    }
}
