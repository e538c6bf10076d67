import Foundation
import GraniteSQL

/// A string comparison written in Swift, which SQL can name as a collating sequence once it is registered with
/// ``Database/add(collation:)``: in `COLLATE` clauses of expressions and `ORDER BY`, in column definitions,
/// and with ``SQLSpecificExpressible/collating(_:)-(DatabaseCollation)`` in the query interface.
///
/// ```swift
/// let byLength = DatabaseCollation("byLength") { lhs, rhs in
///     lhs.count == rhs.count ? lhs.compare(rhs) : (lhs.count < rhs.count ? .orderedAscending : .orderedDescending)
/// }
/// try dbQueue.write { db in
///     db.add(collation: byLength)
///     try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY name COLLATE byLength")
/// }
/// ```
///
/// Granite difference: index keys are kept in byte order, so an index (or a `UNIQUE` or `PRIMARY KEY`
/// constraint) whose key compares under such a collation is refused with an error, where SQLite would
/// create it.
public final class DatabaseCollation: Identifiable, Sendable {
    /// What identifies a collation on a connection: its name, without regard to ASCII case (as SQLite
    /// compares collation names).
    public struct ID: Hashable {
        /// The name, as given to the initializer.
        var name: String

        /// Hashes the name without regard to ASCII case, consistently with ``==(_:_:)``.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(Self.folded(name))
        }

        /// Whether both identifiers name the same collation, ignoring ASCII case.
        public static func == (lhs: Self, rhs: Self) -> Bool {
            folded(lhs.name) == folded(rhs.name)
        }

        private static func folded(_ name: String) -> [UInt8] {
            name.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }
        }
    }

    /// The identifier: the name, without regard to ASCII case.
    public var id: ID { ID(name: name) }

    /// The name SQL refers to the collation by.
    public let name: String

    /// The comparison, returning −1, 0 or 1 as the engine expects.
    let compare: @Sendable (String, String) -> Int

    /// Creates a collation named `name` that orders texts as `function` compares them.
    ///
    /// - parameters:
    ///     - name: The name SQL refers to the collation by.
    ///     - function: Compares two texts. It must define a total order (consistent and transitive): grouping
    ///       and `DISTINCT` under the collation rely on it.
    public convenience init(_ name: String, function: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.init(name, compare: { function($0, $1).rawValue })
    }

    init(_ name: String, compare: @escaping @Sendable (String, String) -> Int) {
        self.name = name
        self.compare = compare
    }

    /// The collation as a connection's engine registers it (each connection gets its own object, which also
    /// keeps the representatives of the classes of equal texts its statements met).
    var engineCollation: SQLCustomCollation {
        SQLCustomCollation(name: name, compare: compare)
    }
}
