/// The regular English plural and singular forms (and a few common irregular ones) that
/// ``TableDefinition/belongsTo(_:inTable:onDelete:onUpdate:deferred:indexed:)`` uses to find the destination
/// table of a foreign key: `belongsTo("team")` refers to table `team`, or else to table `teams`.
///
/// Only the end of the name changes, so camel-cased names work: `teamMember` → `teamMembers`.
enum EnglishInflection {
    /// Irregular pairs, singular first.
    private static let irregulars: [(singular: String, plural: String)] = [
        ("person", "people"), ("child", "children"),
    ]

    /// The plural of `word`.
    static func plural(of word: String) -> String {
        let lowercased = word.lowercased()
        for pair in irregulars where lowercased.hasSuffix(pair.singular) {
            return word.dropLast(pair.singular.count) + matchingCase(pair.plural, of: word.suffix(pair.singular.count))
        }
        if lowercased.hasSuffix("s") || lowercased.hasSuffix("x") || lowercased.hasSuffix("z")
            || lowercased.hasSuffix("ch") || lowercased.hasSuffix("sh")
        {
            return word + "es"
        }
        if lowercased.hasSuffix("y"), let beforeY = lowercased.dropLast().last, !"aeiou".contains(beforeY) {
            return word.dropLast() + "ies"
        }
        return word.isEmpty ? word : word + "s"
    }

    /// The singular of `word`.
    static func singular(of word: String) -> String {
        let lowercased = word.lowercased()
        for pair in irregulars where lowercased.hasSuffix(pair.plural) {
            return word.dropLast(pair.plural.count) + matchingCase(pair.singular, of: word.suffix(pair.plural.count))
        }
        if lowercased.count > 3, lowercased.hasSuffix("ies") {
            return word.dropLast(3) + "y"
        }
        for ending in ["sses", "xes", "zes", "ches", "shes"] where lowercased.hasSuffix(ending) {
            return String(word.dropLast(2))
        }
        if lowercased.hasSuffix("s"), !lowercased.hasSuffix("ss"), !lowercased.hasSuffix("us"),
            !lowercased.hasSuffix("is")
        {
            return String(word.dropLast())
        }
        return word
    }

    /// `replacement`, capitalized when `original` starts with a capital (`Person` → `People`).
    private static func matchingCase(_ replacement: String, of original: Substring) -> String {
        guard let first = original.first, first.isUppercase else { return replacement }
        return replacement.prefix(1).uppercased() + replacement.dropFirst()
    }
}
