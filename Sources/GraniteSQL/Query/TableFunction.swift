// Table-valued functions: FROM sources whose rows a function computes from its arguments (json_each, json_tree,
// and the pragma functions of PragmaFunction.swift).

import GraniteStorage

/// A table-valued function a `FROM` clause can call.
///
/// Its columns are fixed; the last ones may be hidden (readable by name, left out of `*`), as SQLite's
/// eponymous virtual tables hide the columns their arguments bind to.
enum SQLTableFunction: Sendable, Equatable {
    case jsonEach, jsonTree
    case pragma(SQLPragmaFunction)

    /// The function `name` (any case) names, if any.
    init?(name: String) {
        switch SchemaNames.key(name) {
        case "json_each": self = .jsonEach
        case "json_tree": self = .jsonTree
        default:
            guard let pragma = SQLPragmaFunction(functionName: name) else { return nil }
            self = .pragma(pragma)
        }
    }

    /// The name as SQLite reports it in messages.
    var name: String {
        switch self {
        case .jsonEach: return "json_each"
        case .jsonTree: return "json_tree"
        case .pragma(let pragma): return "pragma_" + pragma.rawValue
        }
    }

    /// The column names, in order.
    var columnNames: [String] {
        if case .pragma(let pragma) = self { return pragma.columnNames }
        return JSONTableColumn.allCases.map { "\($0)" }
    }

    /// Whether column `c` is hidden.
    func isHidden(_ c: Int) -> Bool {
        if case .pragma(let pragma) = self { return c >= pragma.resultColumns.count }
        return c >= JSONTableColumn.json.rawValue
    }

    /// The most arguments a call may pass (one per hidden column).
    var maximumArguments: Int {
        if case .pragma(let pragma) = self { return pragma.maximumArguments }
        return 2
    }

    /// The column whose values may be JSON text carrying SQLite's JSON subtype (see ``TableFunctionCursor``).
    var subtypedColumn: Int? {
        if case .pragma = self { return nil }
        return JSONTableColumn.value.rawValue
    }

    /// The argument constraints SQLite's planner passes the function, as its `EXPLAIN QUERY PLAN` line names
    /// them (`idxNum`): 0 without a document, 1 with one, 3 with a path too; always 0 for a pragma function.
    func indexNumber(argumentCount: Int) -> Int {
        if case .pragma = self { return 0 }
        switch argumentCount {
        case 0: return 0
        case 1: return 1
        default: return 3
        }
    }
}

/// A compiled call of a table-valued function: the function and its arguments, which may read the sources to
/// its left and enclosing queries' rows.
struct TableFunctionProgram {
    let function: SQLTableFunction
    let arguments: [CompiledExpression]
    /// For a pragma function, the values of the hidden columns after those `arguments` bind, taken from the
    /// query's terms (see ``SelectCompiler/bindPragmaConstraints(_:terms:scope:)``).
    var constrainedArguments: [[CompiledExpression]] = []
    /// The connection a pragma function reads. Unowned: compiled programs are kept in statement caches, which
    /// the connection itself holds.
    unowned let connection: SQLConnection
}

/// The rows of one table-valued function level, computed again each time the level opens.
///
/// Writes only the columns the query reads into the row. A column that carries the JSON subtype has its flag
/// (1 when the value is JSON text from the function, else NULL) in the source's rowid slot, which a function
/// source does not otherwise use.
///
/// Only the query run that made a cursor uses it, one call at a time (a subquery in its arguments runs its own
/// cursors), so its state skips dynamic exclusivity checks.
final class TableFunctionCursor {
    let program: TableFunctionProgram
    /// The first slot of the source, and the slot of the subtype flag.
    private let base: Int
    private let flagSlot: Int
    /// The columns the query reads.
    private let columns: [JSONTableColumn]
    /// The positions of the columns the query reads, for a pragma function.
    private let usedPositions: [Int]
    /// A pragma function's rows, computed when the level opens, and the position of the next one.
    @exclusivity(unchecked) private var pragmaRows: [[Value]] = []
    @exclusivity(unchecked) private var pragmaPosition = 0
    private let subtypedColumn: JSONTableColumn?
    /// The rows of a json_each or json_tree call: read from the document's text when json_each starts at the
    /// root or a simple path, else walked over SQLite's node layout of the document.
    private let textWalk = JSONEachTextWalk()
    @exclusivity(unchecked) private var walk: JSONTableWalk?
    /// Whether the path argument of json_each was read (``textWalkPath``, nil without one), and whether the
    /// walk over the text serves it (the path is simple; the walk then has its start). Kept while the argument
    /// stays the same; a constant path is read once.
    @exclusivity(unchecked) private var textWalkPrepared = false
    @exclusivity(unchecked) private var textWalkServes = false
    @exclusivity(unchecked) private var textWalkPath: Value?
    /// The path argument when it is a constant: read once, with no evaluation or comparison per row.
    private let constantPath: Value?
    /// Whether the next ``next(_:)`` must move past the current row first.
    @exclusivity(unchecked) private var started = false
    /// The slot of the row's number, when the query reads the rowid, and the current row's number (SQLite counts
    /// from 0 for the JSON functions, from 1 for the pragma functions).
    private let rowNumberSlot: Int?
    @exclusivity(unchecked) private var rowNumber: Int64 = 0
    /// The level's `value <op> operand` filter that a walk over the text tests on each element first, and its
    /// operand for the current execution (nil: the test does not apply).
    private let valueTest: ValueTest?
    /// The slot of the document argument when it is a column (read without copying the argument's expression
    /// out of the program), else −1.
    private let documentSlot: Int
    @exclusivity(unchecked) private var valueOperand: String?

    init(program: TableFunctionProgram, source: QuerySource, valueTest: ValueTest? = nil) {
        self.valueTest = valueTest
        documentSlot = program.arguments.first?.columnSlot ?? -1
        self.program = program
        base = source.base
        flagSlot = source.base + source.rowidSlot
        columns = JSONTableColumn.allCases.filter { source.used.contains($0.rawValue) }
        usedPositions = program.function.columnNames.indices.filter { source.used.contains($0) }
        subtypedColumn = program.function.subtypedColumn.flatMap { JSONTableColumn(rawValue: $0) }
        constantPath = program.arguments.count > 1 ? program.arguments[1].constantValue : nil
        rowNumberSlot = source.used.contains(source.rowNumberSlot) ? source.base + source.rowNumberSlot : nil
    }

    /// The cursors of `levels`, by level; empty when no level calls a table-valued function.
    static func cursors(for levels: [SelectProgram.Level]) -> [TableFunctionCursor?] {
        var cursors: [TableFunctionCursor?] = []
        for (k, level) in levels.enumerated() {
            guard case .tableFunction(let program) = level.kind else { continue }
            if cursors.isEmpty { cursors = Array(repeating: nil, count: levels.count) }
            cursors[k] = TableFunctionCursor(program: program, source: level.source, valueTest: valueTest(level))
        }
        return cursors
    }

    /// Evaluates the arguments over the current row and starts the walk.
    func open(_ context: inout EvaluationContext) throws {
        walk = nil
        textWalk.stop()
        started = false
        rowNumber = -1
        guard case .pragma(let pragma) = program.function else { return try openJSONWalk(&context) }
        var values: [Value] = []
        values.reserveCapacity(program.arguments.count)
        for argument in program.arguments { values.append(try argument.evaluate(&context)) }
        pragmaRows = try program.connection.pragmaFunctionRows(
            pragma, values, constrained: program.constrainedArguments, &context)
        pragmaPosition = 0
    }

    /// The document of one opening: a value, or the TEXT bytes a table cursor keeps for a document column (see
    /// ``StoredDocument``), which json_each's walk over the text reads as they are.
    private enum WalkDocument {
        case value(Value)
        case stored(UnsafeBufferPointer<UInt8>)

        var isNull: Bool {
            if case .value(let value) = self { return value.isNull }
            return false
        }

        /// The document as a value, for the walk over its tree.
        var value: Value {
            switch self {
            case .value(let value): return value
            case .stored(let text): return .text(utf8: UnsafeRawBufferPointer(text))
            }
        }
    }

    /// Evaluates json_each's or json_tree's arguments (at most two) over the current row and starts the walk.
    private func openJSONWalk(_ context: inout EvaluationContext) throws {
        let document: WalkDocument
        if documentSlot >= 0, let text = context.jsonLocations?.storedText(slot: documentSlot) {
            document = .stored(text)
        } else if documentSlot >= 0 {
            document = .value(context.row[documentSlot])
        } else {
            guard let documentArgument = program.arguments.first else { return }
            document = .value(try documentArgument.evaluate(&context))
        }
        let recursive = program.function == .jsonTree
        // A constant path the walk over the text serves is not read again.
        if !recursive && textWalkServes && constantPath != nil {
            guard !document.isNull else { return }
            return try beginTextWalk(document, &context)
        }
        let path = try constantPath ?? (program.arguments.count > 1 ? program.arguments[1].evaluate(&context) : nil)
        guard !document.isNull else { return }
        if !recursive && prepareTextWalk(path) { return try beginTextWalk(document, &context) }
        do throws(JSONError) {
            // A NULL path means no rows, but only once the document parsed (SQLite parses it first).
            let start: JSONTableWalk.Start = path.map { $0.sqlTextBytes.map { .path($0) } ?? .nowhere } ?? .root
            walk = try JSONTableWalk(document: document.value, start: start, recursive: recursive)
        } catch {
            throw error.evaluationError
        }
    }

    /// Starts json_each's walk over the text of `document` (not NULL), from the start ``prepareTextWalk(_:)`` set.
    private func beginTextWalk(_ document: WalkDocument, _ context: inout EvaluationContext) throws {
        valueOperand = valueTest.flatMap { Self.valueTestOperand($0, context) }
        do throws(JSONError) {
            switch document {
            case .value(let value): try textWalk.begin(document: value)
            case .stored(let text): try textWalk.begin(text: text)
            }
        } catch {
            throw error.evaluationError
        }
    }

    /// Whether json_each's walk over the text serves the path argument `path` (nil without one), having set the
    /// walk's start when the argument changed; false when the walk needs the document's tree.
    private func prepareTextWalk(_ path: Value?) -> Bool {
        guard let path else {
            if !textWalkPrepared {
                textWalk.setStart(.root)
                textWalkPrepared = true
                textWalkServes = true
            }
            return true
        }
        if textWalkPrepared, let last = textWalkPath, constantPath != nil || Self.sameText(last, path) {
            return textWalkServes
        }
        guard let bytes = path.sqlTextBytes else { return false }
        let start = JSONEachTextWalk.Start(.path(bytes))
        textWalkPath = path
        textWalkPrepared = true
        textWalkServes = start != nil
        if let start { textWalk.setStart(start) }
        return textWalkServes
    }

    /// Whether `a` and `b` are both TEXT with the same bytes.
    private static func sameText(_ a: Value, _ b: Value) -> Bool {
        guard case .text(var a) = a, case .text(var b) = b else { return false }
        return a.withUTF8 { a in b.withUTF8 { b in a.elementsEqual(b) } }
    }

    /// Writes the next row's columns into the context's row; false at the end.
    func next(_ context: inout EvaluationContext) throws -> Bool {
        if case .pragma = program.function { return nextPragmaRow(&context) }
        if textWalk.isActive { return try nextTextRow(&context) }
        if started { walk?.advance() } else { started = true }
        guard let walk, walk.hasRow else { return false }
        rowNumber += 1
        if let rowNumberSlot { context.row[rowNumberSlot] = .integer(rowNumber) }
        do {
            for column in columns {
                let result = try walk.column(column)
                context.row[base + column.rawValue] = result.value
                if column == subtypedColumn { context.row[flagSlot] = result.isJSON ? .integer(1) : .null }
            }
        } catch {
            throw error.evaluationError
        }
        return true
    }

    /// ``next(_:)`` over the document's text.
    private func nextTextRow(_ context: inout EvaluationContext) throws -> Bool {
        do throws(JSONError) {
            if started { try textWalk.advance() } else { started = true }
            if let valueTest, var operand = valueOperand {
                let skipped = operand.withUTF8 { bytes in
                    Result { () throws(JSONError) -> Int in try textWalk.skipRows(rejectedBy: valueTest, operand: bytes) }
                }
                rowNumber += Int64(try skipped.get())
            }
            guard textWalk.hasRow else { return false }
            rowNumber += 1
            if let rowNumberSlot { context.row[rowNumberSlot] = .integer(rowNumber) }
            for column in columns {
                let result = try textWalk.column(column)
                context.row[base + column.rawValue] = result.value
                if column == subtypedColumn { context.row[flagSlot] = result.isJSON ? .integer(1) : .null }
            }
        } catch {
            throw error.evaluationError
        }
        return true
    }

    /// Writes the next row of a pragma function into the context's row; false at the end.
    private func nextPragmaRow(_ context: inout EvaluationContext) -> Bool {
        guard pragmaPosition < pragmaRows.count else { return false }
        let row = pragmaRows[pragmaPosition]
        pragmaPosition += 1
        for c in usedPositions { context.row[base + c] = c < row.count ? row[c] : .null }
        if let rowNumberSlot { context.row[rowNumberSlot] = .integer(Int64(pragmaPosition)) }
        return true
    }
}

extension SelectCompiler {
    /// Adds a call of a table-valued function to `scope` as its next source. Its arguments are compiled here,
    /// where only the sources to its left (and enclosing queries) are in scope.
    func addTableFunction(
        _ name: QualifiedName, arguments: [SQLExpression], alias: String?, scope: QueryScope,
        to sources: inout FromSources
    ) throws {
        let k = scope.sources.count
        if name.schema == nil, commonTables?.lookup(name.name) != nil {
            throw SQLExecutionError("'\(name.name)' is not a function")
        }
        // As SQLite finds its eponymous virtual tables: by name, whatever the schema.
        guard let function = SQLTableFunction(name: name.name) else {
            if let schema = name.schema, !SchemaNames.equal(schema, "main") {
                throw SQLExecutionError.noSuchTable("\(schema).\(name.name)")
            }
            if catalog.table(named: name.name) != nil || catalog.view(named: name.name) != nil
                || SchemaCatalog.schemaTable(named: name.name) != nil
            {
                throw SQLExecutionError("'\(name.name)' is not a function")
            }
            throw SQLExecutionError.noSuchTable(missingTableName(name))
        }
        guard arguments.count <= function.maximumArguments else {
            throw SQLExecutionError(
                "too many arguments on \(function.name)() - max \(function.maximumArguments)")
        }
        let compiled = try arguments.map { try compileExpression($0, scope) }
        let sourceName = alias ?? function.name
        let columnCount = function.columnNames.count
        let columns = function.columnNames.enumerated().map { c, columnName in
            QuerySource.Column(
                name: columnName, affinity: .blob, collation: .binary, isHidden: function.isHidden(c),
                subtypeFlag: c == function.subtypedColumn ? columnCount : nil)
        }
        scope.add(name: sourceName, table: nil, columns: columns, numbersRows: true)
        sources.tableFunctions[k] = TableFunctionProgram(
            function: function, arguments: compiled, connection: connection)
    }
}
