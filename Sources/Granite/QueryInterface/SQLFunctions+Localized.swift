extension SQLSpecificExpressible {
    /// Foundation's `String.localizedCapitalized` (in the current locale), evaluated by the database with
    /// ``DatabaseFunction/localizedCapitalize``: `Column("name").localizedCapitalized`. NULL for a value that
    /// is not a text.
    public var localizedCapitalized: SQLExpression { DatabaseFunction.localizedCapitalize(sqlExpression) }

    /// Foundation's `String.localizedLowercase` (in the current locale), evaluated by the database with
    /// ``DatabaseFunction/localizedLowercase``: `Column("name").localizedLowercased`. NULL for a value that is
    /// not a text.
    public var localizedLowercased: SQLExpression { DatabaseFunction.localizedLowercase(sqlExpression) }

    /// Foundation's `String.localizedUppercase` (in the current locale), evaluated by the database with
    /// ``DatabaseFunction/localizedUppercase``: `Column("name").localizedUppercased`. NULL for a value that is
    /// not a text.
    public var localizedUppercased: SQLExpression { DatabaseFunction.localizedUppercase(sqlExpression) }
}
