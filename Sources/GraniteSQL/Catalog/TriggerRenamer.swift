/// Rewrites the stored text of triggers for `ALTER TABLE … RENAME TO` and `RENAME COLUMN`, as SQLite does: each
/// token of a trigger's text that names the renamed table (or column) becomes the new name, the rest of the text
/// kept as written.
///
/// Granite finds the names from the tokens, without resolving the trigger's statements: a token spelling the old
/// name is renamed where its place says what it is (see ``isTableReference(_:at:)`` and ``columnUse(_:at:)``).
/// A use it cannot classify leaves the text alone and refuses the rename, naming the trigger.
struct TriggerRenamer {
    /// The table that is renamed, or whose column is.
    var table: String
    /// The schema before the change, for the columns of the tables a trigger names.
    var catalog: SchemaCatalog

    /// Thrown while classifying tokens when a use of the name is not understood.
    private struct Unresolvable: Error {}

    /// The trigger's text with the table renamed to `newName`; nil when the text does not name the table.
    func renamingTable(_ trigger: TriggerDefinition, to newName: String) throws -> String? {
        guard let tokens = try? Lexer.tokenize(trigger.sql) else { throw refusal(trigger, "table \(table)") }
        var places: [Int] = []
        for k in tokens.indices where isName(tokens[k], table) {
            if k > 0, isSymbol(tokens[k - 1], ".") { continue }  // a column spelled like the table
            guard isTableReference(tokens, at: k) else { throw refusal(trigger, "table \(table)") }
            places.append(k)
        }
        return places.isEmpty ? nil : Self.replacing(places, in: tokens, of: trigger.sql, by: Self.quoted(newName))
    }

    /// The trigger's text with column `old` of the table renamed to `new`; nil when the text does not use it.
    func renamingColumn(_ trigger: TriggerDefinition, from old: String, to new: String) throws -> String? {
        guard let tokens = try? Lexer.tokenize(trigger.sql) else { throw refusal(trigger, "column \(old)") }
        let onTable = SchemaNames.equal(trigger.table, table)
        let namesTable = tokens.indices.contains { isName(tokens[$0], table) && isTableReference(tokens, at: $0) }
        guard onTable || namesTable else { return nil }
        // The other tables the trigger names: an unqualified name that is also one of their columns is ambiguous.
        var others: [TableDefinition] = []
        for token in tokens where [.word, .quotedIdentifier].contains(token.kind) && !isName(token, table) {
            if let other = catalog.table(named: token.value) { others.append(other) }
        }
        let otherColumn = others.contains { $0.columnIndex(named: old) != nil }
        var places: [Int] = []
        for k in tokens.indices where isName(tokens[k], old) {
            if k + 1 < tokens.count, isSymbol(tokens[k + 1], ".") || isSymbol(tokens[k + 1], "(") { continue }
            if k > 1, isSymbol(tokens[k - 1], ".") {
                let qualifier = SchemaNames.key(tokens[k - 2].value)
                if isName(tokens[k - 2], table) || (onTable && (qualifier == "new" || qualifier == "old")) {
                    places.append(k)
                }
                continue
            }
            if onTable, isInUpdateOfList(tokens, at: k) {
                places.append(k)
                continue
            }
            if k > 0, tokens[k - 1].kind == .word, tokens[k - 1].keyword == "AS" { continue }  // an alias
            guard !otherColumn else { throw refusal(trigger, "column \(old)") }
            places.append(k)
        }
        let replacement = Self.plainOrQuoted(new)
        return places.isEmpty ? nil : Self.replacing(places, in: tokens, of: trigger.sql, by: replacement)
    }

    /// The error of a rename that cannot rewrite the trigger.
    func refusal(_ trigger: TriggerDefinition, _ what: String) -> SchemaError {
        SchemaError(
            "cannot rename: trigger \(trigger.name) uses \(what) (drop the trigger first, then create it again)")
    }

    // MARK: Token places

    /// Whether token `k` names a table by its place: after `ON` (the trigger's table), `INTO`, `UPDATE`
    /// (possibly `UPDATE OR action`), `FROM` or `JOIN`, or as the qualifier of `table.column`.
    private func isTableReference(_ tokens: [Token], at k: Int) -> Bool {
        if k + 1 < tokens.count, isSymbol(tokens[k + 1], ".") { return true }
        guard k > 0, tokens[k - 1].kind == .word else { return false }
        switch tokens[k - 1].keyword {
        case "ON", "INTO", "UPDATE", "FROM", "JOIN": return true
        case "ROLLBACK", "ABORT", "FAIL", "IGNORE", "REPLACE":
            return k > 2 && tokens[k - 2].keyword == "OR" && tokens[k - 3].keyword == "UPDATE"
        default: return false
        }
    }

    /// Whether token `k` is in the trigger's `UPDATE OF a, b` list (before its `ON`).
    private func isInUpdateOfList(_ tokens: [Token], at k: Int) -> Bool {
        var j = k - 1
        while j > 0 {
            let token = tokens[j]
            if token.kind == .word, token.keyword == "OF" { return j > 0 && tokens[j - 1].keyword == "UPDATE" }
            guard isSymbol(token, ",") || [.word, .quotedIdentifier].contains(token.kind) else { return false }
            if token.kind == .word, ["ON", "BEGIN", "WHEN"].contains(token.keyword) { return false }
            j -= 1
        }
        return false
    }

    private func isName(_ token: Token, _ name: String) -> Bool {
        [.word, .quotedIdentifier].contains(token.kind) && SchemaNames.equal(token.value, name)
    }

    private func isSymbol(_ token: Token, _ text: String) -> Bool { token.kind == .symbol && token.text == text }

    // MARK: Text

    /// `sql` with the tokens at `places` replaced by `replacement`.
    private static func replacing(_ places: [Int], in tokens: [Token], of sql: String, by replacement: [UInt8])
        -> String?
    {
        let bytes = Array(sql.utf8)
        var text: [UInt8] = []
        var position = 0
        for k in places {
            let range = tokens[k].range
            guard range.start.offset >= position, range.end.offset <= bytes.count else { return nil }
            text += bytes[position..<range.start.offset]
            text += replacement
            position = range.end.offset
        }
        text += bytes[position...]
        return String(decoding: text, as: UTF8.self)
    }

    /// `name` as a double-quoted identifier (SQLite writes a renamed table so).
    static func quoted(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = [0x22]
        for byte in name.utf8 { bytes += byte == 0x22 ? [0x22, 0x22] : [byte] }
        bytes.append(0x22)
        return bytes
    }

    /// `name` as written when it is a plain identifier, else quoted (SQLite writes a renamed column so).
    static func plainOrQuoted(_ name: String) -> [UInt8] {
        let plain =
            !name.isEmpty && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || $0 == 0x5F || ($0 >= 0x30 && $0 <= 0x39) }
            && !(name.utf8.first.map { $0 >= 0x30 && $0 <= 0x39 } ?? true)
            && !Parser.reservedWords.contains(SchemaNames.uppercased(name))
        return plain ? Array(name.utf8) : quoted(name)
    }
}
