// Whether a partial index that INDEXED BY names can serve a query: only when the query's terms imply the index's
// WHERE, judged as SQLite 3.40 judges it (else SQLite fails with `no query solution`, and so does Granite).

extension AccessPlanner {
    /// Whether index `k` holds an entry for every row `terms` can accept: always for a full index; for a
    /// partial one, only when it is the index `INDEXED BY` names (the planner reads no other partial index) and
    /// `terms` imply each conjunct of its `WHERE`.
    func indexHoldsCandidates(_ k: Int, terms: [SQLExpression]) -> Bool {
        guard let predicate = reader.indexes[k].definition.whereClause else { return true }
        guard namedIndex == k else { return false }
        var conjuncts: [SQLExpression] = []
        SelectCompiler.flatten(predicate, into: &conjuncts)
        let normalizedTerms = terms.flatMap { term in
            let term = normalized(term, bare: queryColumn)
            return [term] + (commuted(term).map { [$0] } ?? [])
        }
        return conjuncts.allSatisfy { conjunct in
            let conjunct = normalized(conjunct, bare: indexColumn)
            return normalizedTerms.contains { implies($0, conjunct) }
        }
    }

    /// Whether the query term `term` implies the index's `conjunct`, by the rules of SQLite's test: the same
    /// expression; one side of a conjunct that is an `OR`; or, for a conjunct `column IS NOT NULL`, a term that
    /// cannot be true when the column is NULL.
    private func implies(_ term: SQLExpression, _ conjunct: SQLExpression) -> Bool {
        if term == conjunct { return true }
        if case .binary(.or, let l, let r) = conjunct.kind { return implies(term, l) || implies(term, r) }
        guard let column = Self.notNullOperand(conjunct), case .column = column.kind else { return false }
        if let bounded = likeBoundedOperand(term, column: column) {
            return impliesNotNull(bounded, column, nested: true)
        }
        return impliesNotNull(term, column, nested: false)
    }

    /// For a `WHERE` term `x LIKE 'abc%'` or `x GLOB 'abc*'`: `x`, when SQLite adds the terms `x >= 'abc'` and
    /// `x < 'abd'` for it, which no NULL satisfies. It does when the pattern is a string whose prefix before
    /// the first wildcard is not empty and, unless `x` is a TEXT column (`column`), does not read as a number.
    private func likeBoundedOperand(_ term: SQLExpression, column: SQLExpression) -> SQLExpression? {
        guard case .like(let x, let op, let pattern, let escape, negated: false) = term.kind,
            op == .like || op == .glob, let string = Self.stringLiteral(pattern)
        else { return nil }
        let wildcards = Array((op == .like ? "%_" : "*?[").utf8)
        var escapeByte: UInt8?
        if let escape {
            guard let e = Self.stringLiteral(escape), e.utf8.count == 1, !wildcards.contains(e.utf8.first!) else {
                return nil
            }
            escapeByte = e.utf8.first
        }
        var prefix: [UInt8] = []
        var bytes = string.utf8.makeIterator()
        while let b = bytes.next(), !wildcards.contains(b) {
            if b == escapeByte {
                guard let escaped = bytes.next() else { break }
                prefix.append(escaped)
            } else {
                prefix.append(b)
            }
        }
        guard let last = prefix.last, last != 0xFF else { return nil }
        let isTextColumn =
            x == column
            && table.columns.contains {
                column == SQLExpression(.column(ColumnReference(column: $0.name))) && $0.affinity == .text
            }
        if !isTextColumn {
            var next = prefix
            next[next.count - 1] = last + 1
            if prefix == Array("-".utf8) || Self.readsAsNumber(prefix) || Self.readsAsNumber(next) { return nil }
        }
        return x
    }

    /// The text of a string literal, `COLLATE` aside.
    private static func stringLiteral(_ e: SQLExpression) -> String? {
        var e = e
        if case .collate(let inner, _) = e.kind { e = inner }
        guard case .literal(.string(let string)) = e.kind else { return nil }
        return string
    }

    /// Whether `bytes`, as text, converts to a number whole.
    private static func readsAsNumber(_ bytes: [UInt8]) -> Bool {
        switch SQLAffinity.numeric.apply(to: .text(String(decoding: bytes, as: UTF8.self))) {
        case .integer, .real: return true
        default: return false
        }
    }

    /// Whether `e` can be true only when `column` is not NULL. Operators that yield NULL for a NULL operand
    /// pass the question to their operands, as SQLite's test does. `nested` is set below a comparison, an
    /// arithmetic operator or `NOT`, where that test no longer looks into a `BETWEEN`.
    private func impliesNotNull(_ e: SQLExpression, _ column: SQLExpression, nested: Bool) -> Bool {
        if e == column || Self.notNullOperand(e) == column { return true }
        func operand(_ x: SQLExpression, nested: Bool = nested) -> Bool {
            impliesNotNull(x, column, nested: nested)
        }
        switch e.kind {
        case .binary(let op, let l, let r):
            switch op {
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .add, .subtract, .bitwiseOr,
                .shiftLeft, .shiftRight, .concatenate:
                return operand(l, nested: true) || operand(r, nested: true)
            case .multiply, .divide, .remainder, .bitwiseAnd: return operand(l) || operand(r)
            case .and: return operand(l) || operand(r)
            case .or: return operand(l) && operand(r)
            default: return false
            }
        case .unary(.not, let x): return operand(x, nested: true)
        case .unary(.plus, let x), .unary(.negate, let x), .collate(let x, _): return operand(x)
        case .between(let x, let low, let high, negated: false):
            return !nested && (operand(x) || operand(low) || operand(high))
        case .inList(let x, let list, _): return !list.isEmpty && operand(x, nested: true)
        case .inSelect(let x, _, negated: false): return operand(x, nested: true)
        default: return false
        }
    }

    /// The operand of `e IS NOT NULL` (or `e NOTNULL`, `e NOT NULL`), if `test` is one.
    private static func notNullOperand(_ test: SQLExpression) -> SQLExpression? {
        switch test.kind {
        case .isNull(let e, negated: true): return e
        case .binary(.isNot, let e, let null) where null.kind == .literal(.null): return e
        default: return nil
        }
    }

    /// `value op column` written as `column op' value`, as SQLite also reads such a term (`0 < d` as `d > 0`).
    private func commuted(_ term: SQLExpression) -> SQLExpression? {
        let flipped: [BinaryOperator: BinaryOperator] = [
            .equal: .equal, .less: .greater, .lessOrEqual: .greaterOrEqual, .greater: .less,
            .greaterOrEqual: .lessOrEqual,
        ]
        guard case .binary(let op, let l, let r) = term.kind, let reversed = flipped[op], case .column = r.kind
        else { return nil }
        return SQLExpression(.binary(reversed, r, l))
    }

    /// A reference in the query to a column of this table, as the bare column name an index's `WHERE` uses.
    private func queryColumn(_ e: SQLExpression) -> SQLExpression? {
        guard let c = column(e), c.column < table.columns.count else { return nil }
        return SQLExpression(.column(ColumnReference(column: table.columns[c.column].name)))
    }

    /// A reference in an index's `WHERE` to a column of this table, spelled as the table declares it.
    private func indexColumn(_ e: SQLExpression) -> SQLExpression? {
        guard case .column(let reference) = e.kind, reference.table == nil,
            let declared = table.columns.first(where: { SchemaNames.equal($0.name, reference.column) })
        else { return nil }
        return SQLExpression(.column(ColumnReference(column: declared.name)))
    }

    /// `e` with each column reference `bare` recognizes rewritten by it, so that a query term and an index's
    /// conjunct naming the same columns compare equal (`x.d > 0` and `D > 0` both become `d > 0`).
    private func normalized(_ e: SQLExpression, bare: (SQLExpression) -> SQLExpression?) -> SQLExpression {
        if let column = bare(e) { return column }
        return e.mappingChildren { normalized($0, bare: bare) }
    }
}
