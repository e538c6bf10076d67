import GraniteSQL
import GraniteStorage

/// Granite's SQL layer (`GraniteSQL`): prepared statements on one `SQLConnection`, arguments bound one by one
/// with `bind(_:at:)` (like `sqlite3_bind_*`), rows read from `step()`.
struct GraniteSQLDriver: SQLEngineDriver {
    let settings: EngineSettings
    let name = "Granite"
    let fileName = "sql.granite"

    func runSQLWorkloads(path: String, dataset: SQLDataset, sync: WALSync) throws -> SQLRunResult {
        var options = StorageOptions()
        options.pageSize = settings.pageSize
        options.cacheSize = settings.cachePages
        options.durability = sync == .full ? .full : .normal
        options.autoCheckpointFrames = settings.walAutoCheckpointFrames
        let engine = try StorageEngine(path: path, options: options)
        let db = try SQLConnection(engine: engine)
        for sql in SQLText.schema { try db.execute(sql) }

        let begin = try db.prepare("BEGIN")
        let commit = try db.prepare("COMMIT")
        let insert = try db.prepare(SQLText.insert)
        let selectByKey = try db.prepare(SQLText.selectByKey)
        let range = try db.prepare(SQLText.range)
        let groupByTeam = try db.prepare(SQLText.groupByTeam)
        let totals = try db.prepare(SQLText.totals)
        let update = try db.prepare(SQLText.update)
        let delete = try db.prepare(SQLText.delete)
        var result = SQLRunResult()

        func checkTotals(_ when: String) throws {
            let (count, sum) = try totalsRow(totals)
            result.check("count after \(when)", count)
            result.check("sum after \(when)", sum)
        }

        // a. INSERT
        var start = MonotonicClock.nanoseconds()
        try begin.execute()
        for index in 0..<dataset.rows {
            try insert.bind(.integer(Int64(index + 1)), at: 1)
            try insert.bind(.text(dataset.names[index]), at: 2)
            try insert.bind(dataset.teams[index].map(Value.text) ?? .null, at: 3)
            try insert.bind(.integer(dataset.scores[index]), at: 4)
            try insert.bind(.real(dataset.created[index]), at: 5)
            try insert.execute()
        }
        try commit.execute()
        result.record(.insert, since: start)
        try checkTotals("insert")

        // b. SELECT by primary key
        var checksum: UInt64 = 0
        start = MonotonicClock.nanoseconds()
        try begin.execute()
        for key in dataset.selectKeys {
            try selectByKey.bind(.integer(key), at: 1)
            guard let row = try selectByKey.step() else { throw BenchError("Granite SQL: id \(key) not found") }
            checksum &+= Self.digest(row)
            selectByKey.reset()
        }
        try commit.execute()
        result.record(.selectByKey, since: start)
        result.check("primary-key select checksum", checksum)

        // c. Indexed range + ORDER BY + LIMIT
        checksum = 0
        var rangeRows = 0
        start = MonotonicClock.nanoseconds()
        try begin.execute()
        for threshold in dataset.rangeThresholds {
            try range.bind(.integer(threshold), at: 1)
            var chained: UInt64 = 0
            while let row = try range.step() {
                chained = SQLDigest.chain(chained, Self.digest(row))
                rangeRows += 1
            }
            checksum &+= chained
        }
        try commit.execute()
        result.record(.range, since: start)
        result.check("range rows", Int64(rangeRows))
        result.check("range checksum", checksum)

        // d. Full-table aggregates
        checksum = 0
        start = MonotonicClock.nanoseconds()
        try begin.execute()
        for _ in 0..<dataset.aggregateRepetitions {
            groupByTeam.reset()
            while let row = try groupByTeam.step() { checksum &+= Self.digest(row) }
            totals.reset()
            while let row = try totals.step() { checksum &+= Self.digest(row) }
        }
        try commit.execute()
        result.record(.aggregate, since: start)
        result.check("aggregate checksum", checksum)

        // e. UPDATE by key
        start = MonotonicClock.nanoseconds()
        try begin.execute()
        for (id, score) in dataset.updates {
            try update.bind(.integer(score), at: 1)
            try update.bind(.integer(id), at: 2)
            try update.execute()
        }
        try commit.execute()
        result.record(.update, since: start)
        try checkTotals("update")

        // f. DELETE by key
        start = MonotonicClock.nanoseconds()
        try begin.execute()
        for id in dataset.deletes {
            try delete.bind(.integer(id), at: 1)
            try delete.execute()
        }
        try commit.execute()
        result.record(.delete, since: start)
        try checkTotals("delete")

        try engine.close()
        return result
    }

    /// `count(*)` and `sum(score)` from the totals statement.
    private func totalsRow(_ totals: PreparedStatement) throws -> (Int64, Int64) {
        totals.reset()
        guard let row = try totals.step(), row.count == 2, case .integer(let count) = row[0] else {
            throw BenchError("Granite SQL: totals returned no row")
        }
        totals.reset()
        if case .integer(let sum) = row[1] { return (count, sum) }
        return (count, 0)
    }

    static func digest(_ row: [Value]) -> UInt64 {
        var sum: UInt64 = 0
        for (index, value) in row.enumerated() {
            sum &+= SQLDigest.column(digest(value), at: index)
        }
        return sum
    }

    @inline(__always)
    static func digest(_ value: Value) -> UInt64 {
        switch value {
        case .null: return SQLDigest.null
        case .integer(let integer): return SQLDigest.integer(integer)
        case .real(let real): return SQLDigest.real(real)
        case .text(var text): return text.withUTF8 { SQLDigest.text(UnsafeRawBufferPointer($0)) }
        case .blob(let bytes): return bytes.withUnsafeBytes { SQLDigest.blob($0) }
        }
    }
}
