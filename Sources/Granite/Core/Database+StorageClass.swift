extension Database {
    /// One of SQLite's storage classes, named as they are spelled in SQL: the target type of
    /// `cast(_:as:)`.
    ///
    /// ```swift
    /// Player.select(cast(Column("score"), as: .text))
    /// // SELECT CAST("score" AS TEXT) FROM "player"
    /// ```
    ///
    /// See <https://www.sqlite.org/datatype3.html> for the rules of each class.
    public struct StorageClass: RawRepresentable, Hashable, Sendable {
        /// The SQL spelling of the storage class, such as `"INTEGER"`, inserted as is in generated SQL.
        public let rawValue: String

        /// A storage class spelled `rawValue` in SQL. The text is not checked: SQLite gives any type name an
        /// affinity, so `StorageClass(rawValue: "NUMERIC")` is a valid target of `cast(_:as:)`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `INTEGER`: signed 64-bit integers.
        public static let integer = StorageClass(rawValue: "INTEGER")

        /// `REAL`: 8-byte IEEE floating-point numbers.
        public static let real = StorageClass(rawValue: "REAL")

        /// `TEXT`: strings, stored as UTF-8.
        public static let text = StorageClass(rawValue: "TEXT")

        /// `BLOB`: bytes, stored exactly as given.
        public static let blob = StorageClass(rawValue: "BLOB")
    }
}
