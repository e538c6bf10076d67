// The layout of a stored CREATE TABLE text, for ALTER TABLE statements that edit the text as SQLite edits it
// instead of writing the canonical form: ADD COLUMN splices the new column in, DROP COLUMN cuts one out.

/// Where the column definitions of a `CREATE TABLE` text lie, in UTF-8 byte offsets.
struct ColumnListLayout {
    /// The offset of each column definition's first token (its name).
    var columnStarts: [Int] = []
    /// The offset of the comma before each column definition (nil for the first).
    var commaBefore: [Int?] = []
    /// The offset of the comma before the first table constraint, or of the closing parenthesis.
    var columnsEnd = 0

    /// Keywords that begin a table constraint rather than a column definition.
    private static let constraintStarts: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]

    init?(_ sql: String) {
        guard let tokens = try? Lexer.tokenize(sql),
            let open = tokens.firstIndex(where: { $0.kind == .symbol && $0.text == "(" })
        else { return nil }
        var depth = 0
        var chunkStart = true
        var lastComma: Int?
        for token in tokens[(open + 1)...] {
            if token.kind == .endOfInput { return nil }
            if depth == 0 && chunkStart {
                chunkStart = false
                if token.kind == .word && Self.constraintStarts.contains(token.keyword) {
                    guard let lastComma else { return nil }
                    columnsEnd = lastComma
                    return
                }
                columnStarts.append(token.range.start.offset)
                commaBefore.append(lastComma)
            }
            guard token.kind == .symbol else { continue }
            switch token.text {
            case "(": depth += 1
            case ")" where depth == 0:
                columnsEnd = token.range.start.offset
                return
            case ")": depth -= 1
            case "," where depth == 0:
                lastComma = token.range.start.offset
                chunkStart = true
            default: break
            }
        }
        return nil
    }
}
