import GraniteStorage

/// A schema expression SQLite restricts (its `NC_IdxExpr`, `NC_PartIdx` and `NC_IsCheck` name contexts): what it
/// may not hold is refused when the schema is created, and the date and time functions, deterministic except
/// when they read the clock or the time zone, are checked as they run (see ``SQLDateTime/readsClockOrZone(_:_:)``).
package enum RestrictedUse: Sendable, Equatable {
    /// A key expression of `CREATE INDEX`.
    case indexExpression
    /// The `WHERE` clause of a partial index.
    case partialIndexWhere
    /// A `CHECK` constraint.
    case check
    /// The expression of a generated column.
    case generatedColumn

    /// The clause as SQLite's compile-time messages name it.
    var clause: String {
        switch self {
        case .indexExpression: return "index expressions"
        case .partialIndexWhere: return "partial index WHERE clauses"
        case .check: return "CHECK constraints"
        case .generatedColumn: return "generated columns"
        }
    }

    /// The object as SQLite's run-time message (`non-deterministic use of date() in an index`) names it.
    var object: String {
        switch self {
        case .indexExpression, .partialIndexWhere: return "an index"
        case .check: return "a CHECK constraint"
        case .generatedColumn: return "a generated column"
        }
    }

    /// Whether non-deterministic functions (`random()`, `CURRENT_TIME`…) are refused. SQLite allows them in
    /// `CHECK` constraints.
    var refusesNonDeterministic: Bool { self != .check }

    /// The functions Granite knows that SQLite registers without `SQLITE_DETERMINISTIC` (`CURRENT_*` are
    /// functions there too). The date and time functions are deterministic unless they read the clock.
    static let nonDeterministicFunctions: Set<String> = [
        "random", "randomblob", "changes", "total_changes", "last_insert_rowid",
    ]

    /// Throws SQLite's error for what `expression` may not hold here, with names resolved by `scope`. As in
    /// SQLite's name resolution, a subquery, a parameter or an unknown name stops the walk at once, while a
    /// non-deterministic function or an aggregate call is reported only when nothing after it is wrong (the
    /// last one wins): `random() + (SELECT 1)` and `(SELECT 1) + random()` both say `subqueries prohibited in
    /// index expressions`, `random() + count(*)` says `misuse of aggregate function count()`.
    func validate(_ expression: SQLExpression, names scope: TableScope) throws {
        var pending: SchemaError?
        try walk(expression, scope, &pending)
        if let pending { throw pending }
    }

    private func walk(_ expression: SQLExpression, _ scope: TableScope, _ pending: inout SchemaError?) throws {
        switch expression.kind {
        case .subquery, .exists, .inSelect:
            throw SchemaError("subqueries prohibited in \(clause)")
        case .parameter:
            throw SchemaError("parameters prohibited in \(clause)")
        case .column(let reference):
            // A generated column reads the declared columns only: the rowid is no name there.
            if self == .generatedColumn, reference.table == nil, SchemaNames.isRowidName(reference.column),
                scope.table?.columnIndex(named: reference.column) == nil
            {
                throw SchemaError(.noSuchColumn(reference))
            }
            _ = try scope.resolve(reference)
        case .literal(.currentDate), .literal(.currentTime), .literal(.currentTimestamp):
            if refusesNonDeterministic { pending = SchemaError("non-deterministic functions prohibited in \(clause)") }
        case .function(let call) where call.over != nil:
            pending = SchemaError(.misuseOfWindowFunction(call.name))
        case .function(let call):
            let name = SQLFormat.asciiLowercased(call.name)
            var arguments = 0
            if case .list(let list, _) = call.arguments { arguments = list.count }
            if let user = SQLFunctionRegistry.current?.function(named: name, argumentCount: arguments) {
                if user.isAggregate {
                    pending = SchemaError(.misuseOfAggregate(function: call.name))
                } else if refusesNonDeterministic, !user.isDeterministic {
                    pending = SchemaError("non-deterministic functions prohibited in \(clause)")
                }
            } else if ExpressionCompiler.aggregates.contains(name)
                || ((name == "min" || name == "max") && arguments == 1)
            {
                pending = SchemaError(.misuseOfAggregate(function: call.name))
            } else if refusesNonDeterministic, Self.nonDeterministicFunctions.contains(name) {
                pending = SchemaError("non-deterministic functions prohibited in \(clause)")
            }
        default:
            break
        }
        for child in Self.children(expression) { try walk(child, scope, &pending) }
    }

    /// Whether a column's `DEFAULT` is constant as SQLite requires when the table is created
    /// (`sqlite3ExprIsConstantOrFunction`): no column, parameter or subquery; functions are allowed.
    static func isConstantDefault(_ expression: SQLExpression) -> Bool {
        switch expression.kind {
        case .column, .parameter, .subquery, .exists, .inSelect, .inTable: return false
        case .function(let call) where call.over != nil: return false
        default: return children(expression).allSatisfy(isConstantDefault)
        }
    }

    /// The operands of `expression`, left to right.
    static func operands(of expression: SQLExpression) -> [SQLExpression] { children(expression) }

    private static func children(_ e: SQLExpression) -> [SQLExpression] {
        switch e.kind {
        case .binary(_, let l, let r): return [l, r]
        case .unary(_, let x), .isNull(let x, _), .inSelect(let x, _, _), .inTable(let x, _, _), .cast(let x, _),
            .collate(let x, _):
            return [x]
        case .between(let x, let lo, let hi, _): return [x, lo, hi]
        case .inList(let x, let list, _): return [x] + list
        case .like(let x, _, let p, let esc, _): return [x, p] + (esc.map { [$0] } ?? [])
        case .function(let call):
            if case .list(let args, _) = call.arguments { return args }
            return []
        case .caseWhen(let c):
            var list: [SQLExpression] = c.base.map { [$0] } ?? []
            for b in c.branches { list += [b.condition, b.result] }
            if let e = c.elseResult { list.append(e) }
            return list
        case .row(let xs): return xs
        case .literal, .parameter, .column, .exists, .subquery: return []
        }
    }
}

extension IndexDefinition {
    /// Refuses what SQLite refuses in the key expressions and `WHERE` clause of an index on `table` (see
    /// ``RestrictedUse``).
    package static func validateExpressions(of statement: CreateIndexStatement, on table: TableDefinition) throws {
        let scope = TableScope(table: table)
        for column in statement.columns where column.columnName == nil {
            try RestrictedUse.indexExpression.validate(column.expression, names: scope)
        }
        if let condition = statement.whereClause {
            try RestrictedUse.partialIndexWhere.validate(condition, names: scope)
        }
    }
}

extension TableDefinition {
    /// Refuses what SQLite refuses in the table's column defaults (`default value of column [a] is not
    /// constant`) and `CHECK` constraints (see ``RestrictedUse``).
    package func validateExpressions() throws {
        for column in columns {
            if let value = column.defaultValue, !RestrictedUse.isConstantDefault(value) {
                throw SchemaError("default value of column [\(column.name)] is not constant")
            }
        }
        try validateChecks()
    }

    /// Refuses what SQLite refuses in the table's `CHECK` constraints and generated columns (see
    /// ``RestrictedUse``).
    package func validateChecks() throws {
        let scope = TableScope(table: self)
        for column in columns {
            if let generated = column.generated {
                try RestrictedUse.generatedColumn.validate(generated.expression, names: scope)
            }
        }
        for check in checks { try RestrictedUse.check.validate(check.expression, names: scope) }
    }
}
