/// A type that can sort the results of a request: columns, expressions, ``SQLOrdering``.
public protocol SQLOrderingTerm {
    /// The ordering term.
    var sqlOrdering: SQLOrdering { get }
}

/// An ordering term: an expression, ascending or descending.
///
/// ```swift
/// Player.order(Column("score").desc, Column("name"))
/// // ORDER BY "score" DESC, "name"
/// ```
public struct SQLOrdering: SQLOrderingTerm, Sendable {
    enum Impl: Sendable {
        case expression(SQLExpression)
        case asc(SQLExpression)
        case desc(SQLExpression)
        case ascNullsLast(SQLExpression)
        case descNullsFirst(SQLExpression)
        case literal(SQL)
    }

    let impl: Impl

    /// The ordering itself.
    public var sqlOrdering: SQLOrdering { self }

    static func expression(_ expression: SQLExpression) -> SQLOrdering { SQLOrdering(impl: .expression(expression)) }

    /// The reversed ordering, or nil for SQL literals which can not be reversed.
    var reversed: SQLOrdering? {
        switch impl {
        case .expression(let e), .asc(let e): return SQLOrdering(impl: .desc(e))
        case .desc(let e): return SQLOrdering(impl: .asc(e))
        case .ascNullsLast(let e): return SQLOrdering(impl: .descNullsFirst(e))
        case .descNullsFirst(let e): return SQLOrdering(impl: .ascNullsLast(e))
        case .literal: return nil
        }
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .expression(let e): return try e.sql(context)
        case .asc(let e): return try e.sql(context) + " ASC"
        case .desc(let e): return try e.sql(context) + " DESC"
        case .ascNullsLast(let e): return try e.sql(context) + " ASC NULLS LAST"
        case .descNullsFirst(let e): return try e.sql(context) + " DESC NULLS FIRST"
        case .literal(let literal): return try SQLExpression.literal(literal).sql(context)
        }
    }
}

extension SQLSpecificExpressible {
    /// Ascending order: `Column("name").asc`.
    public var asc: SQLOrdering { SQLOrdering(impl: .asc(sqlExpression)) }

    /// Descending order: `Column("score").desc`.
    public var desc: SQLOrdering { SQLOrdering(impl: .desc(sqlExpression)) }

    /// Ascending order, NULLs last.
    public var ascNullsLast: SQLOrdering { SQLOrdering(impl: .ascNullsLast(sqlExpression)) }

    /// Descending order, NULLs first.
    public var descNullsFirst: SQLOrdering { SQLOrdering(impl: .descNullsFirst(sqlExpression)) }
}

extension SQL: SQLSpecificExpressible {
    /// The literal as an expression.
    public var sqlExpression: SQLExpression { .literal(self) }

    /// The literal as an ordering term.
    public var sqlOrdering: SQLOrdering { SQLOrdering(impl: .literal(self)) }

    /// The literal as a selected column.
    public var sqlSelection: SQLSelection { SQLSelection(impl: .literal(self)) }
}
