// The conversions of the integer types are concrete members of each type, as in GRDB, so that they are found
// on the type itself (`Int.fromDatabaseValue`) and not only through the protocol. Every width goes through
// Int64, the only integer that SQLite stores.

extension Int64 {
    /// The integer as an INTEGER value.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self)) }

    /// The stored integer, or a stored REAL truncated toward zero (`3.9` gives 3); nil for a REAL outside
    /// Int64's range, NaN, and other storage classes (NULL, text, blob).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int64? {
        switch dbValue.storage {
        case .int64(let value):
            return value
        case .double(let value):
            // -2^63 and 2^63 are exact doubles: the range check rejects NaN and infinities too.
            guard value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0 else { return nil }
            return Int64(value)
        default:
            return nil
        }
    }
}

extension Int {
    /// The integer as an INTEGER value.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `Int`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(dbValue).flatMap { Int(exactly: $0) }
    }
}

extension Int8 {
    /// The integer as an INTEGER value.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `Int8`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int8? {
        Int64.fromDatabaseValue(dbValue).flatMap { Int8(exactly: $0) }
    }
}

extension Int16 {
    /// The integer as an INTEGER value.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `Int16`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int16? {
        Int64.fromDatabaseValue(dbValue).flatMap { Int16(exactly: $0) }
    }
}

extension Int32 {
    /// The integer as an INTEGER value.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `Int32`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int32? {
        Int64.fromDatabaseValue(dbValue).flatMap { Int32(exactly: $0) }
    }
}

extension UInt {
    /// The integer as an INTEGER value (a value above `Int64.max` cannot be stored and traps).
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `UInt`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt? {
        Int64.fromDatabaseValue(dbValue).flatMap { UInt(exactly: $0) }
    }
}

extension UInt8 {
    /// The integer as an INTEGER value.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `UInt8`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt8? {
        Int64.fromDatabaseValue(dbValue).flatMap { UInt8(exactly: $0) }
    }
}

extension UInt16 {
    /// The integer as an INTEGER value.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `UInt16`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt16? {
        Int64.fromDatabaseValue(dbValue).flatMap { UInt16(exactly: $0) }
    }
}

extension UInt32 {
    /// The integer as an INTEGER value.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `UInt32`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt32? {
        Int64.fromDatabaseValue(dbValue).flatMap { UInt32(exactly: $0) }
    }
}

extension UInt64 {
    /// The integer as an INTEGER value (a value above `Int64.max` cannot be stored and traps).
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }

    /// The value decoded as ``Swift/Int64/fromDatabaseValue(_:)`` does, or nil when it does not fit in `UInt64`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt64? {
        Int64.fromDatabaseValue(dbValue).flatMap { UInt64(exactly: $0) }
    }
}
