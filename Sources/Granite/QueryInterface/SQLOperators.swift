// The Swift operators of the query interface: comparison, logic, arithmetic, IN, BETWEEN and LIKE.

extension SQLSpecificExpressible {
    /// `=`; `IS NULL` when `rhs` is nil: `Column("name") == "Arthur"`, `Column("name") == nil`.
    public static func == (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .equal(lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }

    /// `=`; `IS NULL` when `lhs` is nil.
    public static func == (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        .equal(lhs?.sqlExpression ?? .null, rhs.sqlExpression)
    }

    /// `=` between two expressions: `Column("a") == Column("b")`.
    public static func == (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .equal(lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<>`; `IS NOT NULL` when `rhs` is nil.
    public static func != (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .notEqual(lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }

    /// `<>`; `IS NOT NULL` when `lhs` is nil.
    public static func != (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        .notEqual(lhs?.sqlExpression ?? .null, rhs.sqlExpression)
    }

    /// `<>` between two expressions.
    public static func != (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .notEqual(lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `IS`: `Column("name") === "Arthur"`.
    public static func === (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .compare(.is, lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }

    /// `IS`.
    public static func === (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        .compare(.is, lhs?.sqlExpression ?? .null, rhs.sqlExpression)
    }

    /// `IS` between two expressions.
    public static func === (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.is, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `IS NOT`.
    public static func !== (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .compare(.isNot, lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }

    /// `IS NOT`.
    public static func !== (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        .compare(.isNot, lhs?.sqlExpression ?? .null, rhs.sqlExpression)
    }

    /// `IS NOT` between two expressions.
    public static func !== (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.isNot, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<`: `Column("score") < 1000`.
    public static func < (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<`.
    public static func < (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<` between two expressions.
    public static func < (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<=`.
    public static func <= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("<=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<=`.
    public static func <= (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("<=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<=` between two expressions.
    public static func <= (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("<=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>`.
    public static func > (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary(">", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>`.
    public static func > (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary(">", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>` between two expressions.
    public static func > (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary(">", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>=`.
    public static func >= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary(">=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>=`.
    public static func >= (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary(">=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `>=` between two expressions.
    public static func >= (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary(">=", lhs.sqlExpression, rhs.sqlExpression)
    }
}

extension SQLSpecificExpressible {
    /// `*`.
    public static func * (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `*`.
    public static func * (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `*` between two expressions.
    public static func * (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `/`.
    public static func / (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("/", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `/`.
    public static func / (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("/", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `/` between two expressions.
    public static func / (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("/", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `+`.
    public static func + (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `+`.
    public static func + (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `+` between two expressions.
    public static func + (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// Unary `-`: `-Column("score")`.
    public static prefix func - (value: Self) -> SQLExpression {
        SQLExpression(impl: .unary("-", value.sqlExpression))
    }

    /// `-`.
    public static func - (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("-", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `-`.
    public static func - (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("-", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `-` between two expressions.
    public static func - (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("-", lhs.sqlExpression, rhs.sqlExpression)
    }
}

extension SQLSpecificExpressible {
    /// `AND`: `Column("a") > 1 && Column("b") != nil`.
    public static func && (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `AND`.
    public static func && (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `AND` between two expressions.
    public static func && (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `OR`.
    public static func || (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `OR`.
    public static func || (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `OR` between two expressions.
    public static func || (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `NOT`, or the negated operator: `!(Column("a") == 1)` is `"a" <> 1`.
    public static prefix func ! (value: Self) -> SQLExpression {
        value.sqlExpression.negated
    }
}

extension SQLSpecificExpressible {
    /// `LIKE`: `Column("name").like("%bob%")`.
    public func like(_ pattern: some SQLExpressible, escape: (any SQLExpressible)? = nil) -> SQLExpression {
        SQLExpression(
            impl: .like(sqlExpression, pattern.sqlExpression, escape: escape?.sqlExpression, isNegated: false))
    }

    /// `COLLATE`: `Column("name").collating(.nocase)`.
    public func collating(_ collation: Database.CollationName) -> SQLExpression {
        .collated(sqlExpression, collation.rawValue)
    }
}

extension Range where Bound: SQLExpressible {
    /// `(x >= lower) AND (x < upper)`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        (element >= lowerBound) && (element < upperBound)
    }
}

extension ClosedRange where Bound: SQLExpressible {
    /// `x BETWEEN lower AND upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        .between(element.sqlExpression, lowerBound.sqlExpression, upperBound.sqlExpression)
    }
}

extension Sequence where Element: SQLExpressible {
    /// `x IN (…)`: `[1, 2, 3].contains(Column("id"))`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        .in(element.sqlExpression, map(\.sqlExpression))
    }
}

extension Sequence where Element == any SQLExpressible {
    /// `x IN (…)`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        .in(element.sqlExpression, map(\.sqlExpression))
    }
}

extension Sequence where Element: SQLSpecificExpressible {
    /// The expressions joined with an operator: `[a, b].joined(operator: .and)` is `a AND b`; an empty
    /// sequence gives the operator's neutral value (`1` for AND, `0` for OR).
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        .associative(`operator`.op, map(\.sqlExpression))
    }
}

extension Sequence where Element == any SQLSpecificExpressible {
    /// The expressions joined with an operator.
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        .associative(`operator`.op, map(\.sqlExpression))
    }
}

extension SQLExpression {
    /// An operator that joins any number of expressions: `AND`, `OR`, `+`, `*`, `||`.
    public struct AssociativeBinaryOperator: Hashable, Sendable {
        let op: AssociativeOperator

        /// `AND`
        public static let and = AssociativeBinaryOperator(op: .and)
        /// `OR`
        public static let or = AssociativeBinaryOperator(op: .or)
        /// `+`
        public static let add = AssociativeBinaryOperator(op: .add)
        /// `*`
        public static let multiply = AssociativeBinaryOperator(op: .multiply)
        /// `||`
        public static let concat = AssociativeBinaryOperator(op: .concat)
    }
}
