import Foundation
import GraniteSQL
import GraniteStorage

/// A prepared statement: parsed and planned once, executed any number of times with different arguments.
///
/// ```swift
/// let statement = try db.makeStatement(sql: "INSERT INTO player (name, score) VALUES (?, ?)")
/// try statement.execute(arguments: ["Arthur", 1000])
/// try statement.execute(arguments: ["Barbara", 750])
/// ```
public final class Statement {
    /// The database the statement belongs to.
    unowned let database: Database
    let prepared: PreparedStatement
    /// The region the query interface computed for the statement (narrowed to rowids), when it did
    /// (Statement+DatabaseRegion.swift).
    @exclusivity(unchecked) var narrowedRegion: DatabaseRegion?
    /// The parameter names without their prefix (nil for `?`), in bind order.
    let argumentNames: [String?]
    private var boundArguments = StatementArguments()
    private var cachedLayout: RowLayout?
    /// Incremented at each execution, so that a cursor only resets its own execution.
    private(set) var executionID = 0
    private var profileStart: ContinuousClock.Instant?

    init(database: Database, prepared: PreparedStatement) {
        self.database = database
        self.prepared = prepared
        argumentNames = prepared.parameters.names.map { name in name.map { String($0.dropFirst()) } }
    }

    /// The SQL text of the statement.
    public var sql: String { prepared.sql.trimmedSQLStatement }

    /// The names of the result columns.
    public var columnNames: [String] { prepared.columnNames }

    /// The number of result columns.
    public var columnCount: Int { prepared.columnCount }

    /// Whether the statement does not write to the database.
    public var isReadonly: Bool { prepared.isReadOnly || isTransactionControl }

    /// Whether the statement writes the connection's temporary schema only, which a read-only connection may.
    var changesOnlyTemporarySchema: Bool { prepared.changesOnlyTemporarySchema }

    var isTransactionControl: Bool {
        switch prepared.statement.kind {
        case .begin, .commit, .rollback, .savepoint, .release: return true
        default: return false
        }
    }

    /// The index of the leftmost column named `name`, case-insensitively.
    public func index(ofColumn name: String) -> Int? {
        let lower = name.lowercased()
        return columnNames.firstIndex { $0.lowercased() == lower }
    }

    // MARK: Arguments

    /// The arguments bound at the next execution. Setting invalid arguments is a programmer error; use
    /// ``setArguments(_:)`` to catch it.
    public var arguments: StatementArguments {
        get { boundArguments }
        set { try! setArguments(newValue) }
    }

    /// Throws when `arguments` do not fill the statement's parameters exactly.
    public func validateArguments(_ arguments: StatementArguments) throws {
        _ = try arguments.bindings(for: argumentNames, sql: sql, allowingRemainingValues: false)
    }

    /// Binds `arguments`, after checking that they fill the statement's parameters exactly.
    public func setArguments(_ arguments: StatementArguments) throws {
        let values = try arguments.bindings(for: argumentNames, sql: sql, allowingRemainingValues: false).values
        try bind(values, arguments)
    }

    /// Binds `arguments` without checking them: missing values are NULL, extra values are ignored.
    public func setUncheckedArguments(_ arguments: StatementArguments) {
        var next = 0
        var values: [GraniteStorage.Value] = []
        values.reserveCapacity(argumentNames.count)
        let hasNamed = !arguments.namedValues.isEmpty
        for name in argumentNames {
            if hasNamed, let name, let value = arguments.namedValues[name] {
                values.append(value.engineValue)
            } else if next < arguments.values.count {
                values.append(arguments.values[next].engineValue)
                next += 1
            } else {
                values.append(.null)
            }
        }
        try? bind(values, arguments)
    }

    /// Binds values extracted from a script's arguments.
    func bind(_ values: [GraniteStorage.Value], _ arguments: StatementArguments) throws {
        do {
            try prepared.bind(values)
        } catch {
            throw DatabaseError.from(error, sql: sql, arguments: arguments)
        }
        boundArguments = arguments
    }

    // MARK: Execution

    /// Runs the statement to completion, with `arguments` bound first when given.
    public func execute(arguments: StatementArguments? = nil) throws {
        try start(arguments: arguments)
        while try step() != nil {}
    }

    /// Starts an execution: binds the arguments, checks read-only access, and traces the statement.
    func start(arguments: StatementArguments?) throws {
        if let arguments { try setArguments(arguments) }
        prepared.reset()
        executionID &+= 1
        try database.statementWillExecute(self)
        profileStart = database.isProfiling ? ContinuousClock.now : nil
    }

    /// The next row of the running execution, or nil at the end.
    @inline(__always)
    func step() throws -> [GraniteStorage.Value]? {
        let row: [GraniteStorage.Value]?
        do {
            row = try prepared.step()
        } catch {
            finishProfile()
            throw database.failure(error, in: self)
        }
        if row == nil {
            finishProfile()
            database.statementDidFinish(self)
        }
        return row
    }

    /// Moves to the next row of the running execution (read it with ``column(_:)``); false at the end.
    @inline(__always)
    func stepRow() throws -> Bool {
        let found: Bool
        do {
            found = try prepared.stepRow()
        } catch {
            finishProfile()
            throw database.failure(error, in: self)
        }
        if !found {
            finishProfile()
            database.statementDidFinish(self)
        }
        return found
    }

    /// The values of the current row, copied.
    func currentValues() -> [GraniteStorage.Value] {
        (0..<prepared.columnCount).map { prepared.column(at: $0) }
    }

    private func finishProfile() {
        if let start = profileStart {
            profileStart = nil
            database.profile(self, duration: ContinuousClock.now - start)
        }
    }

    /// Stops the running execution, if it is the one numbered `id`.
    func reset(ifExecution id: Int) {
        if id == executionID { prepared.reset() }
    }

    /// The shared column layout of result rows (rebuilt when a schema change altered the columns).
    func layout() -> RowLayout {
        let names = prepared.columnNames
        if let cachedLayout, cachedLayout.names == names { return cachedLayout }
        let layout = RowLayout(names: names, isFetched: true)
        cachedLayout = layout
        return layout
    }
}

@available(*, unavailable)
extension Statement: Sendable {}

extension Statement: CustomStringConvertible {
    /// The SQL text.
    public var description: String { sql }
}
