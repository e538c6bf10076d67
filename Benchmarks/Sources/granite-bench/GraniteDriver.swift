import GraniteStorage

/// Granite's storage layer (`GraniteStorage`): one table B-tree keyed by rowid.
struct GraniteDriver: EngineDriver {
    let settings: EngineSettings
    let name = "Granite"
    let fileName = "bench.granite"
    static let tableName = "bench"

    private func open(path: String) throws -> StorageEngine {
        var options = StorageOptions()
        options.pageSize = settings.pageSize
        options.cacheSize = settings.cachePages
        options.synchronous = settings.synchronous
        return try StorageEngine(path: path, options: options)
    }

    func insertRows(path: String, order: UnsafeBufferPointer<Int64>, payloads: PayloadSet) throws -> UInt64 {
        let start = MonotonicClock.nanoseconds()
        let engine = try open(path: path)
        let table = try engine.createTable(named: GraniteDriver.tableName)
        for rowid in order {
            try table.insert(rowid: rowid, payload: payloads.payload(for: rowid))
        }
        try engine.commit()
        try engine.close()
        return MonotonicClock.nanoseconds() - start
    }

    func lookupRows(path: String, keys: UnsafeBufferPointer<Int64>) throws -> LookupResult {
        let engine = try open(path: path)
        let table = try engine.table(named: GraniteDriver.tableName)
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
        try engine.commit()
        try engine.close()
        return LookupResult(nanoseconds: elapsed, checksum: checksum)
    }

    func scanRows(path: String) throws -> ScanResult {
        let engine = try open(path: path)
        let table = try engine.table(named: GraniteDriver.tableName)
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
        try engine.commit()
        try engine.close()
        return ScanResult(nanoseconds: elapsed, rows: rows, checksum: checksum, ascending: ascending)
    }
}
