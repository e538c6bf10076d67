/// An SQL expression of the query interface, built from columns, values and operators.
///
/// ```swift
/// // "score" > ? AND "name" IS NOT NULL
/// let expression = Column("score") > 1000 && Column("name") != nil
/// ```
public struct SQLExpression: Sendable {
    indirect enum Impl: Sendable {
        case column(String)
        case databaseValue(DatabaseValue)
        case literal(SQL)
        case rowValue([SQLExpression])
        case subquery(SQLSubquery)
        case between(SQLExpression, SQLExpression, SQLExpression, isNegated: Bool)
        case binary(String, SQLExpression, SQLExpression)
        case like(SQLExpression, SQLExpression, escape: SQLExpression?, isNegated: Bool)
        case associative(AssociativeOperator, [SQLExpression])
        case exists(SQLSubquery, isNegated: Bool)
        case `in`(SQLExpression, [SQLExpression], isNegated: Bool)
        case inSubquery(SQLExpression, SQLSubquery, isNegated: Bool)
        /// `value IN "table"`: a lookup in the single column of a table or common table expression.
        case inTable(SQLExpression, String, isNegated: Bool)
        case unary(String, SQLExpression)
        case compare(CompareOperator, SQLExpression, SQLExpression)
        case not(SQLExpression)
        case collated(SQLExpression, String)
        case countAll
        case function(String, [SQLExpression], isAggregate: Bool, isDistinct: Bool)
        /// An expression whose columns belong to the table of an alias: `"p"."score"`.
        case qualified(SQLExpression, TableAliasBase)
        /// Whether the row of the qualifying alias exists (see `TableAlias.exists`).
        case aliasedRowExists(isNegated: Bool)
        /// An aggregate function restricted to the rows of a condition: `SUM(x) FILTER (WHERE …)`.
        case filteredAggregate(SQLExpression, filter: SQLExpression)
        /// SQL rendered as is (orderings and requests interpolated in SQL literals).
        case rendered(SQLSubquery)
    }

    enum AssociativeOperator: String, Sendable {
        case and = "AND"
        case or = "OR"
        case add = "+"
        case multiply = "*"
        case concat = "||"
        case bitwiseAnd = "&"
        case bitwiseOr = "|"

        var isStrictlyAssociative: Bool { self != .add && self != .multiply }

        var neutralValue: DatabaseValue {
            switch self {
            case .and: return true.databaseValue
            case .or: return false.databaseValue
            case .add: return 0.databaseValue
            case .multiply: return 1.databaseValue
            case .concat: return "".databaseValue
            case .bitwiseAnd: return (-1).databaseValue
            case .bitwiseOr: return 0.databaseValue
            }
        }
    }

    enum CompareOperator: String, Sendable {
        case equal = "="
        case notEqual = "<>"
        case `is` = "IS"
        case isNot = "IS NOT"

        var negated: CompareOperator {
            switch self {
            case .equal: return .notEqual
            case .notEqual: return .equal
            case .is: return .isNot
            case .isNot: return .is
            }
        }
    }

    let impl: Impl
    /// Whether the expression is to be read as JSON where JSON is built (`JSON_ARRAY`, `JSON_OBJECT`, …): set by
    /// ``SQLSpecificExpressible/asJSON`` and ``JSONColumn`` (see `SQLExpression+JSON.swift`).
    var prefersJSONValue = false

    init(impl: Impl) {
        self.impl = impl
    }
}

// MARK: - Building

extension SQLExpression {
    static func column(_ name: String) -> SQLExpression { SQLExpression(impl: .column(name)) }

    static func databaseValue(_ value: DatabaseValue) -> SQLExpression { SQLExpression(impl: .databaseValue(value)) }

    static let null = SQLExpression.databaseValue(.null)

    static func literal(_ sql: SQL) -> SQLExpression { SQLExpression(impl: .literal(sql)) }

    static func function(_ name: String, _ arguments: [SQLExpression]) -> SQLExpression {
        SQLExpression(impl: .function(name, arguments, isAggregate: false, isDistinct: false))
    }

    static func aggregate(_ name: String, _ arguments: [SQLExpression], distinct: Bool = false) -> SQLExpression {
        SQLExpression(impl: .function(name, arguments, isAggregate: true, isDistinct: distinct))
    }

    static func compare(_ op: CompareOperator, _ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        // `a = b COLLATE x` rather than `(a COLLATE x) = b`.
        if case .collated(let inner, let collation) = lhs.impl {
            return .collated(compare(op, inner, rhs), collation)
        }
        if case .collated(let inner, let collation) = rhs.impl {
            return .collated(compare(op, lhs, inner), collation)
        }
        return SQLExpression(impl: .compare(op, lhs, rhs))
    }

    static func binary(_ op: String, _ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case .collated(let inner, let collation) = lhs.impl {
            return .collated(binary(op, inner, rhs), collation)
        }
        if case .collated(let inner, let collation) = rhs.impl {
            return .collated(binary(op, lhs, inner), collation)
        }
        return SQLExpression(impl: .binary(op, lhs, rhs))
    }

    /// `lhs = rhs`, or `lhs IS NULL` when one side is NULL.
    static func equal(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case .databaseValue(let value) = rhs.impl, value.isNull { return compare(.is, lhs, .null) }
        if case .databaseValue(let value) = lhs.impl, value.isNull { return compare(.is, rhs, .null) }
        return compare(.equal, lhs, rhs)
    }

    /// `lhs <> rhs`, or `lhs IS NOT NULL` when one side is NULL.
    static func notEqual(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case .databaseValue(let value) = rhs.impl, value.isNull { return compare(.isNot, lhs, .null) }
        if case .databaseValue(let value) = lhs.impl, value.isNull { return compare(.isNot, rhs, .null) }
        return compare(.notEqual, lhs, rhs)
    }

    static func associative(_ op: AssociativeOperator, _ expressions: [SQLExpression]) -> SQLExpression {
        var operands: [SQLExpression] = []
        for expression in expressions {
            if op.isStrictlyAssociative, case .associative(let inner, let innerOperands) = expression.impl,
                inner == op
            {
                operands += innerOperands
            } else {
                operands.append(expression)
            }
        }
        if operands.isEmpty { return .databaseValue(op.neutralValue) }
        if operands.count == 1 { return operands[0] }
        return SQLExpression(impl: .associative(op, operands))
    }

    static func collated(_ expression: SQLExpression, _ collation: String) -> SQLExpression {
        switch expression.impl {
        case .in(let value, let list, let isNegated):
            return SQLExpression(impl: .in(.collated(value, collation), list, isNegated: isNegated))
        case .associative(let op, let operands):
            return SQLExpression(impl: .associative(op, operands.map { .collated($0, collation) }))
        case .between(let value, let low, let high, let isNegated):
            return SQLExpression(
                impl: .collated(SQLExpression(impl: .between(value, low, high, isNegated: isNegated)), collation))
        default:
            return SQLExpression(impl: .collated(expression, collation))
        }
    }

    static func between(_ value: SQLExpression, _ low: SQLExpression, _ high: SQLExpression) -> SQLExpression {
        if case .collated(let inner, let collation) = value.impl {
            return .collated(SQLExpression(impl: .between(inner, low, high, isNegated: false)), collation)
        }
        return SQLExpression(impl: .between(value, low, high, isNegated: false))
    }

    /// `value IN (…)`; `value = x` for a single element, and false for an empty list.
    static func `in`(_ value: SQLExpression, _ list: [SQLExpression]) -> SQLExpression {
        guard let first = list.first else { return false.sqlExpression }
        if list.count == 1 { return compare(.equal, value, first) }
        return SQLExpression(impl: .in(value, list, isNegated: false))
    }

    /// The logical negation, with the rewrites GRDB performs (`=` becomes `<>`, `IN` becomes `NOT IN`, …).
    var negated: SQLExpression {
        switch impl {
        case .databaseValue(let value):
            if value.isNull { return self }
            if case .int64(let int) = value.storage, int == 0 || int == 1 { return (int == 0).sqlExpression }
            return SQLExpression(impl: .not(self))
        case .between(let value, let low, let high, let isNegated):
            return SQLExpression(impl: .between(value, low, high, isNegated: !isNegated))
        case .like(let lhs, let rhs, let escape, let isNegated):
            return SQLExpression(impl: .like(lhs, rhs, escape: escape, isNegated: !isNegated))
        case .exists(let subquery, let isNegated):
            return SQLExpression(impl: .exists(subquery, isNegated: !isNegated))
        case .in(let value, let list, let isNegated):
            return SQLExpression(impl: .in(value, list, isNegated: !isNegated))
        case .inSubquery(let value, let subquery, let isNegated):
            return SQLExpression(impl: .inSubquery(value, subquery, isNegated: !isNegated))
        case .inTable(let value, let tableName, let isNegated):
            return SQLExpression(impl: .inTable(value, tableName, isNegated: !isNegated))
        case .compare(let op, let lhs, let rhs):
            return SQLExpression(impl: .compare(op.negated, lhs, rhs))
        case .collated(let inner, let collation):
            return .collated(inner.negated, collation)
        case .qualified(let inner, let alias):
            return SQLExpression(impl: .qualified(inner.negated, alias))
        case .aliasedRowExists(let isNegated):
            return SQLExpression(impl: .aliasedRowExists(isNegated: !isNegated))
        default:
            return SQLExpression(impl: .not(self))
        }
    }

    var isAggregate: Bool {
        switch impl {
        case .countAll, .filteredAggregate: return true
        case .function(_, _, let isAggregate, _): return isAggregate
        case .collated(let inner, _): return inner.isAggregate
        default: return false
        }
    }

    /// The column an `AND` of equalities pins to a constant: used to skip `LIMIT 1` on unique keys.
    var identifyingColumns: Set<String> {
        switch impl {
        case .associative(.and, let operands):
            return operands.reduce(into: []) { $0.formUnion($1.identifyingColumns) }
        case .compare(let op, let lhs, let rhs) where op == .equal || op == .is:
            if case .column(let name) = lhs.impl, rhs.isConstant { return [name.lowercased()] }
            if case .column(let name) = rhs.impl, lhs.isConstant { return [name.lowercased()] }
            return []
        case .collated(let inner, _):
            return inner.identifyingColumns
        default:
            return []
        }
    }

    private var isConstant: Bool {
        switch impl {
        case .databaseValue: return true
        case .unary(_, let inner), .collated(let inner, _): return inner.isConstant
        case .binary(_, let lhs, let rhs): return lhs.isConstant && rhs.isConstant
        case .associative(_, let operands): return operands.allSatisfy(\.isConstant)
        default: return false
        }
    }
}

// MARK: - SQL generation

/// Collects the arguments of generated SQL.
final class SQLGenerationContext {
    let database: Database?
    var arguments: [DatabaseValue] = []
    /// The alias that qualifies the columns being rendered, if any.
    var qualifier: SQLQualifier?
    /// The names of the tables of the joined queries being rendered, by alias identity (`"author1"`).
    var joinedAliasNames: [ObjectIdentifier: String] = [:]

    init(_ db: Database?) {
        self.database = db
    }

    /// The database connection; SQL generated outside of a connection (schema definitions) has none.
    var db: Database {
        get throws {
            guard let database else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "SQL generation requires a database connection")
            }
            return database
        }
    }

    var statementArguments: StatementArguments { StatementArguments(arguments) }
}

extension SQLExpression {
    /// The SQL text; arguments are appended to `context`.
    func sql(_ context: SQLGenerationContext, wrapped: Bool = false) throws -> String {
        func wrap(_ text: String) -> String { wrapped ? "(" + text + ")" : text }
        switch impl {
        case .column(let name):
            if let qualifier = context.qualifier {
                return qualifier.name.quotedDatabaseIdentifier + "." + name.quotedDatabaseIdentifier
            }
            return name.quotedDatabaseIdentifier
        case .databaseValue(let value):
            if value.isNull { return "NULL" }
            context.arguments.append(value)
            return "?"
        case .literal(let literal):
            let (text, arguments) = try literal.build(database: context.database)
            guard arguments.namedValues.isEmpty else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "Named arguments are not supported in query interface SQL literals: \(text)")
            }
            context.arguments += arguments.values
            return wrap(text)
        case .rowValue(let expressions):
            return try "(" + expressions.map { try $0.sql(context) }.joined(separator: ", ") + ")"
        case .subquery(let subquery):
            return try "(" + subquery.sql(context) + ")"
        case .between(let value, let low, let high, let isNegated):
            return try wrap(
                "\(value.sql(context, wrapped: true)) \(isNegated ? "NOT BETWEEN" : "BETWEEN") "
                    + "\(low.sql(context, wrapped: true)) AND \(high.sql(context, wrapped: true))")
        case .binary(let op, let lhs, let rhs):
            return try wrap("\(lhs.sql(context, wrapped: true)) \(op) \(rhs.sql(context, wrapped: true))")
        case .like(let lhs, let rhs, let escape, let isNegated):
            var text =
                try "\(lhs.sql(context, wrapped: true)) \(isNegated ? "NOT LIKE" : "LIKE") "
                + rhs.sql(context, wrapped: true)
            if let escape { text += try " ESCAPE " + escape.sql(context, wrapped: true) }
            return wrap(text)
        case .associative(let op, let operands):
            return try wrap(operands.map { try $0.sql(context, wrapped: true) }.joined(separator: " \(op.rawValue) "))
        case .exists(let subquery, let isNegated):
            return try wrap("\(isNegated ? "NOT EXISTS" : "EXISTS") (\(subquery.sql(context)))")
        case .in(let value, let list, let isNegated):
            let items = try list.map { try $0.sql(context) }.joined(separator: ", ")
            return try wrap("\(value.sql(context, wrapped: true)) \(isNegated ? "NOT IN" : "IN") (\(items))")
        case .inSubquery(let value, let subquery, let isNegated):
            return try wrap(
                "\(value.sql(context, wrapped: true)) \(isNegated ? "NOT IN" : "IN") (\(subquery.sql(context)))")
        case .inTable(let value, let tableName, let isNegated):
            return try wrap(
                "\(value.sql(context, wrapped: true)) \(isNegated ? "NOT IN" : "IN") \(tableName.quotedDatabaseIdentifier)")
        case .unary(let op, let operand):
            return try wrap(op + operand.sql(context, wrapped: true))
        case .compare(let op, let lhs, let rhs):
            return try wrap("\(lhs.sql(context, wrapped: true)) \(op.rawValue) \(rhs.sql(context, wrapped: true))")
        case .not(let operand):
            return try wrap("NOT " + operand.sql(context, wrapped: true))
        case .collated(let operand, let collation):
            return try wrap("\(operand.sql(context)) COLLATE \(collation)")
        case .countAll:
            return "COUNT(*)"
        case .rendered(let fragment):
            return try fragment.sql(context)
        case .qualified(let expression, let alias):
            return try context.qualifying(with: alias) { try expression.sql(context, wrapped: wrapped) }
        case .aliasedRowExists(let isNegated):
            return try aliasedRowExistsSQL(context, isNegated: isNegated, wrapped: wrapped)
        case .filteredAggregate(let aggregate, let filter):
            return try wrap("\(aggregate.sql(context)) FILTER (WHERE \(filter.sql(context)))")
        case .function(let name, let arguments, _, let isDistinct):
            return try name + "(" + (isDistinct ? "DISTINCT " : "")
                + arguments.map { try $0.sql(context) }.joined(separator: ", ") + ")"
        }
    }
}

