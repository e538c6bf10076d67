// The scalar JSON1 functions of SQLite 3.40 (json, json_array, json_extract, ->, json_set, …).

import GraniteStorage

/// A scalar JSON function, or one of the `->` / `->>` operators.
enum SQLJSONFunction: Sendable, Equatable {
    case json, array, arrayLength, extract, insert, object, patch, quote, remove, replace, set, type, valid
    /// `x -> path`: the JSON text of the node.
    case arrow
    /// `x ->> path`: the SQL value of the node.
    case doubleArrow
    /// The result of `json_group_array` / `json_group_object` read back from its aggregate slot: the value
    /// unchanged, marked as JSON so that an enclosing JSON function embeds it (see ``EvalNode/json``).
    case aggregateResult
    /// The value argument of `json_group_array` / `json_group_object` on its way into the aggregate, which
    /// receives plain values: unchanged, except that JSON text from a JSON function becomes a BLOB of its
    /// bytes (a BLOB cannot be embedded, so the aggregate can tell them apart), and a BLOB is refused here.
    case aggregateArgument
    /// ``aggregateArgument`` for a window function's inner query, which computes it for rows that may never
    /// enter a frame: a BLOB becomes NULL here, and the window function refuses the row's BLOB (read from the
    /// argument itself) when it enters one.
    case windowAggregateArgument
    /// `json_extract`, `->` or `->>` with a constant path of plain keys and indexes, read when the statement
    /// was compiled: its only argument is the document (see JSONLocatedCall.swift).
    case locate(JSONSimplePath, JSONLocatedForm)

    /// The function a call of `name` (lower case) names, if it is a scalar JSON function.
    /// The name of a call that compiles to ``aggregateArgument``: the window functions' inner query computes a
    /// JSON aggregate's value argument with it. It holds a NUL, so no statement can name it.
    static let aggregateArgumentName = "\u{0}json_aggregate_argument"

    init?(name: String) {
        switch name {
        case "json": self = .json
        case "json_array": self = .array
        case "json_array_length": self = .arrayLength
        case "json_extract": self = .extract
        case "json_insert": self = .insert
        case "json_object": self = .object
        case "json_patch": self = .patch
        case "json_quote": self = .quote
        case "json_remove": self = .remove
        case "json_replace": self = .replace
        case "json_set": self = .set
        case "json_type": self = .type
        case "json_valid": self = .valid
        default: return nil
        }
    }

    /// The argument-count ranges of the scalar JSON functions, by name (`nil` upper bound: any number).
    static let arities: [String: (Int, Int?)] = [
        "json": (1, 1), "json_array": (0, nil), "json_array_length": (1, 2), "json_extract": (0, nil),
        "json_insert": (0, nil), "json_object": (0, nil), "json_patch": (2, 2), "json_quote": (1, 1),
        "json_remove": (0, nil), "json_replace": (0, nil), "json_set": (0, nil), "json_type": (1, 2),
        "json_valid": (1, 1),
    ]
}

/// The implementations of ``SQLJSONFunction``, over arguments that carry the JSON subtype.
enum SQLJSONFunctions {
    /// Calls `function` with evaluated arguments (their count already checked against the function's arity).
    static func call(_ function: SQLJSONFunction, _ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        switch function {
        case .json: return try remove(arguments)
        case .array: return try array(arguments)
        case .arrayLength: return try arrayLength(arguments)
        case .extract: return try extract(arguments)
        case .arrow, .doubleArrow: return try arrow(arguments, asJSON: function == .arrow)
        case .insert: return try edit(arguments, name: "json_insert", creating: true, replacing: false)
        case .replace: return try edit(arguments, name: "json_replace", creating: false, replacing: true)
        case .set: return try edit(arguments, name: "json_set", creating: true, replacing: true)
        case .object: return try object(arguments)
        case .patch: return try patch(arguments)
        case .quote: return try quote(arguments)
        case .remove: return try remove(arguments)
        case .type: return try type(arguments)
        case .valid: return valid(arguments)
        case .aggregateResult:
            guard let argument = arguments.first else { return JSONArgument(.null) }
            if argument.value.isText { return JSONArgument(argument.value, isJSON: true) }
            return argument
        case .aggregateArgument:
            guard let argument = arguments.first else { return JSONArgument(.null) }
            switch argument.value {
            case .blob: throw .blob
            case .text where argument.isJSON, .invalidUTF8Text where argument.isJSON:
                return JSONArgument(.blob(argument.value.textUTF8 ?? []))
            default: return argument
            }
        case .locate(let path, let form):
            guard let document = arguments.first else { return JSONArgument(.null) }
            return try locate(path, form, in: document.value, cache: JSONLocationCache())
        case .windowAggregateArgument:
            guard let argument = arguments.first else { return JSONArgument(.null) }
            switch argument.value {
            case .blob: return JSONArgument(.null)
            case .text where argument.isJSON, .invalidUTF8Text where argument.isJSON:
                return JSONArgument(.blob(argument.value.textUTF8 ?? []))
            default: return argument
            }
        }
    }

    // MARK: Helpers

    /// The parsed document of an argument, nil for NULL (its text form otherwise, as `sqlite3_value_text`).
    static func document(_ argument: JSONArgument) throws(JSONError) -> JSONNode? {
        guard let text = argument.value.sqlTextBytes else { return nil }
        return try JSONParser.parse(text)
    }

    /// The text of a path argument, nil for NULL.
    static func pathText(_ argument: JSONArgument) -> [UInt8]? { argument.value.sqlTextBytes }

    /// A JSON result.
    static func json(_ bytes: [UInt8]) -> JSONArgument {
        JSONArgument(.text(utf8: bytes), isJSON: true)
    }

    static let null = JSONArgument(.null)

    // MARK: Construction

    static func array(_ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, argument) in arguments.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            try JSONRendering.appendValue(argument, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return json(out)
    }

    static func object(_ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        guard arguments.count % 2 == 0 else { throw .objectArgumentCount }
        // Every label is checked before any value: SQLite reports a bad label over a BLOB value wherever
        // they are.
        for k in stride(from: 0, to: arguments.count, by: 2) {
            guard arguments[k].value.isText else { throw .objectLabel }
        }
        var out: [UInt8] = [UInt8(ascii: "{")]
        for k in stride(from: 0, to: arguments.count, by: 2) {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            JSONRendering.appendString(arguments[k].value.sqlTextBytes ?? [], to: &out)
            out.append(UInt8(ascii: ":"))
            try JSONRendering.appendValue(arguments[k + 1], to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return json(out)
    }

    static func quote(_ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        var out: [UInt8] = []
        try JSONRendering.appendValue(arguments[0], to: &out)
        return json(out)
    }

    // MARK: Inspection

    static func valid(_ arguments: [JSONArgument]) -> JSONArgument {
        guard let text = arguments[0].value.sqlTextBytes, var root = try? JSONParser.parse(text) else {
            return JSONArgument(.integer(0))
        }
        JSONNode.dismantle(&root)
        return JSONArgument(.integer(1))
    }

    /// The node `json_type` and `json_array_length` look at: the root, or the one the second argument's
    /// path names (nil when the path is NULL or names nothing).
    private static func target(_ root: JSONNode, _ arguments: [JSONArgument]) throws(JSONError) -> JSONNode? {
        guard arguments.count > 1 else { return root }
        guard let path = pathText(arguments[1]) else { return nil }
        return try JSONPath.lookup(path, in: root)
    }

    static func type(_ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        guard var root = try document(arguments[0]) else { return null }
        defer { JSONNode.dismantle(&root) }
        guard var node = try target(root, arguments) else { return null }
        defer { JSONNode.dismantle(&node) }
        return JSONArgument(.text(node.typeName))
    }

    static func arrayLength(_ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        guard var root = try document(arguments[0]) else { return null }
        defer { JSONNode.dismantle(&root) }
        guard var node = try target(root, arguments) else { return null }
        defer { JSONNode.dismantle(&node) }
        if case .array(let elements, _) = node { return JSONArgument(.integer(Int64(elements.count))) }
        return JSONArgument(.integer(0))
    }

    /// The node a simple `path` names in the document `text` (nil when none), found without parsing the
    /// document into a tree (see ``JSONParser/locate(_:)``).
    static func node(at path: JSONSimplePath, in text: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONNode? {
        let parser = JSONParser(text)
        guard let location = try parser.locate(path) else { return nil }
        return try parser.node(at: location.range)
    }

    static func extract(_ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        if arguments.count == 2, let path = pathText(arguments[1]), let simple = JSONSimplePath(path) {
            let found = try JSONParser.withText(arguments[0].value) { text throws(JSONError) in
                try node(at: simple, in: text)
            }
            guard var node = found ?? nil else { return null }
            defer { JSONNode.dismantle(&node) }
            return try JSONRendering.sqlValue(of: node)
        }
        guard arguments.count >= 2, var root = try document(arguments[0]) else { return null }
        defer { JSONNode.dismantle(&root) }
        if arguments.count == 2 {
            guard let path = pathText(arguments[1]), var node = try JSONPath.lookup(path, in: root) else {
                return null
            }
            defer { JSONNode.dismantle(&node) }
            return try JSONRendering.sqlValue(of: node)
        }
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, argument) in arguments.dropFirst().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if let path = pathText(argument), var node = try JSONPath.lookup(path, in: root) {
                defer { JSONNode.dismantle(&node) }
                try JSONRendering.append(node, to: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(UInt8(ascii: "]"))
        return json(out)
    }

    /// `x -> path` and `x ->> path`, whose path may be abbreviated: `N` for `$[N]`, `key` for `$.key`,
    /// `[N]` for `$[N]`.
    static func arrow(_ arguments: [JSONArgument], asJSON: Bool) throws(JSONError) -> JSONArgument {
        guard let path = pathText(arguments[1]) else {
            // A malformed document is still an error.
            _ = try JSONParser.withText(arguments[0].value) { text throws(JSONError) in try JSONParser(text).locate(.root) }
            return null
        }
        let lookupPath = arrowPath(path)
        let found = try JSONParser.withText(arguments[0].value) { text throws(JSONError) -> JSONNode? in
            if let simple = JSONSimplePath(lookupPath) { return try node(at: simple, in: text) }
            var root = try JSONParser.parse(text)
            defer { JSONNode.dismantle(&root) }
            return try JSONPath.lookup(lookupPath, in: root)
        }
        guard var node = found ?? nil else { return null }
        defer { JSONNode.dismantle(&node) }
        if asJSON { return json(try JSONRendering.text(of: node)) }
        return JSONArgument(try JSONRendering.sqlValue(of: node).value)
    }

    /// The path an arrow operator's right operand stands for (up to its first NUL): `N` for `$[N]`, `[N]` for
    /// `$[N]`, `key` for `$.key`, a path starting with `$` as it is.
    static func arrowPath(_ operand: [UInt8]) -> [UInt8] {
        var path = operand
        if let nul = path.firstIndex(of: 0) { path.removeSubrange(nul...) }
        guard path.first != UInt8(ascii: "$") else { return path }
        if let first = path.first, JSONParser.isDigit(first) { return Array("$[".utf8) + path + [UInt8(ascii: "]")] }
        if path.first == UInt8(ascii: "[") { return [UInt8(ascii: "$")] + path }
        return Array("$.".utf8) + path
    }

    // MARK: Editing

    /// `json_insert`, `json_replace` and `json_set`: path/value pairs applied in order. `creating` adds
    /// missing members and elements; `replacing` overwrites existing nodes. A node set by an earlier pair is
    /// opaque to later pairs (see ``JSONNode/replaced(_:)``); a root replaced by a value returns that value as
    /// it is.
    static func edit(
        _ arguments: [JSONArgument], name: String, creating: Bool, replacing: Bool
    ) throws(JSONError) -> JSONArgument {
        guard !arguments.isEmpty else { return null }
        guard arguments.count % 2 == 1 else { throw .editArgumentCount(function: name) }
        guard var root = try document(arguments[0]) else { return null }
        defer { JSONNode.dismantle(&root) }
        for k in stride(from: 1, to: arguments.count, by: 2) {
            guard let path = pathText(arguments[k]) else { continue }
            let value = arguments[k + 1]
            _ = try JSONPath.visit(path, in: &root, creating: creating) { node, created in
                if created || replacing { node = .replaced(value) }
                return .keep
            }
        }
        if case .replaced(let value) = root { return value }
        return json(try JSONRendering.text(of: root))
    }

    /// `json_remove` (and `json(x)`, which is `json_remove` without paths): a NULL path makes the result NULL,
    /// and so does removing the root.
    static func remove(_ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        guard let first = arguments.first, var root = try document(first) else { return null }
        defer { JSONNode.dismantle(&root) }
        var removedRoot = false
        for argument in arguments.dropFirst() {
            guard let path = pathText(argument) else { return null }
            // Later paths are still checked (and may fail) after the root is gone, as in SQLite.
            if try JSONPath.visit(path, in: &root, creating: false, { _, _ in .remove }) == .removedRoot {
                removedRoot = true
            }
        }
        if removedRoot { return null }
        return json(try JSONRendering.text(of: root))
    }

    static func patch(_ arguments: [JSONArgument]) throws(JSONError) -> JSONArgument {
        guard var target = try document(arguments[0]) else { return null }
        defer { JSONNode.dismantle(&target) }
        guard var patch = try document(arguments[1]) else { return null }
        defer { JSONNode.dismantle(&patch) }
        var patched = JSONPatch.apply(patch, to: target)
        defer { JSONNode.dismantle(&patched) }
        return json(try JSONRendering.text(of: patched))
    }
}
