import GraniteStorage

// VACUUM and VACUUM INTO: a compact rebuild of every tree (GraniteStorage's TreeCompaction.swift), written to a
// new file or installed over the database as one commit (CompactCopy.swift says why that is crash safe).
//
// The rebuild re-encodes every SQL row with the connection's text compression threshold, so that VACUUM also
// applies a threshold changed since the rows were written, and points the schema rows at the new root pages.

/// Where a `VACUUM` run by ``SQLConnection/vacuum(progress:)`` stands.
public enum VacuumProgress: Sendable, Equatable {
    /// Rebuilding the trees into the compact image.
    case rebuilding(CompactionProgress)
    /// Writing the image's pages into the log: pages left, and the image's page count.
    case installing(remaining: Int, total: Int)
}

extension SQLConnection {
    /// Runs `VACUUM [schema] [INTO file]`.
    func vacuum(schema: String?, into file: SQLExpression?, parameters: BoundParameters) throws {
        if let schema {
            let key = SchemaNames.key(schema)
            // The temporary schema lives in memory: there is nothing to compact or copy (SQLite writes no file
            // for `VACUUM temp INTO` either).
            if key == "temp" { return }
            guard key == "main" else { throw SQLExecutionError("unknown database \(schema)") }
        }
        guard let file else { return try vacuum(progress: nil) }
        let path = try withReadTransaction { try vacuumTarget(file, parameters: parameters) }
        try vacuum(into: path, progress: nil)
    }

    /// Writes a compact copy of the database, as one snapshot sees it, to a new database file at `path`
    /// (`VACUUM INTO`): synced and closed when this returns. Other connections may go on writing meanwhile. When
    /// the copy fails, the file it created (and its log) is removed, so that the same statement can be retried.
    ///
    /// - Parameter progress: called as the copy advances; what it throws stops it.
    /// - Throws: ``SQLExecutionError`` "output file already exists" when a file with content is at `path`, or
    ///   the errors of ``vacuum(progress:)`` for a transaction or running statements; I/O errors.
    public func vacuum(into path: String, progress: ((CompactionProgress) throws -> Void)?) throws {
        try checkVacuumAllowed()
        try withReadTransaction {
            if try engine.fileHasContent(at: path) { throw SQLExecutionError("output file already exists") }
            try currentTransaction().writeCompactCopy(toPath: path, rewrite: compactionRewrite(), progress: progress)
        }
    }

    /// Rebuilds the database compactly in place (`VACUUM`): its free pages are returned to the file system,
    /// its trees packed, its texts compressed under the current ``textCompressionThreshold``. The rebuilt
    /// database is installed as one commit, so a crash leaves either the old content or the new; a checkpoint
    /// then shrinks the file when no reader still uses older pages.
    ///
    /// - Parameter progress: called as the rebuild and the installation advance; what it throws stops the
    ///   vacuum and leaves the database as it was.
    /// - Throws: ``SQLExecutionError`` "cannot VACUUM from within a transaction" inside a transaction or
    ///   snapshot, "cannot VACUUM - SQL statements in progress" while a statement runs; storage errors (busy
    ///   when another connection writes, read-only).
    public func vacuum(progress: ((VacuumProgress) throws -> Void)?) throws {
        try checkVacuumAllowed()
        try engineBeginWrite()
        do {
            try currentWriteTransaction().replaceWithCompactImage(
                rewrite: compactionRewrite(),
                progress: { try progress?(.rebuilding($0)) },
                installProgress: { try progress?(.installing(remaining: $0, total: $1)) })
            try engineCommit()
        } catch {
            try? engineRollback()
            engine.pager.dropCache()
            throw error
        }
        engine.pager.dropCache()
        clearStatementCache()
        try reloadCatalog()
        try? progress?(.installing(remaining: 0, total: Int(engine.pager.pageCount)))
        // Copying the image into the file shrinks it; readers of older snapshots may make this wait for a later
        // checkpoint, which does the same.
        if let copied = try? engine.checkpoint(.passive), copied.backfilledFrames == copied.logFrames {
            _ = try? engine.checkpoint(.truncate)
        }
    }

    /// Throws SQLite's errors for a VACUUM that cannot run now.
    private func checkVacuumAllowed() throws {
        if transactionState.isInsideTransaction { throw SQLExecutionError("cannot VACUUM from within a transaction") }
        if transactionState.statementReads > 0 { throw SQLExecutionError("cannot VACUUM - SQL statements in progress") }
    }

    /// The file name `VACUUM INTO` names: the value of its expression, which must be TEXT.
    private func vacuumTarget(_ file: SQLExpression, parameters: BoundParameters) throws -> String {
        let query = SelectStatement(first: .values([[file]]))
        let rows = try select(query, statement: Statement(.select(query)), parameters: parameters).rows
        guard case .text(let path)? = rows.first?.first else { throw SQLExecutionError("non-text filename") }
        return path
    }

    /// How the rebuild rewrites rows: SQL rows are re-encoded under the current compression threshold, and
    /// schema rows get their tree's new root page.
    private func compactionRewrite() -> CompactionPayloadRewrite {
        let encoder = RowEncoder(compressionThreshold: textCompressionThreshold)
        return { tree, _, payload, roots in
            let isSchema = tree.name == SchemaNames.schemaTable
            guard isSchema || tree.name.hasPrefix("t:") else { return nil }
            var values = try RowDecoder(payload).values()
            if isSchema, values.count > 3, case .integer(let root) = values[3], let old = PageNumber(exactly: root),
                let moved = roots[old]
            {
                values[3] = .integer(Int64(moved))
            }
            return encoder.encode(values)
        }
    }
}
