import Foundation
import GraniteStorage

extension Database {
    /// Copies the whole database into `destDb`, which then has the same schema and content: an online backup
    /// of a consistent snapshot (the current transaction's, or the last commit when none is open), page by
    /// page, as SQLite's backup API does. The destination's previous content is replaced.
    ///
    /// ```swift
    /// let source = try DatabaseQueue(path: "/path/to/source.granite")
    /// let destination = try DatabaseQueue(path: "/path/to/destination.granite")
    /// try source.read { sourceDb in
    ///     try destination.writeWithoutTransaction { destDb in
    ///         try sourceDb.backup(to: destDb, pagesPerStep: 100) { progress in
    ///             print("\(progress.completedPageCount) of \(progress.totalPageCount)")
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The copy happens in one write transaction of the destination: when it fails, or when `progress` throws
    /// before the last step, the destination is left as it was.
    ///
    /// - Parameters:
    ///   - destDb: The destination connection, outside of any transaction.
    ///   - pagesPerStep: The number of pages copied between two progress reports (-1, the default, or any
    ///     value below 1: all at once).
    ///   - progress: Called after each step; what it throws aborts the backup (except after the last step,
    ///     when ``DatabaseBackupProgress/isCompleted`` is true).
    /// - Throws: A ``DatabaseError``: `SQLITE_ERROR` "destination database is in use" when the destination is
    ///   inside a transaction, `SQLITE_READONLY` when it is read-only, `SQLITE_ERROR` when the page sizes
    ///   differ, `SQLITE_BUSY` when another connection writes to the destination; or what `progress` throws.
    public func backup(
        to destDb: Database, pagesPerStep: CInt = -1, progress: ((DatabaseBackupProgress) throws -> Void)? = nil
    ) throws {
        try destDb.checkBackupDestination()
        let totalPageCount = try onSnapshot {
            try destDb.wrap {
                try destDb.connection.engine.copyPages(from: connection.engine, pagesPerStep: Int(pagesPerStep)) {
                    remaining, total in
                    try progress?(
                        DatabaseBackupProgress(remainingPageCount: remaining, totalPageCount: total, isCompleted: false)
                    )
                }
            }
            return Int(connection.engine.pager.header.pageCount)
        }
        destDb.clearStatementCache()
        destDb.clearSchemaCache()
        try? progress?(
            DatabaseBackupProgress(remainingPageCount: 0, totalPageCount: totalPageCount, isCompleted: true))
    }

    /// Throws when this connection cannot receive a backup.
    private func checkBackupDestination() throws {
        if isInsideTransaction {
            throw noteFailure(DatabaseError(resultCode: .SQLITE_ERROR, message: "destination database is in use"))
        }
        if isReadOnly {
            throw noteFailure(
                DatabaseError(resultCode: .SQLITE_READONLY, message: "attempt to write a readonly database"))
        }
    }

    /// Runs `body` while the engine holds a snapshot: the transaction in progress, else a read snapshot taken
    /// for the occasion.
    private func onSnapshot<T>(_ body: () throws -> T) throws -> T {
        if isInsideTransaction || connection.engine.isInTransaction {
            try wrap { try connection.beginTransactionSnapshotIfDeferred() }
            return try body()
        }
        try wrap { try connection.beginSnapshotRead() }
        defer { try? connection.endSnapshotRead() }
        return try body()
    }
}

extension DatabaseReader {
    /// Copies the whole database into `writer` (see ``Database/backup(to:pagesPerStep:progress:)``): the
    /// destination then has the same schema and content.
    ///
    /// ```swift
    /// let source = try DatabaseQueue(path: "/path/to/source.granite")
    /// let destination = try DatabaseQueue(path: "/path/to/destination.granite")
    /// try source.backup(to: destination)
    /// ```
    ///
    /// - Parameters:
    ///   - writer: The destination.
    ///   - pagesPerStep: The number of pages copied between two progress reports (-1: all at once).
    ///   - progress: Called after each step; what it throws aborts the backup, leaving the destination as it
    ///     was.
    /// - Throws: A ``DatabaseError`` (see ``Database/backup(to:pagesPerStep:progress:)``), or what `progress`
    ///   throws.
    public func backup(
        to writer: any DatabaseWriter, pagesPerStep: CInt = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil
    ) throws {
        try writer.writeWithoutTransaction { destDb in
            try read { sourceDb in try sourceDb.backup(to: destDb, pagesPerStep: pagesPerStep, progress: progress) }
        }
    }
}

extension DatabaseQueue {
    /// A private in-memory database holding a copy of the database file at `path`; the file is opened
    /// read-only and left untouched. With a read-only `configuration`, the copy refuses writes.
    ///
    /// ```swift
    /// let dbQueue = try DatabaseQueue.inMemoryCopy(fromPath: "/path/to/template.granite")
    /// ```
    ///
    /// - Throws: A ``DatabaseError`` when the file cannot be opened or copied.
    public static func inMemoryCopy(fromPath path: String, configuration: Configuration = Configuration()) throws
        -> DatabaseQueue
    {
        let (source, copyConfiguration) = try openCopySource(path: path, configuration: configuration)
        let copy = try DatabaseQueue(configuration: copyConfiguration)
        return try fill(copy, from: source, readOnly: configuration.readonly)
    }

    /// A private database in a temporary file, deleted when the copy goes away, holding a copy of the
    /// database file at `path`; that file is opened read-only and left untouched. With a read-only
    /// `configuration`, the copy refuses writes.
    ///
    /// - Throws: A ``DatabaseError`` when a file cannot be opened or copied.
    public static func temporaryCopy(fromPath path: String, configuration: Configuration = Configuration()) throws
        -> DatabaseQueue
    {
        let (source, copyConfiguration) = try openCopySource(path: path, configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "granite-copy-" + UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "unable to open database file")
        }
        // The files are unlinked once open: the connection keeps using them, and nothing remains afterwards.
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try DatabaseQueue(
            path: directory.appendingPathComponent("copy.granite").path, configuration: copyConfiguration)
        return try fill(copy, from: source, readOnly: configuration.readonly)
    }

    /// The source opened read-only, and the configuration of a copy with the source's page size.
    private static func openCopySource(path: String, configuration: Configuration) throws
        -> (source: DatabaseQueue, copyConfiguration: Configuration)
    {
        var sourceConfiguration = configuration
        sourceConfiguration.readonly = true
        let source = try DatabaseQueue(path: path, configuration: sourceConfiguration)
        var copyConfiguration = configuration
        copyConfiguration.readonly = false
        copyConfiguration.pageSize = source.writer.syncRethrowing { db in db.connection.engine.pager.pageSize }
        return (source, copyConfiguration)
    }

    private static func fill(_ copy: DatabaseQueue, from source: DatabaseQueue, readOnly: Bool) throws
        -> DatabaseQueue
    {
        try source.backup(to: copy)
        try source.close()
        if readOnly { copy.writer.syncRethrowing { db in db.isReadOnly = true } }
        return copy
    }
}
