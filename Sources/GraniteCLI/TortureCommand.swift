// `granite torture FILE`: a hidden subcommand for the crash and multi-process
// tests. As a writer it commits bank transfers forever and acknowledges each
// commit on standard output, so a test can SIGKILL it at any moment and check
// what the database kept; as a reader it checks the bank's invariants on one
// snapshot after another while writers in other processes commit.

import ArgumentParser
import Foundation
import GraniteStorage

/// The `--role` values.
enum TortureRole: String, ExpressibleByArgument, CaseIterable {
    case writer, reader
}

/// The `--durability` values, one per ``Durability``.
enum DurabilityArgument: String, ExpressibleByArgument, CaseIterable {
    case full, normal, off

    var durability: Durability {
        switch self {
        case .full: .full
        case .normal: .normal
        case .off: .off
        }
    }
}

/// Moves money between accounts in an endless series of write transactions.
///
/// The database holds a table `accounts` (rowid 1...N, each row one integer
/// balance, all starting at 1000), a table `meta` (rowid 1: the number of the
/// last committed transfer), a table `transfers` (rowid n: from, to and amount
/// of transfer n) and a table `padding` (large rows inserted and deleted now
/// and then, so that overflow chains are written and freed). Each transaction
/// reads meta n, moves a random amount between two random accounts, logs it as
/// transfer n + 1, writes meta n + 1, commits, then prints `ack <n + 1>` and
/// flushes. So at any moment: the balances sum to N × 1000, the transfers are
/// exactly 1...n and account for every balance, and a database that acked n
/// holds n or n + 1.
///
/// With `--role reader` it writes nothing: it prints `ready`, then checks those
/// invariants on one read transaction after another (see ``BankAuditor``) and
/// exits with status 1 and a message on the first violation, or prints
/// `reads <snapshots> transfers <n>` when its --duration or --reads is over.
struct TortureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "torture",
        abstract: "Commit random bank transfers forever, acknowledging each (for crash tests).",
        discussion: """
            Creates FILE if needed (tables accounts, meta, transfers and padding, in one transaction), \
            prints `ready`, then loops: one transfer per write transaction, `ack <n>` printed and flushed \
            after each commit. Stops only when killed, when its parent process goes away, after \
            --transactions commits or after --duration seconds. With --role reader: checks the bank's \
            invariants on one snapshot after another, exiting with status 1 on a violation.
            """,
        shouldDisplay: false
    )

    @Argument(help: "The database file (created when missing).")
    var file: String

    @Option(name: .long, help: "writer (commits transfers) or reader (checks snapshots).")
    var role: TortureRole = .writer

    @Option(name: .long, help: "Number of accounts.")
    var accounts = 100

    @Option(name: .long, help: "full, normal or off.")
    var durability: DurabilityArgument = .full

    @Option(name: .long, help: "Seed of the random choices (random when omitted).")
    var seed: UInt64?

    @Option(name: .long, help: "Committed log frames that trigger an automatic checkpoint.")
    var autoCheckpoint = 64

    @Option(name: .long, help: "Pages in the page cache (a small cache makes transactions spill).")
    var cacheSize = 2000

    @Option(name: .long, help: "Stop (closing the database normally) after this many commits; 0 = never.")
    var transactions = 0

    @Option(name: .long, help: "Reader: stop after this many snapshots; 0 = never.")
    var reads = 0

    @Option(name: .long, help: "Stop (closing the database normally) after this many seconds; 0 = never.")
    var duration: Double = 0

    func validate() throws {
        guard accounts >= 2 else { throw ValidationError("--accounts must be at least 2") }
        guard autoCheckpoint >= 1 else { throw ValidationError("--auto-checkpoint must be at least 1") }
        guard cacheSize >= 16 else { throw ValidationError("--cache-size must be at least 16") }
        guard transactions >= 0 else { throw ValidationError("--transactions must not be negative") }
        guard reads >= 0 else { throw ValidationError("--reads must not be negative") }
        guard duration >= 0, duration.isFinite else { throw ValidationError("--duration must not be negative") }
    }

    func run() throws {
        try reportingErrors {
            switch role {
            case .writer: try runWriter()
            case .reader: try runReader()
            }
        }
    }

    /// The wall-clock moment after which the loop stops, or nil without --duration.
    private var deadline: Date? {
        duration > 0 ? Date(timeIntervalSinceNow: duration) : nil
    }

    /// Commits transfers until killed, orphaned, or past --transactions or --duration.
    private func runWriter() throws {
        let seed = self.seed ?? UInt64.random(in: .min ... .max)
        printError("granite torture: seed \(seed)")
        var options = StorageOptions()
        options.durability = durability.durability
        options.autoCheckpointFrames = autoCheckpoint
        options.cacheSize = cacheSize
        let engine = try StorageEngine(path: file, options: options)
        defer { try? engine.close() }
        var bank = try Bank(engine: engine, accounts: accounts, seed: seed)
        print("ready")
        fflush(nil)
        let parent = getppid()
        let deadline = self.deadline
        var committed = 0
        while transactions == 0 || committed < transactions {
            guard getppid() == parent else { return }  // orphaned: the test that started us is gone
            if let deadline, Date() >= deadline { return }
            do {
                if let n = try bank.transfer() {
                    print("ack \(n)")
                    fflush(nil)
                    committed += 1
                }
            } catch StorageError.busy {
                continue  // another process's writer held the lock past the busy time-out: try again
            }
        }
    }

    /// Checks snapshots until killed, orphaned, or past --reads or --duration; throws on a violated invariant.
    private func runReader() throws {
        let engine = try openExisting(file, readOnly: false)
        defer { try? engine.close() }
        var auditor = try BankAuditor(engine: engine, accounts: accounts)
        print("ready")
        fflush(nil)
        let parent = getppid()
        let deadline = self.deadline
        var snapshots = 0
        while reads == 0 || snapshots < reads {
            guard getppid() == parent else { return }
            if let deadline, Date() >= deadline { break }
            do {
                try auditor.auditSnapshot()
                snapshots += 1
            } catch StorageError.busy {
                continue  // a checkpoint or recovery in another process: take the next snapshot
            }
        }
        print("reads \(snapshots) transfers \(auditor.lastTransfer)")
        fflush(nil)
    }
}

/// The torture workload over one open database.
struct Bank {
    let engine: StorageEngine
    let accounts: Int
    let accountsTable: TableTree
    let metaTable: TableTree
    let transfersTable: TableTree
    let paddingTable: TableTree
    var random: SplitMix64
    let encoder = RowEncoder()

    /// Opens the workload's tables, creating them (in one transaction) in a new database.
    init(engine: StorageEngine, accounts: Int, seed: UInt64) throws {
        self.engine = engine
        self.accounts = accounts
        random = SplitMix64(seed: seed)
        let probe = try engine.beginRead()
        let exists = try probe.treeInfo(named: "accounts") != nil
        try probe.commit()
        if !exists {
            let write = try engine.beginWrite()
            let table = try write.createTable(named: "accounts")
            let initial = encoder.encode([.integer(1000)])
            for rowid in 1...Int64(accounts) { try table.insert(rowid: rowid, payload: initial) }
            try write.createTable(named: "meta").insert(rowid: 1, payload: encoder.encode([.integer(0)]))
            _ = try write.createTable(named: "transfers")
            _ = try write.createTable(named: "padding")
            try write.commit()
        }
        let read = try engine.beginRead()
        accountsTable = try read.table(named: "accounts")
        metaTable = try read.table(named: "meta")
        transfersTable = try read.table(named: "transfers")
        paddingTable = try read.table(named: "padding")
        let existing = try accountsTable.count()
        try read.commit()
        guard existing == accounts else {
            throw CLIError("the database holds \(existing) accounts, not \(accounts) (--accounts)")
        }
    }

    /// The single integer of row `rowid` of `table`.
    private func integer(_ table: TableTree, _ rowid: Int64) throws -> Int64 {
        guard let payload = try table.get(rowid: rowid) else {
            throw CLIError("\(table.name): row \(rowid) is missing")
        }
        let values = try RowDecoder.decode(payload)
        guard values.count == 1, case .integer(let n) = values[0] else {
            throw CLIError("\(table.name): row \(rowid) is not a single integer")
        }
        return n
    }

    private mutating func pick(_ range: ClosedRange<Int64>) -> Int64 {
        range.lowerBound + Int64(random.next(below: UInt64(range.upperBound - range.lowerBound + 1)))
    }

    /// One write transaction: a transfer, now and then a padding change. Returns the
    /// transfer number it committed, or nil when it rolled back instead (1 in 64).
    mutating func transfer() throws -> Int64? {
        let write = try engine.beginWrite()
        do {
            let n = try integer(metaTable, 1)
            let from = pick(1...Int64(accounts))
            var to = pick(1...Int64(accounts - 1))
            if to >= from { to += 1 }
            let amount = pick(1...500)
            let fromBalance = try integer(accountsTable, from)
            let toBalance = try integer(accountsTable, to)
            try accountsTable.replace(rowid: from, payload: encoder.encode([.integer(fromBalance - amount)]))
            try accountsTable.replace(rowid: to, payload: encoder.encode([.integer(toBalance + amount)]))
            try transfersTable.insert(
                rowid: n + 1, payload: encoder.encode([.integer(from), .integer(to), .integer(amount)]))
            try metaTable.replace(rowid: 1, payload: encoder.encode([.integer(n + 1)]))
            if random.next(below: 4) == 0 { try changePadding() }
            if random.next(below: 64) == 0 {
                try write.rollback()
                return nil
            }
            try write.commit()
            return n + 1
        } catch {
            if write.isActive { try? write.rollback() }
            throw error
        }
    }

    /// Inserts, replaces or deletes one large row of `padding` (kept between 4 and 32 rows).
    private mutating func changePadding() throws {
        let count = try paddingTable.count()
        let last = try paddingTable.lastRowid() ?? 0
        let roll = random.next(below: 8)
        if count < 4 || (count < 32 && roll < 4) {
            try paddingTable.insert(rowid: last + 1, payload: paddingRow())
            return
        }
        let cursor = try paddingTable.makeCursor()
        guard try cursor.seek(atOrAfter: pick(1...last)) else { return }
        if roll < 6 {
            try paddingTable.delete(rowid: cursor.rowid)
        } else {
            try paddingTable.replace(rowid: cursor.rowid, payload: paddingRow())
        }
    }

    /// A row with one blob of 100 bytes to 40 KB (most span overflow pages).
    private mutating func paddingRow() -> [UInt8] {
        let size = Int(pick(100...40_000))
        var bytes = [UInt8](repeating: 0, count: size)
        var i = 0
        while i < size {
            var word = random.next()
            for _ in 0..<8 where i < size {
                bytes[i] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                i += 1
            }
        }
        return encoder.encode([.blob(bytes)])
    }
}
