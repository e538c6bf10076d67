import Foundation

/// Decimals are stored as TEXT, which keeps all their digits (`"12.345"`), and decoded from integers, doubles
/// and decimal text.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO item (price) VALUES (?)", arguments: [Decimal(string: "12.99")!])
/// let price = try Decimal.fetchOne(db, sql: "SELECT price FROM item") // 12.99
/// ```
extension Decimal: DatabaseValueConvertible {
    /// The decimal's text, with a `.` decimal separator.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(description)) }

    /// The decimal of an INTEGER, a REAL, or a TEXT parsed with the POSIX locale; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Decimal? {
        switch dbValue.storage {
        case .int64(let value): return Decimal(value)
        case .double(let value): return Decimal(value)
        case .string(let string): return Decimal(string: string, locale: posixLocale)
        default: return nil
        }
    }
}

extension Decimal: StatementColumnConvertible {
    /// The decimal of an INTEGER, a REAL or a TEXT; nil for a BLOB or an unparsable text.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqliteStatement.value(atIndex: index) {
        case .integer(let value): self.init(value)
        case .real(let value): self.init(value)
        case .text(let string):
            guard let decimal = Decimal(string: string, locale: posixLocale) else { return nil }
            self = decimal
        case .invalidUTF8Text:
            let string = sqliteStatement.text(atIndex: index)
            guard let decimal = Decimal(string: string, locale: posixLocale) else { return nil }
            self = decimal
        case .null, .blob: return nil
        }
    }
}

/// The locale of decimal text in the database.
let posixLocale = Locale(identifier: "en_US_POSIX")
