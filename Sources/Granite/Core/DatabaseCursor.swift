import GraniteSQL
import GraniteStorage

/// A cursor over the rows of a running statement.
public protocol DatabaseCursor: Cursor {
    /// The statement the cursor runs.
    var statement: Statement { get }

    /// The next element, or nil when the statement has no more rows. Throws the statement's errors, and
    /// decoding errors.
    func next() throws -> Element?
}

/// The common state of database cursors: the statement, its execution number, and whether it is done.
@usableFromInline
final class StatementExecution {
    @usableFromInline let statement: Statement
    /// The engine statement (kept alive by `statement`).
    @usableFromInline unowned(unsafe) let prepared: PreparedStatement
    private let executionID: Int
    private var isDone = false

    init(statement: Statement, arguments: StatementArguments?) throws {
        self.statement = statement
        prepared = statement.prepared
        try statement.start(arguments: arguments)
        executionID = statement.executionID
    }

    deinit {
        if !isDone { statement.reset(ifExecution: executionID) }
    }

    /// Moves to the next row (read through the statement); false at the end.
    @usableFromInline
    func advance() throws -> Bool {
        if isDone { return false }
        do {
            if try statement.stepRow() { return true }
        } catch {
            isDone = true
            throw error
        }
        isDone = true
        return false
    }

    /// Throws when the statement has no column to decode a value from.
    @usableFromInline
    func checkLeftmostColumn() throws {
        if prepared.columnCount == 0 { throw statement.database.noColumnError(statement) }
    }

    /// Throws when the statement has no column at `index` to decode a value from.
    @usableFromInline
    func checkColumn(_ index: Int) throws {
        if index >= prepared.columnCount { throw statement.database.noColumnError(statement) }
    }

    /// The error for a column that does not decode as `type`.
    @usableFromInline
    func columnMismatch(_ type: Any.Type, at index: Int) -> RowDecodingError {
        statement.columnMismatch(type, at: index)
    }
}

/// A cursor of rows. Its rows are one reused instance: ``Row/copy()`` keeps a row beyond the next step.
///
/// ```swift
/// let rows = try Row.fetchCursor(db, sql: "SELECT * FROM player")
/// while let row = try rows.next() {
///     let name: String = row["name"]
/// }
/// ```
public final class RowCursor: DatabaseCursor {
    private let execution: StatementExecution
    private var row: Row?
    /// The adapter and its reused row, when the cursor has an adapter. One reference, so that a cursor without
    /// adapter is as small as it was before adapters existed (one malloc size class smaller).
    private let adaptation: Adaptation?

    /// A cursor's adapter, resolved against the statement's columns before the first step (so that a bad
    /// adapter throws from the fetch method, as in GRDB), and the adapted row it reuses.
    private final class Adaptation {
        let adapter: _ResolvedRowAdapter
        /// The reused adapted row, made on the first step: its values are reloaded from the cursor's row after
        /// each step.
        var row: Row?

        init(adapter: _ResolvedRowAdapter) {
            self.adapter = adapter
        }
    }

    /// The statement the cursor runs.
    public var statement: Statement { execution.statement }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        if let adapter {
            adaptation = Adaptation(adapter: try adapter.resolved(forStatementLayout: statement.layout()))
        } else {
            adaptation = nil
        }
        execution = try StatementExecution(statement: statement, arguments: arguments)
    }

    deinit {
        // The row outlives the cursor: it keeps the values it shows before the statement is reset.
        row?.detach()
    }

    /// The next row (the same instance each time, with new values).
    public func next() throws -> Row? {
        guard try execution.advance() else {
            row?.detach()
            return nil
        }
        guard let adaptation else {
            if let row { return row }
            return makeRow()
        }
        if let adaptedRow = adaptation.row {
            adaptedRow.reloadAdaptedValues()
            return adaptedRow
        }
        let adaptedRow = Row(adapting: makeRow(), with: adaptation.adapter, statement: statement)
        adaptation.row = adaptedRow
        return adaptedRow
    }

    /// The reused row, made on the first step: it shows the statement's current row.
    private func makeRow() -> Row {
        let statement = self.statement
        let row = Row(prepared: statement.prepared, layout: statement.layout(), statement: statement)
        self.row = row
        return row
    }
}

/// A cursor of values decoded from the leftmost column.
public final class DatabaseValueCursor<Value: DatabaseValueConvertible>: DatabaseCursor {
    @usableFromInline let execution: StatementExecution
    /// The statement column of the values: 0, or the first column of the adapter.
    @usableFromInline let columnIndex: Int

    /// The statement the cursor runs.
    public var statement: Statement { execution.statement }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        columnIndex = try statement.leftmostColumnIndex(adapter: adapter)
        execution = try StatementExecution(statement: statement, arguments: arguments)
    }

    /// The next value; throws ``RowDecodingError`` when it cannot be decoded.
    @inlinable
    public func next() throws -> Value? {
        guard try execution.advance() else { return nil }
        // Without an adapter the column is 0: a literal index keeps that path as cheap as a fixed column.
        if columnIndex == 0 {
            try execution.checkLeftmostColumn()
            return try value(atColumn: 0)
        }
        try execution.checkColumn(columnIndex)
        return try value(atColumn: columnIndex)
    }

    @inlinable @inline(__always)
    func value(atColumn index: Int) throws -> Value {
        if let value = Value.fromDatabaseValue(DatabaseValue(execution.prepared.column(at: index))) { return value }
        throw execution.columnMismatch(Value.self, at: index)
    }
}

/// A cursor of values decoded from the leftmost column through their ``StatementColumnConvertible`` fast path.
public final class FastDatabaseValueCursor<Value: DatabaseValueConvertible & StatementColumnConvertible>:
    DatabaseCursor
{
    @usableFromInline let execution: StatementExecution
    /// The statement column of the values: 0, or the first column of the adapter.
    @usableFromInline let columnIndex: Int

    /// The statement the cursor runs.
    public var statement: Statement { execution.statement }

    @usableFromInline
    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        columnIndex = try statement.leftmostColumnIndex(adapter: adapter)
        execution = try StatementExecution(statement: statement, arguments: arguments)
    }

    /// The next value; throws ``RowDecodingError`` when it cannot be decoded.
    @inlinable @inline(__always)
    public func next() throws -> Value? {
        guard try execution.advance() else { return nil }
        // Without an adapter the column is 0: a literal index keeps that path as cheap as a fixed column.
        if columnIndex == 0 {
            try execution.checkLeftmostColumn()
            return try value(atColumn: 0)
        }
        try execution.checkColumn(columnIndex)
        return try value(atColumn: columnIndex)
    }

    @inlinable @inline(__always)
    func value(atColumn index: Int) throws -> Value {
        let view = SQLiteStatement(prepared: execution.prepared)
        if let value = Value.fromStatement(view, atUncheckedIndex: CInt(truncatingIfNeeded: index)) { return value }
        throw execution.columnMismatch(Value.self, at: index)
    }
}

extension Statement {
    /// The error for a leftmost column that does not decode as `type`.
    func leftmostColumnMismatch(_ type: Any.Type) -> RowDecodingError {
        columnMismatch(type, at: 0)
    }

    /// The error for a column that does not decode as `type`.
    func columnMismatch(_ type: Any.Type, at index: Int) -> RowDecodingError {
        let values = currentValues()
        let row = Row(values: values, layout: layout(), statement: self)
        return RowDecodingError.valueMismatch(
            type, row: row, key: .columnIndex(index), databaseValue: DatabaseValue(values[index]))
    }

    /// The column value cursors read: the leftmost one, or the leftmost column of the adapter. An adapter
    /// without columns gives an index past the columns, so that stepping throws the no-column error.
    func leftmostColumnIndex(adapter: (any RowAdapter)?) throws -> Int {
        guard let adapter else { return 0 }
        return try adapter.resolved(forStatementLayout: layout()).columns.baseIndexes.first ?? Int.max
    }
}

@available(*, unavailable) extension RowCursor: Sendable {}
@available(*, unavailable) extension DatabaseValueCursor: Sendable {}
@available(*, unavailable) extension FastDatabaseValueCursor: Sendable {}
