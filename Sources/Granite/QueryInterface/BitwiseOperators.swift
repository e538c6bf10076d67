// The bitwise operators of SQLite: `&`, `|`, `<<`, `>>` and `~`, and the assignments built on them.
//
//     // SELECT * FROM "item" WHERE "flags" & ? <> 0
//     let flagged = Item.filter(Column("flags") & 4 != 0)
//     // UPDATE "item" SET "flags" = "flags" | ?
//     try Item.updateAll(db, Column("flags") |= 4)

extension SQLSpecificExpressible {
    /// `lhs & rhs`, the bitwise AND of two integers.
    public static func & (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs & rhs`, the bitwise AND of two integers.
    public static func & (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs & rhs`, the bitwise AND of two integers.
    public static func & (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs | rhs`, the bitwise OR of two integers.
    public static func | (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs | rhs`, the bitwise OR of two integers.
    public static func | (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs | rhs`, the bitwise OR of two integers.
    public static func | (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs << rhs`: `lhs` shifted left by `rhs` bits (right when `rhs` is negative).
    public static func << (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("<<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs << rhs`: `lhs` shifted left by `rhs` bits (right when `rhs` is negative).
    public static func << (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("<<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs << rhs`: `lhs` shifted left by `rhs` bits (right when `rhs` is negative).
    public static func << (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("<<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >> rhs`: `lhs` shifted right by `rhs` bits, keeping its sign (left when `rhs` is negative).
    public static func >> (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary(">>", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >> rhs`: `lhs` shifted right by `rhs` bits, keeping its sign (left when `rhs` is negative).
    public static func >> (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary(">>", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >> rhs`: `lhs` shifted right by `rhs` bits, keeping its sign (left when `rhs` is negative).
    public static func >> (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary(">>", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `~value`, the bitwise complement of an integer.
    public static prefix func ~ (value: Self) -> SQLExpression {
        SQLExpression(impl: .unary("~", value.sqlExpression))
    }
}

extension SQLExpression.AssociativeBinaryOperator {
    /// `&`, whose neutral value (for an empty list of operands) is -1, with all bits set.
    public static let bitwiseAnd = SQLExpression.AssociativeBinaryOperator(op: .bitwiseAnd)

    /// `|`, whose neutral value (for an empty list of operands) is 0.
    public static let bitwiseOr = SQLExpression.AssociativeBinaryOperator(op: .bitwiseOr)
}

extension ColumnExpression {
    /// `"column" = "column" & value`, for `QueryInterfaceRequest/updateAll(_:onConflict:_:)`.
    public static func &= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column & value)
    }

    /// `"column" = "column" | value`.
    public static func |= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column | value)
    }

    /// `"column" = "column" << value`.
    public static func <<= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column << value)
    }

    /// `"column" = "column" >> value`.
    public static func >>= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column >> value)
    }
}

extension ColumnExpression {
    /// The column name as raw SQL, never qualified with a table name or alias: `"score"`.
    ///
    /// Use it to refer to a column of a result set rather than of a table, such as an aggregate selected
    /// under a name: `Player.select(max(Column("score")).forKey("maxScore")).order(Column("maxScore").detached)`.
    public var detached: SQLExpression {
        SQL(sql: name.quotedDatabaseIdentifier).sqlExpression
    }
}
