/// How a Decodable record maps the columns of a row to its coding keys.
///
/// ```swift
/// struct Player: Decodable, FetchableRecord {
///     static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
///     var teamID: Int64 // decoded from the "team_id" column
/// }
/// ```
public enum DatabaseColumnDecodingStrategy: Sendable {
    /// Columns are named like coding keys (the default).
    case useDefaultKeys

    /// Columns are snake_case: the `team_id` column feeds the `teamId` key.
    case convertFromSnakeCase

    /// A function turns each column name into a coding key.
    case custom(@Sendable (String) -> any CodingKey)

    /// The coding key for a column, if `Key` has one.
    func key<Key: CodingKey>(forColumn column: String) -> Key? {
        switch self {
        case .useDefaultKeys: return Key(stringValue: column)
        case .convertFromSnakeCase: return Key(stringValue: Self.camelCase(fromSnakeCase: column))
        case .custom(let makeKey): return Key(stringValue: makeKey(column).stringValue)
        }
    }

    /// `team_id` → `teamId`. Leading and trailing underscores are kept; a name without inner underscores is
    /// unchanged.
    static func camelCase(fromSnakeCase name: String) -> String {
        guard name.contains("_") else { return name }
        guard let first = name.firstIndex(where: { $0 != "_" }) else { return name }
        let last = name.lastIndex(where: { $0 != "_" })!
        let core = name[first...last]
        let words = core.split(separator: "_")
        let body: String
        if words.count == 1 {
            body = String(core)
        } else {
            body = words.enumerated().map { offset, word in
                offset == 0 ? word.lowercased() : word.capitalized
            }.joined()
        }
        return String(name[..<first]) + body + String(name[name.index(after: last)...])
    }
}
