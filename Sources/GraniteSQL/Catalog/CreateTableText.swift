// The `CREATE TABLE` text SQLite generates and stores for a table made by `CREATE TABLE … AS SELECT`: bare or
// double-quoted names, a type spelling per column affinity, and a one-line or multi-line layout by length.

/// Builds the stored text of a table made from a query's result columns.
enum CreateTableText {
    /// A column of the generated table: its name and its type spelling ("" for none).
    struct Column {
        var name: String
        var type: String
    }

    /// The type SQLite writes for a column of `affinity` (none and BLOB write no type).
    static func typeName(of affinity: SQLAffinity?) -> String {
        switch affinity {
        case .text: return "TEXT"
        case .numeric: return "NUM"
        case .integer: return "INT"
        case .real: return "REAL"
        case .blob, nil: return ""
        }
    }

    /// `CREATE TABLE name(col TYPE,…)`; when the names are long (by SQLite's measure) each column goes on its own
    /// indented line and `)` on the last.
    static func statement(table: String, columns: [Column]) -> String {
        let length = columns.reduce(quotedLength(table)) { $0 + quotedLength($1.name) + 5 }
        let (first, separator, end) = length < 50 ? ("", ",", ")") : ("\n  ", ",\n  ", "\n)")
        var text = "CREATE TABLE " + identifier(table) + "("
        for (k, column) in columns.enumerated() {
            text += k == 0 ? first : separator
            text += identifier(column.name)
            if !column.type.isEmpty { text += " " + column.type }
        }
        return text + end
    }

    /// The length SQLite budgets for a name: its bytes, a double quote counted twice, and two quotes.
    private static func quotedLength(_ name: String) -> Int {
        name.utf8.reduce(2) { $0 + ($1 == UInt8(ascii: "\"") ? 2 : 1) }
    }

    /// `name` bare when it is ASCII letters, digits and `_`, not starting with a digit and not a keyword; else
    /// double-quoted.
    static func identifier(_ name: String) -> String {
        let bytes = name.utf8
        let plain =
            !bytes.isEmpty && bytes.allSatisfy { isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "_") }
            && !(bytes.first.map(isASCIIDigit) ?? false) && !keywords.contains(SQLFormat.asciiUppercased(name))
        return plain ? name : SQLFormat.quoted(name)
    }

    private static func isASCIIDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        isASCIIDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    /// SQLite 3.40's keywords: every one is quoted, reserved or not.
    private static let keywords: Set<String> = [
        "ABORT", "ACTION", "ADD", "AFTER", "ALL", "ALTER", "ALWAYS", "ANALYZE", "AND", "AS", "ASC", "ATTACH",
        "AUTOINCREMENT", "BEFORE", "BEGIN", "BETWEEN", "BY", "CASCADE", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN",
        "COMMIT", "CONFLICT", "CONSTRAINT", "CREATE", "CROSS", "CURRENT", "CURRENT_DATE", "CURRENT_TIME",
        "CURRENT_TIMESTAMP", "DATABASE", "DEFAULT", "DEFERRABLE", "DEFERRED", "DELETE", "DESC", "DETACH",
        "DISTINCT", "DO", "DROP", "EACH", "ELSE", "END", "ESCAPE", "EXCEPT", "EXCLUDE", "EXCLUSIVE", "EXISTS",
        "EXPLAIN", "FAIL", "FILTER", "FIRST", "FOLLOWING", "FOR", "FOREIGN", "FROM", "FULL", "GENERATED", "GLOB",
        "GROUP", "GROUPS", "HAVING", "IF", "IGNORE", "IMMEDIATE", "IN", "INDEX", "INDEXED", "INITIALLY", "INNER",
        "INSERT", "INSTEAD", "INTERSECT", "INTO", "IS", "ISNULL", "JOIN", "KEY", "LAST", "LEFT", "LIKE", "LIMIT",
        "MATCH", "MATERIALIZED", "NATURAL", "NO", "NOT", "NOTHING", "NOTNULL", "NULL", "NULLS", "OF", "OFFSET", "ON",
        "OR", "ORDER", "OTHERS", "OUTER", "OVER", "PARTITION", "PLAN", "PRAGMA", "PRECEDING", "PRIMARY", "QUERY",
        "RAISE", "RANGE", "RECURSIVE", "REFERENCES", "REGEXP", "REINDEX", "RELEASE", "RENAME", "REPLACE",
        "RESTRICT", "RETURNING", "RIGHT", "ROLLBACK", "ROW", "ROWS", "SAVEPOINT", "SELECT", "SET", "TABLE", "TEMP",
        "TEMPORARY", "THEN", "TIES", "TO", "TRANSACTION", "TRIGGER", "UNBOUNDED", "UNION", "UNIQUE", "UPDATE",
        "USING", "VACUUM", "VALUES", "VIEW", "VIRTUAL", "WHEN", "WHERE", "WINDOW", "WITH", "WITHOUT",
    ]
}
