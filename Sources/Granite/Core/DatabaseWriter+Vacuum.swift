// `VACUUM` and `VACUUM INTO` from a database writer.

extension DatabaseWriter {
    /// Rebuilds the database file compactly: free pages go back to the file system, tables and indexes are
    /// packed, texts are compressed under the connection's threshold. The rebuilt database is installed as one
    /// commit, so a crash leaves the old content or the new one.
    ///
    /// ```swift
    /// try dbQueue.vacuum()
    /// ```
    ///
    /// - Throws: A ``DatabaseError``: `SQLITE_BUSY` when another connection writes, `SQLITE_READONLY` on a
    ///   read-only database, `SQLITE_ERROR` "cannot VACUUM from within a transaction" when a transaction was
    ///   left open, `SQLITE_CORRUPT` when a page of the database is damaged (the database is then left as it
    ///   was).
    public func vacuum() throws {
        try writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
    }

    /// Rebuilds the database file compactly (see ``vacuum()``).
    public func vacuum() async throws {
        try await writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
    }

    /// Writes a compact copy of the database to a new file at `filePath`, synced when this returns; the
    /// database itself is left as it is. A copy that fails (a damaged page, a full disk) removes the file it
    /// created, so that a later try is not refused for a half-written file.
    ///
    /// ```swift
    /// try dbQueue.vacuum(into: "/path/to/copy.granite")
    /// ```
    ///
    /// - Throws: A ``DatabaseError``: `SQLITE_ERROR` "output file already exists" when a file with content is
    ///   at `filePath`, or "cannot VACUUM from within a transaction" when a transaction was left open;
    ///   `SQLITE_CORRUPT` when a page of the database is damaged; `SQLITE_IOERR` or `SQLITE_CANTOPEN` when the
    ///   file cannot be written.
    public func vacuum(into filePath: String) throws {
        try writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [filePath]) }
    }

    /// Writes a compact copy of the database to a new file at `filePath` (see ``vacuum(into:)``).
    public func vacuum(into filePath: String) async throws {
        try await writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [filePath]) }
    }
}
