import GraniteSQL
import GraniteStorage

/// A cursor over the rows of a running statement.
public protocol DatabaseCursor: Cursor {
    /// The statement the cursor runs.
    var statement: Statement { get }
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

    /// The error for a leftmost column that does not decode as `type`.
    @usableFromInline
    func leftmostColumnMismatch(_ type: Any.Type) -> RowDecodingError {
        statement.leftmostColumnMismatch(type)
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

    /// The statement the cursor runs.
    public var statement: Statement { execution.statement }

    init(statement: Statement, arguments: StatementArguments?) throws {
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
        if let row { return row }
        let statement = self.statement
        let row = Row(prepared: statement.prepared, layout: statement.layout(), statement: statement)
        self.row = row
        return row
    }
}

/// A cursor of values decoded from the leftmost column.
public final class DatabaseValueCursor<Value: DatabaseValueConvertible>: DatabaseCursor {
    @usableFromInline let execution: StatementExecution

    /// The statement the cursor runs.
    public var statement: Statement { execution.statement }

    init(statement: Statement, arguments: StatementArguments?) throws {
        execution = try StatementExecution(statement: statement, arguments: arguments)
    }

    /// The next value; throws ``RowDecodingError`` when it cannot be decoded.
    @inlinable
    public func next() throws -> Value? {
        guard try execution.advance() else { return nil }
        try execution.checkLeftmostColumn()
        if let value = Value.fromDatabaseValue(DatabaseValue(execution.prepared.column(at: 0))) { return value }
        throw execution.leftmostColumnMismatch(Value.self)
    }
}

/// A cursor of values decoded from the leftmost column through their ``StatementColumnConvertible`` fast path.
public final class FastDatabaseValueCursor<Value: DatabaseValueConvertible & StatementColumnConvertible>:
    DatabaseCursor
{
    @usableFromInline let execution: StatementExecution

    /// The statement the cursor runs.
    public var statement: Statement { execution.statement }

    @usableFromInline
    init(statement: Statement, arguments: StatementArguments?) throws {
        execution = try StatementExecution(statement: statement, arguments: arguments)
    }

    /// The next value; throws ``RowDecodingError`` when it cannot be decoded.
    @inlinable
    public func next() throws -> Value? {
        guard try execution.advance() else { return nil }
        try execution.checkLeftmostColumn()
        if let value = Value.fromStatement(SQLiteStatement(prepared: execution.prepared), atUncheckedIndex: 0) {
            return value
        }
        throw execution.leftmostColumnMismatch(Value.self)
    }
}

extension Statement {
    /// The error for a leftmost column that does not decode as `type`.
    func leftmostColumnMismatch(_ type: Any.Type) -> RowDecodingError {
        let values = currentValues()
        let row = Row(values: values, layout: layout(), statement: self)
        return RowDecodingError.valueMismatch(
            type, row: row, key: .columnIndex(0), databaseValue: DatabaseValue(values[0]))
    }
}

@available(*, unavailable) extension RowCursor: Sendable {}
@available(*, unavailable) extension DatabaseValueCursor: Sendable {}
@available(*, unavailable) extension FastDatabaseValueCursor: Sendable {}
