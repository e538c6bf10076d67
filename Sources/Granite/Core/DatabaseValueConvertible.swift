import Foundation
import GraniteSQL
import GraniteStorage

/// A type that converts to and from a ``DatabaseValue``, so that it can be bound to statements and read
/// from rows.
///
/// ```swift
/// struct Celsius: DatabaseValueConvertible {
///     var degrees: Double
///     var databaseValue: DatabaseValue { degrees.databaseValue }
///     static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Celsius? {
///         Double.fromDatabaseValue(dbValue).map(Celsius.init)
///     }
/// }
/// ```
public protocol DatabaseValueConvertible: SQLExpressible, StatementBinding {
    /// The value stored in the database.
    var databaseValue: DatabaseValue { get }

    /// The value decoded from `dbValue`, or nil when it cannot be decoded.
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?

    /// The value used when a row has no column to decode from, or nil (an error). `Optional` returns `.some(nil)`.
    static func fromMissingColumn() -> Self?

    /// The decoder of JSON values stored in columns (used by Codable types stored as JSON).
    static func databaseJSONDecoder() -> JSONDecoder

    /// The encoder of JSON values stored in columns (used by Codable types stored as JSON).
    static func databaseJSONEncoder() -> JSONEncoder
}

extension DatabaseValueConvertible {
    /// nil: a missing column is an error.
    public static func fromMissingColumn() -> Self? { nil }

    /// A decoder with base64 data, dates in milliseconds since 1970, and non-conforming floats rejected.
    public static func databaseJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        return decoder
    }

    /// An encoder with base64 data, dates in milliseconds since 1970, non-conforming floats rejected, and
    /// sorted keys so that equal values encode to equal text.
    public static func databaseJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

/// A type that decodes straight from a statement's current row, skipping the ``DatabaseValue`` step: the fast
/// path of `Int.fetchAll`, `row[0] as Int` and friends.
public protocol StatementColumnConvertible {
    /// The value at column `index`, nil when it is NULL or cannot be decoded.
    static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Self?

    /// Decodes the non-NULL value at column `index`, or fails.
    init?(sqliteStatement: SQLiteStatement, index: CInt)
}

extension StatementColumnConvertible {
    /// nil for NULL, otherwise ``init(sqliteStatement:index:)``.
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Self? {
        if sqliteStatement.isNull(atIndex: index) { return nil }
        return Self(sqliteStatement: sqliteStatement, index: index)
    }
}

/// The current row of a running statement, as handed to ``StatementColumnConvertible`` types. (The name is
/// GRDB's, where it is SQLite's statement handle; Granite passes a view of the row's values.)
public struct SQLiteStatement {
    /// The running statement whose current row this is, or nil for a row of copied values.
    /// Unowned: whoever hands out the view (a cursor, a row) keeps the statement alive while it is used.
    @usableFromInline let prepared: Unmanaged<PreparedStatement>?
    @usableFromInline let values: [GraniteStorage.Value]

    @inlinable init(values: [GraniteStorage.Value]) {
        prepared = nil
        self.values = values
    }

    @inlinable init(prepared: PreparedStatement) {
        self.prepared = Unmanaged.passUnretained(prepared)
        values = []
    }

    @inlinable init(unmanaged prepared: Unmanaged<PreparedStatement>) {
        self.prepared = prepared
        values = []
    }

    /// The number of columns.
    public var columnCount: Int { prepared?._withUnsafeGuaranteedRef { $0.columnCount } ?? values.count }

    /// The engine value at `index`.
    @inlinable
    public func value(atIndex index: CInt) -> GraniteStorage.Value {
        if let prepared { return prepared._withUnsafeGuaranteedRef { $0.column(at: Int(index)) } }
        return values[Int(index)]
    }

    /// Whether the value at `index` is NULL.
    @inlinable
    public func isNull(atIndex index: CInt) -> Bool {
        if let prepared { return prepared._withUnsafeGuaranteedRef { $0.columnIsNull(at: Int(index)) } }
        if case .null = values[Int(index)] { return true }
        return false
    }

    /// The value at `index` when it is an INTEGER, else nil: a running statement's is read in place, without the
    /// copy of the value that ``value(atIndex:)`` makes.
    @inlinable
    func storedInteger(atIndex index: CInt) -> Int64? {
        if let prepared { return prepared._withUnsafeGuaranteedRef { $0.integerColumn(at: Int(index)) } }
        if case .integer(let i) = values[Int(index)] { return i }
        return nil
    }

    /// The value at `index`.
    public func databaseValue(atIndex index: CInt) -> DatabaseValue { DatabaseValue(value(atIndex: index)) }

    /// The value at `index` converted to an integer as SQLite's `sqlite3_column_int64` does (the engine's
    /// `sqlInteger`).
    @inlinable
    public func int64(atIndex index: CInt) -> Int64 {
        value(atIndex: index).sqlInteger
    }

    /// The value at `index` converted to a double as SQLite's `sqlite3_column_double` does (the engine's
    /// `sqlReal`).
    @inlinable
    public func double(atIndex index: CInt) -> Double {
        value(atIndex: index).sqlReal
    }

    /// The value at `index` as text, as SQLite's `sqlite3_column_text` gives it (the engine's `sqlText`). A TEXT
    /// that is not valid UTF-8 reads as GRDB's `String(cString:)` makes it: up to its first NUL, repaired with
    /// U+FFFD.
    public func text(atIndex index: CInt) -> String {
        let value = value(atIndex: index)
        if case .invalidUTF8Text(let bytes) = value { return GraniteStorage.Value.cString(bytes) }
        return value.sqlText ?? ""
    }

    /// The value at `index` as bytes, as SQLite's `sqlite3_column_blob` gives it.
    public func data(atIndex index: CInt) -> Data {
        switch value(atIndex: index) {
        case .blob(let b): return Data(b)
        case .text(let s): return Data(s.utf8)
        case .invalidUTF8Text(let b): return Data(b)
        case .null: return Data()
        case .integer, .real: return Data(text(atIndex: index).utf8)
        }
    }
}
