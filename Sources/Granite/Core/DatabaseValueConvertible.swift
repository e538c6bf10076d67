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
public protocol DatabaseValueConvertible: SQLExpressible {
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
    @usableFromInline unowned(unsafe) let prepared: PreparedStatement?
    @usableFromInline let values: [GraniteStorage.Value]

    @inlinable init(values: [GraniteStorage.Value]) {
        prepared = nil
        self.values = values
    }

    @inlinable init(prepared: PreparedStatement) {
        self.prepared = prepared
        values = []
    }

    /// The number of columns.
    public var columnCount: Int { prepared?.columnCount ?? values.count }

    /// The engine value at `index`.
    @inlinable
    public func value(atIndex index: CInt) -> GraniteStorage.Value {
        if let prepared { return prepared.column(at: Int(index)) }
        return values[Int(index)]
    }

    /// Whether the value at `index` is NULL.
    @inlinable
    public func isNull(atIndex index: CInt) -> Bool {
        if case .null = value(atIndex: index) { return true }
        return false
    }

    /// The value at `index`.
    public func databaseValue(atIndex index: CInt) -> DatabaseValue { DatabaseValue(value(atIndex: index)) }

    /// The value at `index` converted to an integer as SQLite's `sqlite3_column_int64` does.
    @inlinable
    public func int64(atIndex index: CInt) -> Int64 {
        switch value(atIndex: index) {
        case .integer(let v): return v
        case .real(let v): return Self.int64(fromDouble: v)
        case .text(let s): return Self.int64(fromText: s)
        case .null, .blob: return 0
        }
    }

    /// The value at `index` converted to a double as SQLite's `sqlite3_column_double` does.
    @inlinable
    public func double(atIndex index: CInt) -> Double {
        switch value(atIndex: index) {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        case .text(let s): return Double(s.trimmingSQLSpaces) ?? Double(Self.int64(fromText: s))
        case .null, .blob: return 0
        }
    }

    /// The value at `index` as text, as SQLite's `sqlite3_column_text` gives it.
    public func text(atIndex index: CInt) -> String {
        switch value(atIndex: index) {
        case .integer(let v): return String(v)
        case .real(let v): return DatabaseValue(storage: .double(v)).sqliteText
        case .text(let s): return s
        case .blob(let b): return String(decoding: b, as: UTF8.self)
        case .null: return ""
        }
    }

    /// The value at `index` as bytes, as SQLite's `sqlite3_column_blob` gives it.
    public func data(atIndex index: CInt) -> Data {
        switch value(atIndex: index) {
        case .blob(let b): return Data(b)
        case .text(let s): return Data(s.utf8)
        case .null: return Data()
        case .integer, .real: return Data(text(atIndex: index).utf8)
        }
    }

    @usableFromInline
    static func int64(fromDouble v: Double) -> Int64 {
        if v.isNaN { return 0 }
        if v >= 9.223372036854775807e18 { return .max }
        if v <= -9.223372036854775808e18 { return .min }
        return Int64(v)
    }

    @usableFromInline
    static func int64(fromText s: String) -> Int64 {
        // Leading integer prefix, like SQLite's text-to-integer conversion.
        var result: Int64 = 0
        var negative = false
        var started = false
        for byte in s.utf8 {
            if !started {
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
                started = true
                if byte == 0x2D {
                    negative = true
                    continue
                }
                if byte == 0x2B { continue }
            }
            guard byte >= 0x30 && byte <= 0x39 else { break }
            let (m, o1) = result.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(byte - 0x30))
            if o1 || o2 { return negative ? .min : .max }
            result = a
        }
        return negative ? -result : result
    }
}

extension String {
    /// The string without leading and trailing ASCII spaces (SQLite's numeric text rules).
    @usableFromInline
    var trimmingSQLSpaces: Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C }
        while start < end, isSpace(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isSpace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return self[start..<end]
    }
}

extension DatabaseValue {
    /// The text SQLite gives a double (15 significant digits, at least one decimal).
    var sqliteText: String {
        switch storage {
        case .double(let v): return SQLRealFormatting.render(v)
        case .int64(let v): return String(v)
        case .string(let s): return s
        case .blob(let d): return String(decoding: d, as: UTF8.self)
        case .null: return ""
        }
    }
}
