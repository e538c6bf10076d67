/// How an Encodable record maps its coding keys to database columns.
///
/// ```swift
/// struct Player: Encodable, PersistableRecord {
///     static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
///     var teamID: Int64 // encoded into the "team_id" column
/// }
/// ```
public enum DatabaseColumnEncodingStrategy: Sendable {
    /// Columns are named like coding keys (the default).
    case useDefaultKeys

    /// Keys are converted to snake_case: `teamID` goes into `team_id`.
    case convertToSnakeCase

    /// A function turns each coding key into a column name.
    case custom(@Sendable (any CodingKey) -> String)

    /// The column for a coding key.
    func column(forKey key: some CodingKey) -> String {
        switch self {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return Self.snakeCase(fromCamelCase: key.stringValue)
        case .custom(let makeColumn): return makeColumn(key)
        }
    }

    /// `myURLProperty` → `my_url_property`, as Foundation's JSON encoder converts keys. Scanning from the second
    /// character, each uppercase letter ends the current word; a run of capitals before a lowercase letter is
    /// a word of its own, except its last capital which starts the next word. The first character is
    /// expected to be lowercase (`URLValue` gives `u_rl_value`).
    static func snakeCase(fromCamelCase name: String) -> String {
        let characters = Array(name)
        guard !characters.isEmpty else { return name }
        var words: [ArraySlice<Character>] = []
        var wordStart = 0
        var position = 1
        while let upper = characters[position...].firstIndex(where: \.isUppercase) {
            words.append(characters[wordStart..<upper])
            guard let lower = characters[upper...].firstIndex(where: \.isLowercase) else {
                wordStart = upper
                position = characters.count
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(characters[upper..<(lower - 1)])
                wordStart = lower - 1
            }
            position = lower + 1
            if position >= characters.count { break }
        }
        words.append(characters[wordStart...])
        return words.map { String($0).lowercased() }.joined(separator: "_")
    }
}
