import GraniteStorage

/// A condition of a query's join, with the most common shape (a column compared with a parameter or a
/// constant) taken apart at compile time, so that testing it per row reads the operands directly instead of
/// walking the expression tree.
enum Condition {
    /// `column <op> ?`
    case columnParameter(SQLComparisonOperator, slot: Int, parameter: Int, ComparisonRule)
    /// `column <op> constant`
    case columnConstant(SQLComparisonOperator, slot: Int, Value, ComparisonRule)
    /// Any other condition.
    case general(CompiledExpression)

    init(_ expression: CompiledExpression) {
        if expression.prelude.isEmpty, case .compare(let op, .column(let slot), let right, let rule) = expression.root {
            switch right {
            case .parameter(let index):
                self = .columnParameter(op, slot: slot, parameter: index, rule)
                return
            case .constant(let value):
                self = .columnConstant(op, slot: slot, value, rule)
                return
            default:
                break
            }
        }
        self = .general(expression)
    }

    /// Whether the condition is true (NULL counts as false), as ``CompiledExpression/isTrue(_:)``.
    @inline(__always)
    func isTrue(_ context: inout EvaluationContext) throws -> Bool {
        switch self {
        case .columnParameter(let op, let slot, let index, let rule):
            return EvalNode.compare(op, context.row[slot], context.parameters[index], rule) == true
        case .columnConstant(let op, let slot, let value, let rule):
            return EvalNode.compare(op, context.row[slot], value, rule) == true
        case .general(let expression):
            return try expression.isTrue(&context)
        }
    }
}
