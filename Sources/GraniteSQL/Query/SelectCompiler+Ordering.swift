// GROUP BY and ORDER BY terms of a SELECT: positions, result column aliases and expressions they may name, and
// SQLite's checks and errors for them.

import GraniteStorage

extension SelectCompiler {
    /// Compiles the `GROUP BY` terms: a position or a result column alias groups by that result expression.
    func compileGroupBy(_ core: SelectClause, results: ResultColumns, scope: QueryScope) throws -> [(
        expression: CompiledExpression, collation: SQLCollation
    )] {
        var groupBy: [(expression: CompiledExpression, collation: SQLCollation)] = []
        for e in core.groupBy {
            var target = e
            if let k = Self.integerTerm(e) {
                guard k >= 1, k <= core.columns.count, let x = results.expressions[Int(k) - 1] else {
                    throw SQLExecutionError(
                        "\(Self.ordinal(groupBy.count + 1)) GROUP BY term out of range - should be between 1 and "
                            + "\(results.names.count)")
                }
                target = x
            } else if case .column(let reference) = e.kind, reference.table == nil,
                (try? scope.resolve(reference)) == nil,
                let k = Self.aliasIndex(reference.column, core.columns), let x = results.expressions[k]
            {
                target = x
            }
            do {
                let compiled = try compileExpression(target, scope)
                groupBy.append((compiled, compiled.collation ?? .binary))
            } catch let error as SQLExecutionError where error.subject?.isAggregateMisuse == true {
                throw SQLExecutionError("aggregate functions are not allowed in the GROUP BY clause")
            }
        }
        return groupBy
    }

    /// Compiles the `ORDER BY` terms: a position, a result column alias or an expression equal to a result
    /// expression sorts by that result column, anything else by an expression of its own.
    func compileOrderBy(
        _ orderBy: [OrderingTerm], columns: [ResultColumn], results: ResultColumns, scope: QueryScope
    ) throws -> [SelectProgram.SortTerm] {
        let names = results.names
        let outputs = results.outputs
        var sortTerms: [SelectProgram.SortTerm] = []
        for (n, term) in orderBy.enumerated() {
            let descending = term.order == .descending
            let nullsFirst = term.nulls.map { $0 == .first } ?? !descending
            var expression = term.expression
            var explicitCollation: SQLCollation?
            if case .collate(let inner, let name) = expression.kind, let c = SQLCollation(name: name) {
                explicitCollation = c
                expression = inner
            }
            // A position or an alias, possibly with a COLLATE (`ORDER BY 1 COLLATE nocase`, `ORDER BY x COLLATE
            // nocase`), sorts by that result column.
            if let k = Self.integerTerm(expression) {
                guard k >= 1 && k <= names.count else {
                    throw SQLExecutionError(
                        "\(Self.ordinal(n + 1)) ORDER BY term out of range - should be between 1 and \(names.count)")
                }
                let output = Int(k - 1)
                sortTerms.append(
                    .init(
                        output: output, expression: nil, descending: descending, nullsFirst: nullsFirst,
                        collation: explicitCollation ?? outputs[output].collation ?? .binary))
                continue
            }
            if case .column(let reference) = expression.kind, reference.table == nil,
                let k = Self.aliasIndex(reference.column, columns)
            {
                sortTerms.append(
                    .init(
                        output: k, expression: nil, descending: descending, nullsFirst: nullsFirst,
                        collation: explicitCollation ?? outputs[k].collation ?? .binary))
                continue
            }
            // An ORDER BY expression equal to a result expression sorts by that column.
            if let k = results.expressions.firstIndex(where: { $0 == expression }) {
                sortTerms.append(
                    .init(
                        output: k, expression: nil, descending: descending, nullsFirst: nullsFirst,
                        collation: explicitCollation ?? outputs[k].collation ?? .binary))
                continue
            }
            let compiled = try compileExpression(term.expression, scope)
            sortTerms.append(
                .init(
                    output: nil, expression: compiled, descending: descending, nullsFirst: nullsFirst,
                    collation: compiled.collation ?? .binary))
        }
        return sortTerms
    }

    /// Throws SQLite's error for the first out-of-range position among `terms`: a position below 1 (or above
    /// 65535) as the terms are resolved, else one beyond the result columns, found in a second pass.
    static func checkPositions(_ terms: [SQLExpression], clause: String, count: Int) throws {
        let positions = terms.map { term -> Int64? in
            if case .collate(let inner, _) = term.kind { return integerTerm(inner) }
            return integerTerm(term)
        }
        let n =
            positions.firstIndex { $0.map { $0 < 1 || $0 > 0xffff } ?? false }
            ?? positions.firstIndex { $0.map { $0 > count } ?? false }
        if let n {
            throw SQLExecutionError(
                "\(ordinal(n + 1)) \(clause) BY term out of range - should be between 1 and \(count)")
        }
    }

    /// The integer of a GROUP BY or ORDER BY term that is an integer literal, possibly signed (`-1` is an
    /// out-of-range position, as in SQLite).
    static func integerTerm(_ e: SQLExpression) -> Int64? {
        switch e.kind {
        case .literal(.integer(let k)): return k
        case .unary(.plus, let inner): return integerTerm(inner)
        case .unary(.negate, let inner): return integerTerm(inner).map { 0 &- $0 }
        default: return nil
        }
    }

    static func aliasIndex(_ name: String, _ columns: [ResultColumn]) -> Int? {
        columns.firstIndex {
            if case .expression(_, let alias?) = $0 { return SchemaNames.equal(alias, name) }
            return false
        }
    }

    static func ordinal(_ n: Int) -> String {
        switch n {
        case 1: return "1st"
        case 2: return "2nd"
        case 3: return "3rd"
        default: return "\(n)th"
        }
    }
}
