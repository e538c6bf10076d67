extension Database {
    /// The name of a collation, used by ``ColumnDefinition/collate(_:)``.
    ///
    /// ```swift
    /// t.column("name", .text).collate(.nocase)
    /// ```
    public struct CollationName: RawRepresentable, Hashable, Sendable {
        /// The collation name, as written in SQL.
        public let rawValue: String

        /// A collation named `rawValue`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `BINARY`: bytes compared with memcmp.
        public static let binary = CollationName(rawValue: "BINARY")

        /// `NOCASE`: ASCII letters compared case-insensitively.
        public static let nocase = CollationName(rawValue: "NOCASE")

        /// `RTRIM`: trailing spaces ignored.
        public static let rtrim = CollationName(rawValue: "RTRIM")
    }

    /// The declared type of a column, as written in `CREATE TABLE`.
    ///
    /// ```swift
    /// t.column("score", .integer)
    /// t.column("payload", Database.ColumnType(rawValue: "VARCHAR(255)"))
    /// ```
    public struct ColumnType: RawRepresentable, Hashable, Sendable {
        /// The type name, as written in SQL.
        public let rawValue: String

        /// A column type named `rawValue`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `TEXT`.
        public static let text = ColumnType(rawValue: "TEXT")

        /// `TEXT`, for JSON stored as text.
        public static let jsonText = ColumnType(rawValue: "TEXT")

        /// `BLOB`, for JSONB.
        public static let jsonb = ColumnType(rawValue: "BLOB")

        /// `INTEGER`.
        public static let integer = ColumnType(rawValue: "INTEGER")

        /// `DOUBLE`.
        public static let double = ColumnType(rawValue: "DOUBLE")

        /// `REAL`.
        public static let real = ColumnType(rawValue: "REAL")

        /// `NUMERIC`.
        public static let numeric = ColumnType(rawValue: "NUMERIC")

        /// `BOOLEAN`.
        public static let boolean = ColumnType(rawValue: "BOOLEAN")

        /// `BLOB`.
        public static let blob = ColumnType(rawValue: "BLOB")

        /// `DATE`.
        public static let date = ColumnType(rawValue: "DATE")

        /// `DATETIME`.
        public static let datetime = ColumnType(rawValue: "DATETIME")

        /// `ANY`.
        public static let any = ColumnType(rawValue: "ANY")
    }

    /// An `ON CONFLICT` resolution algorithm.
    public enum ConflictResolution: String, Sendable {
        /// `ROLLBACK`.
        case rollback = "ROLLBACK"
        /// `ABORT` (the default).
        case abort = "ABORT"
        /// `FAIL`.
        case fail = "FAIL"
        /// `IGNORE`.
        case ignore = "IGNORE"
        /// `REPLACE`.
        case replace = "REPLACE"
    }

    /// The action of a foreign key when its parent row is deleted or updated.
    public enum ForeignKeyAction: String, Sendable {
        /// `CASCADE`.
        case cascade = "CASCADE"
        /// `RESTRICT`.
        case restrict = "RESTRICT"
        /// `SET NULL`.
        case setNull = "SET NULL"
        /// `SET DEFAULT`.
        case setDefault = "SET DEFAULT"
    }
}
