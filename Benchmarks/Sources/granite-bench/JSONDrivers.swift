import CSQLite
import GraniteSQL
import GraniteStorage

// The JSON workloads (see JSONWorkloads.swift) on each engine: the same statements, prepared untimed, each phase
// inside BEGIN…COMMIT.

extension GraniteSQLDriver {
    func runJSONWorkloads(path: String, dataset: JSONDataset, sync: WALSync) throws -> JSONRunResult {
        var options = StorageOptions()
        options.pageSize = settings.pageSize
        options.cacheSize = settings.cachePages
        options.durability = sync == .full ? .full : .normal
        options.autoCheckpointFrames = settings.walAutoCheckpointFrames
        let engine = try StorageEngine(path: path, options: options)
        let db = try SQLConnection(engine: engine)
        for sql in JSONText.schema { try db.execute(sql) }
        let statements = try JSONStatements(db)
        var result = JSONRunResult()

        var start = MonotonicClock.nanoseconds()
        try statements.insertRows(dataset)
        result.record(.insert, since: start)
        result.check("count after insert", try statements.count())

        start = MonotonicClock.nanoseconds()
        let cityCounts = try statements.countsByCity(dataset)
        result.record(.byCity, since: start)
        for (city, count) in zip(dataset.cities, cityCounts) { result.check("city \(city)", count) }

        start = MonotonicClock.nanoseconds()
        let ages = try statements.ageTotals(dataset)
        result.record(.ages, since: start)
        for (threshold, row) in zip(dataset.ageThresholds, ages) {
            result.check("age >= \(threshold) count", row[0])
            result.check("age >= \(threshold) sum", row[1])
            result.check("age >= \(threshold) max", row[2])
        }

        start = MonotonicClock.nanoseconds()
        let tagCounts = try statements.countsByTag(dataset)
        result.record(.byTag, since: start)
        for (tag, count) in zip(dataset.tags, tagCounts) { result.check("tag \(tag)", count) }

        try engine.close()
        return result
    }

    /// The prepared statements, one method per timed phase (kept out of line so that profiles attribute costs
    /// to phases).
    private struct JSONStatements {
        let begin: PreparedStatement
        let commit: PreparedStatement
        let insert: PreparedStatement
        let total: PreparedStatement
        let byCity: PreparedStatement
        let ages: PreparedStatement
        let byTag: PreparedStatement

        init(_ db: SQLConnection) throws {
            begin = try db.prepare("BEGIN")
            commit = try db.prepare("COMMIT")
            insert = try db.prepare(JSONText.insert)
            total = try db.prepare("SELECT count(*) FROM person")
            byCity = try db.prepare(JSONText.byCity)
            ages = try db.prepare(JSONText.ages)
            byTag = try db.prepare(JSONText.byTag)
        }

        @inline(never)
        func insertRows(_ dataset: JSONDataset) throws {
            try begin.execute()
            for index in 0..<dataset.rows {
                try insert.bind(.integer(Int64(index + 1)), at: 1)
                try insert.bind(.text(dataset.profiles[index]), at: 2)
                try insert.execute()
            }
            try commit.execute()
        }

        func count() throws -> Int64 {
            try integers(total, []).first ?? -1
        }

        @inline(never)
        func countsByCity(_ dataset: JSONDataset) throws -> [Int64] {
            try begin.execute()
            let counts = try dataset.cities.map { try integers(byCity, [.text($0)]).first ?? -1 }
            try commit.execute()
            return counts
        }

        @inline(never)
        func ageTotals(_ dataset: JSONDataset) throws -> [[Int64]] {
            try begin.execute()
            let rows = try dataset.ageThresholds.map { try integers(ages, [.integer($0)]) }
            try commit.execute()
            return rows
        }

        @inline(never)
        func countsByTag(_ dataset: JSONDataset) throws -> [Int64] {
            try begin.execute()
            let counts = try dataset.tags.map { try integers(byTag, [.text($0)]).first ?? -1 }
            try commit.execute()
            return counts
        }

        /// The first row of `statement` run with `arguments`, its integer columns (others 0).
        private func integers(_ statement: PreparedStatement, _ arguments: [Value]) throws -> [Int64] {
            statement.reset()
            for (k, argument) in arguments.enumerated() { try statement.bind(argument, at: k + 1) }
            guard try statement.stepRow() else { throw BenchError("Granite JSON: no row") }
            let row = (0..<statement.columnCount).map { index -> Int64 in
                if case .integer(let value) = statement.column(at: index) { return value }
                return 0
            }
            statement.reset()
            return row
        }
    }
}

extension SQLiteSQLDriver {
    /// `SQLITE_TRANSIENT`: SQLite copies bound text before the bind call returns.
    private static var transientText: sqlite3_destructor_type {
        unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }

    func runJSONWorkloads(path: String, dataset: JSONDataset, sync: WALSync) throws -> JSONRunResult {
        let db = try SQLiteConnection(path: path, settings: settings, create: true, wal: sync)
        for sql in JSONText.schema { try db.execute(sql) }
        let begin = try db.prepare("BEGIN").handle
        let commit = try db.prepare("COMMIT").handle
        let insert = try db.prepare(JSONText.insert).handle
        let total = try db.prepare("SELECT count(*) FROM person").handle
        let byCity = try db.prepare(JSONText.byCity).handle
        let ages = try db.prepare(JSONText.ages).handle
        let byTag = try db.prepare(JSONText.byTag).handle
        var result = JSONRunResult()

        /// The first row of `statement` (its arguments bound), its integer columns.
        func integers(_ statement: OpaquePointer?) throws -> [Int64] {
            guard try db.stepRow(statement, "JSON query") else { throw BenchError("SQLite JSON: no row") }
            let row = (0..<sqlite3_column_count(statement)).map { sqlite3_column_int64(statement, $0) }
            try db.check(sqlite3_reset(statement))
            return row
        }

        // Each phase is a function of its own, so that callgrind counts its instructions apart (as the Granite
        // driver's phases are).
        @inline(never)
        func insertRows() throws {
            try db.stepDone(begin, "BEGIN")
            for index in 0..<dataset.rows {
                try db.check(sqlite3_bind_int64(insert, 1, Int64(index + 1)))
                try db.check(sqlite3_bind_text(insert, 2, dataset.profiles[index], -1, Self.transientText))
                try db.stepDone(insert, "INSERT id \(index + 1)")
            }
            try db.stepDone(commit, "COMMIT")
        }

        @inline(never)
        func countsByCity() throws -> [Int64] {
            try db.stepDone(begin, "BEGIN")
            var counts: [Int64] = []
            for city in dataset.cities {
                try db.check(sqlite3_bind_text(byCity, 1, city, -1, Self.transientText))
                counts.append(try integers(byCity).first ?? -1)
            }
            try db.stepDone(commit, "COMMIT")
            return counts
        }

        @inline(never)
        func ageTotals() throws -> [[Int64]] {
            try db.stepDone(begin, "BEGIN")
            var rows: [[Int64]] = []
            for threshold in dataset.ageThresholds {
                try db.check(sqlite3_bind_int64(ages, 1, threshold))
                rows.append(try integers(ages))
            }
            try db.stepDone(commit, "COMMIT")
            return rows
        }

        @inline(never)
        func countsByTag() throws -> [Int64] {
            try db.stepDone(begin, "BEGIN")
            var counts: [Int64] = []
            for tag in dataset.tags {
                try db.check(sqlite3_bind_text(byTag, 1, tag, -1, Self.transientText))
                counts.append(try integers(byTag).first ?? -1)
            }
            try db.stepDone(commit, "COMMIT")
            return counts
        }

        var start = MonotonicClock.nanoseconds()
        try insertRows()
        result.record(.insert, since: start)
        result.check("count after insert", try integers(total).first ?? -1)

        start = MonotonicClock.nanoseconds()
        let counts = try countsByCity()
        result.record(.byCity, since: start)
        for (city, count) in zip(dataset.cities, counts) { result.check("city \(city)", count) }

        start = MonotonicClock.nanoseconds()
        let rows = try ageTotals()
        result.record(.ages, since: start)
        for (threshold, row) in zip(dataset.ageThresholds, rows) {
            result.check("age >= \(threshold) count", row[0])
            result.check("age >= \(threshold) sum", row[1])
            result.check("age >= \(threshold) max", row[2])
        }

        start = MonotonicClock.nanoseconds()
        let tagCounts = try countsByTag()
        result.record(.byTag, since: start)
        for (tag, count) in zip(dataset.tags, tagCounts) { result.check("tag \(tag)", count) }

        try db.close()
        return result
    }
}
