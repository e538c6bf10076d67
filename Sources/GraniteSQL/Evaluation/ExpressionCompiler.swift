import GraniteStorage

/// Compiles ``SQLExpression`` trees into ``CompiledExpression``s with SQLite 3.40's semantics.
///
/// Compile-time work: column references are resolved through a ``ColumnResolver``; function names and argument
/// counts are checked (`no such function: f`, `wrong number of arguments to function f()`); each comparison's
/// affinities and collating sequence are fixed (`sqlite3ExprAffinity`, `sqlite3ExprCollSeq`,
/// `sqlite3BinaryCompareCollSeq`); subtrees without columns, parameters, subqueries, aggregates and
/// non-deterministic calls (`random()`, `CURRENT_*`, date/time functions) are folded to constants.
///
/// Parse-time rewrites SQLite performs are mirrored: `x IN ()` is the constant 0 (1 for `NOT IN`) and `x` is not
/// compiled; `x IN (c)` with a single constant `c` becomes `x = c` (`x <> c` for `NOT IN`); `e AND 0` / `0 AND e`
/// (an integer literal 0) is the constant 0 and `e` is not compiled; `x IS [NOT] TRUE|FALSE` tests truth.
///
/// Aggregate calls compile to a read of the slot returned by ``ColumnResolver/resolveAggregate(_:)``; subqueries
/// compile to calls into the context's ``SubqueryProvider`` (see ``ColumnResolver/registerSubquery(_:kind:)``).
/// Row values (RowValues.swift) compare pair by pair, with each other and with subqueries of several columns.
/// Not supported (throw at compile time as SQLite without them does): `MATCH`, `REGEXP`.
package struct ExpressionCompiler {
    /// Models `SQLITE_LIKE_DOESNT_MATCH_BLOBS` (on in Debian's SQLite, which the tests use as the oracle).
    package var likeBlobsNeverMatch: Bool
    /// The schema expression being compiled, if it is one SQLite restricts: its date and time functions then
    /// fail when they read the clock (see ``RestrictedUse``).
    package var restrictedUse: RestrictedUse?

    /// Creates a compiler.
    package init(likeBlobsNeverMatch: Bool = true) {
        self.likeBlobsNeverMatch = likeBlobsNeverMatch
    }

    /// Compiles `expr` with the default options.
    package static func compile(_ expr: SQLExpression, resolver: some ColumnResolver) throws -> CompiledExpression {
        try ExpressionCompiler().compile(expr, resolver: resolver)
    }

    /// Compiles `expr`, resolving names through `resolver`.
    package func compile(_ expr: SQLExpression, resolver: some ColumnResolver) throws -> CompiledExpression {
        var session = Session(
            resolver: resolver, likeBlobsNeverMatch: likeBlobsNeverMatch, restrictedUse: restrictedUse)
        let root = try session.node(expr)
        return CompiledExpression(
            root: root, prelude: session.prelude.filter { $0.constantValue == nil },
            affinity: try session.affinity(expr), collation: try session.collation(expr))
    }

    /// Argument-count ranges (`nil` upper bound: unbounded) of the functions the evaluator knows.
    static let arities: [String: (Int, Int?)] = [
        "length": (1, 1), "lower": (1, 1), "upper": (1, 1), "abs": (1, 1), "round": (1, 2),
        "coalesce": (2, nil), "ifnull": (2, 2), "nullif": (2, 2), "substr": (2, 3), "substring": (2, 3),
        "instr": (2, 2), "replace": (3, 3), "trim": (1, 2), "ltrim": (1, 2), "rtrim": (1, 2), "typeof": (1, 1),
        "hex": (1, 1), "quote": (1, 1), "random": (0, 0), "unicode": (1, 1), "char": (0, nil), "min": (1, nil),
        "max": (1, nil), "iif": (3, 3), "date": (0, nil), "time": (0, nil), "datetime": (0, nil),
        "julianday": (0, nil), "unixepoch": (0, nil), "strftime": (0, nil), "likely": (1, 1), "unlikely": (1, 1),
        "printf": (0, nil), "format": (0, nil), "zeroblob": (1, 1), "randomblob": (1, 1),
        // The Swift string functions GRDB registers on every connection.
        "swiftlowercasestring": (1, 1), "swiftuppercasestring": (1, 1), "swiftcapitalizedstring": (1, 1),
        // Aggregates.
        "count": (0, 1), "sum": (1, 1), "total": (1, 1), "avg": (1, 1), "group_concat": (1, 2),
        "json_group_array": (1, 1), "json_group_object": (2, 2),
    ].merging(SQLJSONFunction.arities) { builtIn, _ in builtIn }
        .merging(ConnectionCounterFunction.arities) { builtIn, _ in builtIn }

    static let aggregates: Set<String> = [
        "count", "sum", "total", "avg", "group_concat", "json_group_array", "json_group_object",
    ]
    static let nonDeterministic: Set<String> = [
        "random", "randomblob", "date", "time", "datetime", "julianday", "unixepoch", "strftime",
    ]
}

extension ExpressionCompiler {
    struct Session<R: ColumnResolver> {
        let resolver: R
        let likeBlobsNeverMatch: Bool
        let restrictedUse: RestrictedUse?
        /// How many conditionally evaluated contexts (CASE branches, later COALESCE / IN items) enclose the node
        /// being compiled.
        var lazyDepth = 0
        /// Constant subexpressions SQLite evaluates once at statement start even when they sit in a branch that
        /// is never taken (see ``operand(_:)``).
        var prelude: [EvalNode] = []
        /// Whether constant operands are factored out (SQLite's `okConstFactor`); off while compiling the inside
        /// of an operand that is itself factored (see ``operand(_:)``).
        var factoring = true

        /// `nodes`, compiled from `expressions`, with each direct read of a column whose values may carry the
        /// JSON subtype (``ResolvedColumn/subtypeFlagSlot``) made a read of the value with its flag.
        func withSubtypes(_ nodes: [EvalNode], _ expressions: [SQLExpression]) throws -> [EvalNode] {
            var nodes = nodes
            for (k, expression) in expressions.enumerated() where k < nodes.count {
                guard case .column(let slot) = nodes[k], case .column(let reference) = expression.kind,
                    let flag = try resolver.resolve(reference).subtypeFlagSlot
                else { continue }
                nodes[k] = .subtypedColumn(slot, flag: flag)
            }
            return nodes
        }
        /// Set when the next node compiled is in jump position (see ``condition(_:)``).
        var pendingJump = false

        init(resolver: R, likeBlobsNeverMatch: Bool, restrictedUse: RestrictedUse? = nil) {
            self.resolver = resolver
            self.likeBlobsNeverMatch = likeBlobsNeverMatch
            self.restrictedUse = restrictedUse
        }

        /// Compiles an expression in an operand position (SQLite codes it with `sqlite3ExprCodeTemp` or as a
        /// factored function argument). SQLite hoists constant operands without `EP_HasFunc` into the statement
        /// prologue, so they run even inside an untaken CASE branch. Because the parser never propagates flags
        /// from BETWEEN's bounds, such an operand can still call a function that fails
        /// (`CASE WHEN 0 THEN NOT (1 BETWEEN 0 AND abs(-9223372036854775808)) END` is an error); those
        /// operands are recorded in ``prelude``.
        ///
        /// A factored operand is coded once with factoring switched off inside it (in the prologue, or inline
        /// under `OP_Once` when it has `EP_HasFunc`), so nothing within it is hoisted: an untaken branch inside
        /// `-CASE WHEN 1 THEN 0 ELSE NOT (1 BETWEEN 0 AND abs(-9223372036854775808)) END` is never evaluated.
        mutating func operand(_ e: SQLExpression) throws -> EvalNode {
            let factored = factoring && isRuntimeConstant(e)
            if factored { factoring = false }
            let n = try node(e)
            if factored { factoring = true }
            if factored, lazyDepth > 0, n.constantValue == nil, !sqliteHasFunction(e), containsCall(e) {
                prelude.append(n)
            }
            return n
        }

        /// Compiles `e` where SQLite codes it as a jump (`sqlite3ExprIfTrue`/`IfFalse`: CASE WHEN, WHERE):
        /// AND / OR / NOT / IS TRUE / BETWEEN then short-circuit. The node evaluates to 1 when `e` is true and to
        /// 0 or NULL otherwise.
        mutating func condition(_ e: SQLExpression) throws -> EvalNode {
            let n = try jumpChild(e)
            return n.constantValue == nil ? .condition(n) : n
        }

        /// Whether SQLite's `sqlite3ExprIfTrue`/`IfFalse` code `e` as a jump of its own; any other expression they
        /// evaluate with `sqlite3ExprCodeTemp`, that is as an operand (which a constant one is factored as).
        static func isCodedAsJump(_ e: SQLExpression) -> Bool {
            switch e.kind {
            case .binary(let op, _, _):
                switch op {
                case .and, .or, .equal, .notEqual, .is, .isNot, .less, .lessOrEqual, .greater, .greaterOrEqual:
                    return true
                default: return false
                }
            case .unary(.not, _), .between, .isNull, .inList, .inSelect, .inTable: return true
            default: return false
            }
        }

        /// Compiles `e` as conditionally evaluated.
        mutating func lazy(_ e: SQLExpression) throws -> EvalNode {
            lazyDepth += 1
            defer { lazyDepth -= 1 }
            return try node(e)
        }

        /// SQLite's `EP_HasFunc` as the parser propagates it (not from BETWEEN's bounds).
        func sqliteHasFunction(_ e: SQLExpression) -> Bool {
            switch e.kind {
            // `->` and `->>` are function calls in SQLite's parse tree.
            case .function, .literal(.currentDate), .literal(.currentTime), .literal(.currentTimestamp), .like,
                .binary(.extract, _, _), .binary(.extractValue, _, _):
                return true
            case .between(let x, _, _, _): return sqliteHasFunction(x)
            default:
                let (l, r, list) = parts(e)
                return (l.map(sqliteHasFunction) ?? false) || (r.map(sqliteHasFunction) ?? false)
                    || list.contains(where: sqliteHasFunction)
            }
        }

        func containsCall(_ e: SQLExpression) -> Bool {
            switch e.kind {
            case .function, .like, .binary(.extract, _, _), .binary(.extractValue, _, _): return true
            default:
                let (l, r, list) = parts(e)
                return (l.map(containsCall) ?? false) || (r.map(containsCall) ?? false)
                    || list.contains(where: containsCall)
            }
        }

        // MARK: Affinity and collation (sqlite3ExprAffinity / sqlite3ExprCollSeq)

        func affinity(_ e: SQLExpression) throws -> SQLAffinity? {
            switch e.kind {
            case .column(let ref): return try resolver.resolve(ref).affinity
            case .parameter(let parameter): return parameter.affinity
            case .cast(_, let type): return SQLAffinity(declaredType: type.name)
            case .collate(let x, _): return try affinity(x)
            case .row(let xs): return try xs.first.flatMap { try affinity($0) }
            case .subquery(let select): return resolver.subqueryColumn(select, at: 0).affinity
            default: return nil
            }
        }

        /// `EP_Collate`: whether an explicit `COLLATE` occurs in the expression (outside subqueries).
        func hasCollate(_ e: SQLExpression) -> Bool {
            switch e.kind {
            case .collate: return true
            case .cast(let x, _), .between(let x, _, _, _): return hasCollate(x)  // the parser skips BETWEEN's bounds
            default:
                let (l, r, list) = parts(e)
                return (l.map(hasCollate) ?? false) || (r.map(hasCollate) ?? false) || list.contains(where: hasCollate)
            }
        }

        /// The operands as SQLite lays them out in its `Expr` (pLeft, pRight, x.pList).
        func parts(_ e: SQLExpression) -> (SQLExpression?, SQLExpression?, [SQLExpression]) {
            switch e.kind {
            case .binary(_, let l, let r): return (l, r, [])
            case .unary(_, let x), .isNull(let x, _), .inSelect(let x, _, _), .inTable(let x, _, _),
                .cast(let x, _), .collate(let x, _):
                return (x, nil, [])
            case .between(let x, let lo, let hi, _): return (x, nil, [lo, hi])
            case .inList(let x, let list, _): return (x, nil, list)
            case .like(let x, _, let p, let esc, _): return (nil, nil, [p, x] + (esc.map { [$0] } ?? []))
            case .function(let call):
                if case .list(let args, _) = call.arguments { return (nil, nil, args) }
                return (nil, nil, [])
            case .caseWhen(let c):
                var list: [SQLExpression] = []
                for b in c.branches { list += [b.condition, b.result] }
                if let e = c.elseResult { list.append(e) }
                return (c.base, nil, list)
            case .row(let xs): return (nil, nil, xs)
            case .literal, .parameter, .column, .exists, .subquery: return (nil, nil, [])
            }
        }

        func collation(_ e: SQLExpression) throws -> SQLCollation? {
            var p: SQLExpression? = e
            while let q = p {
                switch q.kind {
                case .column(let ref): return try resolver.resolve(ref).collation
                case .parameter(let parameter) where parameter.collation != nil: return parameter.collation
                case .cast(let x, _), .unary(.plus, let x): p = x
                case .row(let xs): p = xs.first
                case .collate(_, let name): return try Self.namedCollation(name)
                default:
                    guard hasCollate(q) else { return nil }
                    let (l, r, list) = parts(q)
                    if let l, hasCollate(l) {
                        p = l
                    } else {
                        p = list.first(where: hasCollate) ?? r
                    }
                }
            }
            return nil
        }

        static func namedCollation(_ name: String) throws -> SQLCollation {
            guard let c = SQLCollation(name: name) else {
                throw SQLEvaluationError(.noSuchCollation(name))
            }
            return c
        }

        /// `sqlite3BinaryCompareCollSeq`.
        func comparisonCollation(_ l: SQLExpression, _ r: SQLExpression) throws -> SQLCollation {
            if hasCollate(l) { return try collation(l) ?? .binary }
            if hasCollate(r) { return try collation(r) ?? .binary }
            return try collation(l) ?? collation(r) ?? .binary
        }

        func rule(_ l: SQLExpression, _ r: SQLExpression) throws -> ComparisonRule {
            ComparisonRule(
                leftAffinity: try affinity(l), rightAffinity: try affinity(r), collation: try comparisonCollation(l, r))
        }

        /// `sqlite3ExprIsConstant` as the parser sees it: no columns, calls or subqueries.
        func isParseConstant(_ e: SQLExpression) -> Bool {
            switch e.kind {
            case .column, .function, .exists, .subquery, .inSelect, .inTable: return false
            case .literal(.currentDate), .literal(.currentTime), .literal(.currentTimestamp): return false
            default:
                let (l, r, list) = parts(e)
                return (l.map(isParseConstant) ?? true) && (r.map(isParseConstant) ?? true)
                    && list.allSatisfy(isParseConstant)
            }
        }

        // MARK: Nodes

        /// Folds `node` to a constant when all `children` are constants and evaluating it does not fail.
        func fold(_ node: EvalNode, _ children: [EvalNode]) -> EvalNode {
            guard children.allSatisfy({ $0.constantValue != nil }) else { return node }
            var context = EvaluationContext()
            guard let v = try? node.evaluate(&context) else { return node }
            return .constant(v)
        }

        /// Compiles a child of a node in jump position that SQLite also codes as a jump (AND, OR, NOT, IS TRUE).
        mutating func jumpChild(_ e: SQLExpression) throws -> EvalNode {
            if !Self.isCodedAsJump(e) { return try operand(e) }
            pendingJump = true
            return try node(e)
        }

        mutating func node(_ e: SQLExpression) throws -> EvalNode {
            let jump = pendingJump
            pendingJump = false
            switch e.kind {
            case .literal(let lit):
                switch lit {
                case .integer(let i): return .constant(.integer(i))
                case .real(let r): return .constant(.real(r))
                case .string(let s): return .constant(.text(s))
                case .blob(let b): return .constant(.blob(b))
                case .null: return .constant(.null)
                case .true: return .constant(.integer(1))
                case .false: return .constant(.integer(0))
                case .currentTime: return .currentTime
                case .currentDate: return .currentDate
                case .currentTimestamp: return .currentTimestamp
                }
            case .parameter(let p): return .parameter(p.index)
            case .column(let ref): return .column(try resolver.resolve(ref).slot)
            case .collate(let x, let name):
                _ = try Self.namedCollation(name)
                return try node(x)
            case .unary(let op, let x):
                // SQLite codes `-1.5` as the literal negated, not as `0 - 1.5`: `-0.0` keeps its sign.
                if op == .negate, case .literal(.real(let r)) = x.kind { return .constant(.real(-r)) }
                let n = try op == .plus ? node(x) : (op == .not && jump) ? jumpChild(x) : operand(x)
                switch op {
                case .plus: return n
                case .negate: return fold(.negate(n), [n])
                case .bitwiseNot: return fold(.bitwiseNot(n), [n])
                case .not: return fold(.not(n), [n])
                }
            case .binary(let op, let l, let r):
                return try binary(op, l, r, jump: jump)
            case .cast(let x, let type):
                let n = try node(x)
                return fold(.cast(n, SQLAffinity(declaredType: type.name)), [n])
            case .function(let call):
                return try function(call)
            case .caseWhen(let c):
                return try caseNode(c)
            case .between(let x, let lo, let hi, let negated):
                return try betweenNode(e, x, lo, hi, negated: negated, jump: jump)
            case .inList(let x, let list, let negated):
                return try inListNode(x, list, negated: negated)
            case .inSelect(let x, let select, let negated):
                return try inSelectNode(x, select, negated: negated)
            case .inTable(let x, let table, let negated):
                // `x IN t` is SQLite's shorthand for `x IN (SELECT * FROM t)` (a table or a common table).
                let all = SelectClause(
                    distinct: false, columns: [.all], from: FromClause(first: .table(table, alias: nil)),
                    whereClause: nil, groupBy: [], having: nil)
                return try inSelectNode(x, SelectStatement(first: .select(all)), negated: negated)
            case .like(let x, let op, let pattern, let escape, let negated):
                return try likeNode(e, x, op, pattern, escape, negated: negated)
            case .isNull(let x, let negated):
                let n = try operand(x)
                return fold(.isNull(n, negated: negated), [n])
            case .exists(let select):
                return .exists(try resolver.registerSubquery(select, kind: .exists))
            case .subquery(let select):
                return .scalarSubquery(try resolver.registerSubquery(select, kind: .scalar))
            case .row:
                throw SQLEvaluationError("row value misused")
            }
        }

        /// `ExprAlwaysFalse` at parse time: an integer literal 0, or `x IN ()` (which the parser turns into FALSE).
        static func isLiteralZero(_ e: SQLExpression) -> Bool {
            switch e.kind {
            case .literal(.integer(0)), .inList(_, [], negated: false): return true
            default: return false
            }
        }

        /// The right operand of `IS [NOT]` when SQLite turns the test into `TK_TRUTH`: TRUE/FALSE, including the
        /// TRUE/FALSE the parser substitutes for `x [NOT] IN ()`, under any COLLATE (not under likely(): SQLite
        /// checks before the call is resolved).
        static func truthLiteral(_ e: SQLExpression) -> Bool? {
            var e = e
            while true {
                switch e.kind {
                case .collate(let x, _):
                    e = x
                case .literal(.true): return true
                case .literal(.false): return false
                case .inList(_, [], let negated): return negated
                default: return nil
                }
            }
        }

        /// Whether SQLite treats the expression as constant at code generation (`sqlite3ExprIsConstant` after name
        /// resolution): parameters and deterministic calls count, columns, `random()`, aggregates and subqueries
        /// do not.
        func isRuntimeConstant(_ e: SQLExpression) -> Bool {
            switch e.kind {
            case .column, .exists, .subquery, .inSelect, .inTable: return false
            case .function(let call):
                let name = SQLFormat.asciiLowercased(call.name)
                if name == "random" || name == "randomblob" || ExpressionCompiler.aggregates.contains(name) {
                    return false
                }
                if ConnectionCounterFunction(name: name) != nil { return false }
                if case .list(let args, _) = call.arguments {
                    if let custom = SQLFunctionRegistry.current?.function(named: name, argumentCount: args.count),
                        custom.isAggregate || !custom.isDeterministic
                    {
                        return false
                    }
                    if (name == "min" || name == "max") && args.count == 1 { return false }
                    return args.allSatisfy(isRuntimeConstant)
                }
                return false
            default:
                let (l, r, list) = parts(e)
                return (l.map(isRuntimeConstant) ?? true) && (r.map(isRuntimeConstant) ?? true)
                    && list.allSatisfy(isRuntimeConstant)
            }
        }

        mutating func binary(
            _ op: BinaryOperator, _ l: SQLExpression, _ r: SQLExpression, jump: Bool = false
        ) throws -> EvalNode {
            let comparison: SQLComparisonOperator
            switch op {
            case .and:
                if Self.isLiteralZero(l) || Self.isLiteralZero(r) { return .constant(.integer(0)) }
                let a = try jump ? jumpChild(l) : operand(l)
                let b = try jump ? jumpChild(r) : operand(r)
                return fold(.and(a, b), [a, b])
            case .or:
                let a = try jump ? jumpChild(l) : operand(l)
                let b = try jump ? jumpChild(r) : operand(r)
                return fold(.or(a, b), [a, b])
            case .equal: comparison = .equal
            case .notEqual: comparison = .notEqual
            case .less: comparison = .less
            case .lessOrEqual: comparison = .lessOrEqual
            case .greater: comparison = .greater
            case .greaterOrEqual: comparison = .greaterOrEqual
            case .is, .isNot:
                if let t = Self.truthLiteral(r) {
                    let a = try jump ? jumpChild(l) : operand(l)
                    return fold(.truth(a, value: t, negated: op == .isNot), [a])
                }
                comparison = op == .is ? .is : .isNot
            case .add: return try arithmetic(.add, l, r)
            case .subtract: return try arithmetic(.subtract, l, r)
            case .multiply: return try arithmetic(.multiply, l, r)
            case .divide: return try arithmetic(.divide, l, r)
            case .remainder: return try arithmetic(.remainder, l, r)
            case .bitwiseAnd: return try arithmetic(.bitwiseAnd, l, r)
            case .bitwiseOr: return try arithmetic(.bitwiseOr, l, r)
            case .shiftLeft: return try arithmetic(.shiftLeft, l, r)
            case .shiftRight: return try arithmetic(.shiftRight, l, r)
            case .concatenate: return try arithmetic(.concatenate, l, r)
            case .extract, .extractValue:
                let a = try operand(l)
                let b = try operand(r)
                let function: SQLJSONFunction = op == .extract ? .arrow : .doubleArrow
                return SQLJSONFunction.locateCall(function, [a, b]) ?? .json(function, [a, b])
            }
            if isRowValue(l) || isRowValue(r) { return try rowComparison(comparison, l, r) }
            let a = try operand(l)
            let b = try operand(r)
            return fold(.compare(comparison, a, b, try rule(l, r)), [a, b])
        }

        mutating func arithmetic(_ op: SQLArithmeticOperator, _ l: SQLExpression, _ r: SQLExpression) throws -> EvalNode
        {
            let a = try operand(l)
            let b = try operand(r)
            return fold(.arithmetic(op, a, b), [a, b])
        }

        mutating func function(_ call: FunctionCall) throws -> EvalNode {
            // A SELECT computes its window functions before its expressions (SelectCompiler+Windows.swift): one
            // reaching here is where none may be.
            if call.over != nil {
                _ = try WindowFunction.of(call)
                throw SQLEvaluationError(.misuseOfWindowFunction(call.name))
            }
            let name = SQLFormat.asciiLowercased(call.name)
            if name == TriggerRow.raiseFunction, case .list(let args, _) = call.arguments {
                // Only the parser makes this call (from `RAISE(…)`); its message is computed when it raises.
                return .function(name, try args.map { try operand($0) })
            }
            let args: [SQLExpression]
            var distinct = false
            switch call.arguments {
            case .star:
                // `f(*)` is a call of `f` without arguments, for every function (SQLite parses it so).
                args = []
            case .list(let a, let d):
                args = a
                distinct = d
            }
            if name == SQLJSONFunction.aggregateArgumentName, args.count == 1 {
                return .json(.windowAggregateArgument, [try operand(args[0])])
            }
            let registry = SQLFunctionRegistry.current
            if let custom = registry?.function(named: name, argumentCount: args.count) {
                return try userFunction(custom, call, args, distinct: distinct)
            }
            guard let (lo, hi) = ExpressionCompiler.arities[name] else {
                if WindowFunction.builtIn[name] != nil {
                    throw SQLEvaluationError(.misuseOfWindowFunction(call.name))
                }
                if registry?.hasFunction(named: name) == true {
                    throw SQLEvaluationError("wrong number of arguments to function \(call.name)()")
                }
                throw SQLEvaluationError(.noSuchFunction(call.name))
            }
            if args.count < lo || (hi.map { args.count > $0 } ?? false) {
                throw SQLEvaluationError("wrong number of arguments to function \(call.name)()")
            }
            if ExpressionCompiler.aggregates.contains(name) || ((name == "min" || name == "max") && args.count == 1) {
                let slot = EvalNode.aggregate(try resolver.resolveAggregate(call))
                if name == "json_group_array" || name == "json_group_object" { return .json(.aggregateResult, [slot]) }
                return slot
            }
            if call.filter != nil {
                throw SQLEvaluationError("FILTER may not be used with non-aggregate \(call.name)()")
            }
            if distinct {
                throw SQLEvaluationError("DISTINCT aggregates must have exactly one argument")
            }
            if args.isEmpty, let counter = ConnectionCounterFunction(name: name) {
                guard let counters = resolver.connectionCounters else {
                    throw SQLEvaluationError(.noSuchFunction(call.name))
                }
                return counter.node(reading: counters, name: name)
            }
            // SQLite codes a constant call once (`sqlite3ExprCodeRunJustOnce`), with factoring off inside it, before
            // it looks at what the function is (so this holds for the inline iif/coalesce too).
            let factored = factoring && name != "random" && name != "randomblob" && args.allSatisfy(isRuntimeConstant)
            if factored { factoring = false }
            defer { if factored { factoring = true } }
            var nodes: [EvalNode] = []
            switch name {
            case "iif":
                nodes = [try condition(args[0]), try lazy(args[1]), try lazy(args[2])]
            case "coalesce", "ifnull", "likely", "unlikely":
                // Compiled inline by SQLite: arguments are coded in place, and all but the first conditionally.
                for (k, a) in args.enumerated() { nodes.append(try k == 0 ? node(a) : lazy(a)) }
            default:
                for a in args { nodes.append(try operand(a)) }
            }
            switch name {
            case "coalesce", "ifnull":
                return fold(.coalesce(nodes), nodes)
            case "iif":
                return fold(.iif(nodes[0], nodes[1], nodes[2]), nodes)
            case "likely", "unlikely":
                return nodes[0]
            case "min", "max", "nullif":
                var coll: SQLCollation?
                for a in args where coll == nil { coll = try collation(a) }
                if name == "nullif" { return fold(.nullif(nodes[0], nodes[1], coll ?? .binary), nodes) }
                return fold(.minMax(isMax: name == "max", coll ?? .binary, nodes), nodes)
            case "replace":
                return fold(.replace(nodes[0], nodes[1], nodes[2]), nodes)
            default:
                // Never folded: a constant would lose the JSON subtype (see EvalNode+JSON.swift).
                if let json = SQLJSONFunction(name: name) {
                    let arguments = try withSubtypes(nodes, args)
                    return SQLJSONFunction.locateCall(json, arguments) ?? .json(json, arguments)
                }
                if let use = restrictedUse, SQLDateTime.functionNames.contains(name) {
                    return .restrictedDateTime(name, nodes, use)
                }
                let n = EvalNode.function(name, nodes)
                return ExpressionCompiler.nonDeterministic.contains(name) ? n : fold(n, nodes)
            }
        }
    }
}

extension ExpressionCompiler.Session {
    /// A call of a function the application registered: an aggregate reads its slot like a built-in one; a
    /// scalar call is never folded (the application's function runs when the statement runs, as in SQLite).
    mutating func userFunction(
        _ function: SQLCustomFunction, _ call: FunctionCall, _ args: [SQLExpression], distinct: Bool
    ) throws -> EvalNode {
        if function.isAggregate { return .aggregate(try resolver.resolveAggregate(call)) }
        if distinct { throw SQLEvaluationError("DISTINCT aggregates must have exactly one argument") }
        var nodes: [EvalNode] = []
        for a in args { nodes.append(try operand(a)) }
        return .userFunction(function, nodes)
    }
}

extension SQLFormat {
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
