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

    /// `myURLProperty` → `my_url_property`: words break before an uppercase letter that follows a lowercase
    /// one, and before the last capital of an uppercase run that is followed by a lowercase letter.
    static func snakeCase(fromCamelCase name: String) -> String {
        let characters = Array(name)
        guard !characters.isEmpty else { return name }
        var words: [String] = []
        var current = String(characters[0])
        for index in 1..<characters.count {
            let character = characters[index]
            if character.isUppercase {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let afterLower = !previous.isUppercase
                let endsAcronym = previous.isUppercase && (next?.isLowercase ?? false)
                if afterLower || endsAcronym {
                    words.append(current)
                    current = ""
                }
            }
            current.append(character)
        }
        words.append(current)
        return words.map { $0.lowercased() }.joined(separator: "_")
    }
}
