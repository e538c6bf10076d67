/// A SQL expression together with the source range it was parsed from.
///
/// Equality is structural: two expressions are equal when their ``kind``s are equal, regardless of their source
/// ranges, so ASTs parsed from differently formatted but equivalent SQL compare equal.
package struct SQLExpression: Sendable, Equatable {
    /// What the expression is.
    package var kind: Kind
    /// The source text the expression was parsed from (empty for synthesized nodes).
    package var range: SourceRange
    /// Height of the expression tree (a leaf is 1); maintained by the parser to bound nesting.
    var height: Int

    /// Creates an expression node.
    package init(_ kind: Kind, range: SourceRange = SourceRange(start: .start, end: .start)) {
        self.kind = kind
        self.range = range
        self.height = 1
    }

    init(_ kind: Kind, range: SourceRange, height: Int) {
        self.kind = kind
        self.range = range
        self.height = height
    }

    /// Structural equality; source ranges are ignored.
    package static func == (lhs: SQLExpression, rhs: SQLExpression) -> Bool { lhs.kind == rhs.kind }

    /// The forms an expression can take.
    package indirect enum Kind: Sendable, Equatable {
        /// A literal value.
        case literal(Literal)
        /// A bound parameter.
        case parameter(Parameter)
        /// A (possibly qualified) column reference.
        case column(ColumnReference)
        /// A prefix operator applied to an operand.
        case unary(UnaryOperator, SQLExpression)
        /// A binary operator applied to two operands.
        case binary(BinaryOperator, SQLExpression, SQLExpression)
        /// `expr COLLATE name`.
        case collate(SQLExpression, collation: String)
        /// `CAST(expr AS type)`.
        case cast(SQLExpression, TypeName)
        /// A function call.
        case function(FunctionCall)
        /// `CASE [base] WHEN … THEN … [ELSE …] END`.
        case caseWhen(CaseExpression)
        /// `expr [NOT] BETWEEN low AND high`.
        case between(SQLExpression, low: SQLExpression, high: SQLExpression, negated: Bool)
        /// `expr [NOT] IN (list)`; the list may be empty.
        case inList(SQLExpression, [SQLExpression], negated: Bool)
        /// `expr [NOT] IN (SELECT …)`.
        case inSelect(SQLExpression, SelectStatement, negated: Bool)
        /// `expr [NOT] IN table`.
        case inTable(SQLExpression, QualifiedName, negated: Bool)
        /// `expr [NOT] LIKE|GLOB|MATCH|REGEXP pattern [ESCAPE escape]`.
        case like(SQLExpression, LikeOperator, pattern: SQLExpression, escape: SQLExpression?, negated: Bool)
        /// `expr ISNULL` (`negated == false`) or `expr NOTNULL` / `expr NOT NULL` (`negated == true`).
        /// `expr IS [NOT] NULL` is represented as a binary `IS` / `IS NOT` with a `NULL` literal.
        case isNull(SQLExpression, negated: Bool)
        /// `EXISTS (SELECT …)`; `NOT EXISTS` is a unary `NOT` around it.
        case exists(SelectStatement)
        /// A scalar subquery `(SELECT …)`.
        case subquery(SelectStatement)
        /// A row value `(a, b, …)` with at least two elements.
        case row([SQLExpression])
    }
}

/// A literal value.
package enum Literal: Sendable, Equatable {
    /// An integer (decimal or hexadecimal in the source; hex literals wrap like SQLite's).
    case integer(Int64)
    /// A floating-point number (also used for decimal integers too large for 64 bits).
    case real(Double)
    /// A text string.
    case string(String)
    /// A blob.
    case blob([UInt8])
    /// `NULL`.
    case null
    /// `TRUE`.
    case `true`
    /// `FALSE`.
    case `false`
    /// `CURRENT_TIME`.
    case currentTime
    /// `CURRENT_DATE`.
    case currentDate
    /// `CURRENT_TIMESTAMP`.
    case currentTimestamp
}

/// A bound parameter occurrence.
package struct Parameter: Sendable, Equatable {
    /// How the parameter was written.
    package enum Kind: Sendable, Equatable {
        /// `?`, numbered one past the largest index used so far.
        case anonymous
        /// `?NNN`.
        case numbered(Int)
        /// `:name`, `@name` or `$name`; the string includes the prefix character.
        case named(String)
    }

    /// How the parameter was written.
    package var kind: Kind
    /// The one-based bind index (SQLite's numbering: named parameters share the index of their first use).
    package var index: Int
    /// For a trigger's `NEW.column` / `OLD.column`, the column's declared collation: such a reference compares
    /// with it, as a column does (it has no affinity, as in SQLite).
    package var collation: SQLCollation?
    /// For a trigger's `NEW.rowid` (or its INTEGER PRIMARY KEY), INTEGER: the only trigger references with an
    /// affinity in SQLite.
    package var affinity: SQLAffinity?

    /// Creates a parameter occurrence.
    package init(kind: Kind, index: Int, collation: SQLCollation? = nil, affinity: SQLAffinity? = nil) {
        self.kind = kind
        self.index = index
        self.collation = collation
        self.affinity = affinity
    }
}

/// A column reference `[[schema.]table.]column`.
package struct ColumnReference: Sendable, Equatable {
    /// The schema qualifier, if any.
    package var schema: String?
    /// The table qualifier, if any.
    package var table: String?
    /// The column name.
    package var column: String

    /// Creates a column reference.
    package init(schema: String? = nil, table: String? = nil, column: String) {
        self.schema = schema
        self.table = table
        self.column = column
    }
}

/// An optionally schema-qualified object name, `[schema.]name`.
package struct QualifiedName: Sendable, Equatable {
    /// The schema qualifier, if any.
    package var schema: String?
    /// The object name.
    package var name: String

    /// Creates a qualified name.
    package init(schema: String? = nil, name: String) {
        self.schema = schema
        self.name = name
    }
}

/// Prefix operators.
package enum UnaryOperator: String, Sendable, Equatable {
    /// `-x`.
    case negate = "-"
    /// `+x`.
    case plus = "+"
    /// `~x`.
    case bitwiseNot = "~"
    /// `NOT x`.
    case not = "NOT"
}

/// Binary operators; the raw value is the canonical spelling.
package enum BinaryOperator: String, Sendable, Equatable, CaseIterable {
    /// `OR`.
    case or = "OR"
    /// `AND`.
    case and = "AND"
    /// `=` (also written `==`).
    case equal = "="
    /// `!=` (also written `<>`).
    case notEqual = "!="
    /// `IS` (also written `IS NOT DISTINCT FROM`).
    case `is` = "IS"
    /// `IS NOT` (also written `IS DISTINCT FROM`).
    case isNot = "IS NOT"
    /// `<`.
    case less = "<"
    /// `<=`.
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=`.
    case greaterOrEqual = ">="
    /// `&`.
    case bitwiseAnd = "&"
    /// `|`.
    case bitwiseOr = "|"
    /// `<<`.
    case shiftLeft = "<<"
    /// `>>`.
    case shiftRight = ">>"
    /// `+`.
    case add = "+"
    /// `-`.
    case subtract = "-"
    /// `*`.
    case multiply = "*"
    /// `/`.
    case divide = "/"
    /// `%`.
    case remainder = "%"
    /// `||`.
    case concatenate = "||"
    /// `->` (JSON extract).
    case extract = "->"
    /// `->>` (JSON extract as SQL value).
    case extractValue = "->>"
}

/// The pattern-matching operators.
package enum LikeOperator: String, Sendable, Equatable {
    /// `LIKE`.
    case like = "LIKE"
    /// `GLOB`.
    case glob = "GLOB"
    /// `MATCH`.
    case match = "MATCH"
    /// `REGEXP`.
    case regexp = "REGEXP"
}

/// A declared type name such as `INTEGER`, `VARCHAR(20)` or `DECIMAL(10, 2)`.
package struct TypeName: Sendable, Equatable {
    /// The type's words joined by single spaces, as written (e.g. `UNSIGNED BIG INT`).
    package var name: String
    /// The signed numeric arguments, as written without spaces (zero, one or two of them).
    package var arguments: [String]

    /// Creates a type name.
    package init(name: String, arguments: [String] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// A function call.
package struct FunctionCall: Sendable, Equatable {
    /// The arguments of a call.
    package enum Arguments: Sendable, Equatable {
        /// `f(*)`, as in `count(*)`.
        case star
        /// `f([DISTINCT] a, b, …)`; the list may be empty.
        case list([SQLExpression], distinct: Bool)
    }

    /// The function name as written.
    package var name: String
    /// The arguments.
    package var arguments: Arguments
    /// The condition of an aggregate's `FILTER (WHERE …)` clause: the rows that feed the aggregate.
    package var filter: SQLExpression?
    /// The `OVER` clause that makes the call a window function, if any.
    package var over: WindowReference?

    /// Creates a function call.
    package init(name: String, arguments: Arguments, filter: SQLExpression? = nil, over: WindowReference? = nil) {
        self.name = name
        self.arguments = arguments
        self.filter = filter
        self.over = over
    }
}

/// A `CASE` expression.
package struct CaseExpression: Sendable, Equatable {
    /// One `WHEN condition THEN result` branch.
    package struct Branch: Sendable, Equatable {
        /// The `WHEN` operand.
        package var condition: SQLExpression
        /// The `THEN` operand.
        package var result: SQLExpression

        /// Creates a branch.
        package init(condition: SQLExpression, result: SQLExpression) {
            self.condition = condition
            self.result = result
        }
    }

    /// The operand compared against each `WHEN` value, if any.
    package var base: SQLExpression?
    /// The branches, in order (at least one).
    package var branches: [Branch]
    /// The `ELSE` result, if any.
    package var elseResult: SQLExpression?

    /// Creates a `CASE` expression.
    package init(base: SQLExpression?, branches: [Branch], elseResult: SQLExpression?) {
        self.base = base
        self.branches = branches
        self.elseResult = elseResult
    }
}

extension SQLExpression {
    /// The expression's text as written in `text`, whose first byte is at source offset `offset` (nil when the
    /// expression's range lies outside `text`, e.g. for an expression built rather than parsed).
    func sourceText(in text: String, startingAt offset: Int = 0) -> String? {
        let start = range.start.offset - offset
        let end = range.end.offset - offset
        var text = text
        return text.withUTF8 { bytes in
            guard start >= 0, end <= bytes.count, start < end else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }
}
