import Foundation

// The Swift string functions and comparisons every connection knows, under the names GRDB gives them (a
// database whose schema or queries use those names works the same under Granite).

extension DatabaseFunction {
    /// `swiftCapitalizedString(x)`: the Foundation `String.capitalized` of a text, NULL for anything else.
    /// Used by ``SQLSpecificExpressible/capitalized``.
    public static let capitalize = stringFunction("swiftCapitalizedString") { $0.capitalized }

    /// `swiftLowercaseString(x)`: the Swift `String.lowercased()` of a text, NULL for anything else. Used by
    /// ``SQLSpecificExpressible/lowercased``.
    public static let lowercase = stringFunction("swiftLowercaseString") { $0.lowercased() }

    /// `swiftUppercaseString(x)`: the Swift `String.uppercased()` of a text, NULL for anything else. Used by
    /// ``SQLSpecificExpressible/uppercased``.
    public static let uppercase = stringFunction("swiftUppercaseString") { $0.uppercased() }

    /// `swiftLocalizedCapitalizedString(x)`: the Foundation `String.localizedCapitalized` of a text (in the
    /// current locale), NULL for anything else. Used by ``SQLSpecificExpressible/localizedCapitalized``.
    public static let localizedCapitalize = stringFunction("swiftLocalizedCapitalizedString") {
        $0.localizedCapitalized
    }

    /// `swiftLocalizedLowercaseString(x)`: the Foundation `String.localizedLowercase` of a text (in the current
    /// locale), NULL for anything else. Used by ``SQLSpecificExpressible/localizedLowercased``.
    public static let localizedLowercase = stringFunction("swiftLocalizedLowercaseString") {
        $0.localizedLowercase
    }

    /// `swiftLocalizedUppercaseString(x)`: the Foundation `String.localizedUppercase` of a text (in the current
    /// locale), NULL for anything else. Used by ``SQLSpecificExpressible/localizedUppercased``.
    public static let localizedUppercase = stringFunction("swiftLocalizedUppercaseString") {
        $0.localizedUppercase
    }

    /// A pure one-argument function that transforms texts (a value that is not a text gives NULL).
    private static func stringFunction(
        _ name: String, _ transform: @escaping @Sendable (String) -> String
    ) -> DatabaseFunction {
        DatabaseFunction(name, argumentCount: 1, pure: true) { dbValues in
            guard case .string(let text) = dbValues[0].storage else { return nil }
            return transform(text)
        }
    }

    /// The functions registered on every connection that the engine does not have built in (the engine
    /// computes `swiftCapitalizedString`, `swiftLowercaseString` and `swiftUppercaseString` itself).
    static let registeredOnEveryConnection: [DatabaseFunction] = [
        localizedCapitalize, localizedLowercase, localizedUppercase,
    ]
}

extension DatabaseCollation {
    /// `swiftCompare`: the order of Swift's `<` and `==` on strings (Unicode canonical equivalence).
    public static let unicodeCompare = DatabaseCollation("swiftCompare") { lhs, rhs in
        lhs < rhs ? .orderedAscending : (lhs == rhs ? .orderedSame : .orderedDescending)
    }

    /// `swiftCaseInsensitiveCompare`: the Foundation `caseInsensitiveCompare(_:)` order.
    public static let caseInsensitiveCompare = DatabaseCollation("swiftCaseInsensitiveCompare") { lhs, rhs in
        lhs.caseInsensitiveCompare(rhs)
    }

    /// `swiftLocalizedCaseInsensitiveCompare`: the Foundation `localizedCaseInsensitiveCompare(_:)` order, in
    /// the current locale.
    public static let localizedCaseInsensitiveCompare = DatabaseCollation("swiftLocalizedCaseInsensitiveCompare") {
        lhs, rhs in lhs.localizedCaseInsensitiveCompare(rhs)
    }

    /// `swiftLocalizedCompare`: the Foundation `localizedCompare(_:)` order, in the current locale.
    public static let localizedCompare = DatabaseCollation("swiftLocalizedCompare") { lhs, rhs in
        lhs.localizedCompare(rhs)
    }

    /// `swiftLocalizedStandardCompare`: the Foundation `localizedStandardCompare(_:)` order (the Finder's), in
    /// the current locale.
    public static let localizedStandardCompare = DatabaseCollation("swiftLocalizedStandardCompare") { lhs, rhs in
        lhs.localizedStandardCompare(rhs)
    }

    /// The collations registered on every connection.
    static let registeredOnEveryConnection: [DatabaseCollation] = [
        unicodeCompare, caseInsensitiveCompare, localizedCaseInsensitiveCompare, localizedCompare,
        localizedStandardCompare,
    ]
}
