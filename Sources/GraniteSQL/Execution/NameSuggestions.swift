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
            error.suggestion = error.subject.flatMap(suggestion(for:))
            return error
        case var error as SQLEvaluationError where error.suggestion == nil:
            error.suggestion = error.subject.flatMap(suggestion(for:))
            return error
        case var error as SchemaError where error.suggestion == nil:
            error.suggestion = error.subject.flatMap(suggestion(for:))
            return error
        default:
            return error
        }
    }

    /// A suggestion for the unknown name an error is about, if any.
    func suggestion(for subject: SQLErrorSubject) -> String? {
        switch subject {
        case .noSuchTable(let name):
            // A qualified name (`main.t`) is looked up by its table part.
            let table = name.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? name
            return NameSuggestions.closest(to: table, among: catalog.tables.map(\.name) + catalog.views.map(\.name))
        case .noSuchIndex(let name):
            return NameSuggestions.closest(to: name, among: catalog.indexes.map(\.name))
        case .noSuchFunction(let name):
            return NameSuggestions.closest(to: name, among: ExpressionCompiler.arities.keys)
        case .noSuchCollation(let name):
            return NameSuggestions.closest(to: name, among: ["BINARY", "NOCASE", "RTRIM"])
        case .noColumnNamed(let tableName, let column):
            guard let table = catalog.table(named: tableName) else { return nil }
            return NameSuggestions.closest(to: column, among: table.columns.map(\.name))
        case .noSuchColumnToRename(let name):
            return columnSuggestion(for: ColumnReference(column: name)).map { $0.column }
        case .noSuchColumn(let reference):
            return columnSuggestion(for: reference).map { suggested in
                [suggested.schema, suggested.table, suggested.column].compactMap { $0 }.joined(separator: ".")
            }
        case .misuseOfAggregate, .misuseOfWindowFunction, .circularView, .unusableIndex:
            return nil
        }
    }

    /// The reference with its column replaced by the closest column of the tables it may mean: the qualifier's
    /// table when it names one, every table otherwise.
    private func columnSuggestion(for reference: ColumnReference) -> ColumnReference? {
        var tables = catalog.tables
        if let qualifier = reference.table, let table = catalog.table(named: qualifier) { tables = [table] }
        var seen = Set<String>()
        let candidates = tables.flatMap { $0.columns.map(\.name) }.filter { seen.insert(SchemaNames.key($0)).inserted }
        guard let found = NameSuggestions.closest(to: reference.column, among: candidates) else { return nil }
        var suggested = reference
        suggested.column = found
        return suggested
    }
}
