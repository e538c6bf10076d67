/// The key a row decoding failure is about.
@usableFromInline
enum RowKey: Hashable, Sendable {
    case columnName(String)
    case columnIndex(Int)
    /// A scope defined by a row adapter.
    case scope(String)
    /// A key of prefetched rows.
    case prefetchKey(String)
}

/// An error thrown when a row value cannot be decoded into the requested type, or a required column is
/// missing. Its description names the column, the row, and the statement:
///
/// `could not decode Int from database value "foo" - column: "score", column index: 1, row: [id:1 score:"foo"],
/// sql: `SELECT * FROM player`, arguments: []`
public struct RowDecodingError: Error, Sendable {
    enum Kind: Sendable {
        case keyNotFound
        case valueMismatch
    }

    let kind: Kind
    let message: String
    let columnNames: [String]
    let rowValues: [DatabaseValue]
    let key: RowKey?
    let sql: String?
    let arguments: StatementArguments?

    init(kind: Kind, message: String, row: Row, key: RowKey?) {
        self.kind = kind
        self.message = message
        columnNames = row.columnNames
        rowValues = row.databaseValues
        self.key = key
        if let statement = row.statement {
            sql = statement.sql
            arguments = statement.arguments
        } else {
            sql = nil
            arguments = nil
        }
    }

    @usableFromInline
    static func valueMismatch(_ type: Any.Type, row: Row, key: RowKey, databaseValue: DatabaseValue) -> Self {
        RowDecodingError(
            kind: .valueMismatch, message: "could not decode \(type) from database value \(databaseValue)", row: row,
            key: key)
    }

    @usableFromInline
    static func columnNotFound(_ name: String, row: Row) -> Self {
        RowDecodingError(
            kind: .keyNotFound, message: "column not found: \(String(reflecting: name))", row: row,
            key: .columnName(name))
    }

    /// The row that failed to decode.
    public var row: Row { Row(pairs: Array(zip(columnNames, rowValues))) }
}

extension RowDecodingError: CustomStringConvertible {
    /// The failure, then the column, column index, row, SQL and arguments.
    public var description: String {
        var parts: [String] = []
        switch key {
        case .columnIndex(let index) where index < columnNames.count:
            parts.append("column: \(String(reflecting: columnNames[index]))")
            parts.append("column index: \(index)")
        case .columnName(let name):
            let lower = name.lowercased()
            if let index = columnNames.firstIndex(where: { $0.lowercased() == lower }) {
                parts.append("column: \(String(reflecting: name))")
                parts.append("column index: \(index)")
            }
        default:
            break
        }
        parts.append("row: " + row.description)
        if let sql { parts.append("sql: `\(sql.trimmedSQLStatement)`") }
        if let arguments { parts.append("arguments: \(arguments)") }
        return "\(message) - " + parts.joined(separator: ", ")
    }
}
