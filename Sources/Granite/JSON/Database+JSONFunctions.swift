// The SQL JSON functions as query interface expressions: `Database.jsonArray([1, 2])` is `JSON_ARRAY(1, 2)`. Where
// a function builds JSON, arguments marked as JSON text (a `JSONColumn`, `x.asJSON`) are embedded as JSON (see
// `SQLExpression+JSON.swift`). SQLite's JSON1 documentation (https://www.sqlite.org/json1.html) tells what each does.

extension Database {
    /// `JSON(value)`: the JSON text of `value`, minified (an error when it is not well-formed JSON).
    public static func json(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON", [value.sqlExpression])
    }

    /// `JSON_ARRAY(value, …)`: a JSON array of `values`.
    public static func jsonArray(_ values: some Collection<some SQLExpressible>) -> SQLExpression {
        .function("JSON_ARRAY", values.map(\.sqlExpression.jsonBuilderExpression))
    }

    /// `JSON_ARRAY(value, …)`: a JSON array of `values`, of any expressible types.
    public static func jsonArray(_ values: some Collection<any SQLExpressible>) -> SQLExpression {
        .function("JSON_ARRAY", values.map(\.sqlExpression.jsonBuilderExpression))
    }

    /// `JSON_ARRAY_LENGTH(value)`: the number of elements of a JSON array (0 for any other JSON value).
    public static func jsonArrayLength(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON_ARRAY_LENGTH", [value.sqlExpression])
    }

    /// `JSON_ARRAY_LENGTH(value, path)`: the number of elements of the JSON array at `path`.
    public static func jsonArrayLength(_ value: some SQLExpressible, atPath path: some SQLExpressible)
        -> SQLExpression
    {
        .function("JSON_ARRAY_LENGTH", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_EXTRACT(value, path)`: the SQL value at `path` (JSON text for an object or array).
    public static func jsonExtract(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        .function("JSON_EXTRACT", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_EXTRACT(value, path, …)`: a JSON array of the values at `paths`.
    public static func jsonExtract(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>)
        -> SQLExpression
    {
        .function("JSON_EXTRACT", [value.sqlExpression] + paths.map(\.sqlExpression))
    }

    /// `JSON_INSERT(value, path, newValue, …)`: `value` with each new value inserted at its path, where nothing
    /// is there yet.
    public static func jsonInsert(
        _ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>
    ) -> SQLExpression {
        .function("JSON_INSERT", [value.sqlExpression] + pathsAndValues(assignments))
    }

    /// `JSON_REPLACE(value, path, newValue, …)`: `value` with each new value replacing what is at its path.
    public static func jsonReplace(
        _ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>
    ) -> SQLExpression {
        .function("JSON_REPLACE", [value.sqlExpression] + pathsAndValues(assignments))
    }

    /// `JSON_SET(value, path, newValue, …)`: `value` with each new value set at its path (inserted or replaced).
    public static func jsonSet(
        _ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>
    ) -> SQLExpression {
        .function("JSON_SET", [value.sqlExpression] + pathsAndValues(assignments))
    }

    /// `JSON_OBJECT(key, value, …)`: a JSON object of `elements`, in order.
    public static func jsonObject(_ elements: some Collection<(key: String, value: any SQLExpressible)>)
        -> SQLExpression
    {
        .function("JSON_OBJECT", pathsAndValues(elements))
    }

    /// `JSON_PATCH(value, patch)`: `value` merged with `patch` as RFC 7396 describes.
    public static func jsonPatch(_ value: some SQLExpressible, with patch: some SQLExpressible) -> SQLExpression {
        .function("JSON_PATCH", [value.sqlExpression, patch.sqlExpression])
    }

    /// `JSON_REMOVE(value, path)`: `value` without what is at `path`.
    public static func jsonRemove(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        .function("JSON_REMOVE", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_REMOVE(value, path, …)`: `value` without what is at each of `paths`.
    public static func jsonRemove(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>)
        -> SQLExpression
    {
        .function("JSON_REMOVE", [value.sqlExpression] + paths.map(\.sqlExpression))
    }

    /// `JSON_TYPE(value)`: the type of a JSON value (`'object'`, `'array'`, `'integer'`, `'real'`, `'text'`,
    /// `'true'`, `'false'`, `'null'`).
    public static func jsonType(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON_TYPE", [value.sqlExpression])
    }

    /// `JSON_TYPE(value, path)`: the type of the JSON value at `path` (NULL when there is none).
    public static func jsonType(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        .function("JSON_TYPE", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_VALID(value)`: 1 when `value` is well-formed JSON, else 0.
    public static func jsonIsValid(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON_VALID", [value.sqlExpression])
    }

    /// `JSON_QUOTE(value)`: `value` as JSON (a string quoted, a number as is; JSON text marked as JSON kept as is).
    public static func jsonQuote(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON_QUOTE", [value.sqlExpression.jsonBuilderExpression])
    }

    /// `JSON_GROUP_ARRAY(value)`, the aggregate: a JSON array of the values of the rows (of those that match
    /// `filter`, when given: `FILTER (WHERE …)`).
    public static func jsonGroupArray(_ value: some SQLExpressible, filter: (any SQLSpecificExpressible)? = nil)
        -> SQLExpression
    {
        filtered(.aggregate("JSON_GROUP_ARRAY", [value.sqlExpression.jsonBuilderExpression]), filter)
    }

    /// `JSON_GROUP_OBJECT(key, value)`, the aggregate: a JSON object of the keys and values of the rows (of those
    /// that match `filter`, when given).
    public static func jsonGroupObject(
        key: some SQLExpressible, value: some SQLExpressible, filter: (any SQLSpecificExpressible)? = nil
    ) -> SQLExpression {
        filtered(
            .aggregate("JSON_GROUP_OBJECT", [key.sqlExpression, value.sqlExpression.jsonBuilderExpression]), filter)
    }

    /// The arguments `key1, value1, key2, value2, …` of the JSON functions that take paths or keys with values.
    private static func pathsAndValues(_ pairs: some Collection<(key: String, value: any SQLExpressible)>)
        -> [SQLExpression]
    {
        pairs.flatMap { [$0.key.sqlExpression, $0.value.sqlExpression.jsonBuilderExpression] }
    }

    private static func filtered(_ aggregate: SQLExpression, _ filter: (any SQLSpecificExpressible)?) -> SQLExpression {
        guard let filter else { return aggregate }
        return SQLExpression(impl: .filteredAggregate(aggregate, filter: filter.sqlExpression))
    }
}
