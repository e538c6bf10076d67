import Foundation

/// How an Encodable record encodes its `Data` properties.
///
/// ```swift
/// static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy { .text }
/// ```
public enum DatabaseDataEncodingStrategy: Sendable {
    /// Encodes a blob. The default.
    case deferredToData

    /// Encodes UTF-8 text; non-UTF-8 data is an `EncodingError`.
    case text

    /// Encodes with a function; nil encodes NULL.
    case custom(@Sendable (Data) -> (any DatabaseValueConvertible)?)

    /// The database value of `data`.
    func encode(_ data: Data) throws -> DatabaseValue {
        switch self {
        case .deferredToData:
            return data.databaseValue
        case .text:
            guard let string = String(data: data, encoding: .utf8) else {
                throw EncodingError.invalidValue(
                    data, EncodingError.Context(codingPath: [], debugDescription: "data is not valid UTF-8 text"))
            }
            return string.databaseValue
        case .custom(let format):
            return format(data)?.databaseValue ?? .null
        }
    }
}
