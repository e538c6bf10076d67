/// The placeholders of `count` SQL arguments, separated by commas: `"?,?,?"` for 3, and an empty string
/// for 0 or less.
///
/// ```swift
/// let ids = [1, 2, 3]
/// let sql = "SELECT * FROM player WHERE id IN (\(databaseQuestionMarks(count: ids.count)))"
/// // SELECT * FROM player WHERE id IN (?,?,?)
/// ```
public func databaseQuestionMarks(count: Int) -> String {
    guard count > 0 else { return "" }
    // One "?" per argument plus one "," between two of them.
    var marks = String()
    marks.reserveCapacity(2 * count - 1)
    marks.append("?")
    for _ in 1..<count { marks.append(",?") }
    return marks
}
