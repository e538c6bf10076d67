import Foundation
import GraniteStorage

/// A value stored in a database column: NULL, a 64-bit integer, a double, a string or a blob.
///
/// ```swift
/// let value = try DatabaseValue.fetchOne(db, sql: "SELECT name FROM player")!
/// switch value.storage {
/// case .string(let name): print(name)
/// default: break
/// }
/// ```
///
/// Equality follows SQLite's numeric rules: `1` (an integer) equals `1.0` (a double).
public struct DatabaseValue: Hashable, Sendable {
    /// The raw storage of the value.
    public let storage: Storage

    /// The NULL value.
    public static let null = DatabaseValue(storage: .null)

    /// The five storage classes of a database value.
    public enum Storage: Sendable {
        /// SQL NULL.
        case null
        /// An integer.
        case int64(Int64)
        /// A floating-point number.
        case double(Double)
        /// A text.
        case string(String)
        /// A blob.
        case blob(Data)

        /// The value as `Int64`, `Double`, `String`, `Data`, or nil for NULL.
        public var value: (any DatabaseValueConvertible)? {
            switch self {
            case .null: return nil
            case .int64(let v): return v
            case .double(let v): return v
            case .string(let v): return v
            case .blob(let v): return v
            }
        }
    }

    /// Creates a value from anything that conforms to ``DatabaseValueConvertible``; nil otherwise.
    public init?(value: Any) {
        guard let convertible = value as? any DatabaseValueConvertible else { return nil }
        self = convertible.databaseValue
    }

    /// Creates a value with the given storage.
    @usableFromInline
    init(storage: Storage) {
        self.storage = storage
    }

    /// Whether the value is NULL.
    public var isNull: Bool {
        if case .null = storage { return true }
        return false
    }

    // MARK: Engine bridge

    /// The value read from the engine.
    @inlinable
    init(_ value: GraniteStorage.Value) {
        switch value {
        case .null: self.init(storage: .null)
        case .integer(let v): self.init(storage: .int64(v))
        case .real(let v): self.init(storage: .double(v))
        case .text(let v): self.init(storage: .string(v))
        case .invalidUTF8Text(let v): self.init(storage: .string(GraniteStorage.Value.cString(v)))
        case .blob(let v): self.init(storage: .blob(Data(v)))
        }
    }

    /// The value handed to the engine.
    @usableFromInline
    var engineValue: GraniteStorage.Value {
        switch storage {
        case .null: return .null
        case .int64(let v): return .integer(v)
        case .double(let v): return .real(v)
        case .string(let v): return .text(v)
        case .blob(let v): return .blob([UInt8](v))
        }
    }
}

extension DatabaseValue.Storage: Equatable {
    /// Structural equality: an integer never equals a double here (see ``DatabaseValue`` for numeric equality).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.int64(let a), .int64(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.blob(let a), .blob(let b)): return a == b
        default: return false
        }
    }
}

extension DatabaseValue {
    /// Numeric equality across integers and doubles (`1 == 1.0`), exact equality otherwise.
    public static func == (lhs: DatabaseValue, rhs: DatabaseValue) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.null, .null): return true
        case (.int64(let a), .int64(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int64(let a), .double(let b)): return Int64(exactly: b) == a
        case (.double(let a), .int64(let b)): return Int64(exactly: a) == b
        case (.string(let a), .string(let b)): return a == b
        case (.blob(let a), .blob(let b)): return a == b
        default: return false
        }
    }

    /// Hashes integers as doubles, so that equal numbers hash alike.
    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .null: hasher.combine(0 as UInt8)
        case .int64(let v): hasher.combine(Double(v))
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .blob(let v): hasher.combine(v)
        }
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    /// The value itself.
    public var databaseValue: DatabaseValue { self }

    /// Returns `dbValue` unchanged.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseValue? { dbValue }
}

extension DatabaseValue: CustomStringConvertible {
    /// `NULL`, a number, a quoted string, or `Data(N bytes)`.
    public var description: String {
        switch storage {
        case .null: return "NULL"
        case .int64(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return String(reflecting: v)
        case .blob(let v): return "Data(\(v.description))"
        }
    }
}

extension DatabaseValue: ExpressibleByNilLiteral {
    /// The NULL value.
    public init(nilLiteral: ()) { self.init(storage: .null) }
}

extension DatabaseValue: ExpressibleByIntegerLiteral {
    /// An integer value.
    public init(integerLiteral value: Int64) { self.init(storage: .int64(value)) }
}

extension DatabaseValue: ExpressibleByFloatLiteral {
    /// A double value.
    public init(floatLiteral value: Double) { self.init(storage: .double(value)) }
}

extension DatabaseValue: ExpressibleByStringLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self.init(storage: .string(value)) }
}

extension DatabaseValue: ExpressibleByBooleanLiteral {
    /// 1 for true, 0 for false, as SQLite stores booleans.
    public init(booleanLiteral value: Bool) { self.init(storage: .int64(value ? 1 : 0)) }
}

extension GraniteStorage.Value {
    /// The bytes of a TEXT that is not valid UTF-8 as GRDB reads any text, with `String(cString:)`: up to the
    /// first NUL, with invalid sequences repaired to U+FFFD. (`Data` still reads the bytes exactly.)
    @usableFromInline
    static func cString(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
