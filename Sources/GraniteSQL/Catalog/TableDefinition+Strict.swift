// STRICT tables: each column declares one of SQLite's six strict types, and a value that the column's affinity
// cannot turn into that type is refused (SQLite's `cannot store TEXT value in INT column t.a`).

import GraniteStorage

/// The declared type of a column of a STRICT table.
package enum StrictType: String, Sendable, Equatable, CaseIterable {
    case int = "INT"
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"
    case any = "ANY"

    /// The affinity the column applies before the type check: ANY stores values as given.
    var affinity: SQLAffinity {
        switch self {
        case .int, .integer: return .integer
        case .real: return .real
        case .text: return .text
        case .blob, .any: return .blob
        }
    }

    /// Whether the column accepts `value` (after its affinity was applied). NULL is NOT NULL's business.
    func accepts(_ value: Value) -> Bool {
        switch (self, value) {
        case (_, .null), (.any, _), (.int, .integer), (.integer, .integer), (.real, .real), (.text, .text),
            (.text, .invalidUTF8Text), (.blob, .blob):
            return true
        default:
            return false
        }
    }

    /// The name SQLite's type-check message gives a value's storage class.
    static func storageName(of value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer: return "INT"
        case .real: return "REAL"
        case .text, .invalidUTF8Text: return "TEXT"
        case .blob: return "BLOB"
        }
    }
}

extension TableDefinition {
    /// Applies the STRICT option of `statement`: every column must declare a strict type (SQLite's `missing
    /// datatype for t.a` and `unknown datatype for t.a: "VARCHAR(10)"`); the declared type reads back upper-cased,
    /// ANY columns store values as given, and primary key columns other than the rowid alias are NOT NULL.
    mutating func applyStrictTypes(of statement: CreateTableStatement) throws {
        var types: [StrictType] = []
        for (k, definition) in statement.columns.enumerated() {
            guard let declared = definition.type?.description else {
                throw SchemaError("missing datatype for \(name).\(definition.name)")
            }
            guard let type = StrictType(rawValue: SchemaNames.uppercased(declared)) else {
                throw SchemaError("unknown datatype for \(name).\(definition.name): \"\(declared)\"")
            }
            types.append(type)
            columns[k].declaredType = type.rawValue
            columns[k].affinity = type.affinity
            if columns[k].isPrimaryKey && rowidAlias != k { columns[k].notNull = true }
        }
        strictTypes = types
    }
}
