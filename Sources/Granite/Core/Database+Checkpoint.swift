import GraniteStorage

extension Database {
    /// How much a WAL checkpoint (``checkpoint(_:on:)``) waits for, as SQLite's `sqlite3_wal_checkpoint_v2`
    /// modes.
    public enum CheckpointMode: CInt, Sendable {
        /// Copies into the database file the log frames that no reader still needs; never waits.
        case passive = 0
        /// Waits (up to the busy time-out) for the readers of older commits to finish, then copies every
        /// committed frame; throws `SQLITE_BUSY` when they do not finish in time.
        case full = 1
        /// Like `full`. Granite restarts the log by itself at the next write once every frame is copied and no
        /// reader uses it, which is what SQLite's restart mode waits for.
        case restart = 2
        /// Like `full`, then empties the log file.
        case truncate = 3
    }

    /// Copies the committed pages of the write-ahead log into the database file, through the engine's
    /// checkpoint (crash-safe: the log is synced first, and frames stay in the log until copied). Pages a live
    /// read snapshot still needs from the log are not copied, so readers and ``DatabaseSnapshot`` keep seeing
    /// their commit.
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     let (walFrameCount, checkpointedFrameCount) = try db.checkpoint(.truncate)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: The checkpoint mode (default `.passive`).
    ///   - dbName: The schema to checkpoint: "main" (the default), or nil for every schema (Granite has only
    ///     "main").
    /// - Returns: `walFrameCount`, the number of committed frames in the log, and `checkpointedFrameCount`, the
    ///   number of them now in the database file (both 0 after a truncating checkpoint that emptied the log).
    /// - Throws: A ``DatabaseError``: `SQLITE_BUSY` when a `full`, `restart` or `truncate` checkpoint could not
    ///   copy every frame because readers still use them, `SQLITE_READONLY` on a read-only database,
    ///   `SQLITE_ERROR` for an unknown schema name.
    @discardableResult
    public func checkpoint(
        _ kind: Database.CheckpointMode = .passive, on dbName: String? = "main"
    ) throws -> (walFrameCount: Int, checkpointedFrameCount: Int) {
        if let dbName, dbName.lowercased() != "main" {
            throw noteFailure(DatabaseError(resultCode: .SQLITE_ERROR, message: "unknown database \(dbName)"))
        }
        let result = try wrap { try connection.engine.checkpoint(kind.engineMode) }
        if result.truncated { return (walFrameCount: 0, checkpointedFrameCount: 0) }
        return (walFrameCount: result.logFrames, checkpointedFrameCount: result.backfilledFrames)
    }
}

extension Database.CheckpointMode {
    /// The engine's checkpoint for this mode.
    var engineMode: GraniteStorage.CheckpointMode {
        switch self {
        case .passive: return .passive
        case .full, .restart: return .full
        case .truncate: return .truncate
        }
    }
}
