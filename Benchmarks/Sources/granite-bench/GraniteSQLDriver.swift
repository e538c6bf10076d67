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
        for sql in SQLText.schema(withoutRowid: dataset.withoutRowid) { try db.execute(sql) }
        let statements = try Statements(db)
        var result = SQLRunResult()

        func checkTotals(_ when: String) throws {
            let (count, sum) = try totalsRow(statements.totals)
            result.check("count after \(when)", count)
            result.check("sum after \(when)", sum)
        }

        var start = MonotonicClock.nanoseconds()
        try statements.insertRows(dataset)
        result.record(.insert, since: start)
        try checkTotals("insert")

        start = MonotonicClock.nanoseconds()
        let selectChecksum = try statements.selectByKey(dataset)
        result.record(.selectByKey, since: start)
        result.check("primary-key select checksum", selectChecksum)

        start = MonotonicClock.nanoseconds()
        let (rangeRows, rangeChecksum) = try statements.rangeQueries(dataset)
        result.record(.range, since: start)
        result.check("range rows", Int64(rangeRows))
        result.check("range checksum", rangeChecksum)

        start = MonotonicClock.nanoseconds()
        let aggregateChecksum = try statements.aggregates(dataset)
        result.record(.aggregate, since: start)
        result.check("aggregate checksum", aggregateChecksum)

        start = MonotonicClock.nanoseconds()
        try statements.updates(dataset)
        result.record(.update, since: start)
        try checkTotals("update")

        start = MonotonicClock.nanoseconds()
        try statements.deletes(dataset)
        result.record(.delete, since: start)
        try checkTotals("delete")

        try engine.close()
        return result
    }

    /// The prepared statements, one method per timed phase (kept out of line so that profiles attribute costs
    /// to phases).
    private struct Statements {
        let begin: PreparedStatement
        let commit: PreparedStatement
        let insert: PreparedStatement
        let selectByKey: PreparedStatement
        let range: PreparedStatement
        let groupByTeam: PreparedStatement
        let totals: PreparedStatement
        let update: PreparedStatement
        let delete: PreparedStatement

        init(_ db: SQLConnection) throws {
            begin = try db.prepare("BEGIN")
            commit = try db.prepare("COMMIT")
            insert = try db.prepare(SQLText.insert)
            selectByKey = try db.prepare(SQLText.selectByKey)
            range = try db.prepare(SQLText.range)
            groupByTeam = try db.prepare(SQLText.groupByTeam)
            totals = try db.prepare(SQLText.totals)
            update = try db.prepare(SQLText.update)
            delete = try db.prepare(SQLText.delete)
        }

        /// a. INSERT
        @inline(never)
        func insertRows(_ dataset: SQLDataset) throws {
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
        }

        /// b. SELECT by primary key
        @inline(never)
        func selectByKey(_ dataset: SQLDataset) throws -> UInt64 {
            var checksum: UInt64 = 0
            try begin.execute()
            for key in dataset.selectKeys {
                try selectByKey.bind(.integer(key), at: 1)
                guard try selectByKey.stepRow() else { throw BenchError("Granite SQL: id \(key) not found") }
                checksum &+= GraniteSQLDriver.digestRow(selectByKey)
                selectByKey.reset()
            }
            try commit.execute()
            return checksum
        }

        /// c. Indexed range + ORDER BY + LIMIT
        @inline(never)
        func rangeQueries(_ dataset: SQLDataset) throws -> (rows: Int, checksum: UInt64) {
            var checksum: UInt64 = 0
            var rows = 0
            try begin.execute()
            for threshold in dataset.rangeThresholds {
                try range.bind(.integer(threshold), at: 1)
                var chained: UInt64 = 0
                while try range.stepRow() {
                    chained = SQLDigest.chain(chained, GraniteSQLDriver.digestRow(range))
                    rows += 1
                }
                checksum &+= chained
            }
            try commit.execute()
            return (rows, checksum)
        }

        /// d. Full-table aggregates
        @inline(never)
        func aggregates(_ dataset: SQLDataset) throws -> UInt64 {
            var checksum: UInt64 = 0
            try begin.execute()
            for _ in 0..<dataset.aggregateRepetitions {
                groupByTeam.reset()
                while try groupByTeam.stepRow() { checksum &+= GraniteSQLDriver.digestRow(groupByTeam) }
                totals.reset()
                while try totals.stepRow() { checksum &+= GraniteSQLDriver.digestRow(totals) }
            }
            try commit.execute()
            return checksum
        }

        /// e. UPDATE by key
        @inline(never)
        func updates(_ dataset: SQLDataset) throws {
            try begin.execute()
            for (id, score) in dataset.updates {
                try update.bind(.integer(score), at: 1)
                try update.bind(.integer(id), at: 2)
                try update.execute()
            }
            try commit.execute()
        }

        /// f. DELETE by key
        @inline(never)
        func deletes(_ dataset: SQLDataset) throws {
            try begin.execute()
            for id in dataset.deletes {
                try delete.bind(.integer(id), at: 1)
                try delete.execute()
            }
            try commit.execute()
        }
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

    /// Digest of the current row of `statement`, read column by column (as the SQLite driver does with
    /// `sqlite3_column_*`).
    static func digestRow(_ statement: PreparedStatement) -> UInt64 {
        var sum: UInt64 = 0
        for index in 0..<statement.columnCount {
            sum &+= SQLDigest.column(digest(statement.column(at: index)), at: index)
        }
        return sum
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
        case .invalidUTF8Text(let bytes): return bytes.withUnsafeBytes { SQLDigest.text($0) }
        case .blob(let bytes): return bytes.withUnsafeBytes { SQLDigest.blob($0) }
        }
    }
}
