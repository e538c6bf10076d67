/// SQL text with its arguments, built with string interpolation: interpolated values become `?` arguments,
/// so they never need escaping.
///
/// ```swift
/// let name = "O'Brien"
/// try db.execute(literal: "INSERT INTO player (name) VALUES (\(name))")
/// // INSERT INTO player (name) VALUES (?) with arguments ["O'Brien"]
/// let ids = [1, 2, 3]
/// let rows = try Row.fetchAll(db, literal: "SELECT * FROM player WHERE id IN \(ids)")
/// // SELECT * FROM player WHERE id IN (?,?,?)
/// ```
public struct SQL: Sendable {
    /// A piece of an SQL literal.
    enum Element: Sendable {
        /// Raw SQL and the arguments of its `?` placeholders.
        case sql(String, StatementArguments)
        /// A quoted identifier.
        case identifier(String)
        /// A query interface expression, with its arguments.
        case expression(SQLExpression)
    }

    var elements: [Element]

    init(elements: [Element]) {
        self.elements = elements
    }

    /// Raw SQL with its arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements = [.sql(sql, arguments)]
    }

    /// A query interface expression, such as a column or a value, as an SQL literal: values are rendered
    /// as `?` (NULL as `NULL`), columns as their quoted names.
    ///
    /// ```swift
    /// let literal = SQL(Column("score") + 1)  // "score" + ?, with argument 1
    /// ```
    public init(_ expression: some SQLSpecificExpressible) {
        elements = [.expression(expression.sqlExpression)]
    }

    /// Whether the literal holds no SQL.
    public var isEmpty: Bool {
        elements.allSatisfy { element in
            if case .sql(let sql, let arguments) = element { return sql.isEmpty && arguments.isEmpty }
            return false
        }
    }

    /// The SQL text and its arguments.
    public func build(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        try build(database: db)
    }

    /// The SQL text and its arguments; query interface parts that need a connection fail without one.
    func build(database db: Database?) throws -> (sql: String, arguments: StatementArguments) {
        var sql = ""
        var arguments = StatementArguments()
        for element in elements {
            switch element {
            case .sql(let text, let args):
                sql += text
                arguments += args
            case .identifier(let name):
                sql += name.quotedDatabaseIdentifier
            case .expression(let expression):
                let context = SQLGenerationContext(db)
                sql += try expression.sql(context)
                arguments += StatementArguments(context.arguments)
            }
        }
        return (sql, arguments)
    }

    /// Appends another literal.
    public mutating func append(literal sqlLiteral: SQL) {
        elements += sqlLiteral.elements
    }

    /// Appends raw SQL with its arguments.
    public mutating func append(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements.append(.sql(sql, arguments))
    }

    /// The concatenation of two literals.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(elements: lhs.elements + rhs.elements)
    }

    /// Appends `rhs` to `lhs`.
    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.elements += rhs.elements
    }
}

extension SQL: ExpressibleByStringInterpolation {
    /// Raw SQL without arguments.
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    /// An SQL literal built by interpolation.
    public init(stringInterpolation: SQLInterpolation) {
        self.init(elements: stringInterpolation.elements)
    }
}

/// The interpolation of ``SQL`` literals.
public struct SQLInterpolation: StringInterpolationProtocol, Sendable {
    var elements: [SQL.Element] = []

    /// Room for the literal.
    public init(literalCapacity: Int, interpolationCount: Int) {
        elements.reserveCapacity(interpolationCount * 2 + 1)
    }

    /// Raw SQL.
    public mutating func appendLiteral(_ literal: String) {
        if !literal.isEmpty { elements.append(.sql(literal, StatementArguments())) }
    }

    /// Raw SQL and its arguments: `\(sql: "name = ?", arguments: [name])`.
    public mutating func appendInterpolation(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements.append(.sql(sql, arguments))
    }

    /// Another literal.
    public mutating func appendInterpolation(literal sqlLiteral: SQL) {
        elements += sqlLiteral.elements
    }

    /// Another literal.
    public mutating func appendInterpolation(_ sqlLiteral: SQL) {
        elements += sqlLiteral.elements
    }

    /// A string as an argument (`?`), never as SQL: `WHERE name = \(name)`.
    public mutating func appendInterpolation<S: StringProtocol>(_ string: S) {
        elements.append(.expression(String(string).sqlExpression))
    }

    /// An identifier, quoted.
    public mutating func appendInterpolation(identifier: String) {
        elements.append(.identifier(identifier))
    }
}

extension Sequence where Element == SQL {
    /// The literals joined with `separator`, which is raw SQL: `[a, b].joined(separator: " AND ")`.
    public func joined(separator: String = "") -> SQL {
        SQL(joining: self, separator: separator)
    }
}

extension Collection where Element == SQL {
    /// The literals joined with `separator`, which is raw SQL: `[a, b].joined(separator: " AND ")`. (GRDB
    /// declares the method on collections as well as sequences; both give the same literal.)
    public func joined(separator: String = "") -> SQL {
        SQL(joining: self, separator: separator)
    }
}

extension SQL {
    init(joining literals: some Sequence<SQL>, separator: String) {
        self.init(elements: [])
        var first = true
        for literal in literals {
            if !first && !separator.isEmpty { elements.append(.sql(separator, StatementArguments())) }
            elements += literal.elements
            first = false
        }
    }
}

extension String {
    /// The string as a quoted SQL identifier: `"name"`, with inner quotes doubled.
    public var quotedDatabaseIdentifier: String {
        if !utf8.contains(0x22) { return "\"" + self + "\"" }
        var quoted = "\""
        for character in unicodeScalars {
            if character == "\"" { quoted.unicodeScalars.append("\"") }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }
}

extension Row {
    /// Every row of an SQL literal.
    public static func fetchAll(_ db: Database, literal sqlLiteral: SQL) throws -> [Row] {
        let (sql, arguments) = try sqlLiteral.build(db)
        return try fetchAll(db, sql: sql, arguments: arguments)
    }

    /// The first row of an SQL literal.
    public static func fetchOne(_ db: Database, literal sqlLiteral: SQL) throws -> Row? {
        let (sql, arguments) = try sqlLiteral.build(db)
        return try fetchOne(db, sql: sql, arguments: arguments)
    }

    /// A cursor over the rows of an SQL literal.
    public static func fetchCursor(_ db: Database, literal sqlLiteral: SQL) throws -> RowCursor {
        let (sql, arguments) = try sqlLiteral.build(db)
        return try fetchCursor(db, sql: sql, arguments: arguments)
    }
}

extension DatabaseValueConvertible {
    /// The values of the leftmost column of an SQL literal.
    public static func fetchAll(_ db: Database, literal sqlLiteral: SQL) throws -> [Self] {
        let (sql, arguments) = try sqlLiteral.build(db)
        return try fetchAll(db, sql: sql, arguments: arguments)
    }

    /// The value of the leftmost column of the first row of an SQL literal.
    public static func fetchOne(_ db: Database, literal sqlLiteral: SQL) throws -> Self? {
        let (sql, arguments) = try sqlLiteral.build(db)
        return try fetchOne(db, sql: sql, arguments: arguments)
    }
}
