import GraniteSQL
import GraniteStorage

extension Database {
    /// A cursor over the prepared statements of an SQL text holding several statements separated by
    /// semicolons. Each statement is prepared when the cursor reaches it, so it may depend on the execution of
    /// the previous ones (a table created by the statement before).
    ///
    /// With `arguments`, each statement takes the arguments it needs, in order, and the cursor throws
    /// `SQLITE_MISUSE` ("wrong number of statement arguments: N") at its end when some are left over. Without,
    /// statements get no arguments, and may be given theirs before they run.
    ///
    /// ```swift
    /// let statements = try db.allStatements(sql: """
    ///     INSERT INTO player (name) VALUES (?);
    ///     INSERT INTO player (name) VALUES (?);
    ///     """, arguments: ["Arthur", "Barbara"])
    /// while let statement = try statements.next() {
    ///     try statement.execute()
    /// }
    /// ```
    ///
    /// - Throws: A ``DatabaseError`` when the SQL text is not valid SQL.
    public func allStatements(sql: String, arguments: StatementArguments? = nil) throws -> SQLStatementCursor {
        let parsed: [GraniteSQL.Statement]
        do {
            parsed = try Parser.parseScript(sql)
        } catch {
            throw noteFailure(DatabaseError.from(error, sql: sql, arguments: arguments))
        }
        return SQLStatementCursor(database: self, statements: parsed, arguments: arguments)
    }

    /// A cursor over the prepared statements of an SQL literal; its interpolated values are the arguments of
    /// the statements, consumed in order (see ``allStatements(sql:arguments:)``).
    ///
    /// - Throws: A ``DatabaseError`` when the SQL text is not valid SQL.
    public func allStatements(literal sqlLiteral: SQL) throws -> SQLStatementCursor {
        let (sql, arguments) = try sqlLiteral.build(self)
        return try allStatements(sql: sql, arguments: arguments.isEmpty ? nil : arguments)
    }
}

/// The cursor of prepared statements returned by ``Database/allStatements(sql:arguments:)``.
public final class SQLStatementCursor {
    private let database: Database
    private let statements: [GraniteSQL.Statement]
    private var position = 0
    /// The arguments not consumed yet; nil when statements get no arguments.
    private var remainingArguments: StatementArguments?
    private let initialArgumentCount: Int

    init(database: Database, statements: [GraniteSQL.Statement], arguments: StatementArguments?) {
        self.database = database
        self.statements = statements
        remainingArguments = arguments
        initialArgumentCount = arguments?.values.count ?? 0
    }
}

extension SQLStatementCursor: Cursor {
    /// The next statement, prepared, with its arguments set; nil after the last one.
    ///
    /// - Throws: A ``DatabaseError`` when the statement cannot be prepared, when its arguments are missing, or
    ///   at the end when arguments are left over.
    public func next() throws -> Statement? {
        guard position < statements.count else {
            try checkArgumentsAreConsumed()
            return nil
        }
        let ast = statements[position]
        position += 1
        let statement: Statement
        do {
            statement = try Statement(database: database, prepared: database.connection.prepare(parsed: ast))
        } catch {
            throw database.noteFailure(DatabaseError.from(error, sql: ast.sourceText))
        }
        if var arguments = remainingArguments {
            let values = try arguments.extractBindings(
                for: statement.argumentNames, sql: statement.sql, allowingRemainingValues: true)
            remainingArguments = arguments
            let ownArguments =
                statement.argumentNames.allSatisfy { $0 == nil }
                ? StatementArguments(values.map { DatabaseValue($0) }) : arguments
            try statement.bind(values, ownArguments)
        }
        return statement
    }

    private func checkArgumentsAreConsumed() throws {
        if let remainingArguments, !remainingArguments.values.isEmpty {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(initialArgumentCount)")
        }
    }
}
