import GraniteStorage

/// One SQL statement, parsed and planned once, executed any number of times with different arguments.
///
/// ```swift
/// let insert = try db.prepare("INSERT INTO player(name, score) VALUES (?, ?)")
/// for (name, score) in players {
///     try insert.bind([.text(name), .integer(score)])
///     try insert.execute()
/// }
/// let select = try db.prepare("SELECT name FROM player WHERE score > ?")
/// try select.bind([.integer(100)])
/// while let row = try select.step() { print(row[0]) }
/// ```
///
/// A `SELECT` runs lazily: each ``step()`` produces one row, reading the database as of the statement's first
/// step (outside an explicit transaction the statement holds a read snapshot until it is exhausted or
/// ``reset()``). Other statements run to completion on their first step; their `RETURNING` rows (or `PRAGMA`
/// results) are then stepped through. When the schema changes, the statement is planned again on its next
/// execution, like SQLite's automatic re-preparation.
public final class PreparedStatement {
    /// The connection the statement belongs to.
    public unowned let connection: SQLConnection
    /// The connection's functions and collations, unretained like the connection (which owns them and outlives
    /// its statements): each start tests them, and reaching them through `connection` (or an `unowned(unsafe)`
    /// reference) cost a retain and a release.
    private let functionScope: Unmanaged<SQLFunctionScope>
    /// The parsed statement.
    package let statement: Statement
    /// The statement's SQL text.
    public var sql: String { statement.sourceText }
    /// The parameters the statement uses (count and names).
    public var parameters: ParameterList { statement.parameters }
    /// The names of the result columns (empty for a statement that returns no rows).
    @exclusivity(unchecked) public private(set) var columnNames: [String]
    /// The number of result columns.
    public var columnCount: Int { columnNames.count }

    @exclusivity(unchecked) private var arguments = BoundParameters()
    /// The plans of an INSERT, UPDATE or DELETE; nil for a SELECT, which never needs them (the cache is a large
    /// object, several plans held inline, to allocate and initialize for each statement). A constant rather
    /// than a lazy property, so that each run reads it without an access check or a retain.
    private let writeCache: WriteCache?
    @exclusivity(unchecked) private var program: SelectProgram?
    @exclusivity(unchecked) private var programVersion = -1
    /// The tables the statement reads, and the schema version they were computed for (ReadRegion.swift).
    var cachedReads: (version: Int, reads: [SQLTableRead])?
    @exclusivity(unchecked) private var cursor: SelectCursor?
    /// The cursor of the running `SELECT` while it has a current row, nil otherwise: ``column(at:)`` reads it
    /// without retaining it (``cursor`` keeps it alive; an `unowned(unsafe)` reference would still be retained
    /// and released around each read).
    @usableFromInline @exclusivity(unchecked) var liveCursor: Unmanaged<SelectCursor>?
    @exclusivity(unchecked) private var holdsRead = false
    @exclusivity(unchecked) private var buffered: [[Value]] = []
    @exclusivity(unchecked) private var bufferPosition = 0
    @usableFromInline @exclusivity(unchecked) var state = State.ready
    /// Whether the statement is a `SELECT` (run lazily through a cursor).
    private let isSelect: Bool

    @usableFromInline enum State {
        case ready
        case running
        case done
    }

    /// A statement for the parsed `statement`; `compiled` is a program compiled earlier for the same `SELECT`
    /// text, and the schema version it was compiled for (it is used when the schema has not changed since).
    init(connection: SQLConnection, statement: Statement, compiled: (SelectProgram, Int)? = nil) throws {
        self.connection = connection
        functionScope = Unmanaged.passUnretained(connection.functionScope)
        self.statement = statement
        let isSelect: Bool
        if case .select = statement.kind { isSelect = true } else { isSelect = false }
        self.isSelect = isSelect
        writeCache = isSelect ? nil : WriteCache()
        if let (program, version) = compiled {
            self.program = program
            programVersion = version
        }
        columnNames = []
        columnNames = try connection.resultColumns(of: self)
    }

    /// The compiled `SELECT` and the schema version it was compiled for, once compiled.
    var compiledProgram: (SelectProgram, Int)? {
        guard let program else { return nil }
        return (program, programVersion)
    }

    deinit {
        if holdsRead { connection.releaseStatementRead() }
    }

    /// Whether the statement changes nothing in the database file (a `SELECT`, `EXPLAIN`, or a `PRAGMA` other
    /// than one setting the user version), as SQLite's `sqlite3_stmt_readonly` tells. Connection settings such as
    /// `PRAGMA foreign_keys = ON` are read-only statements: a read-only connection runs them, as SQLite does.
    /// Whether the statement changes the connection's temporary schema, or writes its temporary tables, and
    /// nothing else: a read-only connection may run it (as SQLite lets one).
    public var changesOnlyTemporarySchema: Bool { connection.changesOnlyTemporarySchema(statement) }

    public var isReadOnly: Bool {
        switch statement.kind {
        case .select, .explain: return true
        case .pragma(let p): return p.value == nil || !Self.fileWritingPragmas.contains(SchemaNames.key(p.name.name))
        default: return false
        }
    }

    /// Pragmas whose setting SQLite writes to the database file (its `sqlite3_stmt_readonly` is false for them).
    /// `page_size` is not one: it rewrites a file that holds nothing and is otherwise a no-op, and the engine
    /// refuses the rewrite on a read-only file.
    private static let fileWritingPragmas: Set<String> = ["user_version", "schema_version", "journal_mode"]

    /// The compiled `SELECT`, recompiled when the schema changed since it was built.
    func selectProgram(_ select: SelectStatement) throws -> SelectProgram {
        if let program, programVersion == connection.catalog.schemaVersion { return program }
        return try compile(select)
    }

    /// ``selectProgram(_:)`` for this statement, which is a `SELECT` (the statement is only unpacked when the
    /// program must be compiled).
    private func currentSelectProgram(_ connection: SQLConnection) throws -> SelectProgram {
        if let program, programVersion == connection.catalog.schemaVersion { return program }
        guard case .select(let select) = statement.kind else { preconditionFailure("not a SELECT") }
        return try compile(select)
    }

    private func compile(_ select: SelectStatement) throws -> SelectProgram {
        let compiled = try connection.compileSelect(select, statement: statement)
        program = compiled
        programVersion = connection.catalog.schemaVersion
        cursor = nil
        liveCursor = nil
        return compiled
    }

    // MARK: Arguments

    /// Binds `values` to the parameters by position, replacing every earlier binding. Throws when the number
    /// of values is not the number of parameters.
    public func bind(_ values: [Value]) throws {
        guard values.count == parameters.count else {
            throw SQLExecutionError(
                .misuse,
                "wrong number of arguments: the statement uses \(parameters.count) parameters, \(values.count) given")
        }
        reset()
        arguments = BoundParameters(values)
    }

    /// Binds `value` to the one-based parameter `index`.
    public func bind(_ value: Value, at index: Int) throws {
        guard index >= 1, index <= parameters.count else {
            throw SQLExecutionError(.misuse, "column index out of range: parameter \(index) does not exist")
        }
        reset()
        arguments.bind(index, value)
    }

    /// Binds `value` to the parameter named `name` (with its prefix, as in `:id`).
    public func bind(_ value: Value, named name: String) throws {
        reset()
        guard arguments.bind(name: name, value, in: parameters) else {
            throw SQLExecutionError(.misuse, "no such parameter: \(name)")
        }
    }

    /// The values bound to the parameters, by one-based index (NULL for unbound parameters).
    public var boundValues: [Value] { (0..<parameters.count).map { arguments[$0 + 1] } }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        reset()
        arguments = BoundParameters()
    }

    // MARK: Running

    /// Produces the next result row, or nil when the statement is done (the first call runs a statement that
    /// returns no rows).
    public func step() throws -> [Value]? {
        guard try stepRow() else { return nil }
        if let cursor { return cursor.currentRow() }
        return buffered[bufferPosition - 1]
    }

    /// Moves to the next result row without building an array for it; false when the statement is done (the
    /// first call runs a statement that returns no rows). Read the row with ``column(at:)``, which stays valid
    /// until the next step or reset, like `sqlite3_step` and `sqlite3_column_*`.
    ///
    /// ```swift
    /// while try select.stepRow() { print(select.column(at: 0)) }
    /// ```
    public func stepRow() throws -> Bool {
        switch state {
        case .done:
            return false
        case .ready:
            state = .running
            do {
                try start()
            } catch {
                finish()
                throw connection.withSuggestion(error)
            }
        case .running:
            break
        }
        if let liveCursor {
            // A running SELECT always has its live cursor (``start()`` sets it, ``finish()`` ends the run). Through
            // the unmanaged reference: a strong one would be retained and released on every step.
            do {
                if try liveCursor._withUnsafeGuaranteedRef({ try $0.advance() }) { return true }
            } catch {
                finish()
                throw connection.withSuggestion(error)
            }
            finish()
            return false
        }
        if bufferPosition < buffered.count {
            bufferPosition += 1
            return true
        }
        finish()
        return false
    }

    /// The value of result column `index` (zero-based) of the row the last ``stepRow()`` (or ``step()``)
    /// produced. Traps when there is no current row or `index` is not below ``columnCount``.
    @inlinable
    public func column(at index: Int) -> Value {
        if let liveCursor { return liveCursor._withUnsafeGuaranteedRef { $0.column(index) } }
        return bufferedColumn(at: index)
    }

    /// ``column(at:)`` when it is an INTEGER, else nil; read in place, without the copy of the value that
    /// ``column(at:)`` returns (the integer fast path of `Int.fetchAll` and `row[0] as Int`).
    @inlinable @inline(__always)
    package func integerColumn(at index: Int) -> Int64? {
        if let liveCursor { return liveCursor._withUnsafeGuaranteedRef { $0.integerColumn(index) } }
        if case .integer(let i) = bufferedColumn(at: index) { return i }
        return nil
    }

    /// Whether ``column(at:)`` is NULL, read in place (see ``integerColumn(at:)``).
    @inlinable @inline(__always)
    package func columnIsNull(at index: Int) -> Bool {
        if let liveCursor { return liveCursor._withUnsafeGuaranteedRef { $0.columnIsNull(index) } }
        if case .null = bufferedColumn(at: index) { return true }
        return false
    }

    /// The value of result column `index` of the current row, like ``column(at:)``, or NULL when the statement
    /// has no current row (it is done or was reset).
    @inlinable
    package func currentValue(at index: Int) -> Value {
        if let liveCursor { return liveCursor._withUnsafeGuaranteedRef { $0.column(index) } }
        return isActive ? bufferedColumn(at: index) : .null
    }

    /// ``column(at:)`` for a statement without a live cursor (rows of a statement that is not a `SELECT`).
    @usableFromInline
    func bufferedColumn(at index: Int) -> Value {
        precondition(state == .running, "no current row: step the statement first")
        return buffered[bufferPosition - 1][index]
    }

    /// Runs the statement to completion, discarding any rows.
    public func execute() throws {
        reset()
        while try step() != nil {}
    }

    /// Steps through every row.
    public func all() throws -> [[Value]] {
        reset()
        var rows: [[Value]] = []
        while let row = try step() { rows.append(row) }
        return rows
    }

    /// Stops the current execution (releasing its read snapshot); the next ``step()`` starts again. The bound
    /// arguments stay.
    public func reset() {
        if state != .ready { finish() }
        state = .ready
    }

    private func start() throws {
        if functionScope._withUnsafeGuaranteedRef({ $0.needsBinding }) {
            try functionScope.takeUnretainedValue().bindNow { try startRun() }
        } else {
            try startRun()
        }
    }

    /// Starts an execution, with the connection's functions and collations bound.
    private func startRun() throws {
        if !buffered.isEmpty { buffered = [] }
        bufferPosition = 0
        if isSelect {
            let connection = self.connection
            try connection.acquireStatementRead()
            holdsRead = true
            let program = try currentSelectProgram(connection)
            let cursor: SelectCursor
            if let existing = self.cursor {
                cursor = existing
            } else {
                columnNames = program.columnNames
                cursor = SelectCursor(program: program)
                self.cursor = cursor
            }
            cursor.sortMemoryLimit = connection.sortMemoryLimit
            try cursor.open(parameters: arguments)
            liveCursor = Unmanaged.passUnretained(cursor)
            return
        }
        let result = try connection.run(statement, parameters: arguments, cache: writeCache)
        buffered = result.rows
        if !result.columns.isEmpty { columnNames = result.columns }
    }

    private func finish() {
        state = .done
        liveCursor = nil
        if holdsRead {
            holdsRead = false
            connection.releaseStatementRead()
        }
        // A SELECT keeps its cursor for reuse; it is reopened by the next execution.
        if !isSelect { cursor = nil } else { cursor?.close() }
        if !buffered.isEmpty { buffered = [] }
        bufferPosition = 0
    }

    /// Whether an execution is under way (stepped, not yet done or reset).
    @inlinable
    public var isActive: Bool { state == .running }
    /// Whether the last sort of this statement spilled to temporary files.
    package var sortSpilled: Bool { cursor?.sortSpilled ?? false }
}
