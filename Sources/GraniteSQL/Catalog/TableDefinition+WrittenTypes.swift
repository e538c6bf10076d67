// The declared types of a table's columns as SQLite reports them (`PRAGMA table_info`, and the columns of views
// reading the table): the text as written in the `CREATE TABLE`, a standard type name in SQLite's spelling.

extension TableDefinition {
    /// The declared type of column `c` as SQLite 3.40 reports it: a STRICT table's type, or a standard type name
    /// (`int`), in SQLite's spelling; else the text as written; nil for none.
    package func typeText(ofColumn c: Int) -> String? {
        c < reportedTypes.count ? reportedTypes[c] : columns[c].declaredType
    }

    /// The type each column reports (see ``typeText(ofColumn:)``), given the types as `written`.
    func reportedTypes(written: [String?]) -> [String?] {
        columns.indices.map { c in
            let declared = columns[c].declaredType
            if strictTypes != nil { return declared }
            return Self.standardTypeName(declared) ?? (c < written.count ? written[c] : nil) ?? declared
        }
    }

    /// `declared` in capitals when it is one of the type names SQLite 3.37+ recognizes whatever their case (`ANY`,
    /// `BLOB`, `INT`, `INTEGER`, `REAL`, `TEXT`), which it stores in its own spelling; else nil.
    static func standardTypeName(_ declared: String?) -> String? {
        guard let upper = declared?.uppercased(), ["ANY", "BLOB", "INT", "INTEGER", "REAL", "TEXT"].contains(upper)
        else { return nil }
        return upper
    }

    /// The declared type of each of the columns named `columns` exactly as written in the `CREATE TABLE` text
    /// `sql` (SQLite keeps the source span, spacing included: `varchar( 10 )`; a type that is one quoted name
    /// loses its quotes); nil for every column when the text cannot be matched up with the columns.
    static func writtenTypes(in sql: String, columns: [String]) -> [String?] {
        let none = [String?](repeating: nil, count: columns.count)
        guard let tokens = try? Lexer.tokenize(sql),
            let open = tokens.firstIndex(where: { $0.kind == .symbol && $0.text == "(" })
        else { return none }
        let source = Array(sql.utf8)
        let constraintStarts: Set<String> = [
            "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES",
            "GENERATED", "AS", "FOREIGN",
        ]
        func isSymbol(_ token: Token, _ text: String) -> Bool { token.kind == .symbol && token.text == text }
        var result: [String?] = []
        var i = open + 1
        for (position, column) in columns.enumerated() {
            // The column name, then the type tokens: names (or strings), optionally followed by `(…)`.
            guard i < tokens.count, [.word, .quotedIdentifier, .string].contains(tokens[i].kind),
                SchemaNames.equal(tokens[i].value, column)
            else { return none }
            i += 1
            var start: Int?
            var end = 0
            let first = i
            while i < tokens.count, [.word, .quotedIdentifier, .string].contains(tokens[i].kind),
                !(tokens[i].kind == .word && constraintStarts.contains(tokens[i].keyword))
            {
                start = start ?? tokens[i].range.start.offset
                end = tokens[i].range.end.offset
                i += 1
            }
            if i == first + 1, tokens[first].kind != .word, i < tokens.count, !isSymbol(tokens[i], "(") {
                result.append(tokens[first].value)
                start = nil
            }
            if start != nil, i < tokens.count, isSymbol(tokens[i], "(") {
                while i < tokens.count, !isSymbol(tokens[i], ")"), tokens[i].kind != .endOfInput { i += 1 }
                guard i < tokens.count, isSymbol(tokens[i], ")") else { return none }
                end = tokens[i].range.end.offset
                i += 1
            }
            if let start, start <= end, end <= source.count {
                result.append(String(decoding: source[start..<end], as: UTF8.self))
            } else if result.count == position {
                result.append(nil)
            }
            // Skip the constraints, up to the `,` or `)` that ends the column definition.
            var depth = 0
            while i < tokens.count, tokens[i].kind != .endOfInput {
                if isSymbol(tokens[i], "(") {
                    depth += 1
                } else if isSymbol(tokens[i], ")") {
                    if depth == 0 { break }
                    depth -= 1
                } else if isSymbol(tokens[i], ","), depth == 0 {
                    break
                }
                i += 1
            }
            if i < tokens.count, isSymbol(tokens[i], ",") { i += 1 }
        }
        return result
    }
}
