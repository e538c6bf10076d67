/// `CREATE [TEMP|TEMPORARY] VIEW [IF NOT EXISTS] name [(columns)] AS select`.
package struct CreateViewStatement: Sendable, Equatable {
    /// Whether `TEMP` or `TEMPORARY` was given (Granite refuses it: it has no temporary schema).
    package var temporary: Bool
    /// Whether `IF NOT EXISTS` was given.
    package var ifNotExists: Bool
    /// The view name.
    package var name: QualifiedName
    /// The explicit column names, if given.
    package var columns: [String]?
    /// The defining query.
    package var select: SelectStatement

    /// Creates a create-view statement.
    package init(
        temporary: Bool = false, ifNotExists: Bool = false, name: QualifiedName, columns: [String]? = nil,
        select: SelectStatement
    ) {
        self.temporary = temporary
        self.ifNotExists = ifNotExists
        self.name = name
        self.columns = columns
        self.select = select
    }
}
