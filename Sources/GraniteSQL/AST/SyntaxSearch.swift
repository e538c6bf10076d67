/// A search through a statement's syntax tree: every expression node (those of subqueries, common tables, window
/// definitions and join constraints included) and every table name a `FROM` clause or an `IN table` names.
///
/// It answers questions about what running a statement may do before it runs, such as whether it calls a function
/// that may fail or whether its query reads a given table.
struct SyntaxSearch {
    /// Whether an expression node is what the search looks for (its operands are searched apart).
    var matchesExpression: (SQLExpression) -> Bool = { _ in false }
    /// Whether a table name read by a `FROM` clause (or `IN table`) is what the search looks for.
    var matchesTable: (QualifiedName) -> Bool = { _ in false }

    func found(in expression: SQLExpression) -> Bool {
        if matchesExpression(expression) { return true }
        switch expression.kind {
        case .literal, .parameter, .column:
            return false
        case .unary(_, let operand), .collate(let operand, _), .cast(let operand, _), .isNull(let operand, _):
            return found(in: operand)
        case .binary(_, let left, let right):
            return found(in: left) || found(in: right)
        case .function(let call):
            if case .list(let arguments, _) = call.arguments, arguments.contains(where: found(in:)) { return true }
            if let filter = call.filter, found(in: filter) { return true }
            if case .definition(let window) = call.over { return found(in: window) }
            return false
        case .caseWhen(let caseExpression):
            if let base = caseExpression.base, found(in: base) { return true }
            if let elseResult = caseExpression.elseResult, found(in: elseResult) { return true }
            return caseExpression.branches.contains { found(in: $0.condition) || found(in: $0.result) }
        case .between(let operand, let low, let high, _):
            return found(in: operand) || found(in: low) || found(in: high)
        case .inList(let operand, let list, _):
            return found(in: operand) || list.contains(where: found(in:))
        case .inSelect(let operand, let select, _):
            return found(in: operand) || found(in: select)
        case .inTable(let operand, let table, _):
            return found(in: operand) || matchesTable(table)
        case .like(let operand, _, let pattern, let escape, _):
            return found(in: operand) || found(in: pattern) || (escape.map(found(in:)) ?? false)
        case .exists(let select), .subquery(let select):
            return found(in: select)
        case .row(let elements):
            return elements.contains(where: found(in:))
        }
    }

    func found(in select: SelectStatement) -> Bool {
        if let with = select.with, with.tables.contains(where: { found(in: $0.select) }) { return true }
        if found(in: select.first) || select.compounds.contains(where: { found(in: $0.core) }) { return true }
        if select.orderBy.contains(where: { found(in: $0.expression) }) { return true }
        if let limit = select.limit {
            if found(in: limit.limit) { return true }
            if let offset = limit.offset, found(in: offset) { return true }
        }
        return false
    }

    func found(in core: SelectCore) -> Bool {
        switch core {
        case .values(let rows):
            return rows.contains { $0.contains(where: found(in:)) }
        case .select(let clause):
            for column in clause.columns {
                if case .expression(let expression, _) = column, found(in: expression) { return true }
            }
            if let from = clause.from, found(in: from) { return true }
            if let condition = clause.whereClause, found(in: condition) { return true }
            if clause.groupBy.contains(where: found(in:)) { return true }
            if let having = clause.having, found(in: having) { return true }
            return clause.windows.contains { found(in: $0.definition) }
        }
    }

    func found(in from: FromClause) -> Bool {
        if found(in: from.first) { return true }
        return from.joins.contains { join in
            if found(in: join.source) { return true }
            if case .on(let condition) = join.constraint { return found(in: condition) }
            return false
        }
    }

    func found(in source: TableSource) -> Bool {
        switch source {
        case .table(let name, _, _): return matchesTable(name)
        case .subquery(let select, _): return found(in: select)
        case .function(_, let arguments, _): return arguments.contains(where: found(in:))
        }
    }

    func found(in window: WindowDefinition) -> Bool {
        if window.partitionBy.contains(where: found(in:)) { return true }
        if window.orderBy.contains(where: { found(in: $0.expression) }) { return true }
        guard let frame = window.frame else { return false }
        return [frame.start, frame.end].contains { bound in
            switch bound {
            case .preceding(let offset), .following(let offset): return found(in: offset)
            case .unboundedPreceding, .currentRow, .unboundedFollowing: return false
            }
        }
    }

    func found(in columns: [ResultColumn]?) -> Bool {
        guard let columns else { return false }
        return columns.contains { column in
            if case .expression(let expression, _) = column { return found(in: expression) }
            return false
        }
    }
}
