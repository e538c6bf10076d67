import GraniteStorage

/// Resolves column names against one table (or none): slots `0..<n` are the declared columns, slot `n` the
/// rowid, and slots after it hold aggregate results registered while compiling.
final class TableScope: ColumnResolver {
    let table: TableDefinition?
    let alias: String?
    let columnCount: Int
    var allowAggregates = false
    private(set) var aggregates: [FunctionCall] = []
    let connectionCounters: ConnectionCounters?

    init(table: TableDefinition?, alias: String? = nil, counters: ConnectionCounters? = nil) {
        self.table = table
        self.alias = alias
        connectionCounters = counters
        self.columnCount = table?.columns.count ?? 0
    }

    /// The slot of the rowid.
    var rowidSlot: Int { columnCount }
    /// The slot of aggregate number `k`.
    func aggregateSlot(_ k: Int) -> Int { columnCount + 1 + k }

    func resolve(_ reference: ColumnReference) throws -> ResolvedColumn {
        guard let table else { throw SQLEvaluationError(.noSuchColumn(reference)) }
        if let qualifier = reference.table, !SchemaNames.equal(qualifier, alias ?? table.name) {
            throw SQLEvaluationError(.noSuchColumn(reference))
        }
        switch SchemaCatalog.Qualifier(reference.schema) {
        case .any: break
        case .main where !table.isTemporary: break
        case .temp where table.isTemporary: break
        default: throw SQLEvaluationError(.noSuchColumn(reference))
        }
        if let index = table.columnIndex(named: reference.column) {
            let column = table.columns[index]
            let collation = column.collation.flatMap { SQLCollation(name: $0) } ?? .binary
            return ResolvedColumn(slot: index, affinity: column.affinity, collation: collation)
        }
        if SchemaNames.isRowidName(reference.column, of: table) {
            return ResolvedColumn(slot: table.rowidAlias ?? rowidSlot, affinity: .integer)
        }
        throw SQLEvaluationError(.noSuchColumn(reference))
    }

    func resolveAggregate(_ call: FunctionCall) throws -> Int {
        guard allowAggregates else { throw SQLEvaluationError(.misuseOfAggregate(function: call.name)) }
        aggregates.append(call)
        return aggregateSlot(aggregates.count - 1)
    }
}
