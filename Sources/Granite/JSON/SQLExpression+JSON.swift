// How an expression takes part in building JSON: SQLite's JSON functions embed a JSON value (the result of `JSON()`,
// `JSON_ARRAY()`, `->`, …) as JSON and quote any other text, so an expression the application knows holds JSON text
// (a `JSONColumn`, `x.asJSON`) is wrapped in `JSON(…)` where JSON is built, unless it already is a JSON value.

extension SQLExpression {
    /// The names of the SQL functions whose result SQLite's JSON functions take as JSON.
    private static let functionsReturningJSON: Set<String> = [
        "JSON", "JSON_ARRAY", "JSON_GROUP_ARRAY", "JSON_GROUP_OBJECT", "JSON_INSERT", "JSON_OBJECT", "JSON_PATCH",
        "JSON_REMOVE", "JSON_REPLACE", "JSON_SET", "JSON_QUOTE",
    ]

    /// Whether SQLite takes the expression's value as JSON when it is an argument of a JSON function: NULL, the
    /// `->` operator, and the functions that return JSON (`JSON_EXTRACT` of several paths included). False tells
    /// nothing.
    var isJSONValue: Bool {
        switch impl {
        case .databaseValue(let value): return value.isNull
        case .binary(let op, _, _): return op == "->"
        case .collated(let inner, _), .qualified(let inner, _): return inner.isJSONValue
        case .filteredAggregate(let aggregate, _): return aggregate.isJSONValue
        case .function(let name, let arguments, _, _):
            let upper = name.uppercased()
            return Self.functionsReturningJSON.contains(upper) || (upper == "JSON_EXTRACT" && arguments.count > 2)
        default: return false
        }
    }

    /// The expression marked as holding JSON text (see ``prefersJSONValue``).
    func preferringJSONValue() -> SQLExpression {
        var marked = self
        marked.prefersJSONValue = true
        return marked
    }

    /// The expression as an argument that builds JSON: wrapped in `JSON(…)` when it is marked as JSON text and
    /// SQLite would not take it as JSON by itself.
    var jsonBuilderExpression: SQLExpression {
        guard prefersJSONValue, !isJSONValue else { return self }
        return .function("JSON", [self])
    }
}
