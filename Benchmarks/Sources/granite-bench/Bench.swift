import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
enum GraniteBench {
    static func main() {
        if CommandLine.arguments.dropFirst().first == "--mp-child" {
            MultiProcessChild.main(Array(CommandLine.arguments.dropFirst()))
        }
        if CommandLine.arguments.dropFirst().first == "--scale-child" {
            ScaleChild.main(Array(CommandLine.arguments.dropFirst()))
        }
        // A child that died early must not kill the parent writing to its pipe.
        signal(SIGPIPE, SIG_IGN)
        let options: BenchOptions
        do {
            guard let parsed = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
                print(BenchOptions.usage)
                exit(0)
            }
            options = parsed
        } catch {
            log("error: \(error)")
            log(BenchOptions.usage)
            exit(2)
        }

        var workDirectory: String?
        var status: Int32 = 1
        do {
            let directory = try FileSystem.makeTemporaryDirectory(base: options.temporaryBase)
            workDirectory = directory
            let passed = try Benchmark(options: options, directory: directory).run()
            status = passed ? 0 : 1
        } catch {
            log("error: \(error)")
        }
        if let workDirectory { FileSystem.remove(workDirectory) }
        exit(status)
    }
}

/// Runs every workload on both engines and prints the report.
final class Benchmark {
    let options: BenchOptions
    let directory: String
    let settings: EngineSettings
    /// Index 0 is Granite, index 1 is SQLite.
    private let drivers: [any EngineDriver]
    private var failures: [String] = []

    init(options: BenchOptions, directory: String) {
        self.options = options
        self.directory = directory
        settings = EngineSettings(
            pageSize: options.pageSize, cachePages: options.cachePages, synchronous: options.synchronous)
        drivers = [GraniteDriver(settings: settings), SQLiteDriver(settings: settings)]
    }

    /// Alternate which engine goes first, so neither always runs on a
    /// machine warmed (or dirtied) by the other.
    func engineOrder(run: Int) -> [Int] {
        run % 2 == 0 ? [0, 1] : [1, 0]
    }

    func fail(_ message: String) {
        failures.append(message)
        log("MISMATCH: \(message)")
    }

    func milliseconds(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) / 1_000_000
    }

    /// Returns true when every verification passed.
    func run() throws -> Bool {
        let rows = options.rows
        let runs = options.runs
        let selected = options.only
        let storage = !selected.isDisjoint(with: [.insert, .lookup, .scan])
        let commitLevels = WALSync.allCases.filter {
            selected.contains($0 == .full ? .commitsFull : .commitsNormal)
        }
        let transaction = selected.contains(.transaction)
        let sql = selected.contains(.sql)
        let json = selected.contains(.json)
        let rowLevel = selected.contains(.rows)
        let recordLevel = selected.contains(.records)
        let synthesizedLevel = selected.contains(.synthesized)
        let codableLevel = selected.contains(.codable)
        let associationLevel = selected.contains(.associations)
        let observationLevel = selected.contains(.observation)
        let multiProcess = selected.contains(.multiprocess)
        let poolLevel = selected.contains(.pool)
        var parts: [String] = []
        if storage {
            parts.append(
                """
                rows \(rows), lookups \(options.lookups), \
                sync at commit \(settings.synchronous ? "on" : "off") for both in the storage workloads \
                (Granite synchronous=\(settings.synchronous), SQLite synchronous=\(settings.sqliteSynchronous), \
                journal_mode=OFF)
                """)
        }
        if !commitLevels.isEmpty || transaction {
            parts.append(
                """
                WAL workloads: commits \(options.commits), transaction rows \(options.transactionRows), \
                Granite durability = SQLite journal_mode=WAL + synchronous of the same level, \
                auto-checkpoint every \(settings.walAutoCheckpointFrames) frames for both
                """)
        }
        if sql {
            parts.append(
                """
                SQL workloads: \(options.sqlRows) rows, GraniteSQL prepared statements vs sqlite3_prepare_v2, \
                Granite durability .\(options.sqlDurability.rawValue) = SQLite journal_mode=WAL + \
                synchronous=\(options.sqlDurability.sqliteSynchronous), statements prepared untimed, \
                reads inside BEGIN…COMMIT
                """)
        }
        if json {
            parts.append(
                """
                JSON workloads: \(options.jsonRows) rows of JSON profiles (Granite's default text compression \
                from 128 bytes), GraniteSQL prepared statements vs sqlite3_prepare_v2, Granite durability \
                .\(options.sqlDurability.rawValue) = SQLite journal_mode=WAL + \
                synchronous=\(options.sqlDurability.sqliteSynchronous), statements prepared untimed, \
                reads inside BEGIN…COMMIT
                """)
        }
        if rowLevel {
            parts.append(
                """
                row workloads: \(options.rowCount) rows of 10 INTEGER columns, the same Swift code on Granite's \
                DatabaseQueue and on GRDB 7.10.0's (journalMode .wal, hence synchronous NORMAL for both), \
                ratio column = Granite/GRDB
                """)
        }
        if recordLevel {
            parts.append(
                """
                record workloads: \(options.recordCount) Player records (hand-written init(row:)/encode(to:)), \
                the same Swift code on Granite's DatabaseQueue and on GRDB 7.10.0's (journalMode .wal, \
                PRAGMA synchronous = NORMAL for both), ratio column = Granite/GRDB
                """)
        }
        if synthesizedLevel {
            parts.append(
                """
                synthesized-Codable record workloads: \(options.synthesizedCount) SynthesizedPlayer records \
                (conformances synthesized by Codable: Date, UUID, string enum, optional column), the same Swift code \
                on Granite's DatabaseQueue and on GRDB 7.10.0's (journalMode .wal, synchronous NORMAL for both), \
                ratio column = Granite/GRDB, target 0.5
                """)
        }
        if codableLevel {
            parts.append(
                """
                Codable workloads: \(options.codableCount) records per data set (Codable synthesis, nested array \
                property in a JSON column), the same Swift code on Granite's DatabaseQueue and on GRDB 7.10.0's \
                (journalMode .wal, synchronous NORMAL for both), Granite jsonCompressionThreshold 128 (and nil, \
                untimed, for its file size), ratio column = Granite/GRDB
                """)
        }
        if observationLevel {
            parts.append(
                """
                observation workloads: \(options.observationWrites) one-row write transactions, the same Swift code \
                on Granite and on GRDB 7.10.0 (DatabaseQueue with journalMode .wal, and DatabasePool; PRAGMA \
                synchronous = NORMAL), values delivered with .async(onQueue:) on a private serial queue, latency \
                rows in ms for information, ratio column = Granite/GRDB
                """)
        }
        if multiProcess {
            parts.append(
                """
                multi-process workload: \(options.multiProcessRows) rows of \(MultiProcessTable.payloadBytes)-byte \
                payloads, \(Self.multiProcessReaderCounts.map(String.init).joined(separator: "/")) reader processes \
                (point lookups, each its own read) and one writer process (one-row update transactions) for \
                \(options.multiProcessSeconds) s; GraniteSQL durability .normal vs SQLite C API journal_mode=WAL + \
                synchronous=NORMAL; rate rows: the engines' columns are operations per second and the ratio is \
                Granite's time per operation over SQLite's
                """)
        }
        if poolLevel {
            parts.append(
                """
                pool workload: \(options.multiProcessRows) Player records, DatabasePool with \
                \(Self.multiProcessReaderCounts.map(String.init).joined(separator: "/")) reader threads \
                (Player.fetchOne(db, id:), each its own read) and one writer thread (one-record update \
                transactions) for \(options.multiProcessSeconds) s, the same Swift code on Granite and on GRDB \
                7.10.0 (synchronous NORMAL); rate rows as above, ratio column = Granite/GRDB
                """)
        }
        let configuration = """
            Configuration: workloads \(selected.sorted().map(\.rawValue).joined(separator: ",")), \
            \(parts.joined(separator: "; ")); runs \(runs) (median reported), \
            payload \(options.payloadBytes) B, page size \(settings.pageSize) B, \
            cache \(settings.cachePages) pages = \(settings.cacheKiB) KiB for both engines, \
            SQLite \(SQLiteDriver.version), seed 0x\(String(options.seed, radix: 16))
            """
        log(configuration)
        log("work directory: \(directory)")

        // Everything below is generated before any timing starts.
        log("generating payloads, insert orders and lookup keys…")
        var payloadRows = 1
        if storage { payloadRows = max(payloadRows, rows) }
        if !commitLevels.isEmpty { payloadRows = max(payloadRows, options.commits) }
        if transaction { payloadRows = max(payloadRows, options.transactionRows) }
        let payloads = PayloadSet(rows: payloadRows, payloadSize: options.payloadBytes, seed: options.seed)

        var table: [ReportRow] = []
        var notes: [String] = []
        if storage {
            try storageWorkloads(payloads: payloads, table: &table)
        }
        for level in commitLevels {
            let label = "\(options.commits) one-row transactions, WAL \(level.sqliteSynchronous)"
            let (times, logStates) = try transactionWorkload(
                label: label, tag: "commits-\(level.rawValue)", rows: options.commits, rowsPerTransaction: 1,
                sync: level, payloads: payloads)
            table.append(.time(label, times, target: 1.0))
            notes.append("\(label), after the last commit: Granite \(logStates[0]); SQLite \(logStates[1]).")
        }
        if transaction {
            let label = "one \(options.transactionRows)-row transaction, WAL FULL"
            let (times, logStates) = try transactionWorkload(
                label: label, tag: "txn", rows: options.transactionRows,
                rowsPerTransaction: options.transactionRows, sync: .full, payloads: payloads)
            table.append(.time(label, times, target: 1.2))
            notes.append("\(label), after the commit: Granite \(logStates[0]); SQLite \(logStates[1]).")
        }
        if sql {
            log("generating the SQL rows and arguments…")
            let dataset = SQLDataset(
                rows: options.sqlRows, seed: options.seed, withoutRowid: options.sqlWithoutRowid)
            try sqlWorkloads(dataset: dataset, sync: options.sqlDurability, table: &table)
        }
        if json {
            log("generating the JSON profiles and arguments…")
            let dataset = JSONDataset(rows: options.jsonRows, seed: options.seed)
            try jsonWorkloads(dataset: dataset, sync: options.sqlDurability, table: &table)
        }
        if rowLevel {
            try rowWorkloads(rows: options.rowCount, table: &table)
        }
        if recordLevel {
            try recordWorkloads(kind: .handWritten, records: options.recordCount, table: &table, notes: &notes)
        }
        if synthesizedLevel {
            try recordWorkloads(kind: .synthesized, records: options.synthesizedCount, table: &table, notes: &notes)
        }
        if codableLevel {
            try codableWorkloads(records: options.codableCount, table: &table, notes: &notes)
        }
        if associationLevel {
            try associationWorkloads(authors: options.authorCount, table: &table)
        }
        if observationLevel {
            try observationWorkloads(writes: options.observationWrites, table: &table, notes: &notes)
        }
        if multiProcess {
            try multiProcessWorkloads(table: &table, notes: &notes)
        }
        if poolLevel {
            try poolWorkloads(table: &table, notes: &notes)
        }
        if selected.contains(.scale) {
            try scaleWorkloads()
        }

        print(configuration)
        print("")
        print("| workload | Granite (median ms) | SQLite (median ms) | ratio Granite/SQLite | target | met? |")
        print("|---|---:|---:|---:|---:|:---:|")
        for row in table { print(row.markdown) }
        print("")
        if !notes.isEmpty {
            print(
                "Notes (write-ahead log states are those of the last run; a commit that reaches the auto-checkpoint size checkpoints inside the timing):"
            )
            for note in notes { print("- \(note)") }
            print("")
        }
        if failures.isEmpty {
            print(
                "Verification: passed (row counts, rowid order, scan and lookup checksums; "
                    + "SQL counts, sums and result checksums equal for both engines; "
                    + "record counts and checksums of every record workload equal for both engines).")
        } else {
            print("Verification: FAILED")
            for failure in failures { print("- \(failure)") }
        }
        return failures.isEmpty
    }

    /// The original storage workloads (journal off): inserts, lookups, scans, file sizes.
    private func storageWorkloads(payloads: PayloadSet, table: inout [ReportRow]) throws {
        let rows = options.rows
        let runs = options.runs
        let selected = options.only
        let ascending = ascendingOrder(rows: rows)
        let expectedScan = payloads.expectedChecksum(rows: rows)

        var ascendingPaths: [String]
        var sizeRows: [ReportRow] = []
        if selected.contains(.insert) {
            // 1 & 5a. Ascending insert; the last run's files feed workloads 3 and 4.
            let shuffled = shuffledOrder(rows: rows, seed: options.seed ^ 0x5348_5546_464C_4521)
            let (ascendingTimes, ascendingSizes, paths) = try insertWorkload(
                label: "ascending insert", tag: "asc", order: ascending, payloads: payloads)
            ascendingPaths = paths

            // 2 & 5b. Random insert.
            let (randomTimes, randomSizes, randomPaths) = try insertWorkload(
                label: "random insert", tag: "rnd", order: shuffled, payloads: payloads)
            // Untimed verification of the randomly built tables, then drop them.
            for (index, driver) in drivers.enumerated() {
                let result = try driver.scanRows(path: randomPaths[index])
                verifyScan(result, engine: driver.name, workload: "random insert", rows: rows, checksum: expectedScan)
                FileSystem.remove((randomPaths[index] as NSString).deletingLastPathComponent)
            }
            table.append(.time("ascending insert (\(rows) rows)", ascendingTimes, target: 1.0))
            table.append(.time("random insert (\(rows) rows)", randomTimes, target: 1.5))
            sizeRows.append(.size("file size after ascending insert (bytes)", ascendingSizes, target: 1.1))
            sizeRows.append(.size("file size after random insert (bytes)", randomSizes, target: 1.1))
        } else {
            // Lookups or scans without the insert workload: build the tables untimed.
            log("building the ascending tables (untimed)…")
            ascendingPaths = []
            for driver in drivers {
                let runDirectory = "\(directory)/asc-\(driver.name.lowercased())"
                try FileSystem.makeDirectory(runDirectory)
                let path = "\(runDirectory)/\(driver.fileName)"
                _ = try ascending.withUnsafeBufferPointer {
                    try driver.insertRows(path: path, order: $0, payloads: payloads)
                }
                ascendingPaths.append(path)
            }
        }

        // 3. Point lookups against the ascending tables (reopened each run).
        if selected.contains(.lookup) {
            let keys = lookupKeys(count: options.lookups, rows: rows, seed: options.seed ^ 0x4C4F_4F4B_5550_5321)
            let expectedLookups = expectedLookupChecksum(keys: keys, payloads: payloads)
            var lookupTimes: [[Double]] = [[], []]
            for run in 0..<runs {
                for index in engineOrder(run: run) {
                    let driver = drivers[index]
                    let result = try keys.withUnsafeBufferPointer {
                        try driver.lookupRows(path: ascendingPaths[index], keys: $0)
                    }
                    if result.checksum != expectedLookups {
                        fail("\(driver.name) point lookups: checksum \(result.checksum) != expected \(expectedLookups)")
                    }
                    lookupTimes[index].append(milliseconds(result.nanoseconds))
                    log(
                        "point lookups run \(run + 1)/\(runs): \(driver.name) \(format(milliseconds(result.nanoseconds))) ms"
                    )
                }
            }
            table.append(.time("point lookups (\(options.lookups))", lookupTimes, target: 1.5))
        }

        // 4. Full scan of the ascending tables (reopened each run).
        if selected.contains(.scan) {
            var scanTimes: [[Double]] = [[], []]
            for run in 0..<runs {
                for index in engineOrder(run: run) {
                    let driver = drivers[index]
                    let result = try driver.scanRows(path: ascendingPaths[index])
                    verifyScan(result, engine: driver.name, workload: "full scan", rows: rows, checksum: expectedScan)
                    scanTimes[index].append(milliseconds(result.nanoseconds))
                    log(
                        "full scan run \(run + 1)/\(runs): \(driver.name) \(format(milliseconds(result.nanoseconds))) ms"
                    )
                }
            }
            table.append(.time("full scan (\(rows) rows)", scanTimes, target: 1.0))
        }
        table += sizeRows
        for path in ascendingPaths { FileSystem.remove((path as NSString).deletingLastPathComponent) }
    }

    /// Runs one write-ahead-log workload `runs` times per engine, each in a
    /// fresh directory: ascending rowids `1...rows` in transactions of
    /// `rowsPerTransaction` rows. After each run (untimed) the table is
    /// reopened and scanned: row count, order and checksum must match.
    /// Returns times per engine and each engine's log state after its last run.
    private func transactionWorkload(
        label: String, tag: String, rows: Int, rowsPerTransaction: Int, sync: WALSync, payloads: PayloadSet
    ) throws -> (times: [[Double]], logStates: [String]) {
        let order = ascendingOrder(rows: rows)
        let expected = payloads.expectedChecksum(rows: rows)
        var times: [[Double]] = [[], []]
        var logStates = ["", ""]
        for run in 0..<options.runs {
            for index in engineOrder(run: run) {
                let driver = drivers[index]
                let runDirectory = "\(directory)/\(tag)-\(driver.name.lowercased())-\(run)"
                try FileSystem.makeDirectory(runDirectory)
                let path = "\(runDirectory)/\(driver.fileName)"
                let result = try order.withUnsafeBufferPointer {
                    try driver.insertTransactions(
                        path: path, order: $0, payloads: payloads, rowsPerTransaction: rowsPerTransaction, sync: sync)
                }
                let (_, files) = try FileSystem.totalFileSize(inDirectory: runDirectory)
                if files != [driver.fileName] {
                    log("note: \(driver.name) left \(files) after closing (\(label))")
                }
                let scan = try driver.scanRows(path: path, wal: sync)
                verifyScan(scan, engine: driver.name, workload: label, rows: rows, checksum: expected)
                let ms = milliseconds(result.nanoseconds)
                times[index].append(ms)
                logStates[index] = result.logState
                let perTransaction = ms * 1000 / Double((rows + rowsPerTransaction - 1) / rowsPerTransaction)
                log(
                    "\(label) run \(run + 1)/\(options.runs): \(driver.name) \(format(ms)) ms "
                        + "(\(String(format: "%.1f", perTransaction)) µs per transaction; \(result.logState))")
                FileSystem.remove(runDirectory)
            }
        }
        return (times, logStates)
    }

    /// Runs one insert workload `runs` times per engine in fresh directories.
    /// Returns times per engine, file size per engine (last run), and the
    /// database paths of the last run (kept on disk).
    private func insertWorkload(
        label: String, tag: String, order: [Int64], payloads: PayloadSet
    ) throws -> (times: [[Double]], sizes: [Int64], paths: [String]) {
        var times: [[Double]] = [[], []]
        var sizes: [Int64] = [0, 0]
        var paths: [String] = ["", ""]
        for run in 0..<options.runs {
            let last = run == options.runs - 1
            for index in engineOrder(run: run) {
                let driver = drivers[index]
                let runDirectory = "\(directory)/\(tag)-\(driver.name.lowercased())-\(run)"
                try FileSystem.makeDirectory(runDirectory)
                let path = "\(runDirectory)/\(driver.fileName)"
                let nanoseconds = try order.withUnsafeBufferPointer {
                    try driver.insertRows(path: path, order: $0, payloads: payloads)
                }
                let (size, files) = try FileSystem.totalFileSize(inDirectory: runDirectory)
                if files != [driver.fileName] {
                    log("note: \(driver.name) left \(files) after \(label); size counts them all")
                }
                if run > 0 && size != sizes[index] {
                    log("note: \(driver.name) \(label) file size differs between runs (\(sizes[index]) vs \(size))")
                }
                sizes[index] = size
                times[index].append(milliseconds(nanoseconds))
                log(
                    "\(label) run \(run + 1)/\(options.runs): \(driver.name) \(format(milliseconds(nanoseconds))) ms, \(size) bytes"
                )
                if last {
                    paths[index] = path
                } else {
                    FileSystem.remove(runDirectory)
                }
            }
        }
        return (times, sizes, paths)
    }

    private func verifyScan(_ result: ScanResult, engine: String, workload: String, rows: Int, checksum: UInt64) {
        if result.rows != rows {
            fail("\(engine) \(workload): scanned \(result.rows) rows, expected \(rows)")
        }
        if result.checksum != checksum {
            fail("\(engine) \(workload): scan checksum \(result.checksum) != expected \(checksum)")
        }
        if !result.ascending {
            fail("\(engine) \(workload): scan did not return rowids in ascending order")
        }
    }
}

/// One line of the Markdown report.
struct ReportRow {
    var workload: String
    var granite: String
    var sqlite: String
    var ratio: Double
    /// The target ratio, or nil for a row measured for information only.
    var target: Double?

    static func time(_ workload: String, _ samples: [[Double]], target: Double) -> ReportRow {
        milliseconds(workload, samples, target: target)
    }

    /// A row measured for information only (no target): the medians of `samples` per engine, in milliseconds.
    static func information(_ workload: String, _ samples: [[Double]]) -> ReportRow {
        milliseconds(workload, samples, target: nil)
    }

    /// The medians of `samples` per engine in milliseconds; an engine without samples (it could not run) shows
    /// "not run" and the row has no ratio.
    private static func milliseconds(_ workload: String, _ samples: [[Double]], target: Double?) -> ReportRow {
        guard !samples[0].isEmpty, !samples[1].isEmpty else {
            let text = samples.map { $0.isEmpty ? "not run" : format(median($0)) }
            return ReportRow(workload: workload, granite: text[0], sqlite: text[1], ratio: .nan, target: nil)
        }
        let granite = median(samples[0])
        let sqlite = median(samples[1])
        return ReportRow(
            workload: workload, granite: format(granite), sqlite: format(sqlite),
            ratio: sqlite > 0 ? granite / sqlite : .infinity, target: target)
    }

    /// A row of rates (operations per second, higher is better): the medians of `samples` per engine, and as
    /// ratio SQLite's rate over Granite's, that is Granite's time per operation over SQLite's, so that targets
    /// read as for times. Without samples for an engine (it could not run) the row says so.
    static func rate(_ workload: String, _ samples: [[Double]], target: Double?) -> ReportRow {
        let medians = samples.map { $0.isEmpty ? nil : median($0) }
        let text = medians.map { $0.map { String(format: "%.0f", $0) } ?? "not run" }
        let ratio: Double
        if let granite = medians[0], let sqlite = medians[1] {
            ratio = granite > 0 ? sqlite / granite : .infinity
        } else {
            ratio = .nan
        }
        return ReportRow(
            workload: workload, granite: text[0], sqlite: text[1], ratio: ratio, target: ratio.isNaN ? nil : target)
    }

    static func size(_ workload: String, _ sizes: [Int64], target: Double?) -> ReportRow {
        ReportRow(
            workload: workload, granite: String(sizes[0]), sqlite: String(sizes[1]),
            ratio: sizes[1] > 0 ? Double(sizes[0]) / Double(sizes[1]) : .infinity, target: target)
    }

    var markdown: String {
        guard let target else {
            let ratioText = ratio.isNaN ? "—" : String(format: "%.2f", ratio)
            return "| \(workload) | \(granite) | \(sqlite) | \(ratioText) | — | (information) |"
        }
        let met = ratio <= target ? "yes" : "no"
        return
            "| \(workload) | \(granite) | \(sqlite) | \(String(format: "%.2f", ratio)) | ≤ \(String(format: "%.1f", target)) | \(met) |"
    }
}

func format(_ milliseconds: Double) -> String {
    let digits = milliseconds >= 100 ? 1 : milliseconds >= 1 ? 2 : 3
    return String(format: "%.\(digits)f", milliseconds)
}
