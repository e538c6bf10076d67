import Foundation
import GraniteStorage

// Conversions of the standard library's value types. Integers are stored as INTEGER, floating-point numbers
// as REAL, strings as TEXT; decoding accepts an integer from a REAL (truncated toward zero), and a number from
// either numeric storage class, as GRDB does. The integers' conversions are in StandardLibrary+Integers.swift.

extension Bool: DatabaseValueConvertible, StatementColumnConvertible {
    /// 1 or 0.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self ? 1 : 0)) }

    /// False for zero, true for any other number; nil for other storage classes.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
        switch dbValue.storage {
        case .int64(let v): return v != 0
        case .double(let v): return v != 0
        default: return nil
        }
    }

    /// SQLite's integer conversion of the column, compared with zero.
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        self = sqliteStatement.int64(atIndex: index) != 0
    }
}

/// Integers of every width share one implementation: decoding fails when the stored number does not fit.
public protocol _DatabaseInteger: FixedWidthInteger, DatabaseValueConvertible, StatementColumnConvertible {}

extension _DatabaseInteger {
    /// nil for NULL, else ``init(sqliteStatement:index:)``; an INTEGER is read in place.
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Self? {
        if let v = sqliteStatement.storedInteger(atIndex: index) { return Self(exactly: v) }
        return fromOtherStatementValue(sqliteStatement, index)
    }

    /// ``fromStatement(_:atUncheckedIndex:)`` of a value that is not an INTEGER: out of line, so that the integer
    /// path stays small enough to inline into the cursors' loops.
    @inlinable @inline(never)
    static func fromOtherStatementValue(_ sqliteStatement: SQLiteStatement, _ index: CInt) -> Self? {
        if sqliteStatement.isNull(atIndex: index) { return nil }
        return Self(exactly: sqliteStatement.int64(atIndex: index))
    }

    /// The column converted as SQLite's `sqlite3_column_int64` does (text and blobs convert too); nil when it
    /// does not fit.
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        let v = sqliteStatement.storedInteger(atIndex: index) ?? sqliteStatement.int64(atIndex: index)
        guard let x = Self(exactly: v) else { return nil }
        self = x
    }
}

extension Int: _DatabaseInteger {}
extension Int8: _DatabaseInteger {}
extension Int16: _DatabaseInteger {}
extension Int32: _DatabaseInteger {}
extension Int64: _DatabaseInteger {}
extension UInt: _DatabaseInteger {}
extension UInt8: _DatabaseInteger {}
extension UInt16: _DatabaseInteger {}
extension UInt32: _DatabaseInteger {}
extension UInt64: _DatabaseInteger {}

extension Double: DatabaseValueConvertible, StatementColumnConvertible {
    /// The number as REAL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(self)) }

    /// An INTEGER or REAL value; nil for other storage classes.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Double? {
        switch dbValue.storage {
        case .int64(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }

    /// nil for NULL, else the column converted as SQLite's `sqlite3_column_double` does, read once.
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Double? {
        switch sqliteStatement.value(atIndex: index) {
        case .null: return nil
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return sqliteStatement.double(atIndex: index)
        }
    }

    /// The column converted as SQLite's `sqlite3_column_double` does.
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        self = sqliteStatement.double(atIndex: index)
    }
}

extension Float: DatabaseValueConvertible, StatementColumnConvertible {
    /// The number as REAL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(Double(self))) }

    /// An INTEGER or REAL value; nil for other storage classes.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Float? {
        Double.fromDatabaseValue(dbValue).map(Float.init)
    }

    /// The column converted as SQLite's `sqlite3_column_double` does.
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        self = Float(sqliteStatement.double(atIndex: index))
    }
}

extension String: DatabaseValueConvertible, StatementColumnConvertible {
    /// The string as TEXT.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(self)) }

    /// A TEXT value; nil for other storage classes.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
        if case .string(let s) = dbValue.storage { return s }
        return nil
    }

    /// nil for NULL, else the column as text, read once.
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> String? {
        switch sqliteStatement.value(atIndex: index) {
        case .null: return nil
        case .text(let s): return s
        default: return sqliteStatement.text(atIndex: index)
        }
    }

    /// The column as text, converted as SQLite's `sqlite3_column_text` does.
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        if case .text(let s) = sqliteStatement.value(atIndex: index) {
            self = s
        } else {
            self = sqliteStatement.text(atIndex: index)
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// The wrapped value, or NULL.
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

    /// `.some(nil)` for NULL, the wrapped value otherwise, nil when the wrapped type fails.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wrapped?? {
        if dbValue.isNull { return .some(nil) }
        guard let value = Wrapped.fromDatabaseValue(dbValue) else { return nil }
        return .some(value)
    }

    /// `.some(nil)`: a missing column decodes as nil.
    public static func fromMissingColumn() -> Wrapped?? { .some(nil) }
}

extension Optional: StatementColumnConvertible where Wrapped: StatementColumnConvertible {
    /// `.some(nil)` for NULL, the wrapped value otherwise, nil when the wrapped type fails.
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Wrapped?? {
        if sqliteStatement.isNull(atIndex: index) { return .some(nil) }
        guard let value = Wrapped(sqliteStatement: sqliteStatement, index: index) else { return nil }
        return .some(value)
    }

    /// The wrapped value decoded from a non-NULL column.
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Wrapped(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = .some(value)
    }
}
