/// Helpers for SQL object names, which compare ASCII case-insensitively like SQLite's.
enum SchemaNames {
    /// The prefix of names reserved for Granite's internal objects.
    static let reservedPrefix = "granite_"

    /// The name of the schema table.
    static let schemaTable = "granite_schema"

    /// ASCII upper-casing.
    static func uppercased(_ text: String) -> String {
        String(decoding: text.utf8.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    /// ASCII lower-casing: the lookup key of a name.
    static func key(_ name: String) -> String {
        // Most names are lower case already: no new string then. Scanning the contiguous UTF-8 (every native
        // string) costs a few instructions a byte; the generic UTF8View iterator cost about three times that.
        let hasUpperCase =
            name.utf8.withContiguousStorageIfAvailable { bytes in bytes.contains { $0 &- 0x41 < 26 } }
            ?? name.utf8.contains { $0 &- 0x41 < 26 }
        guard hasUpperCase else { return name }
        return String(decoding: name.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether two names are equal ignoring ASCII case.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        return x.elementsEqual(y) { p, q in
            p == q || (p | 0x20 == q | 0x20 && (p | 0x20) >= 0x61 && (p | 0x20) <= 0x7A)
        }
    }

    /// Whether `name` is one of the rowid's names (`rowid`, `oid`, `_rowid_`), ignoring ASCII case, or
    /// ``storageRowidName``.
    static func isRowidName(_ name: String) -> Bool {
        let lower = key(name)
        return lower == "rowid" || lower == "oid" || lower == "_rowid_" || name == storageRowidName
    }

    /// Whether `name` names the rowid of `table`: any rowid name for a table that has one; for a `WITHOUT ROWID`
    /// table (whose storage rowid SQL cannot see) only ``storageRowidName``.
    static func isRowidName(_ name: String, of table: TableDefinition) -> Bool {
        table.hasRowid ? isRowidName(name) : name == storageRowidName
    }

    /// The name statements Granite builds itself use for the rowid of the storage tree, which a `WITHOUT ROWID`
    /// table also has (see ``TableDefinition/hasRowid``). The NUL byte keeps it out of reach of SQL text.
    static let storageRowidName = "\u{0}rowid"

    /// Whether `name` starts with the reserved prefix, or with SQLite's (`sqlite_`, which SQLite refuses for new
    /// objects and Granite answers to for its schema and sequence tables), ignoring ASCII case.
    static func isReserved(_ name: String) -> Bool {
        let lower = key(name)
        return lower.hasPrefix(reservedPrefix) || lower.hasPrefix("sqlite_")
    }
}
