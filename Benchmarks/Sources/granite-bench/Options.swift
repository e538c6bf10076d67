import Foundation

/// Command-line options (parsed by hand: the benchmark needs no dependencies).
struct BenchOptions {
    var rows = 1_000_000
    var lookups = 100_000
    var runs = 3
    var cachePages = 2000
    var payloadBytes = 100
    var synchronous = false
    var commits = 1000
    var transactionRows = 100_000
    var sqlRows = 100_000
    var jsonRows = 100_000
    var rowCount = 100_000
    var recordCount = 100_000
    var codableCount = 10_000
    var synthesizedCount = 100_000
    var authorCount = 10_000
    var observationWrites = 1000
    var multiProcessRows = 100_000
    var multiProcessSeconds = 2.0
    var sqlDurability = WALSync.full
    var sqlWithoutRowid = false
    var only: Set<Workload> = Workload.all
    var scaleSizes = [100_000, 1_000_000, 10_000_000]
    var seed: UInt64 = 0x4752_414E_4954_4521
    var temporaryBase = NSTemporaryDirectory()
    let pageSize = 4096

    static let usage = """
        Usage: granite-bench [options]

        Compares Granite's storage layer with SQLite's C API on identical
        workloads and prints a Markdown table of median times to stdout.

        Options:
          --rows N          rows inserted and scanned (default 1000000)
          --lookups M       random point lookups (default 100000)
          --runs R          repetitions of each workload; the median is reported (default 3)
          --cache-pages P   page-cache size in 4096-byte pages for both engines;
                            SQLite gets PRAGMA cache_size=-(P*4) KiB (default 2000)
          --payload-bytes B payload size per row (default 100)
          --synchronous     sync at commit on both engines (Granite synchronous=true,
                            SQLite synchronous=FULL) in the storage workloads;
                            default: no sync on either (the WAL workloads set their own)
          --commits N       one-row transactions in the commit workloads (default 1000)
          --txn-rows N      rows of the single large WAL transaction (default 100000)
          --sql-rows N      rows of the SQL workloads' player table (default 100000)
          --json-rows N     rows of the JSON workloads' person table (default 100000)
          --row-count N     rows of the row workloads' table (default 100000)
          --record-count N  records of the record workloads' table (default 100000)
          --codable-count N records of each Codable workload's table (default 10000)
          --synthesized-count N
                            records of the synthesized-Codable record workloads' table
                            (default 100000)
          --sql-without-rowid
                            make the SQL workloads' player table WITHOUT ROWID
          --author-count N  authors of the association workloads, 10 books each (default 10000)
          --observation-writes N
                            one-row write transactions of each observation workload (default 1000)
          --mp-rows N       rows of the multiprocess and pool workloads' table (default 100000)
          --mp-duration S   seconds each multiprocess and pool case runs (default 2)
          --sql-sync LEVEL  full or normal: Granite durability and SQLite synchronous
                            (journal_mode=WAL) in the SQL workloads (default full)
          --only LIST       comma-separated workloads to run (default: all):
                              insert          ascending and random insert, file sizes
                              lookup          point lookups  } on the ascending table
                              scan            full scan      } (built untimed if
                                                               insert is not run)
                              commits-full    N one-row transactions, WAL, FULL sync
                              commits-normal  N one-row transactions, WAL, NORMAL sync
                              txn             one --txn-rows transaction, WAL, FULL sync
                              sql             SQL statements through GraniteSQL and
                                              sqlite3_prepare_v2: insert, primary-key
                                              select, indexed range, aggregates,
                                              update, delete (WAL, --sql-sync)
                              json            JSON in SQL through GraniteSQL and
                                              sqlite3_prepare_v2: insert of JSON
                                              profiles, ->> and json_extract filters
                                              and aggregates over the full table,
                                              json_each over each row's tags array
                                              (WAL, --sql-sync)
                              rows            Granite's GRDB-compatible API against
                                              GRDB 7.10.0 on SQLite: cached-statement
                                              inserts, Row cursor, Int.fetchAll
                              records         Granite's record API against GRDB
                                              7.10.0 on SQLite (WAL, synchronous
                                              NORMAL): insert, fetchAll, fetchCursor,
                                              fetchOne(id:), order+limit, filter,
                                              update, delete, one-record
                                              transactions, file size
                              synthesized     the same with a record whose Codable
                                              conformance is synthesized (Date, UUID,
                                              string enum, optional column; the
                                              filter returns a fifth of the table)
                              codable         Codable records with a nested JSON
                                              array property against GRDB 7.10.0
                                              (WAL, synchronous NORMAL): insert,
                                              fetchAll, file size (Granite with JSON
                                              compression on and off)
                              associations    authors with 10 books each against GRDB
                                              7.10.0: including(all:), including(
                                              required:), annotated(with: count)
                              observation     N one-row writes against GRDB 7.10.0,
                                              DatabaseQueue and DatabasePool, with a
                                              ValueObservation of the written table
                                              (total time, commit-to-onChange latency
                                              p50/p99), of an unrelated table, and
                                              with none
                              multiprocess    this binary started again as child
                                              processes: 1, 2 and 4 reader processes
                                              doing point lookups (each its own read)
                                              while a writer process commits one-row
                                              transactions, --mp-duration seconds;
                                              GraniteSQL vs SQLite's C API (WAL,
                                              synchronous NORMAL): reads/s, commits/s,
                                              commit latency p50/p99
                              pool            the same in one process against GRDB
                                              7.10.0: DatabasePool with 1, 2 and 4
                                              reader threads doing Player.fetchOne(db,
                                              id:) while one writer commits
                              scale           (not in all) the player table grown to
                                              each --scale-sizes step, Granite and
                                              GRDB each in a child process: insert
                                              rate, fetchOne p50/p99, top-100 with
                                              and without index, bytes/row, RSS
                            groups: storage = insert,lookup,scan;
                            commits = commits-full,commits-normal; wal = commits,txn; all
          --scale-sizes LIST
                            row counts of the scale workload's steps
                            (default 100000,1000000,10000000)
          --seed S          seed for payloads, insert order and lookup keys
          --tmp DIR         parent directory of the temporary working directory
                            (default: the system temporary directory)
          -h, --help        show this help

        Environment: GRANITE_BENCH_KEEP=DIR keeps each record workload's database
        directory under DIR (records-granite-N, records-grdb-N) for inspection.
        """

    static func parse(_ arguments: [String]) throws -> BenchOptions? {
        var options = BenchOptions()
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            func value() throws -> String {
                if let inlineValue { return inlineValue }
                index += 1
                guard index < arguments.count else { throw BenchError("missing value for \(argument)") }
                return arguments[index]
            }
            func positive() throws -> Int {
                let text = try value()
                let cleaned = text.filter { $0 != "_" && $0 != "," }
                guard let number = Int(cleaned), number > 0 else {
                    throw BenchError("\(argument) expects a positive integer, got '\(text)'")
                }
                return number
            }
            switch argument {
            case "-h", "--help":
                return nil
            case "--rows": options.rows = try positive()
            case "--lookups": options.lookups = try positive()
            case "--runs": options.runs = try positive()
            case "--cache-pages": options.cachePages = try positive()
            case "--payload-bytes": options.payloadBytes = try positive()
            case "--seed":
                let text = try value()
                guard let seed = UInt64(text) ?? (text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : nil)
                else {
                    throw BenchError("--seed expects an unsigned integer, got '\(text)'")
                }
                options.seed = seed
            case "--synchronous": options.synchronous = true
            case "--commits": options.commits = try positive()
            case "--txn-rows": options.transactionRows = try positive()
            case "--sql-rows": options.sqlRows = try positive()
            case "--sql-without-rowid": options.sqlWithoutRowid = true
            case "--json-rows": options.jsonRows = try positive()
            case "--row-count": options.rowCount = try positive()
            case "--record-count": options.recordCount = try positive()
            case "--codable-count": options.codableCount = try positive()
            case "--synthesized-count": options.synthesizedCount = try positive()
            case "--author-count": options.authorCount = try positive()
            case "--observation-writes": options.observationWrites = try positive()
            case "--scale-sizes":
                let sizes = try value().split(separator: ",").map { Int($0) }
                guard !sizes.isEmpty, sizes.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw BenchError("--scale-sizes expects a comma-separated list of positive row counts")
                }
                options.scaleSizes = sizes.compactMap { $0 }.sorted()
            case "--mp-rows": options.multiProcessRows = try positive()
            case "--mp-duration":
                let text = try value()
                guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                    throw BenchError("--mp-duration expects a positive number of seconds, got '\(text)'")
                }
                options.multiProcessSeconds = seconds
            case "--sql-sync":
                let text = try value()
                guard let level = WALSync(rawValue: text.lowercased()) else {
                    throw BenchError("--sql-sync expects full or normal, got '\(text)'")
                }
                options.sqlDurability = level
            case "--only": options.only = try Workload.parseList(try value())
            case "--tmp": options.temporaryBase = try value()
            default:
                throw BenchError("unknown option '\(argument)' (try --help)")
            }
            index += 1
        }
        return options
    }
}

/// Workloads selectable with `--only`.
enum Workload: String, CaseIterable, Comparable {
    case insert
    case lookup
    case scan
    case commitsFull = "commits-full"
    case commitsNormal = "commits-normal"
    case transaction = "txn"
    case sql
    case json
    case rows
    case records
    case synthesized
    case codable
    case associations
    case observation
    case multiprocess
    case pool
    /// Excluded from `all`: growing tables to 10M rows takes long.
    case scale

    /// What `all` (and no `--only`) selects.
    static let all = Set(allCases).subtracting([.scale])

    static let groups: [String: [Workload]] = [
        "all": allCases.filter { $0 != .scale },
        "storage": [.insert, .lookup, .scan],
        "commits": [.commitsFull, .commitsNormal],
        "wal": [.commitsFull, .commitsNormal, .transaction],
    ]

    static func < (a: Workload, b: Workload) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Parses `insert,scan`, `wal`, … into a non-empty set.
    static func parseList(_ text: String) throws -> Set<Workload> {
        var result = Set<Workload>()
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            if item.isEmpty { continue }
            if let workload = Workload(rawValue: item) {
                result.insert(workload)
            } else if let group = groups[item] {
                result.formUnion(group)
            } else {
                let names = allCases.map(\.rawValue) + groups.keys.sorted()
                throw BenchError("--only: unknown workload '\(item)' (known: \(names.joined(separator: ", ")))")
            }
        }
        guard !result.isEmpty else { throw BenchError("--only expects at least one workload") }
        return result
    }
}
