import XCTest

@testable import GraniteStorage

/// A bank workload run through a ``SimulatedFileSystem`` by one "process" after another, recording
/// which commits were acknowledged, and the check of a post-crash disk against that record.
///
/// Each process opens the database by path (the first one creates it), commits transfers, sometimes
/// checkpoints, and closes (which checkpoints, empties and removes the log); the next process then
/// creates a new log. A power cut stops the run at the call where it happens: every later call of the
/// engine fails, as the process would die.
struct PowerLossWorkload {
    static let path = "/data/bank.granite"

    /// What the run acknowledged.
    struct Record {
        /// The balances after each committed transfer count (index 0: the bank as created).
        var states: [[Int64]] = []
        /// The highest transfer count whose commit returned; -1 before the bank's creation returned.
        var acknowledged = -1
        /// The balances of the transfer being committed when the power was cut, if one was.
        var inFlight: [Int64]?
        /// Whether the whole run finished without a power cut.
        var completed = false
    }

    let seed: UInt64
    let processes: Int
    let transfersPerProcess: Int
    let options: StorageOptions

    init(seed: UInt64, processes: Int = 3, transfersPerProcess: Int = 6, durability: Durability = .full) {
        self.seed = seed
        self.processes = processes
        self.transfersPerProcess = transfersPerProcess
        var rng = SplitMix64(seed: seed ^ 0x5eed)
        var options = StorageOptions()
        options.pageSize = 512
        options.cacheSize = 16
        options.durability = durability
        options.autoCheckpointFrames = 6 + Int(rng.next(below: 30))
        self.options = options
    }

    /// Runs the workload on `disk` until it ends or the power is cut, continuing `record`.
    func run(on disk: SimulatedFileSystem, continuing record: Record = Record()) -> Record {
        var record = record
        var rng = SplitMix64(seed: seed)
        for _ in 0..<processes {
            guard runProcess(on: disk, &rng, &record) else { return record }
        }
        record.completed = true
        return record
    }

    /// One process's life; false when the power was cut.
    private func runProcess(on disk: SimulatedFileSystem, _ rng: inout SplitMix64, _ record: inout Record) -> Bool {
        do {
            let engine = try StorageEngine(path: Self.path, options: options, fileSystem: disk)
            defer { try? engine.close() }
            try adoptSurvivingCommit(engine, &record)
            if record.acknowledged < 0 {
                try Bank.create(engine)
                record.states = [try Bank.state(engine).balances]
                record.acknowledged = 0
            }
            for _ in 0..<transfersPerProcess {
                let count = try Bank.transfer(engine, &rng, commit: false, bulk: rng.next(below: 6) == 0)
                record.inFlight = try Bank.state(engine).balances
                try engine.commit()
                record.states.append(record.inFlight!)
                record.inFlight = nil
                record.acknowledged = Int(count)
                switch rng.next(below: 8) {
                case 0: try engine.checkpoint(.passive)
                case 1: try engine.checkpoint(.truncate)
                default: break
                }
            }
            try engine.close()
            return !disk.isPowerCut
        } catch {
            XCTAssertTrue(disk.isPowerCut, "seed \(seed): an error without a power cut: \(error)")
            return false
        }
    }

    /// After a power cut, the commit that was in flight may have reached the disk although it was never
    /// acknowledged: a process that goes on from that disk goes on from that commit.
    private func adoptSurvivingCommit(_ engine: StorageEngine, _ record: inout Record) throws {
        try engine.ensureRead()
        guard try engine.treeInfo(named: "meta") != nil else { return }
        let (count, balances) = try Bank.state(engine)
        if Int(count) == record.states.count { record.states.append(balances) }
        record.acknowledged = Int(count)
        record.inFlight = nil
    }

    /// Opens the disk left by a power cut and checks it against `record`; returns the problems found
    /// (none when every acknowledged commit is there, nothing else is, and the file is sound).
    func check(_ disk: SimulatedFileSystem, against record: Record) -> [String] {
        let engine: StorageEngine
        do {
            engine = try StorageEngine(path: Self.path, options: options, fileSystem: disk)
        } catch {
            return ["the database does not open: \(error)"]
        }
        defer { try? engine.close() }
        var problems: [String] = []
        do {
            // At NORMAL a power cut may take the latest commits, never consistency.
            let keepsAcknowledged = options.durability == .full
            try engine.beginRead()
            guard try engine.treeInfo(named: "meta") != nil else {
                if record.acknowledged >= 0 && keepsAcknowledged { problems.append("the acknowledged bank is gone") }
                return problems
            }
            let (count, balances) = try Bank.state(engine)
            if Int(count) < record.acknowledged && keepsAcknowledged {
                problems.append("transfer \(record.acknowledged) was acknowledged, the disk holds \(count)")
            }
            if Int(count) >= record.states.count + 1 {
                problems.append("the disk holds transfer \(count), never attempted")
            } else if Int(count) < record.states.count, balances != record.states[Int(count)] {
                problems.append("the balances are not those committed by transfer \(count)")
            } else if Int(count) == record.states.count, let inFlight = record.inFlight, balances != inFlight {
                problems.append("the balances are not those of the transfer in flight")
            }
            if balances.reduce(0, +) != Int64(Bank.accounts) * Bank.initial {
                problems.append("the balances do not add up")
            }
        } catch {
            problems.append("reading the bank failed: \(error)")
        }
        let report = engine.checkIntegrity()
        problems += report.problems.prefix(3).map { "integrity: \($0)" }
        return problems
    }

    /// Cuts the power after each changing call of `run` in turn (on a new disk each time, until a run completes)
    /// and checks with `check` every disk each cut can leave (``crashStates(of:randomStates:_:)``, drawn from
    /// `seed`). Stops at the first problem and names it with the crash point and the disk's label.
    static func checkEveryCrashPoint(
        seed: UInt64, randomStates: Int, run: (SimulatedFileSystem) -> Record,
        check: (SimulatedFileSystem, Record) -> [String]
    ) -> (points: Int, states: Int, failure: String?) {
        var rng = SplitMix64(seed: seed)
        var checked = 0
        var point = 0
        while true {
            let disk = SimulatedFileSystem()
            disk.cutPower(afterOperations: point)
            let record = run(disk)
            if record.completed { return (point, checked, nil) }
            for (label, crashed) in crashStates(of: disk, randomStates: randomStates, &rng) {
                let problems = check(crashed, record)
                checked += 1
                if !problems.isEmpty { return (point, checked, "power cut after call \(point), \(label): \(problems)") }
            }
            point += 1
        }
    }

    /// The disks a power cut can leave at this moment: both models, nothing or everything unsynced
    /// kept, and `randomStates` random mixes (writes kept, dropped or torn, names kept or lost).
    static func crashStates(
        of disk: SimulatedFileSystem, randomStates: Int, _ rng: inout SplitMix64
    ) -> [(label: String, disk: SimulatedFileSystem)] {
        var states: [(String, SimulatedFileSystem)] = []
        for model in SimulatedFileSystem.CrashModel.allCases {
            states.append(("\(model) drop-unsynced", disk.crash(model, .dropUnsynced)))
            states.append(("\(model) keep-unsynced", disk.crash(model, .keepUnsynced)))
            for _ in 0..<randomStates {
                let seed = rng.next()
                states.append(("\(model) random(\(seed))", disk.crash(model, .random(seed: seed))))
            }
        }
        return states
    }
}
