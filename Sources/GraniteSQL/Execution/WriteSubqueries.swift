import GraniteStorage

/// The subqueries of a write statement's expressions (INSERT `VALUES`, UPDATE `SET`, `RETURNING`, upsert
/// clauses), all compiled over one row layout: no row (`VALUES`), a row of the written table (its columns, then
/// the rowid, as ``TableWriter`` lays rows out) or two (an upsert's), which correlated subqueries read as their
/// enclosing row.
///
/// The subqueries run through a ``SelectCursor`` over a program with no source whose subqueries they are: it
/// caches an uncorrelated result for the rest of an execution, as SQLite computes one once per statement, and
/// ``start(parameters:)`` begins the next execution.
final class WriteSubqueries {
    private let scope: QueryScope
    private let compiler: SelectCompiler
    private var cursor: SelectCursor?
    /// How many of the scope's subqueries ``cursor``'s program holds.
    private var compiledCount = 0
    /// What evaluates the subqueries in the current execution (set by ``start(parameters:)``).
    private(set) var provider: SubqueryProvider?

    /// Subqueries over the rows of `table` (nil: no row), named `alias` (nil: the table's name); with `excluded`,
    /// over an upsert's existing row followed by the proposed one, named `excluded` (which unqualified names do
    /// not see).
    init(table: TableDefinition?, alias: String? = nil, excluded: Bool = false, compiler: SelectCompiler) {
        scope = QueryScope(outer: nil)
        scope.catalog = compiler.catalog
        scope.connectionCounters = compiler.connection.counters
        if let table {
            scope.add(table: table, alias: alias)
            if excluded { scope.add(table: table, alias: "excluded").hidden = Set(table.columns.indices) }
        }
        self.compiler = compiler
    }

    /// Whether `expression` holds a subquery (and so needs compiling here).
    static func needed(for expression: SQLExpression) -> Bool {
        switch expression.kind {
        case .subquery, .exists, .inSelect, .inTable: return true
        // A row value IN a list is an IN over a VALUES subquery.
        case .inList(let x, let list, _) where !list.isEmpty:
            if case .row = x.kind { return true }
            return RestrictedUse.operands(of: expression).contains(where: needed)
        default: return RestrictedUse.operands(of: expression).contains(where: needed)
        }
    }

    /// Compiles `expression`, registering its subqueries.
    func compile(_ expression: SQLExpression) throws -> CompiledExpression {
        try ExpressionCompiler.compile(expression, resolver: scope)
    }

    /// The values `SET (a, b, …) = (SELECT …)` assigns to its `width` columns, in order: the subquery registered
    /// once as a row value, element 0 running it and the others reading its row (so they must be evaluated in
    /// order, as the assignments of a row are).
    /// - Throws: SQLite's `2 columns assigned 3 values` when the subquery returns another number of columns.
    func compileRow(_ select: SelectStatement, width: Int) throws -> [CompiledExpression] {
        let count = try scope.subqueryWidth(select) ?? compiler.compile(select, outer: scope).columnNames.count
        guard count == width else { throw SQLExecutionError("\(width) columns assigned \(count) values") }
        let id = try scope.registerSubquery(select, kind: .row(width: width))
        return (0..<width).map { k in
            let column = scope.subqueryColumn(select, at: k)
            return CompiledExpression(
                root: .subqueryRowElement(id, k), prelude: [], affinity: column.affinity, collation: column.collation)
        }
    }

    /// Compiles the subqueries registered since the last call.
    private func finish() throws {
        guard scope.subqueries.count != compiledCount else { return }
        var subqueries: [SelectProgram.Subquery] = []
        for (select, kind) in scope.subqueries {
            let program = try compiler.compile(select, outer: scope)
            try kind.checkWidth(program.columnNames.count)
            subqueries.append(.init(program: program, kind: kind, correlated: program.scope.usesOuter))
        }
        let program = SelectProgram(
            columnNames: [], scope: scope, levels: [], preconditions: [], outputs: [], isAggregate: false,
            groupBy: [], aggregates: [], having: nil, distinct: false, ordering: [], bounds: nil,
            subqueries: subqueries, plan: [])
        cursor = SelectCursor(program: program)
        compiledCount = subqueries.count
    }

    /// Begins an execution (forgetting the results of the last one), compiling the subqueries registered since
    /// the last; returns what evaluates them (also ``provider``).
    @discardableResult
    func start(parameters: BoundParameters) throws -> SubqueryProvider? {
        try finish()
        guard let cursor else { return nil }
        try cursor.open(parameters: parameters)
        provider = cursor.context.subqueries
        return provider
    }
}
