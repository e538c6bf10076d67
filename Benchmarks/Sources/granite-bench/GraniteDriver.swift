import GraniteStorage

/// Granite's storage layer (`GraniteStorage`): one table B-tree keyed by rowid.
struct GraniteDriver: EngineDriver {
    let settings: EngineSettings
    let name = "Granite"
    let fileName = "bench.granite"
    static let tableName = "bench"

    /// `wal` nil: the insert/lookup/scan settings (`synchronous`, i.e.
    /// durability `.full` or `.off`); otherwise durability `.full`/`.normal`.
    private func open(path: String, wal: WALSync? = nil) throws -> StorageEngine {
        var options = StorageOptions()
        options.pageSize = settings.pageSize
        options.cacheSize = settings.cachePages
        switch wal {
        case nil: options.synchronous = settings.synchronous
        case .full: options.durability = .full
        case .normal: options.durability = .normal
        }
        if wal != nil { options.autoCheckpointFrames = settings.walAutoCheckpointFrames }
        return try StorageEngine(path: path, options: options)
    }

    func insertTransactions(
        path: String, order: UnsafeBufferPointer<Int64>, payloads: PayloadSet, rowsPerTransaction: Int,
        sync: WALSync
    ) throws -> TransactionResult {
        let engine = try open(path: path, wal: sync)
        let setup = try engine.beginWrite()
        let table = try setup.createTable(named: GraniteDriver.tableName)
        try setup.commit()
        let count = order.count
        var index = 0
        let start = MonotonicClock.nanoseconds()
        while index < count {
            let end = min(index + rowsPerTransaction, count)
            let write = try engine.beginWrite()
            while index < end {
                let rowid = order[index]
                try table.insert(rowid: rowid, payload: payloads.payload(for: rowid))
                index += 1
            }
            try write.commit()
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        let status = engine.walStatus
        let logState =
            "log \(status.frames) frames in \(status.commits) commits since its last restart, "
            + "\(status.backfilledFrames) checkpointed, file \(status.fileSize) B; "
            + "database file \(FileSystem.size(of: path) ?? 0) B"
        try engine.close()
        return TransactionResult(nanoseconds: elapsed, logState: logState)
    }

    func insertRows(path: String, order: UnsafeBufferPointer<Int64>, payloads: PayloadSet) throws -> UInt64 {
        let start = MonotonicClock.nanoseconds()
        let engine = try open(path: path)
        let write = try engine.beginWrite()
        let table = try write.createTable(named: GraniteDriver.tableName)
        for rowid in order {
            try table.insert(rowid: rowid, payload: payloads.payload(for: rowid))
        }
        try write.commit()
        try engine.close()
        return MonotonicClock.nanoseconds() - start
    }

    func lookupRows(path: String, keys: UnsafeBufferPointer<Int64>) throws -> LookupResult {
        let engine = try open(path: path)
        let read = try engine.beginRead()
        let table = try read.table(named: GraniteDriver.tableName)
        var checksum: UInt64 = 0
        let start = MonotonicClock.nanoseconds()
        for key in keys {
            let digest = try table.withPayload(rowid: key) { (buffer: UnsafeRawBufferPointer) -> UInt64 in
                rowDigest(rowid: key, payload: buffer)
            }
            guard let digest else { throw BenchError("Granite: rowid \(key) not found") }
            checksum &+= digest
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        try read.commit()
        try engine.close()
        return LookupResult(nanoseconds: elapsed, checksum: checksum)
    }

    func scanRows(path: String, wal: WALSync?) throws -> ScanResult {
        let engine = try open(path: path, wal: wal)
        let read = try engine.beginRead()
        let table = try read.table(named: GraniteDriver.tableName)
        var checksum: UInt64 = 0
        var rows = 0
        var previous = Int64.min
        var ascending = true
        let cursor = try table.makeCursor()
        let start = MonotonicClock.nanoseconds()
        var positioned = try cursor.first()
        while positioned {
            let rowid = cursor.rowid
            checksum &+= try cursor.withPayload { (buffer: UnsafeRawBufferPointer) -> UInt64 in
                rowDigest(rowid: rowid, payload: buffer)
            }
            if rowid <= previous { ascending = false }
            previous = rowid
            rows += 1
            positioned = try cursor.next()
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        try read.commit()
        try engine.close()
        return ScanResult(nanoseconds: elapsed, rows: rows, checksum: checksum, ascending: ascending)
    }
}
