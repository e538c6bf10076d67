/// An index, as ``Database/indexes(on:in:)`` describes it.
///
/// ```swift
/// for index in try db.indexes(on: "player") where index.isUnique {
///     print(index.name, index.columns)
/// }
/// ```
public struct IndexInfo: Sendable {
    /// How the index was created.
    public struct Origin: RawRepresentable, Equatable, DatabaseValueConvertible, Sendable {
        /// The origin code of `PRAGMA index_list`: `c`, `u` or `pk`.
        public var rawValue: String

        /// An origin from its code.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `CREATE INDEX`.
        public static let createIndex = Origin(rawValue: "c")

        /// A `UNIQUE` constraint.
        public static let uniqueConstraint = Origin(rawValue: "u")

        /// A `PRIMARY KEY` constraint.
        public static let primaryKeyConstraint = Origin(rawValue: "pk")
    }

    /// The index name (automatic indexes are named `granite_autoindex_<table>_<n>`, where SQLite says
    /// `sqlite_autoindex_<table>_<n>`).
    public let name: String

    /// The indexed columns.
    public let columns: [String]

    /// Whether the index is unique.
    public let isUnique: Bool

    /// How the index was created.
    public let origin: Origin
}
