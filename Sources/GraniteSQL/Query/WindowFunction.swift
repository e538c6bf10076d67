// What a call with an OVER clause computes: one of SQLite's built-in window functions, or an aggregate run over
// each row's frame. Deciding it raises SQLite's errors for calls that cannot be window functions.

/// The function of a window function call.
enum WindowFunction: Equatable {
    case rowNumber, rank, denseRank, percentRank, cumeDist
    /// `ntile(n)`.
    case ntile
    /// `lag(x[, offset[, default]])` and `lead(…)`.
    case lag, lead
    case firstValue, lastValue
    /// `nth_value(x, n)`.
    case nthValue
    /// An aggregate (built-in or the application's), over the frame.
    case aggregate

    /// The built-in window functions that are not aggregates, with their argument-count ranges.
    static let builtIn: [String: (function: WindowFunction, arguments: ClosedRange<Int>)] = [
        "row_number": (.rowNumber, 0...0), "rank": (.rank, 0...0), "dense_rank": (.denseRank, 0...0),
        "percent_rank": (.percentRank, 0...0), "cume_dist": (.cumeDist, 0...0), "ntile": (.ntile, 1...1),
        "lag": (.lag, 1...3), "lead": (.lead, 1...3), "first_value": (.firstValue, 1...1),
        "last_value": (.lastValue, 1...1), "nth_value": (.nthValue, 2...2),
    ]

    /// The function `call` (which has an `OVER` clause) computes; throws SQLite's error when it names no
    /// function, has the wrong number of arguments, or is a function that cannot run over a window.
    static func of(_ call: FunctionCall) throws -> WindowFunction {
        let name = SQLFormat.asciiLowercased(call.name)
        var count = 0
        var distinct = false
        if case .list(let arguments, let d) = call.arguments {
            count = arguments.count
            distinct = d
        }
        let function = try resolve(call, name: name, argumentCount: count, star: call.arguments == .star)
        if distinct { throw SQLEvaluationError("DISTINCT is not supported for window functions") }
        if function != .aggregate && call.filter != nil {
            throw SQLEvaluationError("FILTER clause may only be used with aggregate window functions")
        }
        return function
    }

    private static func resolve(_ call: FunctionCall, name: String, argumentCount: Int, star: Bool) throws
        -> WindowFunction
    {
        let registry = SQLFunctionRegistry.current
        if let custom = registry?.function(named: name, argumentCount: argumentCount) {
            guard custom.isAggregate else {
                throw SQLEvaluationError("\(call.name)() may not be used as a window function")
            }
            return .aggregate
        }
        if let (function, arguments) = builtIn[name] {
            guard !star, arguments.contains(argumentCount) else {
                throw SQLEvaluationError("wrong number of arguments to function \(call.name)()")
            }
            return function
        }
        guard let (lo, hi) = ExpressionCompiler.arities[name] else {
            if registry?.hasFunction(named: name) == true {
                throw SQLEvaluationError("wrong number of arguments to function \(call.name)()")
            }
            throw SQLEvaluationError(.noSuchFunction(call.name))
        }
        if star && name != "count" {
            throw SQLEvaluationError("wrong number of arguments to function \(call.name)()")
        }
        let isAggregate =
            ExpressionCompiler.aggregates.contains(name) || ((name == "min" || name == "max") && argumentCount == 1)
        guard isAggregate else { throw SQLEvaluationError("\(call.name)() may not be used as a window function") }
        if argumentCount < lo || (hi.map { argumentCount > $0 } ?? false) {
            throw SQLEvaluationError("wrong number of arguments to function \(call.name)()")
        }
        return .aggregate
    }

    /// Whether `call` (without `OVER`) is an aggregate call: a window call inside one is a misuse.
    static func isAggregateCall(_ call: FunctionCall) -> Bool {
        let name = SQLFormat.asciiLowercased(call.name)
        var count = 0
        if case .list(let arguments, _) = call.arguments { count = arguments.count }
        if let custom = SQLFunctionRegistry.current?.function(named: name, argumentCount: count) {
            return custom.isAggregate
        }
        return ExpressionCompiler.aggregates.contains(name) || ((name == "min" || name == "max") && count == 1)
    }
}
