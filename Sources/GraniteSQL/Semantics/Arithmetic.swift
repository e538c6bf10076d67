import GraniteStorage

/// Binary arithmetic and bitwise operators.
package enum SQLArithmeticOperator: Sendable, Hashable {
    case add, subtract, multiply, divide, remainder
    case bitwiseAnd, bitwiseOr, shiftLeft, shiftRight
    /// `||`.
    case concatenate
}

/// SQLite's arithmetic semantics (`OP_Add` … `OP_Remainder`, `OP_BitAnd` …, `OP_Concat`).
package enum SQLArithmetic {
    /// Evaluates `a op b`.
    package static func evaluate(_ op: SQLArithmeticOperator, _ a: Value, _ b: Value) -> Value {
        switch op {
        case .add, .subtract, .multiply, .divide, .remainder: return arithmetic(op, a, b)
        case .bitwiseAnd, .bitwiseOr, .shiftLeft, .shiftRight: return bitwise(op, a, b)
        case .concatenate: return concatenate(a, b)
        }
    }

    /// Unary minus (`0 - x`).
    package static func negate(_ a: Value) -> Value { arithmetic(.subtract, .integer(0), a) }

    /// Bitwise NOT.
    package static func bitwiseNot(_ a: Value) -> Value {
        if a.isNull { return .null }
        return .integer(~a.sqlInteger)
    }

    /// Logical NOT; NULL stays NULL.
    package static func not(_ a: Value) -> Value {
        guard let t = a.sqlTruth else { return .null }
        return .integer(t ? 0 : 1)
    }

    static func arithmetic(_ op: SQLArithmeticOperator, _ a: Value, _ b: Value) -> Value {
        let na = a.sqlNumeric
        let nb = b.sqlNumeric
        if case .integer(let x) = na, case .integer(let y) = nb {
            switch op {
            case .add:
                let (r, o) = x.addingReportingOverflow(y)
                if !o { return .integer(r) }
            case .subtract:
                let (r, o) = x.subtractingReportingOverflow(y)
                if !o { return .integer(r) }
            case .multiply:
                let (r, o) = x.multipliedReportingOverflow(by: y)
                if !o { return .integer(r) }
            case .divide:
                if y == 0 { return .null }
                if !(y == -1 && x == Int64.min) { return .integer(x / y) }
            default:
                if y == 0 { return .null }
                return .integer(y == -1 ? 0 : x % y)
            }
        } else if na.isNull || nb.isNull {
            return .null
        }
        // SQLite reads the operands of floating-point arithmetic afresh from their text (`-0` is -0.0 here,
        // though its numeric type is the integer 0).
        let ra = a.sqlReal
        let rb = b.sqlReal
        var r: Double
        switch op {
        case .add: r = ra + rb
        case .subtract: r = ra - rb
        case .multiply: r = ra * rb
        case .divide:
            if rb == 0 { return .null }
            r = ra / rb
        default:
            let ia = a.sqlInteger
            let ib = b.sqlInteger
            if ib == 0 { return .null }
            r = Double(ib == -1 ? 0 : ia % ib)
        }
        if r.isNaN { return .null }
        return .real(r)
    }

    static func bitwise(_ op: SQLArithmeticOperator, _ a: Value, _ b: Value) -> Value {
        if a.isNull || b.isNull { return .null }
        var x = a.sqlInteger
        var amount = b.sqlInteger
        switch op {
        case .bitwiseAnd: return .integer(x & amount)
        case .bitwiseOr: return .integer(x | amount)
        default: break
        }
        if amount == 0 { return .integer(x) }
        var left = op == .shiftLeft
        if amount < 0 {
            left.toggle()
            amount = amount > -64 ? -amount : 64
        }
        if amount >= 64 {
            x = (x >= 0 || left) ? 0 : -1
        } else {
            var u = UInt64(bitPattern: x)
            if left {
                u <<= UInt64(amount)
            } else {
                u >>= UInt64(amount)
                if x < 0 { u |= UInt64.max << UInt64(64 - amount) }
            }
            x = Int64(bitPattern: u)
        }
        return .integer(x)
    }

    /// `a || b`: NULL if either is NULL, else the concatenated texts.
    /// The bytes are kept exactly: the result is TEXT of bytes that are not valid UTF-8 when the operands' are not.
    package static func concatenate(_ a: Value, _ b: Value) -> Value {
        if case .text(let x) = a, case .text(let y) = b { return .text(x + y) }
        guard let x = a.sqlTextBytes, let y = b.sqlTextBytes else { return .null }
        return .text(utf8: x + y)
    }
}
