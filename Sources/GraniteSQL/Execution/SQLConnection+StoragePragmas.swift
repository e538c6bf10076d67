import GraniteStorage

// The pragmas that set how the database is written to disk: `synchronous` (honoured per connection, as in SQLite's
// WAL mode), `page_size` and `encoding` (fixed when Granite creates the file: a request it cannot honour is an
// error, not a silent no-op).

extension SQLConnection {
    /// `PRAGMA synchronous` (reads the connection's level) and `PRAGMA synchronous = level` (sets it).
    ///
    /// Levels are SQLite's: 0/OFF, 1/NORMAL, 2/FULL, 3/EXTRA, read with SQLite's `getSafetyLevel` rules (an
    /// unknown word means NORMAL). The level cannot change inside a transaction, as in SQLite; a number above 3
    /// names no level Granite has and is an error.
    func synchronousPragma(_ argument: String?) throws -> PragmaResult {
        guard let argument else {
            return (["synchronous"], [[.integer(Self.synchronousLevel(of: engine.durability))]])
        }
        if isInTransaction {
            throw SQLExecutionError("Safety level may not be changed inside a transaction")
        }
        engine.durability = try Self.durability(forSynchronous: argument)
        return ([], [])
    }

    /// `PRAGMA busy_timeout` and `PRAGMA busy_timeout = ms`: how long this connection's writes wait for another
    /// process's writer lock (connections of one process wait for each other as the database was opened).
    ///
    /// As in SQLite both forms answer one row, `timeout`, in milliseconds; the argument is read as an integer
    /// (a fraction is dropped, a word or a negative number means 0, which fails at once with SQLITE_BUSY).
    func busyTimeoutPragma(_ argument: String?) -> PragmaResult {
        if let argument {
            engine.processBusyTimeout = Double(max(0, Self.leadingInteger(argument))) / 1000
        }
        let milliseconds = (engine.processBusyTimeout * 1000).rounded(.towardZero)
        return (["timeout"], [[.integer(milliseconds < 9.2e18 ? Int64(milliseconds) : Int64.max)]])
    }

    /// `PRAGMA page_size` (the page size of the file) and `PRAGMA page_size = N`.
    ///
    /// As in SQLite, a size that is not a power of two in 512…65536 is ignored, and so is any size once the database
    /// holds something (a schema change or a user version was ever written). On a database that holds nothing yet
    /// the new size is used: SQLite waits for the first write to create the file, Granite has written it at open,
    /// so it writes the empty database again with the new size (``StorageEngine/reformat(pageSize:)``). That needs
    /// this connection to be the only one open, and no savepoint or running statement: otherwise the request is
    /// an error rather than silently dropped.
    func pageSizePragma(_ argument: String?) throws -> PragmaResult {
        let current = engine.pager.pageSize
        guard let argument else {
            return (["page_size"], [[.integer(Int64(current))]])
        }
        let requested = Self.leadingInteger(argument)
        let isValid = requested >= 512 && requested <= 65536 && requested & (requested - 1) == 0
        guard isValid, requested != Int64(current), try holdsNothing() else { return ([], []) }
        do {
            try reformatStorage(pageSize: Int(requested))
        } catch StorageError.busy {
            throw SQLExecutionError(
                "page_size \(requested) cannot be honoured while other connections to the database are open"
                    + " (set the page size in the options the database is opened with)")
        }
        return ([], [])
    }

    /// `PRAGMA encoding` (always `UTF-8`) and `PRAGMA encoding = name`.
    ///
    /// As in SQLite, an unknown encoding is an error, and a known one is ignored once the database holds
    /// something. On a database that holds nothing yet SQLite would switch to the UTF-16 encoding asked for;
    /// Granite stores text in UTF-8 only, so that request is an error.
    func encodingPragma(_ argument: String?) throws -> PragmaResult {
        guard let argument else { return (["encoding"], [[.text("UTF-8")]]) }
        let utf8 = ["utf8", "utf-8"]
        let utf16 = ["utf16", "utf-16", "utf16le", "utf-16le", "utf16be", "utf-16be"]
        let name = SchemaNames.key(argument)
        if utf8.contains(name) { return ([], []) }
        guard utf16.contains(name) else { throw SQLExecutionError("unsupported encoding: \(argument)") }
        if try holdsNothing() {
            throw SQLExecutionError("encoding \(argument) cannot be honoured: Granite stores text in UTF-8 only")
        }
        return ([], [])
    }

    /// Whether the database holds nothing yet: no schema change and no user version were ever written (the
    /// state in which SQLite still lets `page_size` and `encoding` choose the file's format).
    private func holdsNothing() throws -> Bool {
        try reading {
            let transaction = try currentTransaction()
            return try transaction.schemaCookie == 0 && transaction.userVersion == 0
        }
    }

    /// The `PRAGMA synchronous` number of a level.
    static func synchronousLevel(of durability: Durability) -> Int64 {
        switch durability {
        case .off: return 0
        case .normal: return 1
        case .full: return 2
        case .extra: return 3
        }
    }

    /// The level a `PRAGMA synchronous = …` argument names: a number 0–3, or a word.
    static func durability(forSynchronous argument: String) throws -> Durability {
        let level: Int64
        if let first = argument.utf8.first, first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") {
            level = leadingInteger(argument)
        } else {
            switch SchemaNames.key(argument) {
            case "off", "no", "false": level = 0
            case "full": level = 2
            case "extra": level = 3
            default: level = 1  // "normal", "on", "yes", "true", and any other word: SQLite's default
            }
        }
        switch level {
        case 0: return .off
        case 1: return .normal
        case 2: return .full
        case 3: return .extra
        default: throw SQLExecutionError("unsupported synchronous level \(level): Granite knows 0 (OFF) to 3 (EXTRA)")
        }
    }
}

extension SQLConnection {
    /// `PRAGMA wal_checkpoint` and `PRAGMA wal_checkpoint(PASSIVE|FULL|RESTART|TRUNCATE)`: runs a checkpoint of the
    /// write-ahead log and answers SQLite's one row `busy`, `log`, `checkpointed`.
    ///
    /// As in SQLite, an unknown mode word means PASSIVE, and a checkpoint that could not copy every frame (readers
    /// of older commits, another process's checkpoint or writer past the busy time-out) is not an error: it answers
    /// `busy` 1 with the log's committed and copied frame counts. A truncated log answers 0|0|0. Inside a
    /// transaction it fails with `SQLITE_LOCKED`, `database table is locked`, as SQLite does.
    func walCheckpointPragma(_ argument: String?) throws -> PragmaResult {
        if isInTransaction { throw SQLExecutionError(.locked, "database table is locked") }
        let columns = ["busy", "log", "checkpointed"]
        func row(busy: Bool, log: Int, checkpointed: Int) -> PragmaResult {
            (columns, [[.integer(busy ? 1 : 0), .integer(Int64(log)), .integer(Int64(checkpointed))]])
        }
        do {
            let result = try engine.checkpoint(Self.checkpointMode(named: argument))
            if result.truncated { return row(busy: false, log: 0, checkpointed: 0) }
            return row(busy: false, log: result.logFrames, checkpointed: result.backfilledFrames)
        } catch StorageError.busy {
            let status = engine.walStatus
            return row(busy: true, log: status.frames, checkpointed: status.backfilledFrames)
        }
    }

    /// The engine's checkpoint for SQLite's mode word: RESTART is FULL (the engine restarts the log by itself at
    /// the next write once every frame is copied and no reader uses it).
    private static func checkpointMode(named word: String?) -> CheckpointMode {
        switch word.map(SchemaNames.key) {
        case "full", "restart": return .full
        case "truncate": return .truncate
        default: return .passive
        }
    }
}
