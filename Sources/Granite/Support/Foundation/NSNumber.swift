import Foundation

/// `NSNumber` is stored as INTEGER or REAL according to its type; `NSDecimalNumber` holding an integer in the
/// `Int64` range is stored as INTEGER, as REAL otherwise.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO t (a, b) VALUES (?, ?)", arguments: [NSNumber(value: 1), NSNumber(value: 1.5)])
/// ```
extension NSNumber: DatabaseValueConvertible {
    /// INTEGER for integers and booleans, REAL for floating-point numbers. Unsigned values above `Int64.max`
    /// cannot be stored and trap, as in GRDB.
    public var databaseValue: DatabaseValue {
        if let decimalNumber = self as? NSDecimalNumber, let integer = decimalNumber.exactInt64 {
            return DatabaseValue(storage: .int64(integer))
        }
        switch String(cString: objCType) {
        case "c": return DatabaseValue(storage: .int64(Int64(int8Value)))
        case "C": return DatabaseValue(storage: .int64(Int64(uint8Value)))
        case "s": return DatabaseValue(storage: .int64(Int64(int16Value)))
        case "S": return DatabaseValue(storage: .int64(Int64(uint16Value)))
        case "i": return DatabaseValue(storage: .int64(Int64(int32Value)))
        case "I": return DatabaseValue(storage: .int64(Int64(uint32Value)))
        case "l": return DatabaseValue(storage: .int64(Int64(intValue)))
        case "q": return DatabaseValue(storage: .int64(int64Value))
        case "L", "Q":
            let value = uint64Value
            precondition(
                value <= UInt64(Int64.max), "could not convert \(value) to an Int64 that can be stored in the database")
            return DatabaseValue(storage: .int64(Int64(value)))
        case "f": return DatabaseValue(storage: .double(Double(floatValue)))
        case "B": return DatabaseValue(storage: .int64(boolValue ? 1 : 0))
        default: return DatabaseValue(storage: .double(doubleValue))
        }
    }

    /// An `NSNumber` (or `NSDecimalNumber`, when `Self` is) of an INTEGER or a REAL; an `NSDecimalNumber` of a
    /// decimal TEXT (so `NSNumber` decodes text only as `NSDecimalNumber`); nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        let decimalType = self is NSDecimalNumber.Type
        switch dbValue.storage {
        case .int64(let value):
            return (decimalType ? NSDecimalNumber(value: value) : NSNumber(value: value)) as? Self
        case .double(let value):
            return (decimalType ? NSDecimalNumber(value: value) : NSNumber(value: value)) as? Self
        case .string(let string):
            guard let decimal = Decimal(string: string, locale: posixLocale) else { return nil }
            return NSDecimalNumber(decimal: decimal) as? Self
        default:
            return nil
        }
    }
}

extension NSDecimalNumber {
    /// The value as `Int64` when it is an integer in range; nil otherwise.
    fileprivate var exactInt64: Int64? {
        var value = decimalValue
        guard !value.isNaN else { return nil }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        guard rounded == value, value <= Decimal(Int64.max), value >= Decimal(Int64.min) else { return nil }
        return int64Value
    }
}
