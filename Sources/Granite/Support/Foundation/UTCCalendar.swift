/// Day arithmetic of the calendar Foundation's `.gregorian` calendar (and so GRDB's date formatter) uses:
/// Gregorian from 1582-10-15 on, Julian before. Days are counted from 1970-01-01.
///
/// This replaces `Calendar` and `DateFormatter` on the hot path of date encoding and decoding.
enum UTCCalendar {
    /// The first Gregorian day, 1582-10-15, which follows the Julian day 1582-10-04.
    static let gregorianStartDay = gregorianDays(year: 1582, month: 10, day: 15)

    /// The day of a (possibly out of range, as `Calendar` leniently accepts) year, month and day.
    ///
    /// ```swift
    /// UTCCalendar.days(year: 1970, month: 1, day: 2) // 1
    /// UTCCalendar.days(year: 2018, month: 13, day: 1) // same as 2019-01-01
    /// ```
    static func days(year: Int, month: Int, day: Int) -> Int {
        // Months out of 1...12 carry into the year.
        let monthIndex = month - 1
        let yearCarry = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
        let year = year + yearCarry
        let month = monthIndex - yearCarry * 12 + 1
        if (year, month, day) < (1582, 10, 15) {
            return julianDays(year: year, month: month, day: day)
        }
        return gregorianDays(year: year, month: month, day: day)
    }

    /// The year, month and day of a day.
    static func fields(days: Int) -> (year: Int, month: Int, day: Int) {
        days < gregorianStartDay ? julianFields(days: days) : gregorianFields(days: days)
    }

    // Both calendars count from March 1st, so that the leap day ends the year; `shifted` is the month
    // index from March (0...11).

    private static func dayOfShiftedYear(month: Int, day: Int) -> Int {
        let shifted = month > 2 ? month - 3 : month + 9
        return (153 * shifted + 2) / 5 + day - 1
    }

    private static func monthAndDay(dayOfShiftedYear doy: Int) -> (month: Int, day: Int) {
        let shifted = (5 * doy + 2) / 153
        let day = doy - (153 * shifted + 2) / 5 + 1
        return (shifted < 10 ? shifted + 3 : shifted - 9, day)
    }

    private static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : (a - b + 1) / b }

    // Gregorian: 400-year cycles of 146,097 days; 719,468 days separate 0000-03-01 and 1970-01-01.

    private static func gregorianDays(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let cycle = floorDiv(y, 400)
        let yearOfCycle = y - cycle * 400
        let dayOfCycle =
            yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfShiftedYear(month: month, day: day)
        return cycle * 146_097 + dayOfCycle - 719_468
    }

    private static func gregorianFields(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let cycle = floorDiv(z, 146_097)
        let dayOfCycle = z - cycle * 146_097
        let yearOfCycle =
            (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36524 - dayOfCycle / 146_096) / 365
        let doy = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        let (month, day) = monthAndDay(dayOfShiftedYear: doy)
        return (yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    // Julian: 4-year cycles of 1,461 days; 719,470 days separate Julian 0000-03-01 and 1970-01-01.

    private static func julianDays(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let cycle = floorDiv(y, 4)
        let yearOfCycle = y - cycle * 4
        return cycle * 1461 + yearOfCycle * 365 + dayOfShiftedYear(month: month, day: day) - 719_470
    }

    private static func julianFields(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_470
        let cycle = floorDiv(z, 1461)
        let dayOfCycle = z - cycle * 1461
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1460) / 365
        let doy = dayOfCycle - 365 * yearOfCycle
        let (month, day) = monthAndDay(dayOfShiftedYear: doy)
        return (yearOfCycle + cycle * 4 + (month <= 2 ? 1 : 0), month, day)
    }
}
