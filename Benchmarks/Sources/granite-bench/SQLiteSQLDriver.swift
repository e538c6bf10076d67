import CSQLite

/// SQLite running the SQL workloads through `sqlite3_prepare_v2`/`bind`/`step`/`reset`, with
/// `journal_mode=WAL`, `synchronous` at the level matching Granite's durability, and page size, cache and
/// auto-checkpoint as in the other WAL workloads.
struct SQLiteSQLDriver: SQLEngineDriver {
    let settings: EngineSettings
    let name = "SQLite"
    let fileName = "sql.sqlite"

    /// `SQLITE_TRANSIENT`: SQLite copies bound text before the bind call returns.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }

    func runSQLWorkloads(path: String, dataset: SQLDataset, sync: WALSync) throws -> SQLRunResult {
        let db = try SQLiteConnection(path: path, settings: settings, create: true, wal: sync)
        for sql in SQLText.schema(withoutRowid: dataset.withoutRowid) { try db.execute(sql) }

        let begin = try db.prepare("BEGIN").handle
        let commit = try db.prepare("COMMIT").handle
        let insert = try db.prepare(SQLText.insert).handle
        let selectByKey = try db.prepare(SQLText.selectByKey).handle
        let range = try db.prepare(SQLText.range).handle
        let groupByTeam = try db.prepare(SQLText.groupByTeam).handle
        let totals = try db.prepare(SQLText.totals).handle
        let update = try db.prepare(SQLText.update).handle
        let delete = try db.prepare(SQLText.delete).handle
        let connection = sqlite3_db_handle(insert)
        var result = SQLRunResult()

        func checkTotals(_ when: String) throws {
            guard sqlite3_step(totals) == SQLITE_ROW else { throw db.error(sqlite3_errcode(connection), "totals") }
            result.check("count after \(when)", sqlite3_column_int64(totals, 0))
            result.check("sum after \(when)", sqlite3_column_int64(totals, 1))
            try db.check(sqlite3_reset(totals))
        }

        // Each phase is a function of its own, so that callgrind counts its instructions apart (as the Granite
        // driver's phases are).
        /// a. INSERT
        @inline(never)
        func insertRows() throws {
            try db.stepDone(begin, "BEGIN")
            for index in 0..<dataset.rows {
                try db.check(sqlite3_bind_int64(insert, 1, Int64(index + 1)))
                try db.check(sqlite3_bind_text(insert, 2, dataset.names[index], -1, Self.transient))
                if let team = dataset.teams[index] {
                    try db.check(sqlite3_bind_text(insert, 3, team, -1, Self.transient))
                } else {
                    try db.check(sqlite3_bind_null(insert, 3))
                }
                try db.check(sqlite3_bind_int64(insert, 4, dataset.scores[index]))
                try db.check(sqlite3_bind_double(insert, 5, dataset.created[index]))
                try db.stepDone(insert, "INSERT id \(index + 1)")
            }
            try db.stepDone(commit, "COMMIT")
        }

        /// b. SELECT by primary key
        @inline(never)
        func selectByKeys() throws -> UInt64 {
            var checksum: UInt64 = 0
            try db.stepDone(begin, "BEGIN")
            for key in dataset.selectKeys {
                try db.check(sqlite3_bind_int64(selectByKey, 1, key))
                let rc = sqlite3_step(selectByKey)
                guard rc == SQLITE_ROW else {
                    throw rc == SQLITE_DONE ? BenchError("SQLite SQL: id \(key) not found") : db.error(rc, "SELECT id")
                }
                checksum &+= Self.digestRow(selectByKey)
                try db.check(sqlite3_reset(selectByKey))
            }
            try db.stepDone(commit, "COMMIT")
            return checksum
        }

        /// c. Indexed range + ORDER BY + LIMIT
        @inline(never)
        func rangeQueries() throws -> (rows: Int, checksum: UInt64) {
            var checksum: UInt64 = 0
            var rows = 0
            try db.stepDone(begin, "BEGIN")
            for threshold in dataset.rangeThresholds {
                try db.check(sqlite3_bind_int64(range, 1, threshold))
                var chained: UInt64 = 0
                while try db.stepRow(range, "range SELECT") {
                    chained = SQLDigest.chain(chained, Self.digestRow(range))
                    rows += 1
                }
                try db.check(sqlite3_reset(range))
                checksum &+= chained
            }
            try db.stepDone(commit, "COMMIT")
            return (rows, checksum)
        }

        /// d. Full-table aggregates
        @inline(never)
        func aggregates() throws -> UInt64 {
            var checksum: UInt64 = 0
            try db.stepDone(begin, "BEGIN")
            for _ in 0..<dataset.aggregateRepetitions {
                while try db.stepRow(groupByTeam, "GROUP BY") { checksum &+= Self.digestRow(groupByTeam) }
                try db.check(sqlite3_reset(groupByTeam))
                while try db.stepRow(totals, "totals") { checksum &+= Self.digestRow(totals) }
                try db.check(sqlite3_reset(totals))
            }
            try db.stepDone(commit, "COMMIT")
            return checksum
        }

        /// e. UPDATE by key
        @inline(never)
        func updates() throws {
            try db.stepDone(begin, "BEGIN")
            for (id, score) in dataset.updates {
                try db.check(sqlite3_bind_int64(update, 1, score))
                try db.check(sqlite3_bind_int64(update, 2, id))
                try db.stepDone(update, "UPDATE id \(id)")
            }
            try db.stepDone(commit, "COMMIT")
        }

        /// f. DELETE by key
        @inline(never)
        func deletes() throws {
            try db.stepDone(begin, "BEGIN")
            for id in dataset.deletes {
                try db.check(sqlite3_bind_int64(delete, 1, id))
                try db.stepDone(delete, "DELETE id \(id)")
            }
            try db.stepDone(commit, "COMMIT")
        }

        var start = MonotonicClock.nanoseconds()
        try insertRows()
        result.record(.insert, since: start)
        try checkTotals("insert")

        start = MonotonicClock.nanoseconds()
        let keyChecksum = try selectByKeys()
        result.record(.selectByKey, since: start)
        result.check("primary-key select checksum", keyChecksum)

        start = MonotonicClock.nanoseconds()
        let ranges = try rangeQueries()
        result.record(.range, since: start)
        result.check("range rows", Int64(ranges.rows))
        result.check("range checksum", ranges.checksum)

        start = MonotonicClock.nanoseconds()
        let aggregateChecksum = try aggregates()
        result.record(.aggregate, since: start)
        result.check("aggregate checksum", aggregateChecksum)

        start = MonotonicClock.nanoseconds()
        try updates()
        result.record(.update, since: start)
        try checkTotals("update")

        start = MonotonicClock.nanoseconds()
        try deletes()
        result.record(.delete, since: start)
        try checkTotals("delete")

        try db.close()
        return result
    }

    /// Digest of the current row of `statement`, every column read in its storage class.
    @inline(__always)
    static func digestRow(_ statement: OpaquePointer?) -> UInt64 {
        var sum: UInt64 = 0
        for column in 0..<sqlite3_column_count(statement) {
            let digest: UInt64
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: digest = SQLDigest.integer(sqlite3_column_int64(statement, column))
            case SQLITE_FLOAT: digest = SQLDigest.real(sqlite3_column_double(statement, column))
            case SQLITE_TEXT:
                let text = UnsafeRawPointer(sqlite3_column_text(statement, column))
                let count = Int(sqlite3_column_bytes(statement, column))
                digest = SQLDigest.text(UnsafeRawBufferPointer(start: text, count: count))
            case SQLITE_BLOB:
                let blob = sqlite3_column_blob(statement, column)
                let count = Int(sqlite3_column_bytes(statement, column))
                digest = SQLDigest.blob(UnsafeRawBufferPointer(start: blob, count: count))
            default: digest = SQLDigest.null
            }
            sum &+= SQLDigest.column(digest, at: Int(column))
        }
        return sum
    }
}

extension SQLiteConnection {
    /// Steps a statement that returns rows: true for a row, false when it is done (not reset).
    @inline(__always)
    func stepRow(_ statement: OpaquePointer?, _ context: @autoclosure () -> String) throws -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        guard rc == SQLITE_DONE else { throw error(rc, context()) }
        return false
    }
}
