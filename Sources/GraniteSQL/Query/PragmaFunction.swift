// Table-valued pragma functions (`SELECT * FROM pragma_table_info('t')`): SQLite's eponymous virtual tables over
// the pragmas that only read. Their columns are the pragma's result columns, then the hidden `arg` (for a pragma
// taking an argument) and `schema` (for one that reads a schema) columns the call's arguments bind to, in order.

import GraniteStorage

/// A pragma readable as a table-valued function, named `pragma_<name>`.
enum SQLPragmaFunction: String, Sendable, CaseIterable {
    case tableInfo = "table_info"
    case tableXinfo = "table_xinfo"
    case tableList = "table_list"
    case indexList = "index_list"
    case indexInfo = "index_info"
    case indexXinfo = "index_xinfo"
    case foreignKeyList = "foreign_key_list"
    case foreignKeyCheck = "foreign_key_check"
    case pageSize = "page_size"
    case pageCount = "page_count"
    case freelistCount = "freelist_count"
    case integrityCheck = "integrity_check"
    case quickCheck = "quick_check"
    case userVersion = "user_version"
    case foreignKeys = "foreign_keys"
    case recursiveTriggers = "recursive_triggers"
    case schemaVersion = "schema_version"
    case journalMode = "journal_mode"
    case synchronous
    case encoding

    /// The pragma the function name `name` (any case, `pragma_` prefix included) reads, if any.
    init?(functionName name: String) {
        let key = SchemaNames.key(name)
        guard key.hasPrefix("pragma_"), let pragma = Self(rawValue: String(key.dropFirst("pragma_".count))) else {
            return nil
        }
        self = pragma
    }

    /// The pragma's result columns, as SQLite 3.40 names them.
    var resultColumns: [String] {
        switch self {
        case .tableInfo: return ["cid", "name", "type", "notnull", "dflt_value", "pk"]
        case .tableXinfo: return ["cid", "name", "type", "notnull", "dflt_value", "pk", "hidden"]
        case .tableList: return ["schema", "name", "type", "ncol", "wr", "strict"]
        case .indexList: return ["seq", "name", "unique", "origin", "partial"]
        case .indexInfo: return ["seqno", "cid", "name"]
        case .indexXinfo: return ["seqno", "cid", "name", "desc", "coll", "key"]
        case .foreignKeyList: return ["id", "seq", "table", "from", "to", "on_update", "on_delete", "match"]
        case .foreignKeyCheck: return ["table", "rowid", "parent", "fkid"]
        default: return [rawValue]
        }
    }

    /// Whether the function has the hidden `arg` column (the pragma's argument).
    var takesArgument: Bool {
        switch self {
        case .tableInfo, .tableXinfo, .tableList, .indexList, .indexInfo, .indexXinfo, .foreignKeyList,
            .foreignKeyCheck, .integrityCheck, .quickCheck:
            return true
        default: return false
        }
    }

    /// Whether the function has the hidden `schema` column (the schema the pragma reads).
    var takesSchema: Bool {
        switch self {
        case .tableList, .freelistCount, .userVersion, .foreignKeys, .recursiveTriggers, .schemaVersion, .encoding:
            return false
        default: return true
        }
    }

    /// Every column: the result columns, then the hidden ones.
    var columnNames: [String] {
        resultColumns + (takesArgument ? ["arg"] : []) + (takesSchema ? ["schema"] : [])
    }

    /// How many arguments a call may pass (one per hidden column).
    var maximumArguments: Int { (takesArgument ? 1 : 0) + (takesSchema ? 1 : 0) }
}

extension SQLConnection {
    /// The rows of `pragma_<function>(arguments…)`: the pragma's rows, each followed by the arguments as its hidden
    /// columns (NULL when not passed). A NULL argument counts as none, as in SQLite's pragma table; a schema
    /// `main` or `temp` (any case) looks for the pragma's object in that schema only (`temp` gives no row while the
    /// connection has no temporary schema), and another gives SQLite's `unknown database` error.
    ///
    /// `constrained` holds the values of the hidden columns after `arguments` that the query's terms bind, evaluated
    /// in `context`: one value passes as it is; several (an `IN` list) run the pragma once per value, NULLs left
    /// out, in order and without repeats, as SQLite's loop over an `IN` does. Those values are passed as text.
    func pragmaFunctionRows(
        _ function: SQLPragmaFunction, _ arguments: [Value], constrained: [[CompiledExpression]] = [],
        _ context: inout EvaluationContext
    ) throws -> [[Value]] {
        guard !constrained.isEmpty else { return try pragmaFunctionRows(function, arguments) }
        var argumentLists = [arguments]
        for choices in constrained {
            var values: [Value] = []
            for choice in choices { values.append(try choice.evaluate(&context)) }
            if choices.count > 1 {
                values = values.filter { !$0.isNull }.sorted { SQLComparison.compare($0, $1) < 0 }
                values = values.indices.filter { $0 == 0 || SQLComparison.compare(values[$0 - 1], values[$0]) != 0 }
                    .map { values[$0] }
            }
            let texts = values.map { value in
                value.sqlTextBytes.map { Value.text(String(decoding: $0, as: UTF8.self)) } ?? .null
            }
            argumentLists = argumentLists.flatMap { list in texts.map { list + [$0] } }
        }
        return try argumentLists.flatMap { try pragmaFunctionRows(function, $0) }
    }

    /// The rows of `pragma_<function>(arguments…)` (see above).
    func pragmaFunctionRows(_ function: SQLPragmaFunction, _ arguments: [Value]) throws -> [[Value]] {
        var hidden = arguments
        while hidden.count < function.maximumArguments { hidden.append(.null) }
        let argument = function.takesArgument ? hidden[0] : nil
        var schemaName: String?
        if function.takesSchema, case let schema = hidden[hidden.count - 1], !schema.isNull {
            let name = schema.sqlTextBytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
            switch SchemaNames.key(name) {
            case "main": schemaName = name
            case "temp":
                // The temporary schema, when the connection has none, holds nothing.
                guard catalog.hasTemporarySchema else { return [] }
                schemaName = name
            default: throw SQLExecutionError("unknown database '\(name)'")
            }
        }
        let text = argument?.sqlTextBytes.map { String(decoding: $0, as: UTF8.self) }
        return try pragmaResult(named: function.rawValue, argument: text, schema: schemaName).rows.map { $0 + hidden }
    }
}
