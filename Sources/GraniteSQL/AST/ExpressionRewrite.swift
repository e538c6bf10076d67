/// Rewriting an expression tree node by node.
extension SQLExpression {
    /// This expression with every node that `rule` replaces replaced, the others rebuilt from their rewritten
    /// operands.
    ///
    /// `rule` sees each node before its operands: a node it returns a replacement for is not searched further.
    /// The queries of subqueries (`EXISTS`, `IN (SELECT …)`, scalar subqueries) and window definitions are left
    /// as they are: they are other scopes. Source ranges are kept.
    func rewritten(_ rule: (SQLExpression) -> SQLExpression?) -> SQLExpression {
        if let replacement = rule(self) { return replacement }
        func rewrite(_ e: SQLExpression) -> SQLExpression { e.rewritten(rule) }
        var result = self
        switch kind {
        case .literal, .parameter, .column, .exists, .subquery:
            return self
        case .unary(let op, let operand):
            result.kind = .unary(op, rewrite(operand))
        case .binary(let op, let left, let right):
            result.kind = .binary(op, rewrite(left), rewrite(right))
        case .collate(let operand, let collation):
            result.kind = .collate(rewrite(operand), collation: collation)
        case .cast(let operand, let type):
            result.kind = .cast(rewrite(operand), type)
        case .function(var call):
            if case .list(let arguments, let distinct) = call.arguments {
                call.arguments = .list(arguments.map(rewrite), distinct: distinct)
            }
            call.filter = call.filter.map(rewrite)
            result.kind = .function(call)
        case .caseWhen(var caseExpression):
            caseExpression.base = caseExpression.base.map(rewrite)
            caseExpression.branches = caseExpression.branches.map {
                CaseExpression.Branch(condition: rewrite($0.condition), result: rewrite($0.result))
            }
            caseExpression.elseResult = caseExpression.elseResult.map(rewrite)
            result.kind = .caseWhen(caseExpression)
        case .between(let operand, let low, let high, let negated):
            result.kind = .between(rewrite(operand), low: rewrite(low), high: rewrite(high), negated: negated)
        case .inList(let operand, let list, let negated):
            result.kind = .inList(rewrite(operand), list.map(rewrite), negated: negated)
        case .inSelect(let operand, let select, let negated):
            result.kind = .inSelect(rewrite(operand), select, negated: negated)
        case .inTable(let operand, let table, let negated):
            result.kind = .inTable(rewrite(operand), table, negated: negated)
        case .like(let operand, let op, let pattern, let escape, let negated):
            result.kind = .like(
                rewrite(operand), op, pattern: rewrite(pattern), escape: escape.map(rewrite), negated: negated)
        case .isNull(let operand, let negated):
            result.kind = .isNull(rewrite(operand), negated: negated)
        case .row(let elements):
            result.kind = .row(elements.map(rewrite))
        }
        return result
    }
}
