import Foundation

/// How a Decodable record decodes its `Data` properties.
///
/// ```swift
/// static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy {
///     .custom { dbValue in String.fromDatabaseValue(dbValue).map { Data($0.utf8) } }
/// }
/// ```
public enum DatabaseDataDecodingStrategy: Sendable {
    /// Decodes with `Data.fromDatabaseValue` (blobs and text bytes). The default.
    case deferredToData

    /// Decodes with a function; nil is a decoding error.
    case custom(@Sendable (DatabaseValue) -> Data?)

    /// Decodes the non-NULL value at `index`.
    func decode(fromRow row: Row, atIndex index: Int) throws -> Data {
        switch self {
        case .deferredToData:
            return try row.decode(Data.self, atIndex: index)
        case .custom(let format):
            let dbValue = DatabaseValue(row.value(at: index))
            if let data = format(dbValue) { return data }
            throw RowDecodingError.valueMismatch(Data.self, row: row, key: .columnIndex(index), databaseValue: dbValue)
        }
    }
}
