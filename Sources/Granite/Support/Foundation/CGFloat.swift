import Foundation

/// `CGFloat` (from Foundation on Linux) is stored and decoded as `Double`.
///
/// ```swift
/// let width = try CGFloat.fetchOne(db, sql: "SELECT width FROM shape")
/// ```
extension CGFloat: DatabaseValueConvertible {
    /// The number as REAL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(Double(self))) }

    /// An INTEGER or REAL value; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> CGFloat? {
        Double.fromDatabaseValue(dbValue).map { CGFloat($0) }
    }
}
