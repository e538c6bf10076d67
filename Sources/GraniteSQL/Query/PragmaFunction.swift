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
        default: return [rawValue]
        }
    }

    /// Whether the function has the hidden `arg` column (the pragma's argument).
    var takesArgument: Bool {
        switch self {
        case .tableInfo, .tableXinfo, .tableList, .indexList, .indexInfo, .indexXinfo, .foreignKeyList,
            .integrityCheck, .quickCheck:
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

extension SelectCompiler {
    /// Refuses a pragma function whose hidden column, left unbound by its call, a `WHERE` or `ON` term reads
    /// (`FROM pragma_table_info WHERE arg = 't'`): SQLite takes an equality constraint on it as the argument,
    /// which Granite does not (reading it elsewhere gives its NULL, as in SQLite).
    static func checkUnboundHiddenColumns(
        _ program: TableFunctionProgram, _ source: QuerySource, constrainedBy terms: [CompiledExpression]
    ) throws {
        guard case .pragma(let pragma) = program.function else { return }
        let unbound = (pragma.resultColumns.count + program.arguments.count)..<pragma.columnNames.count
        guard !unbound.isEmpty, unbound.contains(where: source.used.contains) else { return }
        let slots = Set(unbound.map { source.base + $0 })
        for term in terms where term.readSlots.map({ !$0.isDisjoint(with: slots) }) ?? false {
            throw SQLExecutionError.unsupported("a constraint on a hidden column a pragma function's call leaves unbound")
        }
    }
}
