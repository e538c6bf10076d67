// The default implementations of raw-representable types (enums, wrappers): a type that declares a
// conformance behaves as its raw value does, so that `enum Grape: String, DatabaseValueConvertible {}` needs
// no code at all.

extension DatabaseValueConvertible where Self: RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The raw value's database value.
    @inlinable
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    /// The value whose raw value decodes from `dbValue`; nil when the raw value does not decode or names no
    /// value of the type. Inlinable, so that each conforming type gets code of its own: a generic body would
    /// look up the metadata of `RawValue?` at run time on every call.
    @inlinable
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(dbValue).flatMap { Self(rawValue: $0) }
    }
}

extension StatementColumnConvertible where Self: RawRepresentable, Self.RawValue: StatementColumnConvertible {
    /// The value whose raw value decodes from the column, through the raw value's fast path; nil when the
    /// raw value does not decode or names no value of the type.
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let rawValue = RawValue(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self.init(rawValue: rawValue)
    }
}

extension StatementBinding where Self: RawRepresentable, Self.RawValue: StatementBinding {
    /// Binds the raw value; see ``StatementBinding/bind(to:at:)``.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        rawValue.bind(to: sqliteStatement, at: index)
    }
}

extension SQLExpressible where Self: RawRepresentable, Self.RawValue: SQLExpressible {
    /// The raw value's expression.
    public var sqlExpression: SQLExpression { rawValue.sqlExpression }
}

extension SQLSelectable where Self: RawRepresentable, Self.RawValue: SQLSelectable {
    /// The raw value's selection.
    public var sqlSelection: SQLSelection { rawValue.sqlSelection }
}

extension SQLOrderingTerm where Self: RawRepresentable, Self.RawValue: SQLOrderingTerm {
    /// The raw value's ordering.
    public var sqlOrdering: SQLOrdering { rawValue.sqlOrdering }
}
