/// A recursive-descent parser for Granite's SQLite-flavoured SQL dialect.
///
/// Use ``parseScript(_:)`` for `;`-separated scripts and ``parseStatement(_:)`` for exactly one statement.
/// Every error is reported as a thrown ``SQLSyntaxError``; malformed input never traps. Expression nesting is
/// limited to ``maximumExpressionDepth`` levels (each nested expression, parenthesis, prefix operator and
/// `SELECT` counts as one) and expression-tree height is bounded the same way, so deeply nested input cannot
/// overflow the stack. At the maximum depth the parser needs roughly 1 MB of stack in optimized builds and up to
/// about 3 MB in debug builds; the main thread and default Linux threads (8 MB) are ample.
package struct Parser {
    /// The deepest expression / subquery nesting accepted.
    package static let maximumExpressionDepth = 200
    /// The largest `?NNN` parameter number accepted.
    package static let maximumParameterNumber = 32766
    /// The most terms accepted in one compound `SELECT`.
    package static let maximumCompoundTerms = 500

    /// Words that cannot be used as unquoted identifiers.
    package static let reservedWords: Set<String> = [
        "ALL", "ALTER", "AND", "AS", "BETWEEN", "BY", "CASE", "CAST", "CHECK", "COLLATE", "CONSTRAINT", "CREATE",
        "CROSS", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "DEFAULT", "DELETE", "DISTINCT", "DROP",
        "ELSE", "END", "ESCAPE", "EXCEPT", "EXISTS", "FALSE", "FOREIGN", "FROM", "FULL", "GLOB", "GROUP",
        "HAVING", "IN", "INDEX", "INNER", "INSERT", "INTERSECT", "INTO", "IS", "ISNULL", "JOIN", "LEFT", "LIKE",
        "LIMIT", "MATCH", "NATURAL", "NOT", "NOTNULL", "NULL", "OFFSET", "ON", "OR", "ORDER", "OUTER", "PRIMARY",
        "REFERENCES", "REGEXP", "RETURNING", "RIGHT", "SELECT", "SET", "TABLE", "THEN", "TRUE", "UNION", "UNIQUE",
        "UPDATE", "USING", "VALUES", "WHEN", "WHERE", "WITH",
    ]

    /// Reserved words that may still be used as function names when followed by `(`.
    static let reservedFunctionNames: Set<String> = ["LIKE", "GLOB", "MATCH", "REGEXP"]

    /// Whether `name` is a reserved word that is not usable as a function name.
    static func isReservedFunctionName(_ name: String) -> Bool {
        let upper = SQLFormat.asciiUppercased(name)
        return reservedWords.contains(upper) && !reservedFunctionNames.contains(upper)
    }

    let source: [UInt8]
    var tokens: [Token]
    var position = 0
    /// End of the most recently consumed token.
    var previousEnd = SourceLocation.start
    /// Current recursion depth of nested expressions and subqueries.
    var depth = 0
    /// Largest expression height created in the current select scope.
    var scopeHeight = 0
    /// Parameter bookkeeping for the current statement.
    var parameterNames: [String?] = []
    var namedParameters: [String: Int] = [:]
    /// Set while parsing a trigger's `WHEN` and body: `NEW.x` / `OLD.x` become parameters and `RAISE` is allowed.
    var inTrigger = false
    /// The declared collations of the trigger table's columns (by ``SchemaNames/key(_:)``), when known.
    var triggerCollations: [String: SQLCollation] = [:]
    /// The names (by ``SchemaNames/key(_:)``) under which `NEW.x` / `OLD.x` is the rowid (INTEGER affinity).
    var triggerRowidNames: Set<String> = []

    init(_ sql: String) throws(SQLSyntaxError) {
        let bytes = Array(sql.utf8)
        var lexer = Lexer(bytes: bytes)
        self.source = bytes
        self.tokens = try lexer.tokenizeAll()
    }

    /// Parses a script of zero or more statements separated by `;`.
    package static func parseScript(_ sql: String) throws(SQLSyntaxError) -> [Statement] {
        var parser = try Parser(sql)
        var statements: [Statement] = []
        while true {
            while parser.acceptSymbol(";") {}
            if parser.current.kind == .endOfInput { return statements }
            statements.append(try parser.parseOneStatement())
            if parser.current.kind != .endOfInput && !parser.isSymbol(";") {
                throw parser.syntaxError()
            }
        }
    }

    /// Parses exactly one statement; trailing `;`s are allowed, anything else after it is an error.
    package static func parseStatement(_ sql: String) throws(SQLSyntaxError) -> Statement {
        var parser = try Parser(sql)
        let statement = try parser.parseOneStatement()
        while parser.acceptSymbol(";") {}
        guard parser.current.kind == .endOfInput else { throw parser.syntaxError() }
        return statement
    }

    /// Parses one `CREATE TRIGGER` statement whose `NEW.x` / `OLD.x` parameters carry the collations of the
    /// table's columns (`collations`, by ``SchemaNames/key(_:)``).
    package static func parseTrigger(
        _ sql: String, collations: [String: SQLCollation], rowidNames: Set<String>
    ) throws(SQLSyntaxError) -> Statement {
        var parser = try Parser(sql)
        parser.triggerCollations = collations
        parser.triggerRowidNames = rowidNames
        let statement = try parser.parseOneStatement()
        while parser.acceptSymbol(";") {}
        guard parser.current.kind == .endOfInput else { throw parser.syntaxError() }
        return statement
    }

    /// Parses one standalone expression (for tests and tools); the whole input must be consumed.
    package static func parseExpression(_ sql: String) throws(SQLSyntaxError) -> SQLExpression {
        var parser = try Parser(sql)
        let expression = try parser.parseExpression()
        guard parser.current.kind == .endOfInput else { throw parser.syntaxError() }
        return expression
    }

    // MARK: - Statements

    mutating func parseOneStatement() throws(SQLSyntaxError) -> Statement {
        parameterNames = []
        namedParameters = [:]
        scopeHeight = 0
        let start = current.range.start
        let kind = try parseStatementKind(allowExplain: true)
        let range = SourceRange(start: start, end: previousEnd)
        return Statement(
            kind, range: range, sourceText: String(decoding: source[range.offsets], as: UTF8.self),
            parameters: ParameterList(count: parameterNames.count, names: parameterNames))
    }

    // MARK: - Token helpers

    var current: Token { tokens[min(position, tokens.count - 1)] }

    func peek(_ ahead: Int) -> Token { tokens[min(position + ahead, tokens.count - 1)] }

    @discardableResult
    @inline(never)
    mutating func advance() -> Token {
        let token = current
        if position < tokens.count - 1 {
            position += 1
            previousEnd = token.range.end
        }
        return token
    }

    @inline(never)
    func isKeyword(_ keyword: String) -> Bool { current.kind == .word && current.keyword == keyword }

    func isKeyword(_ keyword: String, ahead: Int) -> Bool {
        let token = peek(ahead)
        return token.kind == .word && token.keyword == keyword
    }

    @inline(never)
    func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol && current.text == symbol }

    @inline(never)
    mutating func acceptKeyword(_ keyword: String) -> Bool {
        guard isKeyword(keyword) else { return false }
        advance()
        return true
    }

    @inline(never)
    mutating func acceptSymbol(_ symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }

    @inline(never)
    mutating func expectKeyword(_ keyword: String) throws(SQLSyntaxError) {
        guard acceptKeyword(keyword) else { throw syntaxError() }
    }

    @inline(never)
    mutating func expectSymbol(_ symbol: String) throws(SQLSyntaxError) {
        guard acceptSymbol(symbol) else { throw syntaxError() }
    }

    /// `near "token": syntax error` for the current token, or `incomplete input` at the end.
    @inline(never)
    func syntaxError() -> SQLSyntaxError {
        syntaxError(at: current)
    }

    @inline(never)
    func syntaxError(at token: Token) -> SQLSyntaxError {
        if token.kind == .endOfInput { return error("incomplete input", at: token.range.start) }
        return error("near \"\(Lexer.excerpt(token.text))\": syntax error", at: token.range.start)
    }

    @inline(never)
    func error(_ message: String, at location: SourceLocation) -> SQLSyntaxError {
        SQLSyntaxError(message, at: location, in: source)
    }

    /// Whether the current token can be used as an identifier.
    var isIdentifier: Bool {
        switch current.kind {
        case .quotedIdentifier: return true
        case .word: return !Parser.reservedWords.contains(current.keyword)
        default: return false
        }
    }

    /// Parses an identifier (an unreserved word or a quoted identifier).
    mutating func parseName() throws(SQLSyntaxError) -> String {
        guard isIdentifier else { throw syntaxError() }
        return advance().value
    }

    /// Parses `name` or `schema.name`.
    mutating func parseQualifiedName() throws(SQLSyntaxError) -> QualifiedName {
        let first = try parseName()
        if acceptSymbol(".") { return QualifiedName(schema: first, name: try parseName()) }
        return QualifiedName(name: first)
    }

    /// Parses `(name, name, …)`.
    mutating func parseNameList() throws(SQLSyntaxError) -> [String] {
        try expectSymbol("(")
        var names = [try parseName()]
        while acceptSymbol(",") { names.append(try parseName()) }
        try expectSymbol(")")
        return names
    }

    /// Increments the nesting depth, throwing when it exceeds the limit.
    @inline(never)
    mutating func enterNesting() throws(SQLSyntaxError) {
        depth += 1
        if depth > Parser.maximumExpressionDepth {
            throw error(
                "expression tree is too large (maximum depth \(Parser.maximumExpressionDepth))",
                at: current.range.start)
        }
    }
}
