import Foundation

/// Rules that turn English words into their plural or singular form, used to derive names (association
/// keys, for example) from table names.
///
/// Rules are regular expressions with replacement templates. The rules added last are tried first, and the
/// first one that matches replaces its matches. Only the last word of a string is inflected (after a space,
/// an underscore, or a lowercase-to-uppercase transition), and trailing digits are kept aside:
///
/// ```swift
/// Inflections.default.pluralize("player")          // "players"
/// Inflections.default.pluralize("player_position") // "player_positions"
/// Inflections.default.pluralize("playerPosition")  // "playerPositions"
/// Inflections.default.singularize("people2")       // "person2"
/// ```
///
/// Build custom rules from an empty value, or add rules to ``default`` early in the life of the app:
///
/// ```swift
/// var inflections = Inflections()
/// inflections.plural("$", "s")
/// inflections.irregularSuffix("man", "men")
/// inflections.pluralize("woman") // "women"
/// ```
public struct Inflections: Sendable {
    /// A regular expression and the template that replaces its matches.
    private struct Rule: Sendable {
        let regularExpression: NSRegularExpression
        let template: String
    }

    private var pluralRules: [Rule] = []
    private var singularRules: [Rule] = []
    /// The expressions that match an uncountable word at the end of a word, keyed by word (so that adding
    /// a word twice keeps one expression).
    private var uncountables: [String: NSRegularExpression] = [:]

    /// Creates inflections without any rule: words are left unchanged.
    public init() {}

    // MARK: - Configuration

    /// Adds a pluralization rule, tried before the rules added earlier.
    ///
    /// ```swift
    /// var inflections = Inflections()
    /// inflections.plural("$", "s")
    /// inflections.pluralize("player") // "players"
    /// ```
    ///
    /// - parameter pattern: A regular expression (ICU syntax). An invalid pattern is a programming error
    ///   that stops the program.
    /// - parameter options: Defaults to case-insensitive matching.
    /// - parameter template: The replacement of the matches, where `$1` refers to the first capture group.
    public mutating func plural(
        _ pattern: String, options: NSRegularExpression.Options = [.caseInsensitive], _ template: String
    ) {
        pluralRules.append(Rule(regularExpression: Self.compile(pattern, options), template: template))
    }

    /// Adds a singularization rule, tried before the rules added earlier.
    ///
    /// ```swift
    /// var inflections = Inflections()
    /// inflections.singular("s$", "")
    /// inflections.singularize("players") // "player"
    /// ```
    ///
    /// - parameter pattern: A regular expression (ICU syntax). An invalid pattern is a programming error
    ///   that stops the program.
    /// - parameter options: Defaults to case-insensitive matching.
    /// - parameter template: The replacement of the matches, where `$1` refers to the first capture group.
    public mutating func singular(
        _ pattern: String, options: NSRegularExpression.Options = [.caseInsensitive], _ template: String
    ) {
        singularRules.append(Rule(regularExpression: Self.compile(pattern, options), template: template))
    }

    /// Adds words that have no plural: a last word that ends with one of them (case-insensitively, after a
    /// word boundary) is neither pluralized nor singularized.
    ///
    /// ```swift
    /// inflections.uncountableWords(["sheep"])
    /// inflections.pluralize("black_sheep") // "black_sheep"
    /// ```
    public mutating func uncountableWords(_ words: [String]) {
        for word in words {
            let pattern = "\\b" + NSRegularExpression.escapedPattern(for: word) + "\\Z"
            uncountables[word] = Self.compile(pattern, [.caseInsensitive])
        }
    }

    /// Adds an irregular pair of word endings, which both pluralization and singularization honour, and
    /// which keep the case of their first letter.
    ///
    /// ```swift
    /// inflections.irregularSuffix("person", "people")
    /// inflections.pluralize("salesperson") // "salespeople"
    /// inflections.singularize("People")    // "Person"
    /// ```
    ///
    /// Empty strings are a programming error that stops the program.
    public mutating func irregularSuffix(_ singular: String, _ plural: String) {
        guard let singularHead = singular.first, let pluralHead = plural.first else {
            preconditionFailure("irregularSuffix needs non-empty singular and plural forms")
        }
        let singularTail = String(singular.dropFirst())
        let pluralTail = String(plural.dropFirst())

        if singularHead.uppercased() == pluralHead.uppercased() {
            // The same first letter: capture it, so that its case is kept.
            self.plural("(\(singularHead))\(singularTail)$", "$1\(pluralTail)")
            self.plural("(\(pluralHead))\(pluralTail)$", "$1\(pluralTail)")
            self.singular("(\(singularHead))\(singularTail)$", "$1\(singularTail)")
            self.singular("(\(pluralHead))\(pluralTail)$", "$1\(singularTail)")
            return
        }
        // Distinct first letters: one rule per case of the first letter, which is matched case-sensitively
        // (the rest of the ending is not, thanks to `(?i)`).
        for (head, tail) in [(singularHead, singularTail), (pluralHead, pluralTail)] {
            for (casedHead, pluralCasedHead) in [
                (head.uppercased(), pluralHead.uppercased()), (head.lowercased(), pluralHead.lowercased()),
            ] {
                self.plural("\(casedHead)(?i)\(tail)$", options: [], pluralCasedHead + pluralTail)
            }
        }
        for (head, tail) in [(singularHead, singularTail), (pluralHead, pluralTail)] {
            for (casedHead, singularCasedHead) in [
                (head.uppercased(), singularHead.uppercased()), (head.lowercased(), singularHead.lowercased()),
            ] {
                self.singular("\(casedHead)(?i)\(tail)$", options: [], singularCasedHead + singularTail)
            }
        }
    }

    // MARK: - Inflecting

    /// The string with its last word pluralized (`"player"` → `"players"`, `"blue_mouse"` →
    /// `"blue_mice"`); trailing digits are kept (`"player2"` → `"players2"`).
    public func pluralize(_ string: String) -> String {
        inflect(string, with: pluralRules)
    }

    /// The string with its last word singularized (`"players"` → `"player"`, `"blue_mice"` →
    /// `"blue_mouse"`); trailing digits are kept (`"players2"` → `"player2"`).
    public func singularize(_ string: String) -> String {
        inflect(string, with: singularRules)
    }

    /// Inflects the last word of `string`, between its start and the trailing digits, unless the word is
    /// uncountable.
    private func inflect(_ string: String, with rules: [Rule]) -> String {
        let radicalEnd = Self.endIndexOfDigitlessRadical(string)
        let wordStart = min(Self.startIndexOfLastWord(string), radicalEnd)
        let word = String(string[wordStart..<radicalEnd])
        if isUncountable(word) { return string }
        return string[..<wordStart] + inflectWord(word, with: rules) + string[radicalEnd...]
    }

    private func isUncountable(_ word: String) -> Bool {
        let range = NSRange(location: 0, length: word.utf16.count)
        return uncountables.values.contains { $0.rangeOfFirstMatch(in: word, range: range).location != NSNotFound }
    }

    /// Applies the last added rule that matches `word`.
    private func inflectWord(_ word: String, with rules: [Rule]) -> String {
        guard !word.isEmpty else { return word }
        let range = NSRange(location: 0, length: word.utf16.count)
        // Most rules do not match: testing them allocates nothing, and only the matching rule builds a string.
        for rule in rules.reversed()
        where rule.regularExpression.rangeOfFirstMatch(in: word, range: range).location != NSNotFound {
            return rule.regularExpression.stringByReplacingMatches(in: word, range: range, withTemplate: rule.template)
        }
        return word
    }

    // MARK: - Words

    /// Where the last word of `string` starts: after the last space or punctuation, after the last
    /// underscore, or at the last uppercase run that follows a non-uppercase character (camel case),
    /// whichever comes last.
    static func startIndexOfLastWord(_ string: String) -> String.Index {
        let range = NSRange(location: 0, length: string.utf16.count)
        func matchStart(_ regularExpression: NSRegularExpression, offset: Int) -> String.Index? {
            guard let match = regularExpression.firstMatch(in: string, range: range),
                let matchRange = Range(match.range, in: string)
            else { return nil }
            return string.index(matchRange.lowerBound, offsetBy: offset)
        }
        let starts = [
            matchStart(LastWordPatterns.wordBoundary, offset: 0),
            matchStart(LastWordPatterns.underscoreBoundary, offset: 1),
            matchStart(LastWordPatterns.caseBoundary, offset: 1),
        ]
        return starts.compactMap { $0 }.max() ?? string.startIndex
    }

    /// Where the trailing ASCII digits of `string` start (its end when it has none).
    static func endIndexOfDigitlessRadical(_ string: String) -> String.Index {
        var end = string.endIndex
        while end > string.startIndex {
            let previous = string.index(before: end)
            guard ("0"..."9").contains(string[previous]) else { break }
            end = previous
        }
        return end
    }

    fileprivate static func compile(_ pattern: String, _ options: NSRegularExpression.Options)
        -> NSRegularExpression
    {
        do {
            return try NSRegularExpression(pattern: pattern, options: options)
        } catch {
            preconditionFailure("invalid inflection pattern \(String(reflecting: pattern)): \(error)")
        }
    }
}

/// The expressions that find the last word of a string, compiled once.
private enum LastWordPatterns {
    static let wordBoundary = Inflections.compile("\\b\\w+$", [])
    static let underscoreBoundary = Inflections.compile("_[^_]+$", [])
    static let caseBoundary = Inflections.compile("[^A-Z][A-Z]+[a-z1-9]+$", [])
}
