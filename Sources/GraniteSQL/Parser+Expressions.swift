// Expression parsing by precedence climbing. SQLite's precedence levels, lowest first:
// OR; AND; NOT; = == != <> IS IN LIKE GLOB MATCH REGEXP BETWEEN ISNULL NOTNULL; < <= > >=; ESCAPE;
// & | << >>; + -; * / %; || -> ->>; COLLATE; unary - + ~.
//
// Binary operators of one level are left-associative and parsed iteratively, so long operator chains do not
// deepen the recursion; only parentheses, subqueries, prefix operators and higher-precedence right operands
// recurse. The recursive functions keep their frames small (work is delegated to helpers) so that the
// permitted nesting depth fits comfortably on a thread stack.

/// Binding strengths of the binary operator levels.
enum Precedence {
    static let or = 1
    static let and = 2
    static let not = 3
    static let equality = 4
    static let comparison = 5
    static let escape = 6
    static let bitwise = 7
    static let additive = 8
    static let multiplicative = 9
    static let concatenation = 10
}

extension Parser {
    /// Binary operators written as symbols, with their precedence.
    private static let symbolOperators: [String: (BinaryOperator, Int)] = [
        "=": (.equal, Precedence.equality), "==": (.equal, Precedence.equality),
        "!=": (.notEqual, Precedence.equality), "<>": (.notEqual, Precedence.equality),
        "<": (.less, Precedence.comparison), "<=": (.lessOrEqual, Precedence.comparison),
        ">": (.greater, Precedence.comparison), ">=": (.greaterOrEqual, Precedence.comparison),
        "&": (.bitwiseAnd, Precedence.bitwise), "|": (.bitwiseOr, Precedence.bitwise),
        "<<": (.shiftLeft, Precedence.bitwise), ">>": (.shiftRight, Precedence.bitwise),
        "+": (.add, Precedence.additive), "-": (.subtract, Precedence.additive),
        "*": (.multiply, Precedence.multiplicative), "/": (.divide, Precedence.multiplicative),
        "%": (.remainder, Precedence.multiplicative),
        "||": (.concatenate, Precedence.concatenation), "->": (.extract, Precedence.concatenation),
        "->>": (.extractValue, Precedence.concatenation),
    ]

    private static let equalityKeywords: Set<String> = [
        "IS", "ISNULL", "NOTNULL", "NOT", "IN", "LIKE", "GLOB", "MATCH", "REGEXP", "BETWEEN",
    ]

    private static let likeOperators: [String: LikeOperator] = [
        "LIKE": .like, "GLOB": .glob, "MATCH": .match, "REGEXP": .regexp,
    ]

    /// Parses a full expression.
    mutating func parseExpression() throws(SQLSyntaxError) -> SQLExpression {
        try enterNesting()
        defer { depth -= 1 }
        return try parseBinary(minimum: Precedence.or)
    }

    /// Builds a node spanning from `start` to the last consumed token, enforcing the height limit.
    @inline(never)
    mutating func node(
        _ kind: SQLExpression.Kind, from start: SourceLocation, children: [SQLExpression], extraHeight: Int = 0
    ) throws(SQLSyntaxError) -> SQLExpression {
        var height = extraHeight
        for child in children { height = max(height, child.height) }
        height += 1
        if height > Parser.maximumExpressionDepth {
            throw error("expression tree is too large (maximum depth \(Parser.maximumExpressionDepth))", at: start)
        }
        scopeHeight = max(scopeHeight, height)
        return SQLExpression(kind, range: SourceRange(start: start, end: previousEnd), height: height)
    }

    /// Parses an expression whose binary operators all bind at least as tightly as `minimum`.
    mutating func parseBinary(minimum: Int) throws(SQLSyntaxError) -> SQLExpression {
        var lhs = isKeyword("NOT") ? try parsePrefixNot() : try parseCollate()
        while let extended = try parseInfix(after: lhs, minimum: minimum) {
            lhs = extended
        }
        return lhs
    }

    private mutating func parsePrefixNot() throws(SQLSyntaxError) -> SQLExpression {
        let start = advance().range.start
        try enterNesting()
        defer { depth -= 1 }
        let operand = try parseBinary(minimum: Precedence.not)
        return try node(.unary(.not, operand), from: start, children: [operand])
    }

    /// Applies the operator at the current token to `lhs`, or returns `nil` if there is none at `minimum`.
    private mutating func parseInfix(after lhs: SQLExpression, minimum: Int) throws(SQLSyntaxError)
        -> SQLExpression?
    {
        switch current.kind {
        case .symbol:
            guard let (op, precedence) = Parser.symbolOperators[current.text], precedence >= minimum else {
                return nil
            }
            advance()
            let rhs = try parseBinary(minimum: precedence + 1)
            return try node(.binary(op, lhs, rhs), from: lhs.range.start, children: [lhs, rhs])
        case .word:
            switch current.keyword {
            case "OR" where minimum <= Precedence.or:
                advance()
                let rhs = try parseBinary(minimum: Precedence.and)
                return try node(.binary(.or, lhs, rhs), from: lhs.range.start, children: [lhs, rhs])
            case "AND" where minimum <= Precedence.and:
                advance()
                let rhs = try parseBinary(minimum: Precedence.not)
                return try node(.binary(.and, lhs, rhs), from: lhs.range.start, children: [lhs, rhs])
            case let keyword where minimum <= Precedence.equality && Parser.equalityKeywords.contains(keyword):
                return try parseEqualityOperator(after: lhs)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// Parses the equality-level keyword operators (`IS`, `ISNULL`, `[NOT] IN/LIKE/BETWEEN`, `NOT NULL`, …).
    private mutating func parseEqualityOperator(after lhs: SQLExpression) throws(SQLSyntaxError)
        -> SQLExpression?
    {
        let start = lhs.range.start
        switch current.keyword {
        case "IS":
            advance()
            let negated = acceptKeyword("NOT")
            var op: BinaryOperator = negated ? .isNot : .is
            if acceptKeyword("DISTINCT") {
                try expectKeyword("FROM")
                op = negated ? .is : .isNot
            }
            let rhs = try parseBinary(minimum: Precedence.comparison)
            return try node(.binary(op, lhs, rhs), from: start, children: [lhs, rhs])
        case "ISNULL", "NOTNULL":
            let negated = advance().keyword == "NOTNULL"
            return try node(.isNull(lhs, negated: negated), from: start, children: [lhs])
        case "NOT" where isKeyword("NULL", ahead: 1):
            advance()
            advance()
            return try node(.isNull(lhs, negated: true), from: start, children: [lhs])
        case "NOT":
            let next = peek(1)
            guard next.kind == .word, ["IN", "LIKE", "GLOB", "MATCH", "REGEXP", "BETWEEN"].contains(next.keyword)
            else { return nil }
            advance()
            return try parseNegatableOperator(lhs, negated: true)
        default:
            return try parseNegatableOperator(lhs, negated: false)
        }
    }

    /// Parses the operator at the current token (`IN`, `LIKE`-family or `BETWEEN`) and its operands.
    private mutating func parseNegatableOperator(_ lhs: SQLExpression, negated: Bool) throws(SQLSyntaxError)
        -> SQLExpression
    {
        let start = lhs.range.start
        let keyword = advance().keyword
        if keyword == "BETWEEN" {
            let low = try parseBinary(minimum: Precedence.comparison)
            try expectKeyword("AND")
            let high = try parseBinary(minimum: Precedence.comparison)
            return try node(
                .between(lhs, low: low, high: high, negated: negated), from: start, children: [lhs, low, high])
        }
        if let op = Parser.likeOperators[keyword] {
            let pattern = try parseBinary(minimum: Precedence.comparison)
            var escape: SQLExpression?
            if acceptKeyword("ESCAPE") { escape = try parseBinary(minimum: Precedence.bitwise) }
            return try node(
                .like(lhs, op, pattern: pattern, escape: escape, negated: negated), from: start,
                children: [lhs, pattern] + (escape.map { [$0] } ?? []))
        }
        // IN
        if acceptSymbol("(") {
            if isKeyword("SELECT") || isKeyword("VALUES") || isKeyword("WITH") {
                let (select, innerHeight) = try parseNestedSelect()
                try expectSymbol(")")
                return try node(
                    .inSelect(lhs, select, negated: negated), from: start, children: [lhs], extraHeight: innerHeight)
            }
            var list: [SQLExpression] = []
            if !isSymbol(")") {
                list.append(try parseExpression())
                while acceptSymbol(",") { list.append(try parseExpression()) }
            }
            try expectSymbol(")")
            return try node(.inList(lhs, list, negated: negated), from: start, children: [lhs] + list)
        }
        let table = try parseQualifiedName()
        return try node(.inTable(lhs, table, negated: negated), from: start, children: [lhs])
    }

    /// Parses a unary expression followed by any number of `COLLATE name` suffixes.
    mutating func parseCollate() throws(SQLSyntaxError) -> SQLExpression {
        var operand = try parseUnary()
        while isKeyword("COLLATE") {
            operand = try parseCollateSuffix(operand)
        }
        return operand
    }

    private mutating func parseCollateSuffix(_ operand: SQLExpression) throws(SQLSyntaxError) -> SQLExpression {
        advance()
        let collation = try parseName()
        return try node(.collate(operand, collation: collation), from: operand.range.start, children: [operand])
    }

    /// Parses `-x`, `+x`, `~x` (right-recursive) or a primary expression.
    mutating func parseUnary() throws(SQLSyntaxError) -> SQLExpression {
        guard current.kind == .symbol, ["-", "+", "~"].contains(current.text) else { return try parsePrimary() }
        let op: UnaryOperator = current.text == "-" ? .negate : (current.text == "+" ? .plus : .bitwiseNot)
        let start = advance().range.start
        // -9223372036854775808 is the one integer literal whose magnitude does not fit in 64 bits.
        if op == .negate, current.kind == .integer, current.text == "9223372036854775808" {
            advance()
            return try node(.literal(.integer(Int64.min)), from: start, children: [])
        }
        try enterNesting()
        defer { depth -= 1 }
        let operand = try parseUnary()
        return try node(.unary(op, operand), from: start, children: [operand])
    }

    /// Parses a `SELECT` nested inside an expression, returning it with the height of its expressions.
    mutating func parseNestedSelect() throws(SQLSyntaxError) -> (SelectStatement, Int) {
        let outerHeight = scopeHeight
        scopeHeight = 0
        let select = try parseSelect()
        let innerHeight = scopeHeight + 1
        scopeHeight = max(outerHeight, innerHeight)
        return (select, innerHeight)
    }

    /// Parses the literal at the current token into a ``Literal`` (numbers, strings, blobs).
    mutating func parseLiteralToken() throws(SQLSyntaxError) -> Literal {
        let token = advance()
        switch token.kind {
        case .integer:
            return try integerLiteral(token)
        case .real:
            // SQLite converts literals with the same routine as text, so `1.1` and `CAST('1.1' AS REAL)` agree.
            let (value, code) = SQLRealParsing.atof(token.text)
            guard code > 0 else {
                throw error("malformed real literal: \(Lexer.excerpt(token.text))", at: token.range.start)
            }
            return .real(value)
        case .string:
            return .string(token.value)
        case .blob:
            var bytes: [UInt8] = []
            var high: UInt8?
            for digit in token.value.utf8 {
                let nibble: UInt8 = Lexer.isDigit(digit) ? digit - 0x30 : (digit | 0x20) - 0x61 + 10
                if let value = high {
                    bytes.append(value << 4 | nibble)
                    high = nil
                } else {
                    high = nibble
                }
            }
            return .blob(bytes)
        default:
            throw syntaxError(at: token)
        }
    }

    private func integerLiteral(_ token: Token) throws(SQLSyntaxError) -> Literal {
        let text = token.text
        if text.utf8.count > 2, let second = text.utf8.dropFirst().first, second == 0x78 || second == 0x58 {
            let digits = text.utf8.dropFirst(2).drop { $0 == 0x30 }
            guard digits.count <= 16,
                let value = UInt64(
                    String(
                        decoding: digits.isEmpty ? [0x30] : Array(digits),
                        as: UTF8.self), radix: 16)
            else {
                throw error("hex literal too big: \(Lexer.excerpt(text))", at: token.range.start)
            }
            return .integer(Int64(bitPattern: value))
        }
        if let value = Int64(text) { return .integer(value) }
        // Too big for INTEGER: a REAL, converted as SQLite converts any decimal text.
        return .real(SQLRealParsing.atof(text).value)
    }

    mutating func parseParameter() throws(SQLSyntaxError) -> Parameter {
        let token = advance()
        let text = token.text
        if inTrigger { throw error("trigger cannot use variables", at: token.range.start) }
        if text == "?" {
            parameterNames.append(nil)
            return Parameter(kind: .anonymous, index: parameterNames.count)
        }
        if text.hasPrefix("?") {
            let digits = text.dropFirst()
            guard digits.count <= 6, let number = Int(digits), number >= 1, number <= Parser.maximumParameterNumber
            else {
                throw error(
                    "variable number must be between ?1 and ?\(Parser.maximumParameterNumber)", at: token.range.start)
            }
            while parameterNames.count < number { parameterNames.append(nil) }
            return Parameter(kind: .numbered(number), index: number)
        }
        if let index = namedParameters[text] { return Parameter(kind: .named(text), index: index) }
        parameterNames.append(text)
        namedParameters[text] = parameterNames.count
        return Parameter(kind: .named(text), index: parameterNames.count)
    }

    mutating func parsePrimary() throws(SQLSyntaxError) -> SQLExpression {
        switch current.kind {
        case .integer, .real, .string, .blob:
            return try parseLiteralExpression()
        case .parameter:
            return try parseParameterExpression()
        case .quotedIdentifier:
            return try parseIdentifierExpression()
        case .word:
            return try parseWordExpression()
        case .symbol where current.text == "(":
            return try parseParenthesized()
        default:
            throw syntaxError()
        }
    }

    private mutating func parseLiteralExpression() throws(SQLSyntaxError) -> SQLExpression {
        let start = current.range.start
        let literal = try parseLiteralToken()
        return try node(.literal(literal), from: start, children: [])
    }

    private mutating func parseParameterExpression() throws(SQLSyntaxError) -> SQLExpression {
        let start = current.range.start
        let parameter = try parseParameter()
        return try node(.parameter(parameter), from: start, children: [])
    }

    /// Parses `(SELECT …)`, `(expr)` or a row value `(a, b, …)`.
    private mutating func parseParenthesized() throws(SQLSyntaxError) -> SQLExpression {
        let start = advance().range.start
        if isKeyword("SELECT") || isKeyword("VALUES") || isKeyword("WITH") {
            return try parseScalarSubquery(start: start)
        }
        let first = try parseExpression()
        if isSymbol(",") { return try parseRowValue(first: first, start: start) }
        try expectSymbol(")")
        return SQLExpression(first.kind, range: SourceRange(start: start, end: previousEnd), height: first.height)
    }

    @inline(never)
    private mutating func parseScalarSubquery(start: SourceLocation) throws(SQLSyntaxError) -> SQLExpression {
        let (select, innerHeight) = try parseNestedSelect()
        try expectSymbol(")")
        return try node(.subquery(select), from: start, children: [], extraHeight: innerHeight)
    }

    @inline(never)
    private mutating func parseRowValue(first: SQLExpression, start: SourceLocation) throws(SQLSyntaxError)
        -> SQLExpression
    {
        var elements = [first]
        while acceptSymbol(",") { elements.append(try parseExpression()) }
        try expectSymbol(")")
        return try node(.row(elements), from: start, children: elements)
    }

    private mutating func parseWordExpression() throws(SQLSyntaxError) -> SQLExpression {
        let start = current.range.start
        let literals: [String: Literal] = [
            "NULL": .null, "TRUE": .true, "FALSE": .false, "CURRENT_TIME": .currentTime,
            "CURRENT_DATE": .currentDate, "CURRENT_TIMESTAMP": .currentTimestamp,
        ]
        if let literal = literals[current.keyword] {
            advance()
            return try node(.literal(literal), from: start, children: [])
        }
        switch current.keyword {
        case "CAST":
            advance()
            try expectSymbol("(")
            let operand = try parseExpression()
            try expectKeyword("AS")
            let type = try parseTypeName(required: true)
            try expectSymbol(")")
            return try node(.cast(operand, type ?? TypeName(name: "")), from: start, children: [operand])
        case "CASE":
            return try parseCase()
        case "RAISE" where peek(1).kind == .symbol && peek(1).text == "(":
            return try parseRaise()
        case "EXISTS":
            advance()
            try expectSymbol("(")
            guard isKeyword("SELECT") || isKeyword("VALUES") || isKeyword("WITH") else { throw syntaxError() }
            let (select, innerHeight) = try parseNestedSelect()
            try expectSymbol(")")
            return try node(.exists(select), from: start, children: [], extraHeight: innerHeight)
        default:
            if Parser.reservedFunctionNames.contains(current.keyword) && peek(1).kind == .symbol
                && peek(1).text == "("
            {
                return try parseIdentifierExpression(allowReserved: true)
            }
            return try parseIdentifierExpression()
        }
    }

    /// Parses a column reference or function call starting with an identifier.
    private mutating func parseIdentifierExpression(allowReserved: Bool = false) throws(SQLSyntaxError)
        -> SQLExpression
    {
        let start = current.range.start
        guard allowReserved || isIdentifier else { throw syntaxError() }
        let first = advance().value
        if isSymbol("(") {
            return try parseFunctionCall(name: first, start: start)
        }
        var parts = [first]
        while parts.count < 3 && isSymbol(".") {
            advance()
            parts.append(try parseName())
        }
        if inTrigger, parts.count == 2, let parameter = triggerRowParameter(parts[0], parts[1]) {
            return try node(.parameter(parameter), from: start, children: [])
        }
        let reference: ColumnReference
        switch parts.count {
        case 1: reference = ColumnReference(column: parts[0])
        case 2: reference = ColumnReference(table: parts[0], column: parts[1])
        default: reference = ColumnReference(schema: parts[0], table: parts[1], column: parts[2])
        }
        return try node(.column(reference), from: start, children: [])
    }

    private mutating func parseFunctionCall(name: String, start: SourceLocation) throws(SQLSyntaxError)
        -> SQLExpression
    {
        try expectSymbol("(")
        if acceptSymbol("*") {
            try expectSymbol(")")
            let filter = try parseFilterClause()
            let over = try parseOverClause()
            return try node(
                .function(FunctionCall(name: name, arguments: .star, filter: filter, over: over)), from: start,
                children: (filter.map { [$0] } ?? []) + (over?.expressions ?? []))
        }
        var arguments: [SQLExpression] = []
        var distinct = false
        if !isSymbol(")") {
            distinct = acceptKeyword("DISTINCT")
            arguments.append(try parseExpression())
            while acceptSymbol(",") { arguments.append(try parseExpression()) }
        }
        try expectSymbol(")")
        let filter = try parseFilterClause()
        let over = try parseOverClause()
        return try node(
            .function(
                FunctionCall(
                    name: name, arguments: .list(arguments, distinct: distinct), filter: filter, over: over)),
            from: start, children: arguments + (filter.map { [$0] } ?? []) + (over?.expressions ?? []))
    }

    /// Parses an aggregate's `FILTER (WHERE condition)` clause, if any. `FILTER` not followed by `(` is not the
    /// clause (SQLite then reads it as a column alias: `SELECT count(*) filter FROM t`).
    private mutating func parseFilterClause() throws(SQLSyntaxError) -> SQLExpression? {
        guard isKeyword("FILTER"), peek(1).kind == .symbol, peek(1).text == "(" else { return nil }
        advance()
        try expectSymbol("(")
        try expectKeyword("WHERE")
        let condition = try parseExpression()
        try expectSymbol(")")
        return condition
    }

    private mutating func parseCase() throws(SQLSyntaxError) -> SQLExpression {
        let start = advance().range.start
        var base: SQLExpression?
        if !isKeyword("WHEN") { base = try parseExpression() }
        var branches: [CaseExpression.Branch] = []
        var children: [SQLExpression] = base.map { [$0] } ?? []
        while acceptKeyword("WHEN") {
            let condition = try parseExpression()
            try expectKeyword("THEN")
            let result = try parseExpression()
            branches.append(CaseExpression.Branch(condition: condition, result: result))
            children += [condition, result]
        }
        guard !branches.isEmpty else { throw syntaxError() }
        var elseResult: SQLExpression?
        if acceptKeyword("ELSE") {
            let value = try parseExpression()
            elseResult = value
            children.append(value)
        }
        try expectKeyword("END")
        return try node(
            .caseWhen(CaseExpression(base: base, branches: branches, elseResult: elseResult)), from: start,
            children: children)
    }

    /// Parses a declared type name: one or more unreserved words with optional `(n)` or `(n, m)`.
    /// Returns `nil` when no type is present and `required` is false.
    mutating func parseTypeName(required: Bool) throws(SQLSyntaxError) -> TypeName? {
        var words: [String] = []
        while true {
            if current.kind == .word && !Parser.reservedWords.contains(current.keyword)
                && current.keyword != "GENERATED"
            {
                words.append(advance().text)
            } else if current.kind == .quotedIdentifier || current.kind == .string {
                // SQLite takes a quoted name as a type too (`a "INT"`), dequoted.
                words.append(advance().value)
            } else {
                break
            }
        }
        if words.isEmpty {
            if required { throw syntaxError() }
            return nil
        }
        var arguments: [String] = []
        if acceptSymbol("(") {
            arguments.append(try parseSignedNumber())
            if acceptSymbol(",") { arguments.append(try parseSignedNumber()) }
            try expectSymbol(")")
        }
        return TypeName(name: words.joined(separator: " "), arguments: arguments)
    }

    /// Parses `[+|-] number` and returns it as text without spaces.
    mutating func parseSignedNumber() throws(SQLSyntaxError) -> String {
        var sign = ""
        if isSymbol("+") || isSymbol("-") { sign = advance().text }
        guard current.kind == .integer || current.kind == .real else { throw syntaxError() }
        return sign + advance().text
    }
}

// Trigger-only expressions: `NEW.x` / `OLD.x` and `RAISE(…)`.
extension Parser {
    /// The parameter standing for `qualifier.column` when the qualifier is `NEW` or `OLD`.
    mutating func triggerRowParameter(_ qualifier: String, _ column: String) -> Parameter? {
        let key = SchemaNames.key(qualifier)
        guard key == "new" || key == "old" else { return nil }
        let name = TriggerRow.parameterName(qualifier, column: column)
        let collation = triggerCollations[SchemaNames.key(column)]
        let affinity: SQLAffinity? = triggerRowidNames.contains(SchemaNames.key(column)) ? .integer : nil
        if let index = namedParameters[name] {
            return Parameter(kind: .named(name), index: index, collation: collation, affinity: affinity)
        }
        parameterNames.append(name)
        namedParameters[name] = parameterNames.count
        return Parameter(kind: .named(name), index: parameterNames.count, collation: collation, affinity: affinity)
    }

    /// Parses `RAISE(IGNORE)` or `RAISE(ROLLBACK|ABORT|FAIL, message)` into a call of
    /// ``TriggerRow/raiseFunction`` whose first argument is the action's name.
    mutating func parseRaise() throws(SQLSyntaxError) -> SQLExpression {
        let start = advance().range.start
        if !inTrigger { throw error("RAISE() may only be used within a trigger-program", at: start) }
        try expectSymbol("(")
        guard current.kind == .word, let action = RaiseAction(rawValue: current.keyword) else { throw syntaxError() }
        advance()
        var arguments = [SQLExpression(.literal(.string(action.rawValue)))]
        if action != .ignore {
            // The message is a string literal (SQLite's grammar takes no other expression).
            try expectSymbol(",")
            guard current.kind == .string else { throw syntaxError() }
            arguments.append(SQLExpression(.literal(.string(advance().value))))
        }
        try expectSymbol(")")
        let call = FunctionCall(name: TriggerRow.raiseFunction, arguments: .list(arguments, distinct: false))
        return try node(.function(call), from: start, children: Array(arguments.dropFirst()))
    }
}
