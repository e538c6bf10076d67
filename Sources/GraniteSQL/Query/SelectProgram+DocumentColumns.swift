// Which table columns a query reads only as JSON documents, so that their table cursors keep a TEXT's stored
// bytes for the JSON calls instead of decoding it into a String (see StoredDocument).

import GraniteStorage

extension SelectProgram {
    /// The levels with each table level's ``Level/documentColumns`` set: the columns whose every read in the program is the
    /// document of a located JSON call (`json_extract(c, 'path')`, `c -> 'path'`, `c ->> 'path'` with a constant
    /// path) or the document argument of `json_each` / `json_tree`, made while the column's row is the join's
    /// current row.
    ///
    /// The reads made on the current row are the levels' conditions and access paths, table-valued functions'
    /// arguments, and, for a query that does not aggregate, its outputs and `ORDER BY` terms; for an aggregate
    /// query, the aggregates' arguments and `FILTER` conditions. An aggregate query's outputs, `HAVING` and
    /// `GROUP BY` terms read a group's representative row, a copy that holds no document bytes, so any read
    /// there counts as a plain one. A query with subqueries (which may read any slot) marks nothing.
    func markingDocumentColumns() -> [Level] {
        guard subqueries.isEmpty, levels.contains(where: \.isTableLevel) else { return levels }
        var reads = SlotReads()
        for level in levels { reads.addReads(of: level) }
        for expression in preconditions { reads.add(expression, onCurrentRow: true) }
        if isAggregate {
            for call in aggregates {
                for argument in call.arguments { reads.add(argument, onCurrentRow: true) }
                if let filter = call.filter { reads.add(filter, onCurrentRow: true) }
            }
            for output in outputs { reads.add(output, onCurrentRow: false) }
            for term in groupBy { reads.add(term.expression, onCurrentRow: false) }
            if let having { reads.add(having, onCurrentRow: false) }
            for term in ordering { if let expression = term.expression { reads.add(expression, onCurrentRow: false) } }
        } else {
            for output in outputs { reads.add(output, onCurrentRow: true) }
            for term in ordering { if let expression = term.expression { reads.add(expression, onCurrentRow: true) } }
        }
        guard reads.isComplete else { return levels }
        let documentOnly = reads.documents.subtracting(reads.plain)
        guard !documentOnly.isEmpty else { return levels }
        var marked = levels
        for k in marked.indices where marked[k].isTableLevel {
            let source = marked[k].source
            let columns = source.columns.indices.filter { documentOnly.contains(source.base + $0) }
            marked[k].documentColumns = Set(columns)
        }
        return marked
    }
}

extension SelectProgram.Level {
    /// Whether the level reads a stored table.
    var isTableLevel: Bool {
        if case .table = kind { return true }
        return false
    }
}

/// The slots a program's expressions read, split into reads as a JSON document on the current row and other
/// reads (see ``SelectProgram/markingDocumentColumns()``).
private struct SlotReads {
    var plain = Set<Int>()
    var documents = Set<Int>()
    /// False once an expression may read slots it does not name.
    var isComplete = true

    /// Adds the reads of `expression`; those it makes as a JSON document count as such only `onCurrentRow`.
    mutating func add(_ expression: CompiledExpression, onCurrentRow: Bool) {
        var found: Set<Int>? = onCurrentRow ? [] : nil
        for node in [expression.root] + expression.prelude
        where !node.collectSlots(into: &plain, documents: &found, besideAggregates: true) {
            isComplete = false
        }
        if let found { documents.formUnion(found) }
    }

    /// Adds the reads of a level's conditions, of its access path, and of a table-valued function's arguments (a
    /// json_each or json_tree document that is a column is read as a document).
    mutating func addReads(of level: SelectProgram.Level) {
        for condition in level.matchConditions + level.filters + level.impliedConditions {
            add(condition, onCurrentRow: true)
        }
        switch level.kind {
        case .table(_, let path):
            for expression in path.method.expressions { add(expression, onCurrentRow: true) }
        case .tableFunction(let function):
            for (k, argument) in function.arguments.enumerated() {
                if k == 0, function.function.readsJSONDocument, argument.prelude.isEmpty,
                    case .column(let slot) = argument.root
                {
                    documents.insert(slot)
                } else {
                    add(argument, onCurrentRow: true)
                }
            }
            for arguments in function.constrainedArguments {
                for argument in arguments { add(argument, onCurrentRow: true) }
            }
        case .subquery, .compound, .recursiveTable, .workingRow, .windowed:
            // Programs of their own, which fill this level's slots and read none of the others'.
            break
        }
    }
}

extension AccessMethod {
    /// The expressions the method evaluates when its cursor opens.
    var expressions: [CompiledExpression] {
        switch self {
        case .scan: return []
        case .rowids(let values): return values
        case .rowidRange(let lows, let highs): return (lows + highs).map(\.value)
        case .index(let search): return search.equalities.flatMap { $0 } + (search.lows + search.highs).map(\.value)
        }
    }
}

extension SQLTableFunction {
    /// Whether the function's first argument is a JSON document (json_each, json_tree).
    var readsJSONDocument: Bool {
        switch self {
        case .jsonEach, .jsonTree: return true
        default: return false
        }
    }
}
