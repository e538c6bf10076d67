// Compound selects (`UNION [ALL]`, `INTERSECT`, `EXCEPT`) and `VALUES` lists: each term compiles to programs of
// its own, a ``CompoundProgram`` combines their rows, and a wrapping ``SelectProgram`` reads those rows as its one
// source to apply the compound's `ORDER BY` and `LIMIT`. Ordinary selects never come here.

import GraniteStorage

extension SelectCompiler {
    /// One compiled term with the core it came from (for resolving `ORDER BY` terms against it).
    private struct CompiledTerm {
        let core: SelectCore
        let term: CompoundProgram.Term
        /// The program `ORDER BY` terms are matched against: the term's only (or first) program.
        var program: SelectProgram { term.programs[0] }
    }

    /// Compiles a compound select, or a `VALUES` list of more than one row, into a program that reads the
    /// compound's rows and sorts and limits them.
    func compileCompound(_ select: SelectStatement, outer: QueryScope?, declaredNames: Bool) throws -> SelectProgram {
        // The terms are compiled with the wrapper's scope as their enclosing one: it has no source of its own
        // yet, so their slots start where its would, and a term reading an enclosing query marks it correlated.
        let scope = QueryScope(outer: outer)
        scope.catalog = catalog
        scope.connectionCounters = connection.counters
        let terms = try compileTerms(select, scope: scope, declaredNames: declaredNames)
        let first = terms[0].program
        let width = first.columnNames.count
        let termCollations = terms.map { compiled in
            (0..<width).map { c in Self.termCollation(ofColumn: c, compiled) }
        }
        // Read as a FROM subquery, a column whose leftmost expression has REAL affinity gives its integers as
        // reals (SQLite reads its rows back through a table with that column type).
        let realColumns = declaredNames ? [] : (0..<width).filter { first.outputs[$0].affinity == .real }
        // The compound sorts its rows itself: with ORDER BY, SQLite merges sorted terms, which decides which of
        // rows equal in their collations survive.
        let collations = CompoundProgram.collations(of: termCollations[...])
        let ordering = try compoundOrdering(select.orderBy, terms: terms, collations: collations)
        let compound = CompoundProgram(
            terms: terms.map(\.term), termCollations: termCollations, ordering: ordering, realColumns: realColumns,
            usesOuter: scope.usesOuter)

        // Read from outside (as a FROM subquery), a column has the affinity and collation of its leftmost
        // expression; the compound's own collations only decide its duplicates and its ORDER BY.
        let names = declaredNames ? first.columnNames : Self.subqueryNames(first.columnNames, terms[0].core)
        let columns = (0..<width).map { c in
            QuerySource.Column(
                name: names[c], affinity: first.outputs[c].affinity, collation: first.outputs[c].collation ?? .binary)
        }
        let source = scope.add(name: "(compound)", table: nil, columns: columns)
        source.used = Set(0..<width)
        let outputs = (0..<width).map { c in
            CompiledExpression.slot(
                source.base + c, affinity: columns[c].affinity, collation: first.outputs[c].collation)
        }
        let bounds = try select.limit.map { try compileBounds($0) }
        let level = SelectProgram.Level(
            source: source, kind: .compound(compound), matchConditions: [], filters: [], isLeft: false)
        var plan = Self.compoundPlan(select, terms)
        if let bounds { plan.insert(contentsOf: Self.planLines(of: bounds.subqueries, numberedFrom: 1), at: 0) }
        let program = SelectProgram(
            columnNames: names, scope: scope, levels: [level], preconditions: [], outputs: outputs,
            isAggregate: false, groupBy: [], aggregates: [], having: nil, distinct: false, ordering: [],
            bounds: bounds, subqueries: [], plan: plan)
        watchInterruptions(program)
        return program
    }

    // MARK: Terms

    /// Compiles every term, leftmost first, checking that they all have as many columns as the first.
    private func compileTerms(_ select: SelectStatement, scope: QueryScope, declaredNames: Bool) throws
        -> [CompiledTerm]
    {
        var terms: [CompiledTerm] = []
        // A VALUES list that starts the statement is a chain of one-row terms joined by UNION ALL (SQLite links
        // them into the compound itself); one further right is a single term, as if in parentheses.
        if case .values(let rows) = select.first {
            for row in rows {
                let program = try compileValuesRow(row, of: rows.count, scope: scope, declaredNames: declaredNames)
                terms.append(
                    CompiledTerm(
                        core: .values([row]), term: .init(op: terms.isEmpty ? nil : .unionAll, programs: [program])))
            }
        } else {
            let core = Self.withoutIgnorableDistinct(select.first, feedsSet: Self.feedsSet(select, from: 0))
            let program = try compileTermCore(core, scope: scope, declaredNames: declaredNames)
            terms.append(CompiledTerm(core: select.first, term: .init(op: nil, programs: program)))
        }
        for (n, compound) in select.compounds.enumerated() {
            let core = Self.withoutIgnorableDistinct(compound.core, feedsSet: Self.feedsSet(select, from: n))
            let programs = try compileTermCore(core, scope: scope, declaredNames: declaredNames)
            terms.append(CompiledTerm(core: compound.core, term: .init(op: compound.op, programs: programs)))
        }
        try Self.checkWidths(terms)
        return terms
    }

    /// Whether the rows of the term left of `select.compounds[n]` (the first core for `n` 0) or of that term go
    /// into a set rather than straight out: when an operator other than `UNION ALL` comes at or right of it, and
    /// the compound has no `ORDER BY` (which merges sorted terms instead).
    private static func feedsSet(_ select: SelectStatement, from n: Int) -> Bool {
        select.orderBy.isEmpty && select.compounds[n...].contains { $0.op != .unionAll }
    }

    /// `core` without its `DISTINCT` when its rows go into a set, which removes duplicates in the compound's
    /// collations instead: SQLite drops such a `DISTINCT` (so that `SELECT DISTINCT b` of a NOCASE column keeps
    /// both `'a'` and `'A'` when the compound compares them with BINARY).
    private static func withoutIgnorableDistinct(_ core: SelectCore, feedsSet: Bool) -> SelectCore {
        guard feedsSet, case .select(var clause) = core, clause.distinct else { return core }
        clause.distinct = false
        return .select(clause)
    }

    /// Throws SQLite's error for the rightmost term whose number of columns differs from its left neighbour's
    /// (SQLite checks each term against the one before it, starting from the right).
    private static func checkWidths(_ terms: [CompiledTerm]) throws {
        for k in stride(from: terms.count - 1, to: 0, by: -1) {
            let right = terms[k]
            guard right.program.columnNames.count != terms[k - 1].program.columnNames.count else { continue }
            if case .values(let rows) = right.core, rows.count == 1 {
                throw SQLExecutionError("all VALUES must have the same number of terms")
            }
            let op = right.term.op ?? .unionAll
            throw SQLExecutionError(
                "SELECTs to the left and right of \(op.rawValue) do not have the same number of result columns")
        }
    }

    /// The programs of one term: the select, or one program per row of a `VALUES` list.
    private func compileTermCore(_ core: SelectCore, scope: QueryScope, declaredNames: Bool) throws
        -> [SelectProgram]
    {
        switch core {
        case .select:
            return [try compile(SelectStatement(first: core), outer: scope, declaredNames: declaredNames)]
        case .values(let rows):
            return try rows.map {
                try compileValuesRow($0, of: rows.count, scope: scope, declaredNames: declaredNames)
            }
        }
    }

    /// One row of a `VALUES` list, compiled as a `SELECT` of its expressions named `column1`, `column2`, ….
    /// A list of several rows may not call aggregates (SQLite codes it as bare expressions); a single row is a
    /// `SELECT` in SQLite too, and may.
    func compileValuesRow(_ row: [SQLExpression], of rowCount: Int = 1, scope: QueryScope?, declaredNames: Bool)
        throws -> SelectProgram
    {
        let columns = row.enumerated().map { n, e in ResultColumn.expression(e, alias: "column\(n + 1)") }
        let program = try compile(
            SelectStatement(first: .select(SelectClause(columns: columns))), outer: scope,
            declaredNames: declaredNames)
        if rowCount > 1, let call = program.scope.aggregates.first {
            // SQLite's message for an aggregate where no query could aggregate (not "misuse of aggregate
            // function f()", which names one in the wrong clause of a query).
            throw SQLExecutionError("misuse of aggregate: \(call.name)()")
        }
        return program
    }

    /// The names of a compound's columns read as a FROM subquery: SQLite names an unaliased column reference
    /// under a `COLLATE` after the column (an ordinary select keeps the expression's text).
    private static func subqueryNames(_ names: [String], _ core: SelectCore) -> [String] {
        guard case .select(let clause) = core, clause.columns.count == names.count else { return names }
        return zip(names, clause.columns).map { name, column in
            guard case .expression(let e, nil) = column, case .collate(let inner, _) = e.kind else { return name }
            var base = inner
            while case .collate(let x, _) = base.kind { base = x }
            if case .column(let reference) = base.kind { return reference.column }
            return name
        }
    }

    /// The collation of compound column `c`'s expression in `compiled`, nil where it has none (a VALUES list
    /// right of the first term reads as a subquery's column, whose collation is `BINARY`).
    private static func termCollation(ofColumn c: Int, _ compiled: CompiledTerm) -> SQLCollation? {
        if compiled.term.op != nil, compiled.term.programs.count > 1 { return .binary }
        return compiled.program.outputs[c].collation
    }

    // MARK: ORDER BY

    /// Resolves the compound's `ORDER BY` terms to its result columns, as SQLite does: a position, else (trying
    /// the terms from the left) a result column alias or an expression equal to a result expression.
    private func compoundOrdering(
        _ orderBy: [OrderingTerm], terms: [CompiledTerm], collations: [SQLCollation]
    ) throws -> [SelectProgram.SortTerm] {
        let width = collations.count
        // SQLite reports an out-of-range position before any term that matches no column.
        for (n, term) in orderBy.enumerated() {
            if let k = Self.integerTerm(Self.withoutCollation(term.expression)), k < 1 || k > width {
                throw SQLExecutionError(
                    "\(Self.ordinal(n + 1)) ORDER BY term out of range - should be between 1 and \(width)")
            }
        }
        var columns: [Int?] = orderBy.map { term in
            Self.integerTerm(Self.withoutCollation(term.expression)).map { Int($0 - 1) }
        }
        for compiled in terms {
            for (n, term) in orderBy.enumerated() where columns[n] == nil {
                columns[n] = try Self.matchingColumn(Self.withoutCollation(term.expression), in: compiled)
            }
        }
        var sortTerms: [SelectProgram.SortTerm] = []
        for (n, term) in orderBy.enumerated() {
            guard let column = columns[n] else {
                throw SQLExecutionError(
                    "\(Self.ordinal(n + 1)) ORDER BY term does not match any column in the result set")
            }
            var collation = collations[column]
            if case .collate(_, let name) = term.expression.kind {
                guard let explicit = SQLCollation(name: name) else {
                    throw SQLExecutionError(.noSuchCollation(name))
                }
                collation = explicit
            }
            let descending = term.order == .descending
            sortTerms.append(
                .init(
                    output: column, expression: nil, descending: descending,
                    nullsFirst: term.nulls.map { $0 == .first } ?? !descending, collation: collation))
        }
        return sortTerms
    }

    private static func withoutCollation(_ e: SQLExpression) -> SQLExpression {
        if case .collate(let inner, _) = e.kind { return inner }
        return e
    }

    /// The result column of `compiled` that `expression` names: by its alias, as the same column, or as an
    /// expression written the same way. `VALUES` columns have no alias to match.
    private static func matchingColumn(_ expression: SQLExpression, in compiled: CompiledTerm) throws -> Int? {
        guard case .select(let clause) = compiled.core else { return nil }
        let program = compiled.program
        if case .column(let reference) = expression.kind {
            if reference.table == nil, let k = aliasIndex(reference.column, clause.columns),
                let output = outputIndex(ofColumn: k, clause.columns, outputCount: program.outputs.count)
            {
                return output
            }
            if let resolved = try? program.scope.resolveLocally(reference),
                let k = program.outputs.firstIndex(where: { $0.slot == resolved.slot })
            {
                return k
            }
        }
        for (k, column) in clause.columns.enumerated() {
            if case .expression(let e, _) = column, e == expression {
                return outputIndex(ofColumn: k, clause.columns, outputCount: program.outputs.count)
            }
        }
        return nil
    }

    /// The output index of result column `k`, when it can be told from the columns: those after a single `*`
    /// are shifted by the number of columns it expanded to; after two or more, it is not known.
    private static func outputIndex(ofColumn k: Int, _ columns: [ResultColumn], outputCount: Int) -> Int? {
        let stars = columns[..<k].filter { if case .expression = $0 { return false } else { return true } }.count
        switch stars {
        case 0: return k
        case 1: return k + outputCount - columns.count
        default: return nil
        }
    }

    // MARK: EXPLAIN QUERY PLAN

    /// SQLite's plan lines for a compound: a VALUES list alone scans its constant rows; without `ORDER BY`,
    /// each term under the operator that joins it, below a `COMPOUND QUERY` line; with one, nested `MERGE`s.
    private static func compoundPlan(_ select: SelectStatement, _ terms: [CompiledTerm]) -> [(Int, String)] {
        if select.compounds.isEmpty, case .values(let rows) = select.first {
            return [(0, "SCAN \(rows.count) CONSTANT ROWS")]
        }
        if !select.orderBy.isEmpty { return mergePlan(terms, through: terms.count - 1, depth: 0) }
        var plan: [(Int, String)] = [(0, "COMPOUND QUERY")]
        for compiled in terms {
            switch compiled.term.op {
            case nil: plan.append((1, "LEFT-MOST SUBQUERY"))
            case .unionAll?: plan.append((1, "UNION ALL"))
            case let op?: plan.append((1, "\(op.rawValue) USING TEMP B-TREE"))
            }
            plan += termPlan(compiled, depth: 2)
        }
        return plan
    }

    /// The plan of terms `0...k` merged: the left side (terms `0..<k`) and the right (term `k`), each sorted.
    private static func mergePlan(_ terms: [CompiledTerm], through k: Int, depth: Int) -> [(Int, String)] {
        let op = terms[k].term.op ?? .unionAll
        var plan: [(Int, String)] = [(depth, "MERGE (\(op.rawValue))"), (depth + 1, "LEFT")]
        plan += k == 1 ? sortedTermPlan(terms[0], depth: depth + 2) : mergePlan(terms, through: k - 1, depth: depth + 2)
        plan.append((depth + 1, "RIGHT"))
        plan += sortedTermPlan(terms[k], depth: depth + 2)
        return plan
    }

    /// A term's plan when it is sorted for a merge: a term reading a table sorts in a temporary b-tree.
    private static func sortedTermPlan(_ compiled: CompiledTerm, depth: Int) -> [(Int, String)] {
        var plan = termPlan(compiled, depth: depth)
        if case .select(let clause) = compiled.core, clause.from != nil {
            plan.append((depth, "USE TEMP B-TREE FOR ORDER BY"))
        }
        return plan
    }

    private static func termPlan(_ compiled: CompiledTerm, depth: Int) -> [(Int, String)] {
        if compiled.term.programs.count > 1 { return [(depth, "SCAN \(compiled.term.programs.count) CONSTANT ROWS")] }
        return compiled.program.plan.map { ($0.depth + depth, $0.detail) }
    }
}
