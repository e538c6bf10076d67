import Foundation

extension Data: DatabaseValueConvertible, StatementColumnConvertible {
    /// The bytes as a BLOB.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .blob(self)) }

    /// A BLOB, or the UTF-8 bytes of a TEXT; nil for other storage classes.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Data? {
        switch dbValue.storage {
        case .blob(let data): return data
        case .string(let string): return Data(string.utf8)
        default: return nil
        }
    }

    /// The column's bytes, as SQLite's `sqlite3_column_blob` gives them.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        self = sqliteStatement.data(atIndex: index)
    }
}
