import GraniteStorage

extension Database {
    /// Forgets a stop request made while no statement ran, as SQLite does: `sqlite3_interrupt` only affects
    /// the statements running when it is called and those that start before they all end. Called when a
    /// statement starts and a request is pending.
    func withdrawInterruptIfIdle() {
        if connection.transactionState.statementReads == 0 { interruption.clear() }
    }
}

extension DatabaseQueue {
    /// Stops the running statement, from any thread, as `sqlite3_interrupt` does: the statement throws a
    /// ``DatabaseError`` of code `SQLITE_INTERRUPT` ("interrupted") when it next moves through the database,
    /// and a write statement's changes are rolled back (the transaction it runs in stays open). Statements
    /// that start after every running statement has ended are not affected; called while none runs, it does
    /// nothing.
    ///
    /// ```swift
    /// DispatchQueue.global().asyncAfter(deadline: .now() + 1) { dbQueue.interrupt() }
    /// try dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM huge") }   // throws SQLITE_INTERRUPT
    /// ```
    public func interrupt() {
        writer.interrupt()
    }
}

extension DatabasePool {
    /// Stops the statements running on the writer and on every reader, from any thread (see
    /// ``DatabaseQueue/interrupt()``).
    public func interrupt() {
        writer.interrupt()
        for reader in readerPool.readers { reader.interrupt() }
    }
}

extension DatabaseSnapshot {
    /// Stops the statement the snapshot runs, from any thread (see ``DatabaseQueue/interrupt()``).
    public func interrupt() {
        reader.interrupt()
    }
}

extension AnyDatabaseReader {
    /// Stops the statements running on the wrapped reader.
    public func interrupt() { base.interrupt() }
}

extension AnyDatabaseWriter {
    /// Stops the statements running on the wrapped writer.
    public func interrupt() { base.interrupt() }
}
