import Foundation

/// Date components stored as text in one of SQLite's date and time formats.
///
/// ```swift
/// let components = DatabaseDateComponents(DateComponents(hour: 10, minute: 30), format: .HM)
/// try db.execute(sql: "INSERT INTO alarm (time) VALUES (?)", arguments: [components]) // "10:30"
/// let time = try DatabaseDateComponents.fetchOne(db, sql: "SELECT time FROM alarm")!
/// time.format                 // .HM
/// time.dateComponents.minute  // 30
/// ```
public struct DatabaseDateComponents: Sendable {
    /// The text formats of date components; the raw value is the `DateFormatter` pattern.
    public enum Format: String, Sendable {
        /// `yyyy-MM-dd`.
        case YMD = "yyyy-MM-dd"

        /// `yyyy-MM-dd HH:mm`, which sorts like SQLite's `CURRENT_TIMESTAMP`.
        case YMD_HM = "yyyy-MM-dd HH:mm"

        /// `yyyy-MM-dd HH:mm:ss`, which sorts like SQLite's `CURRENT_TIMESTAMP`.
        case YMD_HMS = "yyyy-MM-dd HH:mm:ss"

        /// `yyyy-MM-dd HH:mm:ss.SSS`, which sorts like SQLite's `CURRENT_TIMESTAMP`.
        case YMD_HMSS = "yyyy-MM-dd HH:mm:ss.SSS"

        /// `HH:mm`.
        case HM = "HH:mm"

        /// `HH:mm:ss`.
        case HMS = "HH:mm:ss"

        /// `HH:mm:ss.SSS`.
        case HMSS = "HH:mm:ss.SSS"

        /// Whether the format has a year, a month and a day.
        var hasYMDComponents: Bool {
            switch self {
            case .YMD, .YMD_HM, .YMD_HMS, .YMD_HMSS: return true
            case .HM, .HMS, .HMSS: return false
            }
        }
    }

    /// The components. Decoded components have a time zone when the text ends with `Z` or `±HH:MM`.
    public let dateComponents: DateComponents

    /// The format of the stored text.
    public let format: Format

    /// Creates date components that are stored with the given format.
    public init(_ dateComponents: DateComponents, format: Format) {
        self.dateComponents = dateComponents
        self.format = format
    }
}

extension DatabaseDateComponents: DatabaseValueConvertible {
    /// TEXT in ``format``; missing components are zero (the month and day default to 1), and nanoseconds
    /// are rounded to the millisecond.
    public var databaseValue: DatabaseValue {
        let components = dateComponents
        var bytes: [UInt8] = []
        if format.hasYMDComponents {
            bytes.appendDecimal(components.year ?? 0, width: 4)
            bytes.append(UInt8(ascii: "-"))
            bytes.appendDecimal(components.month ?? 1, width: 2)
            bytes.append(UInt8(ascii: "-"))
            bytes.appendDecimal(components.day ?? 1, width: 2)
        }
        if format != .YMD {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: " ")) }
            bytes.appendDecimal(components.hour ?? 0, width: 2)
            bytes.append(UInt8(ascii: ":"))
            bytes.appendDecimal(components.minute ?? 0, width: 2)
            switch format {
            case .YMD_HMS, .HMS, .YMD_HMSS, .HMSS:
                bytes.append(UInt8(ascii: ":"))
                bytes.appendDecimal(components.second ?? 0, width: 2)
            default:
                break
            }
            if format == .YMD_HMSS || format == .HMSS {
                bytes.append(UInt8(ascii: "."))
                let milliseconds = (Double(components.nanosecond ?? 0) / 1e6).rounded()
                bytes.appendDecimal(Int(milliseconds), width: 3)
            }
        }
        return DatabaseValue(storage: .string(String(decoding: bytes, as: UTF8.self)))
    }

    /// Components decoded from a text in one of these formats (nil otherwise):
    ///
    /// - `YYYY-MM-DD`
    /// - `YYYY-MM-DD HH:MM`, `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD HH:MM:SS.SSS` (or `T` instead of the space)
    /// - `HH:MM`, `HH:MM:SS`, `HH:MM:SS.SSS`
    ///
    /// Times may end with `Z` or `±HH:MM`; fractions have one or more digits, of which three are kept.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseDateComponents? {
        guard case .string(let string) = dbValue.storage else { return nil }
        return SQLiteDateParser().parse(string).map(DatabaseDateComponents.init(parsed:))
    }

    init(parsed: ParsedSQLiteDate) {
        self.init(parsed.dateComponents, format: parsed.format)
    }
}

extension DatabaseDateComponents: StatementColumnConvertible {
    /// Components parsed from the column's text (numbers and blobs are read as text, as SQLite does).
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let parsed = SQLiteDateParser().parse(sqliteStatement.text(atIndex: index)) else { return nil }
        self.init(parsed: parsed)
    }
}

extension DatabaseDateComponents: Codable {
    /// Decodes components from a string in one of the formats of ``fromDatabaseValue(_:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let parsed = SQLiteDateParser().parse(string) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Unable to initialise databaseDateComponent")
        }
        self.init(parsed: parsed)
    }

    /// Encodes the components as the string stored in the database.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        guard case .string(let string) = databaseValue.storage else { return }
        try container.encode(string)
    }
}
