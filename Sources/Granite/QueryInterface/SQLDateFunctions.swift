/// A modifier of SQLite's date and time functions: `julianDay(Column("date"), .startOfDay, .day(1))`.
///
/// Each modifier is bound as a string argument: `.day(1)` is `'1 days'`, `.startOfMonth` is
/// `'start of month'`.
public enum SQLDateModifier: SQLSpecificExpressible, Sendable {
    /// Adds a number of seconds (may be fractional or negative): `'1.5 seconds'`.
    case second(Double)

    /// Adds a number of minutes: `'10 minutes'`.
    case minute(Int)

    /// Adds a number of hours: `'2 hours'`.
    case hour(Int)

    /// Adds a number of days: `'-1 days'`.
    case day(Int)

    /// Adds a number of months: `'1 months'`.
    case month(Int)

    /// Adds a number of years: `'1 years'`.
    case year(Int)

    /// Moves back to midnight: `'start of day'`.
    case startOfDay

    /// Moves back to the first day of the month, at midnight: `'start of month'`.
    case startOfMonth

    /// Moves back to the first day of the year, at midnight: `'start of year'`.
    case startOfYear

    /// Moves forward, if needed, to the next day with this weekday (0 is Sunday): `'weekday 1'`.
    case weekday(Int)

    /// Reads the preceding numeric value as seconds since 1970: `'unixepoch'`.
    case unixEpoch

    /// Converts from UTC to local time: `'localtime'`.
    case localTime

    /// Converts from local time to UTC: `'utc'`.
    case utc

    /// The modifier string, bound as an argument.
    public var sqlExpression: SQLExpression {
        modifierString.sqlExpression
    }

    /// The modifier as SQLite spells it.
    var modifierString: String {
        switch self {
        case .second(let seconds): return "\(seconds) seconds"
        case .minute(let minutes): return "\(minutes) minutes"
        case .hour(let hours): return "\(hours) hours"
        case .day(let days): return "\(days) days"
        case .month(let months): return "\(months) months"
        case .year(let years): return "\(years) years"
        case .startOfDay: return "start of day"
        case .startOfMonth: return "start of month"
        case .startOfYear: return "start of year"
        case .weekday(let weekday): return "weekday \(weekday)"
        case .unixEpoch: return "unixepoch"
        case .localTime: return "localtime"
        case .utc: return "utc"
        }
    }
}

/// `JULIANDAY(value, modifiers…)`: the Julian day number of a date, as a double; NULL for an invalid date.
///
/// ```swift
/// // JULIANDAY("date", ?, ?) with arguments ["start of day", "1 days"]
/// julianDay(Column("date"), .startOfDay, .day(1))
/// ```
public func julianDay(_ value: some SQLSpecificExpressible, _ modifiers: SQLDateModifier...) -> SQLExpression {
    .function("JULIANDAY", [value.sqlExpression] + modifiers.map(\.sqlExpression))
}

/// `DATETIME(value, modifiers…)`: a date as `YYYY-MM-DD HH:MM:SS` text; NULL for an invalid date.
///
/// ```swift
/// // DATETIME("date", ?) with arguments ["start of month"]
/// dateTime(Column("date"), .startOfMonth)
/// ```
public func dateTime(_ value: some SQLSpecificExpressible, _ modifiers: SQLDateModifier...) -> SQLExpression {
    .function("DATETIME", [value.sqlExpression] + modifiers.map(\.sqlExpression))
}
