import GraniteStorage

/// How one comparison converts and orders its operands (resolved at compile time).
struct ComparisonRule: Sendable {
    var leftAffinity: SQLAffinity?
    var rightAffinity: SQLAffinity?
    var collation: SQLCollation
}

/// The node tree of a compiled expression. Evaluated by a single recursive `switch`; no existentials.
indirect enum EvalNode: Sendable {
    case constant(Value)
    case column(Int)
    /// A column read as a JSON function's argument whose value may carry the JSON subtype (`json_each.value`):
    /// the value's slot, and that of its flag (see ``TableFunctionCursor``).
    case subtypedColumn(Int, flag: Int)
    case parameter(Int)
    case aggregate(Int)
    case not(EvalNode)
    case negate(EvalNode)
    case bitwiseNot(EvalNode)
    case and(EvalNode, EvalNode)
    case or(EvalNode, EvalNode)
    case compare(SQLComparisonOperator, EvalNode, EvalNode, ComparisonRule)
    /// A comparison of two row values, pair by pair, each pair by its rule (see
    /// ``compareRows(_:_:_:_:_:)``).
    case rowCompare(SQLComparisonOperator, RowOperand, RowOperand, [ComparisonRule])
    /// `(a, b) [NOT] IN (SELECT x, y …)`, each column as its ``RowMembershipColumn`` says (see
    /// ``rowMembership(_:_:_:_:)``).
    case inRows(RowOperand, SubqueryID, [RowMembershipColumn], negated: Bool)
    /// `x IS [NOT] TRUE|FALSE` (`TK_TRUTH`): `x`'s truth value (NULL counts as neither) against `value`.
    case truth(EvalNode, value: Bool, negated: Bool)
    case arithmetic(SQLArithmeticOperator, EvalNode, EvalNode)
    case isNull(EvalNode, negated: Bool)
    case between(EvalNode, EvalNode, EvalNode, ComparisonRule, ComparisonRule, negated: Bool)
    case inList(EvalNode, [EvalNode], SQLAffinity?, SQLCollation, negated: Bool, eager: Bool)
    /// `x [NOT] IN (list)` of a long list of constants and parameters, searched in its sorted values.
    case inSortedList(EvalNode, SortedInList, negated: Bool)
    case replace(EvalNode, EvalNode, EvalNode)
    case inSubquery(EvalNode, SubqueryID, SQLAffinity?, SQLCollation, negated: Bool)
    case like(EvalNode, pattern: EvalNode, escape: EvalNode?, negated: Bool, blobsNeverMatch: Bool)
    case glob(EvalNode, pattern: EvalNode, negated: Bool, blobsNeverMatch: Bool)
    case searchedCase([(EvalNode, EvalNode)], EvalNode?)
    case simpleCase(EvalNode, [(EvalNode, EvalNode, ComparisonRule)], EvalNode?)
    case cast(EvalNode, SQLAffinity)
    case function(String, [EvalNode])
    /// A call of a scalar function the application registered.
    case userFunction(SQLCustomFunction, [EvalNode])
    /// A call of a JSON function or operator (see EvalNode+JSON.swift for how its arguments keep the JSON
    /// subtype).
    case json(SQLJSONFunction, [EvalNode])
    /// A date and time function in a schema expression SQLite restricts: an error when it reads the clock.
    case restrictedDateTime(String, [EvalNode], RestrictedUse)
    case minMax(isMax: Bool, SQLCollation, [EvalNode])
    case nullif(EvalNode, EvalNode, SQLCollation)
    case coalesce([EvalNode])
    case iif(EvalNode, EvalNode, EvalNode)
    case currentTime, currentDate, currentTimestamp
    /// Jump-context evaluation of the wrapped node (`sqlite3ExprIfTrue`): 1 if true, else 0.
    case condition(EvalNode)
    case scalarSubquery(SubqueryID)
    case exists(SubqueryID)
    /// Element `k` of a row-value subquery's first row (NULL when it returns none), for `SET (a, b) = (SELECT …)`:
    /// element 0 runs the subquery, the later elements read the row it left with the provider, so that the
    /// subquery runs once per written row however many columns it assigns.
    case subqueryRowElement(SubqueryID, Int)

    /// Whether the node is a compile-time constant (safe to fold).
    var constantValue: Value? {
        if case .constant(let v) = self { return v }
        return nil
    }

    func evaluate(_ c: inout EvaluationContext) throws -> Value {
        switch self {
        case .constant(let v): return v
        case .column(let slot): return c.row[slot]
        case .aggregate(let slot): return c.row[slot]
        case .subtypedColumn(let slot, _): return c.row[slot]
        case .parameter(let index): return c.parameters[index]
        case .not(let x): return SQLArithmetic.not(try x.evaluate(&c))
        case .negate(let x): return SQLArithmetic.negate(try x.evaluate(&c))
        case .bitwiseNot(let x): return SQLArithmetic.bitwiseNot(try x.evaluate(&c))
        case .and(let l, let r):
            // Both operands are evaluated (SQLite 3.40 does not short-circuit in value context).
            let a = try l.evaluate(&c).sqlTruth
            let b = try r.evaluate(&c).sqlTruth
            if a == false || b == false { return .integer(0) }
            if a == nil || b == nil { return .null }
            return .integer(1)
        case .or(let l, let r):
            let a = try l.evaluate(&c).sqlTruth
            let b = try r.evaluate(&c).sqlTruth
            if a == true || b == true { return .integer(1) }
            if a == nil || b == nil { return .null }
            return .integer(0)
        case .compare(let op, let l, let r, let rule):
            let a = try l.evaluate(&c)
            let b = try r.evaluate(&c)
            return Self.boolean(Self.compare(op, a, b, rule))
        case .rowCompare(let op, let left, let right, let rules):
            return Self.boolean(try Self.compareRows(op, left, right, rules, &c))
        case .inRows(let operand, let id, let columns, let negated):
            let left = try operand.values(count: columns.count, &c)
            guard let provider = c.subqueries else { throw SQLEvaluationError("subqueries are not supported here") }
            return Self.rowMembership(left, try provider.rows(id, context: &c), columns, negated)
        case .truth(let x, let value, let negated):
            let t = try x.evaluate(&c).sqlTruth
            let r = t == value
            return .integer(r != negated ? 1 : 0)
        case .arithmetic(let op, let l, let r):
            let a = try l.evaluate(&c)
            let b = try r.evaluate(&c)
            return SQLArithmetic.evaluate(op, a, b)
        case .isNull(let x, let negated):
            return .integer(try x.evaluate(&c).isNull != negated ? 1 : 0)
        case .between(let x, let lo, let hi, let r1, let r2, let negated):
            let v = try x.evaluate(&c)
            let a = try lo.evaluate(&c)
            let b = try hi.evaluate(&c)
            let ge = Self.compare(.greaterOrEqual, v, a, r1)
            let le = Self.compare(.lessOrEqual, v, b, r2)
            let result: Bool?
            if ge == false || le == false {
                result = false
            } else if ge == nil || le == nil {
                result = nil
            } else {
                result = true
            }
            guard let result else { return .null }
            return .integer(result != negated ? 1 : 0)
        case .inList(let x, let list, let affinity, let collation, let negated, let eager):
            if eager {
                var values: [Value] = []
                values.reserveCapacity(list.count)
                for e in list { values.append(try e.evaluate(&c)) }
                return Self.membership(try x.evaluate(&c), values, affinity, collation, negated)
            }
            let v = try x.evaluate(&c)
            let rule = ComparisonRule(leftAffinity: affinity, rightAffinity: nil, collation: collation)
            var sawNull = v.isNull
            for e in list {
                let item = try e.evaluate(&c)
                if item.isNull {
                    sawNull = true
                } else if !v.isNull && Self.compare(.equal, v, item, rule) == true {
                    return .integer(negated ? 0 : 1)
                }
            }
            if sawNull { return .null }
            return .integer(negated ? 1 : 0)
        case .inSortedList(let x, let list, let negated):
            return list.membership(try x.evaluate(&c), negated: negated, parameters: c.parameters)
        case .replace(let a, let b, let r):
            let x = try a.evaluate(&c)
            let p = try b.evaluate(&c)
            let rep = try r.evaluate(&c)
            // SQLite tests the pattern's first byte, so a pattern starting with NUL counts as empty and returns
            // `x` unchanged (SQLScalarFunctions.replace checks the byte count instead).
            if !x.isNull, let pb = p.sqlTextBytes, pb.first == 0 {
                return SQLScalarFunctions.replace(x, .text(""), rep)
            }
            return SQLScalarFunctions.replace(x, p, rep)
        case .inSubquery(let x, let id, let affinity, let collation, let negated):
            let v = try x.evaluate(&c)
            guard let provider = c.subqueries else { throw SQLEvaluationError("subqueries are not supported here") }
            let values = try provider.values(id, context: &c)
            if values.isEmpty { return .integer(negated ? 1 : 0) }
            return Self.membership(v, values, affinity, collation, negated)
        case .like(let x, let p, let e, let negated, let blobs):
            let pattern = try p.evaluate(&c)
            let value = try x.evaluate(&c)
            let escape = try e?.evaluate(&c)
            let r = try SQLPatternMatching.like(value, pattern: pattern, escape: escape, blobsNeverMatch: blobs)
            return negated ? SQLArithmetic.not(r) : r
        case .glob(let x, let p, let negated, let blobs):
            let pattern = try p.evaluate(&c)
            let value = try x.evaluate(&c)
            let r = try SQLPatternMatching.glob(value, pattern: pattern, blobsNeverMatch: blobs)
            return negated ? SQLArithmetic.not(r) : r
        case .searchedCase(let branches, let otherwise):
            for (w, t) in branches {
                if try w.evaluate(&c).sqlTruth == true { return try t.evaluate(&c) }
            }
            return try otherwise?.evaluate(&c) ?? .null
        case .simpleCase(let base, let branches, let otherwise):
            let b = try base.evaluate(&c)
            for (w, t, rule) in branches {
                let v = try w.evaluate(&c)
                if Self.compare(.equal, b, v, rule) == true { return try t.evaluate(&c) }
            }
            return try otherwise?.evaluate(&c) ?? .null
        case .cast(let x, let affinity):
            return SQLCast.cast(try x.evaluate(&c), to: affinity)
        case .function(let name, let args):
            var values: [Value] = []
            values.reserveCapacity(args.count)
            for a in args { values.append(try a.evaluate(&c)) }
            return try SQLScalarFunctions.call(name, values)
        case .json(let function, let args):
            return try Self.evaluateJSON(function, args, &c).value
        case .userFunction(let function, let args):
            var values: [Value] = []
            values.reserveCapacity(args.count)
            for a in args { values.append(try a.evaluate(&c)) }
            guard case .scalar(let body) = function.kind else { return .null }
            return try body(values)
        case .restrictedDateTime(let name, let args, let use):
            var values: [Value] = []
            values.reserveCapacity(args.count)
            for a in args { values.append(try a.evaluate(&c)) }
            if SQLDateTime.readsClockOrZone(name, values) {
                throw SQLEvaluationError("non-deterministic use of \(name)() in \(use.object)")
            }
            return try SQLScalarFunctions.call(name, values)
        case .minMax(let isMax, let collation, let args):
            var values: [Value] = []
            values.reserveCapacity(args.count)
            for a in args { values.append(try a.evaluate(&c)) }
            return isMax
                ? SQLScalarFunctions.maximum(values, collation: collation)
                : SQLScalarFunctions.minimum(values, collation: collation)
        case .nullif(let a, let b, let collation):
            let x = try a.evaluate(&c)
            let y = try b.evaluate(&c)
            return SQLComparison.compare(x, y, collation: collation) != 0 ? x : .null
        case .coalesce(let args):
            for a in args.dropLast() {
                let v = try a.evaluate(&c)
                if !v.isNull { return v }
            }
            return try args[args.count - 1].evaluate(&c)
        case .iif(let cond, let t, let f):
            return try cond.evaluate(&c).sqlTruth == true ? t.evaluate(&c) : f.evaluate(&c)
        case .currentTime: return SQLDateTime.time([.text("now")])
        case .currentDate: return SQLDateTime.date([.text("now")])
        case .currentTimestamp: return SQLDateTime.datetime([.text("now")])
        case .condition(let x):
            return .integer(try x.isTrue(&c) ? 1 : 0)
        case .scalarSubquery(let id):
            guard let provider = c.subqueries else { throw SQLEvaluationError("subqueries are not supported here") }
            return try provider.scalar(id, context: &c)
        case .exists(let id):
            guard let provider = c.subqueries else { throw SQLEvaluationError("subqueries are not supported here") }
            return .integer(try provider.exists(id, context: &c) ? 1 : 0)
        case .subqueryRowElement(let id, let k):
            guard let provider = c.subqueries else { throw SQLEvaluationError("subqueries are not supported here") }
            let row = k == 0 ? try provider.row(id, context: &c) : provider.lastRow(id)
            return k < row.count ? row[k] : .null
        }
    }

    /// Whether the node is true, evaluated as SQLite's jump code does (`sqlite3ExprIfFalse(…, SQLITE_JUMPIFNULL)`):
    /// AND and OR short-circuit, NOT and IS TRUE/FALSE pass the test down, BETWEEN tests its bounds in order.
    func isTrue(_ c: inout EvaluationContext) throws -> Bool {
        switch self {
        case .and(let l, let r): return try l.isTrue(&c) && r.isTrue(&c)
        case .or(let l, let r): return try l.isTrue(&c) || r.isTrue(&c)
        case .not(let x): return try x.isFalse(&c)
        case .truth(let x, let value, let negated): return try (value ? x.isTrue(&c) : x.isFalse(&c)) != negated
        case .between(let x, let lo, let hi, let r1, let r2, let negated):
            let v = try x.evaluate(&c)
            if negated {
                if Self.compare(.greaterOrEqual, v, try lo.evaluate(&c), r1) == false { return true }
                return Self.compare(.lessOrEqual, v, try hi.evaluate(&c), r2) == false
            }
            guard Self.compare(.greaterOrEqual, v, try lo.evaluate(&c), r1) == true else { return false }
            return Self.compare(.lessOrEqual, v, try hi.evaluate(&c), r2) == true
        case .condition(let x): return try x.isTrue(&c)
        case .compare(let op, let l, let r, let rule):
            let a = try l.evaluate(&c)
            let b = try r.evaluate(&c)
            return Self.compare(op, a, b, rule) == true
        default: return try evaluate(&c).sqlTruth == true
        }
    }

    /// Whether the node is false (not NULL), with the same jump-code evaluation order as ``isTrue(_:)``.
    func isFalse(_ c: inout EvaluationContext) throws -> Bool {
        switch self {
        case .and(let l, let r): return try l.isFalse(&c) || r.isFalse(&c)
        case .or(let l, let r): return try l.isFalse(&c) && r.isFalse(&c)
        case .not(let x): return try x.isTrue(&c)
        case .truth(let x, let value, let negated): return try (value ? x.isTrue(&c) : x.isFalse(&c)) == negated
        case .between(let x, let lo, let hi, let r1, let r2, let negated):
            let v = try x.evaluate(&c)
            if negated {
                guard Self.compare(.greaterOrEqual, v, try lo.evaluate(&c), r1) == true else { return false }
                return Self.compare(.lessOrEqual, v, try hi.evaluate(&c), r2) == true
            }
            if Self.compare(.greaterOrEqual, v, try lo.evaluate(&c), r1) == false { return true }
            return Self.compare(.lessOrEqual, v, try hi.evaluate(&c), r2) == false
        case .condition(let x): return try x.isFalse(&c)
        default: return try evaluate(&c).sqlTruth == false
        }
    }

    @inline(__always)
    static func boolean(_ b: Bool?) -> Value {
        guard let b else { return .null }
        return .integer(b ? 1 : 0)
    }

    @inline(__always)
    static func compare(_ op: SQLComparisonOperator, _ a: Value, _ b: Value, _ rule: ComparisonRule) -> Bool? {
        SQLComparison.evaluate(
            op, a, b, leftAffinity: rule.leftAffinity, rightAffinity: rule.rightAffinity, collation: rule.collation)
    }

    /// `v [NOT] IN values` for a non-empty list: the left operand's affinity and collation apply to every test.
    static func membership(
        _ v: Value, _ values: [Value], _ affinity: SQLAffinity?, _ collation: SQLCollation, _ negated: Bool
    ) -> Value {
        if v.isNull { return .null }
        var sawNull = false
        let rule = ComparisonRule(leftAffinity: affinity, rightAffinity: nil, collation: collation)
        for e in values {
            if e.isNull {
                sawNull = true
                continue
            }
            if compare(.equal, v, e, rule) == true { return .integer(negated ? 0 : 1) }
        }
        if sawNull { return .null }
        return .integer(negated ? 1 : 0)
    }
}

/// An expression compiled by ``ExpressionCompiler``: names resolved, functions bound, constants folded.
package struct CompiledExpression: Sendable {
    let root: EvalNode
    /// Nodes evaluated (for their errors only) before `root`; see `ExpressionCompiler.Session.operand`.
    let prelude: [EvalNode]

    /// The affinity the expression carries into comparisons (a column's, a `CAST`'s), or `nil`.
    package let affinity: SQLAffinity?
    /// The collation the expression carries (explicit `COLLATE` or a column's), or `nil`.
    package let collation: SQLCollation?
    /// The slot read when the expression is nothing but a column reference, else −1 (evaluated without
    /// walking the node tree).
    let slot: Int

    init(root: EvalNode, prelude: [EvalNode], affinity: SQLAffinity?, collation: SQLCollation?) {
        self.root = root
        self.prelude = prelude
        self.affinity = affinity
        self.collation = collation
        if prelude.isEmpty, case .column(let slot) = root { self.slot = slot } else { self.slot = -1 }
    }

    /// Evaluates the expression against `context`.
    @inline(__always)
    package func evaluate(_ context: inout EvaluationContext) throws -> Value {
        if slot >= 0 { return context.row[slot] }
        if !prelude.isEmpty {
            for p in prelude { _ = try p.evaluate(&context) }
        }
        return try root.evaluate(&context)
    }

    /// The expression's value when it is a compile-time constant.
    package var constantValue: Value? { prelude.isEmpty ? root.constantValue : nil }

    /// Evaluates the expression as a condition (`WHERE`, `ON`, `HAVING`): `true` only for a true value; NULL
    /// counts as false. Like SQLite's jump code, AND/OR short-circuit here (unlike in ``evaluate(_:)``).
    package func isTrue(_ context: inout EvaluationContext) throws -> Bool {
        if !prelude.isEmpty {
            for p in prelude { _ = try p.evaluate(&context) }
        }
        return try root.isTrue(&context)
    }
}

extension CompiledExpression {
    /// An expression reading slot `slot` (a `*` column or a materialized value).
    static func slot(_ slot: Int, affinity: SQLAffinity?, collation: SQLCollation?) -> CompiledExpression {
        CompiledExpression(root: .column(slot), prelude: [], affinity: affinity, collation: collation)
    }

    /// The slot the expression reads, when it is nothing but a column reference.
    var columnSlot: Int? {
        slot >= 0 ? slot : nil
    }
}
