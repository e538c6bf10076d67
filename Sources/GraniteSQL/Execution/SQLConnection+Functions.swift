// Application-defined functions and collations of a connection (sqlite3_create_function_v2,
// sqlite3_create_collation_v2 and their removal).

extension SQLConnection {
    /// Registers `function` on this connection, replacing a function of the same name and argument count (a
    /// built-in function of the name is hidden for calls the new one accepts, as in SQLite). Statements
    /// compiled earlier are compiled again before they next run.
    package func addFunction(_ function: SQLCustomFunction) {
        functionScope.registry.add(function)
        invalidateCompiledStatements()
    }

    /// Unregisters the function named `name` that takes `argumentCount` arguments (`nil`: any number).
    package func removeFunction(named name: String, argumentCount: Int?) {
        functionScope.registry.removeFunction(named: name, argumentCount: argumentCount)
        invalidateCompiledStatements()
    }

    /// Registers `collation` on this connection, replacing a collation of the same name.
    package func addCollation(_ collation: SQLCustomCollation) {
        functionScope.registry.add(collation)
        invalidateCompiledStatements()
    }

    /// Unregisters the collation named `name`.
    package func removeCollation(named name: String) {
        functionScope.registry.removeCollation(named: name)
        invalidateCompiledStatements()
    }

    /// Runs `body` with this connection's registrations visible to the compiler (see
    /// ``SQLFunctionRegistry/current``). Binding writes a per-thread slot and is skipped when there is nothing to
    /// bind or the connection is bound already: an embedder that runs many statements in one access (Granite's
    /// database accesses) binds once around the access.
    @inline(__always)
    package func withFunctionRegistry<R>(_ body: () throws -> R) rethrows -> R {
        try functionScope.bind(body)
    }

    /// Makes every compiled statement compile again, as SQLite expires its statements when a function or
    /// collation changes: compiled calls hold the function objects they were compiled with.
    private func invalidateCompiledStatements() {
        catalog.schemaVersion += 1
        clearStatementCache()
    }
}
