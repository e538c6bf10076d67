import GraniteStorage

// PRAGMA statements, with SQLite 3.40's result column names and row shapes.
//
// Differences from SQLite worth knowing:
// - Automatic indexes are named `granite_autoindex_<table>_<n>` where SQLite says `sqlite_autoindex_<table>_<n>`
//   (`index_list`, `index_info`, `index_xinfo`).
// - `table_info`'s `type` and `dflt_value` are the source spans of the stored `CREATE TABLE` text, as in SQLite,
//   but after `ALTER TABLE … RENAME COLUMN` that text is regenerated in canonical form (spacing may differ).
// - `schema_version` is the schema cookie stored in the file header (incremented by every schema change).
// - `synchronous` is the connection's level (SQLite's WAL-mode syncs; see SQLConnection+StoragePragmas.swift);
//   `page_size = N` cannot change the page size of a database that holds nothing yet, and says so.
// - Setting `schema_version` is an error (Granite's schema cookie is its own), where SQLite would write it.
// - `journal_mode` is always `wal`.
// - `wal_checkpoint` on an in-memory database checkpoints its in-memory log (SQLite has none and answers 0|-1|-1).
// - Unknown pragmas, and pragmas naming an unknown table or index, return no rows, as in SQLite.
// - `table_list` counts a view's columns (0 when its query does not compile); SQLite says 0 until the connection
//   has read the view.
// - `integrity_check` reports, besides SQLite's problems in SQLite's words, undecodable rows (a statement error in
//   SQLite) and index entries that match no row (see `DatabaseCheck`).

/// The result of a pragma: column names and rows.
typealias PragmaResult = (columns: [String], rows: [[Value]])

extension SQLConnection {
    /// Runs a `PRAGMA` statement, returning its result rows.
    func pragma(_ pragma: PragmaStatement, parameters: BoundParameters) throws -> (columns: [String], rows: [[Value]]) {
        if let schema = pragma.name.schema, !["main", "temp"].contains(SchemaNames.key(schema)) {
            throw SQLExecutionError("unknown database \(schema)")
        }
        return try pragmaResult(
            named: pragma.name.name, argument: pragma.value.map(Self.pragmaText), schema: pragma.name.schema)
    }

    /// Runs the pragma `name` on the schema `schema` (`main` or `temp`, checked by the caller; nil: both): the
    /// pragmas that describe a schema object look for it in that schema only.
    func pragmaResult(named name: String, argument: String?, schema: String?) throws -> PragmaResult {
        guard catalog.hasTemporarySchema, schema != nil, Self.objectPragmas.contains(SchemaNames.key(name)) else {
            return try pragmaResult(named: name, argument: argument)
        }
        if SchemaCatalog.Qualifier(schema) == .temp {
            // Unqualified lookups find the temporary object first: one that only main has gives no row.
            guard let argument, let temporary = catalog.temporarySchema,
                temporary.table(named: argument) != nil || temporary.view(named: argument) != nil
                    || temporary.index(named: argument) != nil
            else { return try pragmaResult(named: name, argument: nil) }
            return try pragmaResult(named: name, argument: argument)
        }
        let saved = catalog
        catalog = catalog.mainSchema
        defer { catalog = saved }
        return try pragmaResult(named: name, argument: argument)
    }

    /// The pragmas that describe one table, view or index, named by their argument.
    private static let objectPragmas: Set<String> = [
        "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list",
    ]

    /// Runs the pragma `name` with `argument` (nil: none), as the statement `PRAGMA name(argument)` or the
    /// table-valued function `pragma_name(argument)` does.
    func pragmaResult(named name: String, argument: String?) throws -> PragmaResult {
        switch SchemaNames.key(name) {
        case "table_info": return try tableInfo(argument, extended: false)
        case "table_xinfo": return try tableInfo(argument, extended: true)
        case "table_list": return tableList(argument)
        case "index_list": return indexList(argument)
        case "index_info": return indexInfo(argument, extended: false)
        case "index_xinfo": return indexInfo(argument, extended: true)
        case "foreign_key_list": return foreignKeyList(argument)
        case "foreign_key_check": return try foreignKeyCheck(argument)
        case "page_size": return try pageSizePragma(argument)
        case "page_count":
            return try reading {
                single("page_count", .integer(Int64(try currentTransaction().pageCount)))
            }
        case "freelist_count":
            return try reading {
                single("freelist_count", .integer(Int64(try currentTransaction().freelistCount)))
            }
        case "integrity_check": return try integrityCheck("integrity_check", argument)
        case "quick_check": return try integrityCheck("quick_check", argument)
        case "user_version":
            if let argument {
                let value = Int32(truncatingIfNeeded: Self.leadingInteger(argument))
                try atomically { try currentWriteTransaction().setUserVersion(UInt32(bitPattern: value)) }
                return ([], [])
            }
            return try reading {
                single("user_version", .integer(Int64(Int32(bitPattern: try currentTransaction().userVersion))))
            }
        case "foreign_keys":
            if let argument {
                // As in SQLite, the setting cannot change inside a transaction (the pragma is a no-op there).
                if !isInTransaction { foreignKeysEnabled = Self.pragmaBoolean(argument) }
                return ([], [])
            }
            return single("foreign_keys", .integer(foreignKeysEnabled ? 1 : 0))
        case "recursive_triggers":
            if let argument {
                recursiveTriggers = Self.pragmaBoolean(argument)
                // SQLite prepares statements again after this change: cached plans may depend on it.
                return ([], [])
            }
            return single("recursive_triggers", .integer(recursiveTriggers ? 1 : 0))
        case "schema_version":
            if argument != nil {
                throw SQLExecutionError("schema_version cannot be set: Granite maintains the schema cookie itself")
            }
            let cookie = try withReadTransaction { try currentTransaction().schemaCookie }
            return single("schema_version", .integer(Int64(cookie)))
        case "journal_mode":
            return single("journal_mode", .text("wal"))
        case "synchronous": return try synchronousPragma(argument)
        case "busy_timeout": return busyTimeoutPragma(argument)
        case "wal_checkpoint": return try walCheckpointPragma(argument)
        case "encoding": return try encodingPragma(argument)
        default:
            return ([], [])
        }
    }

    // MARK: Schema pragmas

    private func tableInfo(_ name: String?, extended: Bool) throws -> PragmaResult {
        var columns = ["cid", "name", "type", "notnull", "dflt_value", "pk"]
        if extended { columns.append("hidden") }
        if let name, let view = catalog.view(named: name) {
            return (columns, try viewInfo(view, extended: extended))
        }
        guard let name, let table = catalog.table(named: name) else { return (columns, []) }
        let defaults = Self.defaultTexts(of: table)
        var rows: [[Value]] = []
        // table_info leaves generated columns out and numbers the others in order; table_xinfo shows every column
        // under its position, generated ones as hidden 2 (VIRTUAL) or 3 (STORED).
        for (position, column) in table.columns.enumerated() where extended || column.generated == nil {
            let pkPosition = table.primaryKey.firstIndex { $0.column == position }.map { Int64($0 + 1) } ?? 0
            let cid = position
            var row: [Value] = [
                .integer(Int64(extended ? position : rows.count)), .text(column.name),
                .text(table.typeText(ofColumn: cid) ?? ""),
                .integer(column.notNull ? 1 : 0), defaults[cid].map { .text($0) } ?? .null,
                .integer(pkPosition),
            ]
            if extended { row.append(.integer(column.generated.map { $0.stored ? 3 : 2 } ?? 0)) }
            rows.append(row)
        }
        return (columns, rows)
    }

    private func tableList(_ name: String?) -> PragmaResult {
        let columns = ["schema", "name", "type", "ncol", "wr", "strict"]
        var rows: [[Value]] = []
        for table in catalog.tables where name.map({ SchemaNames.equal($0, table.name) }) ?? true {
            rows.append([
                .text("main"), .text(table.name), .text("table"), .integer(Int64(table.columns.count)),
                .integer(table.hasRowid ? 0 : 1), .integer(table.strictTypes == nil ? 0 : 1),
            ])
        }
        for view in catalog.views where name.map({ SchemaNames.equal($0, view.name) }) ?? true {
            rows.append(viewListRow(view))
        }
        if let temporary = catalog.temporarySchema {
            for table in temporary.tables where name.map({ SchemaNames.equal($0, table.name) }) ?? true {
                rows.append([
                    .text("temp"), .text(table.name), .text("table"), .integer(Int64(table.columns.count)),
                    .integer(table.hasRowid ? 0 : 1), .integer(table.strictTypes == nil ? 0 : 1),
                ])
            }
            for view in temporary.views where name.map({ SchemaNames.equal($0, view.name) }) ?? true {
                rows.append(viewListRow(view))
            }
            if name.map({ SchemaNames.equal($0, "sqlite_temp_schema") }) ?? true {
                rows.append([
                    .text("temp"), .text("sqlite_temp_schema"), .text("table"), .integer(5), .integer(0), .integer(0),
                ])
            }
        }
        if name.map({ SchemaNames.equal($0, SchemaCatalog.schemaTableName) }) ?? true {
            rows.append([
                .text("main"), .text(SchemaCatalog.schemaTableName), .text("table"), .integer(5),
                .integer(0), .integer(0),
            ])
        }
        return (columns, rows)
    }

    private func indexList(_ name: String?) -> PragmaResult {
        let columns = ["seq", "name", "unique", "origin", "partial"]
        guard let name, let table = catalog.table(named: name) else { return (columns, []) }
        let rows = Self.sqliteIndexOrder(catalog.indexes(of: table)).enumerated().map { seq, index -> [Value] in
            [
                .integer(Int64(seq)), .text(index.name), .integer(index.unique ? 1 : 0), .text(index.origin.rawValue),
                .integer(index.whereClause == nil ? 0 : 1),
            ]
        }
        return (columns, rows)
    }

    /// Indexes (given in creation order) in the order of SQLite's per-table index list: each new index goes first,
    /// except that `ON CONFLICT REPLACE` indexes are kept after all the others (`sqlite3CreateIndex`).
    private static func sqliteIndexOrder(_ indexes: [IndexDefinition]) -> [IndexDefinition] {
        var list: [IndexDefinition] = []
        for index in indexes {
            let replaces = index.onConflict == .replace
            if !replaces || list.isEmpty || list[0].onConflict == .replace {
                list.insert(index, at: 0)
            } else {
                let firstReplacing = list.firstIndex { $0.onConflict == .replace } ?? list.count
                list.insert(index, at: firstReplacing)
            }
        }
        return list
    }

    private func indexInfo(_ name: String?, extended: Bool) -> PragmaResult {
        var columns = ["seqno", "cid", "name"]
        if extended { columns += ["desc", "coll", "key"] }
        guard let name, let index = catalog.index(named: name), let table = catalog.table(named: index.table) else {
            return (columns, [])
        }
        var rows: [[Value]] = index.columns.enumerated().map { seqno, column -> [Value] in
            var row: [Value]
            switch column.target {
            case .column(let cid):
                row = [.integer(Int64(seqno)), .integer(Int64(cid)), .text(table.columns[cid].name)]
            case .expression:
                row = [.integer(Int64(seqno)), .integer(-2), .null]
            }
            if extended {
                row += [
                    .integer(column.order == .descending ? 1 : 0), .text(column.collation ?? "BINARY"), .integer(1),
                ]
            }
            return row
        }
        if extended {
            if table.hasRowid {
                rows.append([
                    .integer(Int64(rows.count)), .integer(-1), .null, .integer(0), .text("BINARY"), .integer(0),
                ])
            } else {
                rows += Self.withoutRowidAuxiliaryColumns(of: index, in: table, from: rows.count)
            }
        }
        return (columns, rows)
    }

    /// The auxiliary (`key` 0) columns `PRAGMA index_xinfo` lists for an index of a `WITHOUT ROWID` table, where
    /// SQLite's entries end with what identifies the row: after the key of the primary key's index, every other
    /// column; after the key of another index, the primary key columns it does not hold already.
    private static func withoutRowidAuxiliaryColumns(
        of index: IndexDefinition, in table: TableDefinition, from seqno: Int
    ) -> [[Value]] {
        let keyed = Set(index.columns.compactMap { if case .column(let c) = $0.target { c } else { nil } })
        let auxiliary: [KeyColumn]
        if index.name == table.withoutRowidKeyIndexName {
            auxiliary = table.columns.indices.filter { !keyed.contains($0) }.map {
                KeyColumn(column: $0, collation: table.columns[$0].collation)
            }
        } else {
            auxiliary = table.primaryKey.filter { !keyed.contains($0.column) }
        }
        return auxiliary.enumerated().map { k, key -> [Value] in
            [
                .integer(Int64(seqno + k)), .integer(Int64(key.column)), .text(table.columns[key.column].name),
                .integer(key.order == .descending ? 1 : 0), .text(key.collation ?? "BINARY"), .integer(0),
            ]
        }
    }

    private func foreignKeyList(_ name: String?) -> PragmaResult {
        let columns = ["id", "seq", "table", "from", "to", "on_update", "on_delete", "match"]
        guard let name, let table = catalog.table(named: name) else { return (columns, []) }
        var rows: [[Value]] = []
        // SQLite numbers the foreign keys from the last declared one.
        for (id, key) in table.foreignKeys.reversed().enumerated() {
            for (seq, child) in key.columns.enumerated() {
                let parent: Value = seq < key.parentColumns.count ? .text(key.parentColumns[seq]) : .null
                rows.append([
                    .integer(Int64(id)), .integer(Int64(seq)), .text(key.parentTable), .text(table.columns[child].name),
                    parent, .text(key.onUpdate.rawValue), .text(key.onDelete.rawValue), .text("NONE"),
                ])
            }
        }
        return (columns, rows)
    }

    // MARK: Integrity

    /// `PRAGMA integrity_check[(N|table)]` and `PRAGMA quick_check[(N|table)]`: every problem found (up to N,
    /// default 100), one per row, or `ok` (see ``DatabaseCheck``). A table argument must name a table or view:
    /// as in SQLite, only that table and its indexes are checked (nothing for a view).
    private func integrityCheck(_ column: String, _ argument: String?) throws -> PragmaResult {
        var limit = 100
        var table: String?
        if let argument, let number = Self.leadingInt32(argument) {
            if number > 0 { limit = number }
        } else if let argument {
            // As SQLite, which reads an argument that does not start as a number as the table to check.
            guard
                catalog.table(named: argument) != nil || catalog.view(named: argument) != nil
                    || SchemaCatalog.schemaTable(named: argument) != nil
            else {
                throw SQLExecutionError.noSuchTable(argument)
            }
            table = argument
        }
        let problems = try reading { integrityProblems(quick: column == "quick_check", limit: limit, table: table) }
        if problems.isEmpty { return single(column, .text("ok")) }
        return ([column], problems.map { [.text($0)] })
    }

    /// The 32-bit integer `text` starts with, read as SQLite's `sqlite3GetInt32` does: an optional sign, then 1 to
    /// 10 digits (what follows them is ignored); nil when there is none or it overflows.
    static func leadingInt32(_ text: String) -> Int? {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 10 else { return nil }
        let magnitude = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard magnitude - (negative ? 1 : 0) <= Int(Int32.max) else { return nil }
        return negative ? -magnitude : magnitude
    }

    // MARK: Helpers

    /// Runs `body` in a read transaction unless a transaction is already open.
    func reading<T>(_ body: () throws -> T) throws -> T {
        // Inside a transaction, a snapshot read or a running statement's read, the engine already reads.
        try readingEngine(body)
    }

    private func single(_ column: String, _ value: Value) -> PragmaResult {
        ([column], [[value]])
    }

    /// The `DEFAULT` of each column as written in the stored `CREATE TABLE` text (without the parentheses of
    /// `DEFAULT (expr)`), as SQLite shows it; the printed expression when the source span is unavailable.
    private static func defaultTexts(of table: TableDefinition) -> [String?] {
        // Re-parse the stored text so that source ranges are relative to it.
        var parsed: [ColumnDefinition]?
        if let statement = try? Parser.parseScript(table.sql).first, case .createTable(let create) = statement.kind,
            create.columns.count == table.columns.count
        {
            parsed = create.columns
        }
        let source = Array(table.sql.utf8)
        return table.columns.indices.map { cid -> String? in
            guard let fallback = table.columns[cid].defaultValue else { return nil }
            var expression: SQLExpression?
            for constraint in parsed?[cid].constraints ?? [] {
                if case .default(let value) = constraint.kind { expression = value }
            }
            guard let expression, !expression.range.offsets.isEmpty, expression.range.end.offset <= source.count else {
                return fallback.description
            }
            var text = String(decoding: source[expression.range.offsets], as: UTF8.self)
            if text.hasPrefix("("), text.hasSuffix(")") { text = String(text.dropFirst().dropLast()) }
            return text
        }
    }

    /// The argument of a pragma as text.
    static func pragmaText(_ value: PragmaStatement.Value) -> String {
        switch value {
        case .number(let text), .name(let text), .string(let text): return text
        }
    }

    /// SQLite's `sqlite3Atoi`: the leading (optionally signed) decimal integer of `text`, 0 when there is none.
    static func leadingInteger(_ text: String) -> Int64 {
        var bytes = Substring(text).drop { $0 == " " || $0 == "\t" }.utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var result: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { break }
            let (times, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return negative ? Int64.min : Int64.max }
            result = sum
        }
        return negative ? -result : result
    }

    /// SQLite's `sqlite3GetBoolean`: `on`/`yes`/`true` or a non-zero number are true, anything else false.
    static func pragmaBoolean(_ text: String) -> Bool {
        if let first = text.utf8.first, (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) || first == 0x2D {
            return leadingInteger(text) != 0
        }
        return ["on", "yes", "true", "full", "normal", "extra"].contains(SchemaNames.key(text))
    }
}
