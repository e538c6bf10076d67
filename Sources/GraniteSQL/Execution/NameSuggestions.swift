/// "Did you mean" hints for unknown names: the closest existing name by edit distance, ignoring ASCII case.
enum NameSuggestions {
    /// `message`, followed by ` (did you mean 'name'?)` when there is a suggestion.
    static func describe(_ message: String, _ suggestion: String?) -> String {
        guard let suggestion else { return message }
        return "\(message) (did you mean '\(suggestion)'?)"
    }

    /// The edit distance between `a` and `b`, ignoring ASCII case: insertions, deletions, substitutions and
    /// transpositions of adjacent characters (the optimal string alignment variant of Damerau–Levenshtein), so that
    /// the common `naem` for `name` typo counts as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(SchemaNames.key(a).unicodeScalars)
        let y = Array(SchemaNames.key(b).unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var beforePrevious = Array(repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = Array(repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                var best = min(previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1), previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    best = min(best, beforePrevious[j - 2] + 1)
                }
                current[j] = best
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[y.count]
    }

    /// The candidate closest to `name`, when it is close enough: at most `max(1, length / 3)` edits away, where
    /// `length` is the length of `name`. Names equal to `name` (ignoring case) are not suggestions; ties go to
    /// the alphabetically first candidate.
    static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(1, name.unicodeScalars.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(name, candidate)
            guard distance > 0, distance <= limit else { continue }
            if let current = best,
                current.distance < distance || (current.distance == distance && current.name <= candidate)
            {
                continue
            }
            best = (candidate, distance)
        }
        return best?.name
    }
}

extension SQLConnection {
    /// `error` with a suggestion attached when it reports an unknown table, column, function, index or collation
    /// for which a close existing name exists; the message itself is left as SQLite words it.
    func withSuggestion(_ error: any Error) -> any Error {
        switch error {
        case var error as SQLExecutionError where error.suggestion == nil:
            error.suggestion = suggestion(for: error.message)
            return error
        case var error as SQLEvaluationError where error.suggestion == nil:
            error.suggestion = suggestion(for: error.message)
            return error
        case var error as SchemaError where error.suggestion == nil:
            error.suggestion = suggestion(for: error.message)
            return error
        default:
            return error
        }
    }

    /// A suggestion for the unknown name an error message reports, if any.
    func suggestion(for message: String) -> String? {
        func name(after prefix: String) -> String? {
            guard message.hasPrefix(prefix) else { return nil }
            var name = String(message.dropFirst(prefix.count))
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
                name = String(name.dropFirst().dropLast())
            }
            return name
        }
        if let name = name(after: "no such table: ") {
            let table = name.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? name
            return NameSuggestions.closest(to: table, among: catalog.tables.map(\.name))
        }
        if let name = name(after: "no such index: ") {
            return NameSuggestions.closest(to: name, among: catalog.indexes.map(\.name))
        }
        if let name = name(after: "no such function: ") {
            return NameSuggestions.closest(to: name, among: ExpressionCompiler.arities.keys)
        }
        if let name = name(after: "no such collation sequence: ") {
            return NameSuggestions.closest(to: name, among: ["BINARY", "NOCASE", "RTRIM"])
        }
        if message.hasPrefix("table "),
            let (tableName, column) = Self.split(message.dropFirst(6), " has no column named ")
        {
            guard let table = catalog.table(named: tableName) else { return nil }
            return NameSuggestions.closest(to: column, among: table.columns.map(\.name))
        }
        if let name = name(after: "no such column: ") {
            var parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let column = parts.removeLast()
            let qualifier = parts.last
            var tables = catalog.tables
            if let qualifier, let table = catalog.table(named: qualifier) { tables = [table] }
            var seen = Set<String>()
            let candidates = tables.flatMap { $0.columns.map(\.name) }.filter {
                seen.insert(SchemaNames.key($0)).inserted
            }
            guard let found = NameSuggestions.closest(to: column, among: candidates) else { return nil }
            return (parts + [found]).joined(separator: ".")
        }
        return nil
    }

    /// `text` split around the first occurrence of `separator`, if any.
    private static func split(_ text: Substring, _ separator: String) -> (String, String)? {
        let characters = Array(text)
        let pattern = Array(separator)
        guard characters.count >= pattern.count else { return nil }
        for start in 0...(characters.count - pattern.count)
        where characters[start..<(start + pattern.count)].elementsEqual(pattern) {
            return (String(characters[..<start]), String(characters[(start + pattern.count)...]))
        }
        return nil
    }
}
