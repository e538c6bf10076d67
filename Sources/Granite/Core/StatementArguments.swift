import Foundation
import GraniteStorage

/// The values bound to a statement's parameters: positional (`?`) values, named (`:name`, `$name`, `@name`)
/// values, or both.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 1000])
/// try db.execute(sql: "UPDATE player SET score = :score WHERE id = :id", arguments: ["score": 1000, "id": 1])
/// ```
///
/// A named parameter takes its value from the named values when they hold its name (without prefix), and
/// otherwise the next positional value, so positional arguments also fill named parameters in order.
public struct StatementArguments: Hashable, Sendable {
    /// The positional values, consumed in order.
    var values: [DatabaseValue]
    /// The named values, keyed by parameter name without its prefix.
    private(set) var namedValues: [String: DatabaseValue]

    /// Whether there are neither positional nor named values.
    public var isEmpty: Bool { values.isEmpty && namedValues.isEmpty }

    /// No arguments.
    public init() {
        values = []
        namedValues = [:]
    }

    /// Positional arguments; nil elements are NULL.
    public init(_ values: some Sequence<(any DatabaseValueConvertible)?>) {
        self.values = values.map { $0?.databaseValue ?? .null }
        namedValues = [:]
    }

    /// Positional arguments.
    public init(_ values: some Sequence<some DatabaseValueConvertible>) {
        self.values = values.map { $0.databaseValue }
        namedValues = [:]
    }

    /// Positional arguments from an array of values of any type; nil when one of them is not a
    /// ``DatabaseValueConvertible`` value.
    public init?(_ array: [Any]) {
        var converted: [DatabaseValue] = []
        converted.reserveCapacity(array.count)
        for element in array {
            guard let value = DatabaseValue(value: element) else { return nil }
            converted.append(value)
        }
        values = converted
        namedValues = [:]
    }

    /// Named arguments; nil values are NULL.
    public init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        values = []
        namedValues = dictionary.mapValues { $0?.databaseValue ?? .null }
    }

    /// Named arguments from name-value pairs (a later pair replaces an earlier one with the same name).
    public init(_ keysAndValues: some Sequence<(String, (any DatabaseValueConvertible)?)>) {
        values = []
        namedValues = [:]
        for (key, value) in keysAndValues { namedValues[key] = value?.databaseValue ?? .null }
    }

    /// Named arguments from a dictionary of any type; nil when a key is not a string or a value is not a
    /// ``DatabaseValueConvertible`` value.
    public init?(_ dictionary: [AnyHashable: Any]) {
        values = []
        namedValues = [:]
        for (key, element) in dictionary {
            guard let name = key as? String, let value = DatabaseValue(value: element) else { return nil }
            namedValues[name] = value
        }
    }

    /// Appends the positional values of `arguments` and merges its named values, which replace existing ones.
    /// Returns the replaced named values.
    @discardableResult
    public mutating func append(contentsOf arguments: StatementArguments) -> [String: DatabaseValue] {
        values.append(contentsOf: arguments.values)
        var replaced: [String: DatabaseValue] = [:]
        for (name, value) in arguments.namedValues {
            if let old = namedValues.updateValue(value, forKey: name) { replaced[name] = old }
        }
        return replaced
    }

    /// Concatenates positional values and merges named values; a name defined on both sides is a programmer
    /// error.
    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result += rhs
        return result
    }

    /// Concatenates positional values and merges named values, the right-hand side winning on conflicts.
    public static func &+ (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }

    /// Appends `rhs` to `lhs`; a name defined on both sides is a programmer error.
    public static func += (lhs: inout StatementArguments, rhs: StatementArguments) {
        let replaced = lhs.append(contentsOf: rhs)
        precondition(
            replaced.isEmpty, "already defined statement argument: \(replaced.keys.sorted().joined(separator: ", "))")
    }

    // MARK: Binding

    /// The values for parameters named `names` (nil for positional parameters), consuming positional values;
    /// throws when a value is missing, or when values remain and `allowingRemainingValues` is false.
    mutating func extractBindings(
        for names: [String?], sql: String, allowingRemainingValues: Bool
    ) throws -> [GraniteStorage.Value] {
        let (bindings, consumed) = try bindings(for: names, sql: sql, allowingRemainingValues: allowingRemainingValues)
        if consumed > 0 { values.removeFirst(consumed) }
        return bindings
    }

    /// The values for parameters named `names` and the number of positional values they use.
    func bindings(
        for names: [String?], sql: String, allowingRemainingValues: Bool
    ) throws -> (values: [GraniteStorage.Value], consumed: Int) {
        var next = 0
        var bindings: [GraniteStorage.Value] = []
        bindings.reserveCapacity(names.count)
        let hasNamed = !namedValues.isEmpty
        for name in names {
            if hasNamed, let name, let value = namedValues[name] {
                bindings.append(value.engineValue)
            } else if next < values.count {
                bindings.append(values[next].engineValue)
                next += 1
            } else if let name {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "missing statement argument: \(name)", sql: sql)
            } else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(values.count)",
                    sql: sql)
            }
        }
        if !allowingRemainingValues && next < values.count {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(values.count)", sql: sql)
        }
        return (bindings, next)
    }
}

extension StatementArguments: ExpressibleByArrayLiteral {
    /// Positional arguments: `[1, "Arthur", nil]`.
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        var converted: [DatabaseValue] = []
        converted.reserveCapacity(elements.count)
        for element in elements { converted.append(element?.databaseValue ?? .null) }
        values = converted
        namedValues = [:]
    }
}

extension StatementArguments: ExpressibleByDictionaryLiteral {
    /// Named arguments: `["name": "Arthur", "score": 1000]`.
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        var named: [String: DatabaseValue] = Dictionary(minimumCapacity: elements.count)
        for (key, value) in elements { named[key] = value?.databaseValue ?? .null }
        values = []
        namedValues = named
    }
}

extension StatementArguments: CustomStringConvertible {
    /// Named values (`"name": "Arthur"`) then positional ones, in brackets.
    public var description: String {
        let named = namedValues.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)): \($0.value)" }
        return "[" + (named + values.map(\.description)).joined(separator: ", ") + "]"
    }
}
