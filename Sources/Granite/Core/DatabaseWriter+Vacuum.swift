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
    ///   read-only database.
    public func vacuum() throws {
        try writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
    }

    /// Rebuilds the database file compactly (see ``vacuum()``).
    public func vacuum() async throws {
        try await writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
    }

    /// Writes a compact copy of the database to a new file at `filePath`, synced when this returns; the
    /// database itself is left as it is.
    ///
    /// ```swift
    /// try dbQueue.vacuum(into: "/path/to/copy.granite")
    /// ```
    ///
    /// - Throws: A ``DatabaseError`` (`SQLITE_ERROR` "output file already exists" when a file with content is
    ///   at `filePath`), or an I/O error.
    public func vacuum(into filePath: String) throws {
        try writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [filePath]) }
    }

    /// Writes a compact copy of the database to a new file at `filePath` (see ``vacuum(into:)``).
    public func vacuum(into filePath: String) async throws {
        try await writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [filePath]) }
    }
}
